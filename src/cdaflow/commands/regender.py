"""`cdaflow regender`: the other-gender variant of short Spanish segments (Study B)."""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from cdaflow.commands.options import positive_int
from cdaflow.io.text import read_lines
from cdaflow.text.parsing import BACKENDS

LANGUAGES = ("es",)
METHODS = ("rules", "nmt")


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "regender",
        help="gender variants of short conversational segments (Study B)",
        description=(
            "Print every input segment (one a line) with its gender variant, or unchanged when it is "
            "neutral, as JSON lines: original, variant, label (G, N, or null where the rules do not "
            "apply) and the changed words. --method rules tags with --backend and applies the POS-"
            "sequence rules; --method nmt runs a Sockeye rewriter trained by the workflow."
        ),
    )
    parser.add_argument("--lang", required=True, choices=LANGUAGES)
    parser.add_argument("--method", choices=METHODS, default="rules")
    parser.add_argument(
        "--model", type=Path,
        help="nmt: a rewriter folder (results/regender/es/rewriter/nmt) holding model/ and ../bpe.model; "
             "rules: a rules folder (default resources/regender/es)",
    )
    parser.add_argument(
        "--sequences", choices=("extended", "paper"), default="extended",
        help="rules: the paper's POS sequences alone, or with the project's extension for everyday chat "
             "(default: extended; resources/regender/es/README.md)",
    )
    parser.add_argument("--input", type=Path, help="one segment a line (default: standard input)")
    parser.add_argument("--backend", choices=sorted(set(BACKENDS) - {"gold"}), default="spacy")
    parser.add_argument("--tag", choices=("N", "G"), help="nmt with a tagged model (nmt_t): the tag to add")
    parser.add_argument("--beam-size", type=positive_int, default=5, help="nmt: beam size (default: 5)")
    parser.add_argument(
        "--processes", type=positive_int, default=1,
        help="rules: parser worker processes (spacy backend; default: 1)",
    )
    parser.set_defaults(run=run)


def _segments(args: argparse.Namespace) -> Iterator[str]:
    """The input's non-blank lines, whitespace runs collapsed, streamed."""
    if args.input is not None and not args.input.is_file():
        raise FileNotFoundError(f"--input {args.input}: no such file")
    return (" ".join(line.split()) for line in read_lines(args.input) if line.strip())


def _changed_words(original: str, variant: str) -> list[dict[str, str]]:
    from difflib import SequenceMatcher

    from cdaflow.regender.errors import tokens

    a, b = tokens(original), tokens(variant)
    return [
        {"from": " ".join(a[i1:i2]), "to": " ".join(b[j1:j2])}
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def run(args: argparse.Namespace) -> int:
    segments = _segments(args)
    if args.method == "rules":
        from cdaflow.regender.rules import DEFAULT_RULES_DIR, RuleSet
        from cdaflow.regender.segments import tag_texts
        from cdaflow.regender.tagset import TagMap
        from cdaflow.text.parsing import get_parser

        folder = args.model or DEFAULT_RULES_DIR
        rules, tagmap = RuleSet.load(folder, args.sequences), TagMap.load(Path(folder) / "tagset_map.tsv")
        parser = get_parser(args.backend, args.lang, processes=args.processes)
        # Streamed: the tee holds only the segments the parser has read ahead of its output.
        texts, to_tag = itertools.tee(segments)
        for text, segment in zip(texts, tag_texts(parser, to_tag, tagmap, batch_size=256), strict=True):
            decision = rules.decide(segment)
            variant = decision.variant if decision.label == "G" else text
            record = {"original": text, "variant": variant, "label": decision.label,
                      "changes": [{"from": c.old, "to": c.new} for c in decision.changes],
                      "sequence": decision.sequence}
            print(json.dumps(record, ensure_ascii=False))
        return 0

    from cdaflow.regender.rewriter import add_tags, apply_bpe, remove_bpe, run_sockeye

    if args.model is None:
        raise ValueError("--method nmt needs --model (e.g. results/regender/es/rewriter/nmt)")
    if args.processes != 1:
        raise ValueError("--processes applies to --method rules (the nmt rewriter runs Sockeye on one process)")
    segments = list(segments)
    model, bpe = args.model / "model", args.model.parent / "bpe.model"
    for path, what in ((model / "params.best", "a trained Sockeye model"), (bpe, "the BPE model")):
        if not path.exists():
            raise FileNotFoundError(f"--model {args.model}: {path} missing ({what})")
    sources = add_tags(segments, [args.tag] * len(segments)) if args.tag else segments
    with tempfile.TemporaryDirectory() as work:
        source, output = Path(work) / "input.bpe", Path(work) / "output.bpe"
        source.write_text("".join(line + "\n" for line in apply_bpe(bpe, sources)), encoding="utf-8")
        run_sockeye("sockeye-translate", ["--models", model, "--input", source, "--output", output,
                                          "--beam-size", args.beam_size, "--use-cpu"])
        variants = remove_bpe(bpe, output.read_text(encoding="utf-8").splitlines())
    for text, variant in zip(segments, variants, strict=True):
        label = "N" if variant == text else "G"
        record = {"original": text, "variant": variant, "label": label, "changes": _changed_words(text, variant)}
        print(json.dumps(record, ensure_ascii=False))
    return 0
