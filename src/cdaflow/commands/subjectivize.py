"""`cdaflow subjectivize`: subjective variants of objective sentences, judged as GAP-Subjective's are (Study C)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cdaflow.commands.options import torch_device
from cdaflow.io.text import read_lines


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
    )
    parser.add_argument(
        "--model",
        type=Path,
        required=True,
        help="a subjectivizer folder with manifest.json (results/gap_subjective/subjectivizer)",
    )
    parser.add_argument("--input", type=Path, help="one sentence a line (default: standard input)")
    parser.add_argument("--device", type=torch_device, default="cpu", help="torch device (cpu, cuda, cuda:N)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cdaflow.gap_subjective.subjectivizer import Subjectivizer

    if args.input is not None and not args.input.is_file():
        raise FileNotFoundError(f"--input {args.input}: no such file")
    subjectivizer = Subjectivizer.load(args.model, device=args.device)
    sentences = [" ".join(line.split()) for line in read_lines(args.input) if line.strip()]
    if not sentences:
        return 0
    table = subjectivizer.run(sentences)
    for row in table.to_dict("records"):
        record = {
            "original": row["original"],
            "transferred": row["transferred"],
            "gleu": round(float(row["gleu"]), 4),
            "ppl_original": round(float(row["ppl_original"]), 2),
            "ppl_transferred": round(float(row["ppl_transferred"]), 2),
            "p_subjective": round(float(row["p_subjective"]), 4),
            "within_gleu": bool(row["within_gleu"]),
            "within_perplexity": bool(row["within_perplexity"]),
            "objective": bool(row["objective"]),
            "verdict": "kept" if row["kept"] else "discarded",
        }
        print(json.dumps(record, ensure_ascii=False))
    return 0
