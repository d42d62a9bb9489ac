"""`cdaflow regender`: the other-gender variant of short Spanish segments (Study B)."""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    announce_model,
    example_epilog,
    output,
    progress,
    refuse_inapplicable,
    text_lines,
)
from cdaflow.commands.options import positive_int, processes
from cdaflow.text.parsing import BACKENDS

LANGUAGES = ("es",)
METHODS = ("rules", "nmt")
# Segments per sockeye-translate call: each call pays the model's start-up once.
NMT_CHUNK = 5000
EXAMPLES = """\
  echo "¿Estás listo?" | cdaflow regender --lang es
  echo "Gracias, estoy encantado." | cdaflow regender --lang es --sequences paper
  cdaflow regender --lang es --input segmentos.txt --output segmentos.jsonl
  cdaflow regender --lang es --method nmt --model results/regender/es/rewriter/nmt --input segmentos.txt
"""
FORMATS = """\
  input  UTF-8, one short segment (a subtitle line, at most ~10 words) a line.
  output one JSON object a line, one per input line (a blank line gives an empty record):
           {"line": 1, "original": "¿Estás listo?", "variant": "¿Estás lista?", "label": "G",
            "changes": [{"from": "listo", "to": "lista"}], "sequence": "..."}
         label: G (re-genderable; variant is the other gender), N (neutral; variant = original)
         or null (rules: a sequence the rules do not cover; variant = original).
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "regender",
        help="gender variants of short conversational segments (Study B)",
        description=(
            "Print every input segment (one a line) with its gender variant, or unchanged when it is "
            "neutral, as JSON lines (Jain et al. 2021). --method rules tags with --backend and applies "
            "the POS-sequence rules; --method nmt runs a Sockeye rewriter trained by the workflow."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument("--lang", required=True, choices=LANGUAGES)
    parser.add_argument("--method", choices=METHODS, default="rules", help="default: rules")
    parser.add_argument(
        "--model", type=Path,
        help="nmt: a rewriter folder (results/regender/es/rewriter/nmt) holding model/ and ../bpe.model; "
             "rules: a rules folder (default resources/regender/es)",
    )
    parser.add_argument(
        "--sequences", choices=("extended", "paper"),
        help="rules: the paper's POS sequences alone, or with the project's extension for everyday chat "
             "(default: extended; resources/regender/es/README.md)",
    )
    add_input_arguments(parser, "one segment a line")
    add_output_argument(parser, "JSON lines file")
    parser.add_argument(
        "--backend", choices=sorted(set(BACKENDS) - {"gold"}), help="rules: the tagger (default: spacy)"
    )
    parser.add_argument(
        "--tag", choices=("N", "G"),
        help="nmt with a tagged model (rewriter/nmt_t): the tag every segment gets (G: re-genderable)",
    )
    parser.add_argument("--beam-size", type=positive_int, help="nmt: beam size (default: 5)")
    parser.add_argument(
        "--processes", type=processes, default=1,
        help="rules: parser worker processes (spacy backend; default: 1)",
    )
    parser.set_defaults(run=run)


def _changed_words(original: str, variant: str) -> list[dict[str, str]]:
    from difflib import SequenceMatcher

    from cdaflow.regender.errors import tokens

    a, b = tokens(original), tokens(variant)
    return [
        {"from": " ".join(a[i1:i2]), "to": " ".join(b[j1:j2])}
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def _blank(number: int, line: str) -> dict:
    return {"line": number, "original": line, "variant": line, "label": None, "changes": []}


def run(args: argparse.Namespace) -> int:
    nmt = args.method == "nmt"
    refuse_inapplicable(
        args,
        [
            ("--tag", args.tag is not None and not nmt, "to --method rules (tags are for a tagged nmt model)"),
            ("--beam-size", args.beam_size is not None and not nmt, "to --method rules"),
            ("--backend", args.backend is not None and nmt, "to --method nmt (the rewriter reads raw text)"),
            ("--sequences", args.sequences is not None and nmt, "to --method nmt (the rules' sequence set)"),
            ("--processes", args.processes != 1 and nmt,
             "to --method nmt (the rewriter runs Sockeye on one process)"),
        ],
    )
    if nmt and args.model is None:
        raise ValueError("--method nmt needs --model (e.g. results/regender/es/rewriter/nmt)")
    if nmt:
        _check_rewriter(args)
    lines = text_lines(args, "regender", what="one segment a line")
    records = _nmt(args, lines) if nmt else _rules(args, lines)
    with output(args) as out:
        for record in progress(records, args, line_of=lambda record: record["line"]):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def _rules(args: argparse.Namespace, lines) -> Iterator[dict]:
    from cdaflow.regender.rules import DEFAULT_RULES_DIR, RuleSet
    from cdaflow.regender.segments import tag_texts
    from cdaflow.regender.tagset import TagMap
    from cdaflow.text.parsing import get_parser

    folder = args.model or DEFAULT_RULES_DIR
    if not Path(folder).is_dir():
        raise FileNotFoundError(f"--model {folder}: no such rules folder (the default is {DEFAULT_RULES_DIR})")
    rules = RuleSet.load(folder, args.sequences or "extended")
    tagmap = TagMap.load(Path(folder) / "tagset_map.tsv")
    parser = get_parser(args.backend or "spacy", args.lang, processes=args.processes)
    # Streamed: the tee holds only the lines the parser has read ahead of its output.
    for_records, for_tagger = itertools.tee(lines)
    segments = tag_texts(parser, (line for _, line in for_tagger if line.strip()), tagmap, batch_size=256)
    for number, line in for_records:
        if not line.strip():
            yield _blank(number, line)
            continue
        segment = next(segments)
        decision = rules.decide(segment)
        yield {
            "line": number, "original": line,
            "variant": decision.variant if decision.label == "G" else line,
            "label": decision.label,
            "changes": [{"from": c.old, "to": c.new} for c in decision.changes],
            "sequence": decision.sequence,
        }


def _check_rewriter(args: argparse.Namespace) -> None:
    """The rewriter folder's files, card and tag use, checked before any input is read."""
    model, bpe = args.model / "model", args.model.parent / "bpe.model"
    if not args.model.is_dir():
        raise FileNotFoundError(f"--model {args.model}: no such folder (e.g. results/regender/es/rewriter/nmt)")
    for path, what in ((model / "params.best", "a trained Sockeye model"), (bpe, "the BPE model")):
        if not path.exists():
            raise FileNotFoundError(f"--model {args.model}: {path} missing ({what})")
    with open(model / "params.best", "rb") as handle:
        if not handle.read(4).startswith((b"PK\x03\x04", b"\x80")):  # torch.save's zip, or a legacy pickle
            raise ValueError(f"{model / 'params.best'}: not a Sockeye parameter file (torch.save format)")
    card = announce_model("regender", model, "regender-nmt", lang=args.lang, option="--model")
    if card is not None:
        tagged = bool(card.get("tagged"))
        if tagged and args.tag is None:
            raise ValueError(f"--model {args.model}: a tagged rewriter (nmt_t); give --tag G or --tag N")
        if not tagged and args.tag is not None:
            raise ValueError(f"--tag does not apply to --model {args.model}: it was trained without tags")


