"""`cdaflow subjectivize`: subjective variants of objective sentences, judged as GAP-Subjective's are (Study C)."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
from pathlib import Path

from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    announce_model,
    example_epilog,
    output,
    progress,
    text_lines,
)
from cdaflow.commands.options import batch_size, torch_device

EXAMPLES = """\
  echo "The senator spoke at the meeting." \\
    | cdaflow subjectivize --model results/gap_subjective/subjectivizer
  cdaflow subjectivize --model results/gap_subjective/subjectivizer --input sentences.txt --output out.jsonl
"""
FORMATS = """\
  input  UTF-8, one English sentence a line.
  output one JSON object a line, one per input line (a blank line gives a record of nulls):
           {"line": 1, "original": ..., "transferred": ..., "gleu": 0.86, "ppl_original": ...,
            "ppl_transferred": ..., "p_subjective": 0.31, "within_gleu": true,
            "within_perplexity": true, "objective": true, "verdict": "kept"}
         verdict: kept when all three thresholds of Pant & Dadu (2022) §3.2.3 pass, else discarded.
"""
_SENTENCE_INDEX = re.compile(r"^sentences\[(\d+)\]: ")


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "subjectivize",
        help="transfer sentences to a subjective style and threshold them (Study C)",
        description=(
            "Transfer each input sentence (one a line) with the workflow's copy-attention model and print it "
            "as a JSON line with its thresholding scores (GLEU against the original, both perplexities, the "
            "detector's P(subjective) of the original) and the verdict: kept when all three thresholds of "
            "Pant & Dadu (2022) §3.2.3 pass."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument(
        "--model",
        type=Path,
        required=True,
        help="a subjectivizer folder with manifest.json (results/gap_subjective/subjectivizer)",
    )
    add_input_arguments(parser, "one sentence a line")
    add_output_argument(parser, "JSON lines file")
    parser.add_argument("--device", type=torch_device, default="cpu", help="torch device (cpu, cuda, cuda:N)")
    parser.add_argument(
        "--batch-size", type=batch_size, default=256,
        help="sentences transferred and scored at once (default: 256)",
    )
    parser.set_defaults(run=run)


def _blank(number: int, line: str) -> dict:
    return {"line": number, "original": line, "transferred": None, "gleu": None, "ppl_original": None,
            "ppl_transferred": None, "p_subjective": None, "within_gleu": None, "within_perplexity": None,
            "objective": None, "verdict": None}


def _number(value, digits: int) -> float | None:
    """A rounded float, None for an infinite or undefined one (JSON has no Infinity: an empty
    transfer has an infinite perplexity)."""
    value = float(value)
    return round(value, digits) if math.isfinite(value) else None


def run(args: argparse.Namespace) -> int:
    from cdaflow.gap_subjective.subjectivizer import Subjectivizer

    if not args.model.is_dir():
        raise FileNotFoundError(f"--model {args.model}: no such folder (the workflow writes "
                                "results/gap_subjective/subjectivizer)")
    announce_model("subjectivize", args.model, "subjectivizer")
    lines = text_lines(args, "subjectivize")
    subjectivizer = Subjectivizer.load(args.model, device=args.device)
    chunks = iter(lambda: list(itertools.islice(lines, args.batch_size)), [])
    records = (record for chunk in chunks for record in _records(subjectivizer, chunk, args))
    with output(args) as out:
        for record in progress(records, args, line_of=lambda record: record["line"]):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _records(subjectivizer, chunk: list[tuple[int, str]], args: argparse.Namespace) -> list[dict]:
    kept = [(number, line) for number, line in chunk if line.strip()]
    # The models read whitespace runs as one space; "original" stays as the line was given.
    sentences = [" ".join(line.split()) for _, line in kept]
    rows = iter([])
    if sentences:
        try:
            rows = iter(subjectivizer.run(sentences).to_dict("records"))
        except ValueError as error:  # a scorer names the sentence by its index in the batch
            found = _SENTENCE_INDEX.match(str(error))
            if not found:
                raise
            number = kept[int(found.group(1))][0]
            name = args.input if args.input is not None else "<stdin>"
            raise ValueError(f"{name}:{number}: {_SENTENCE_INDEX.sub('', str(error))}") from None
    records = []
    for number, line in chunk:
        if not line.strip():
            records.append(_blank(number, line))
            continue
        row = next(rows)
        records.append({
            "line": number,
            "original": line,
            "transferred": row["transferred"],
            "gleu": _number(row["gleu"], 4),
            "ppl_original": _number(row["ppl_original"], 2),
            "ppl_transferred": _number(row["ppl_transferred"], 2),
            "p_subjective": _number(row["p_subjective"], 4),
            "within_gleu": bool(row["within_gleu"]),
            "within_perplexity": bool(row["within_perplexity"]),
            "objective": bool(row["objective"]),
            "verdict": "kept" if row["kept"] else "discarded",
        })
    return records