def _reason(error: Exception) -> str:
    """The exception line of a failed tool's output (its traceback's last ``SomeError: ...``)."""
    import re

    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception)\b:?", line):
            return line[:300]
    return lines[-1][:300] if lines else "no output"


def _nmt(args: argparse.Namespace, lines) -> Iterator[dict]:
    from cdaflow.regender.rewriter import SockeyeError, add_tags, apply_bpe, remove_bpe, run_sockeye

    model, bpe = args.model / "model", args.model.parent / "bpe.model"
    try:
        apply_bpe(bpe, ["hola"])
    except (OSError, RuntimeError) as error:
        raise ValueError(f"{bpe}: not a SentencePiece model ({' '.join(str(error).split())[:200]})") from None
    beam = args.beam_size or 5
    lines = iter(lines)
    for chunk in iter(lambda: list(itertools.islice(lines, NMT_CHUNK)), []):
        texts = [" ".join(line.split()) for _, line in chunk if line.strip()]
        variants = iter([])
        if texts:
            sources = add_tags(texts, [args.tag] * len(texts)) if args.tag else texts
            with tempfile.TemporaryDirectory() as work:
                source, translated = Path(work) / "input.bpe", Path(work) / "output.bpe"
                source.write_text("".join(line + "\n" for line in apply_bpe(bpe, sources)), encoding="utf-8")
                try:
                    run_sockeye("sockeye-translate", ["--models", model, "--input", source, "--output", translated,
                                                      "--beam-size", beam, "--use-cpu"])
                except SockeyeError as error:
                    raise RuntimeError(f"--model {args.model}: sockeye-translate failed: {_reason(error)}") from None
                variants = iter(remove_bpe(bpe, translated.read_text(encoding="utf-8").splitlines()))
        for number, line in chunk:
            if not line.strip():
                yield _blank(number, line)
                continue
            text, variant = " ".join(line.split()), next(variants)
            label = "N" if variant == text else "G"
            yield {"line": number, "original": line, "variant": line if label == "N" else variant, "label": label,
                   "changes": _changed_words(text, variant)}
