"""Study B chat challenge: exact match of the POS-sequence rules on the project's chat lines.

Reads ``tests/regender/challenge/chat.tsv`` (id, label, kind, segment, variant, note), runs the
same pipeline as ``cdaflow regender --lang es`` (the spaCy tagger, the tagset map and the rules of
a rules folder, with the chosen sequence set) and prints exact match overall, per gold label and
per kind, and how many neutral (N) lines the rules changed. A line is exactly right when the
output equals one of its gold variants (for N: the line itself, unchanged).

    python benchmarks/regender_challenge.py [--sequences extended|paper] [--rules resources/regender/es]
        [--file tests/regender/challenge/chat.tsv] [--misses]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHALLENGE = ROOT / "tests" / "regender" / "challenge" / "chat.tsv"


def outputs(texts: list[str], rules_dir: Path, sequences: str, backend: str) -> list[tuple[str, object]]:
    """(variant printed by the command, the rules' decision) for every text, in order."""
    from cdaflow.regender.rules import RuleSet
    from cdaflow.regender.segments import tag_texts
    from cdaflow.regender.tagset import TagMap
    from cdaflow.text.parsing import get_parser

    rules, tagmap = RuleSet.load(rules_dir, sequences=sequences), TagMap.load(rules_dir / "tagset_map.tsv")
    parser = get_parser(backend, "es")
    out = []
    for text, segment in zip(texts, tag_texts(parser, texts, tagmap), strict=True):
        decision = rules.decide(segment)
        out.append((decision.variant if decision.label == "G" else text, decision))
    return out


def score(rows, predictions: list[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """{"label": {G, N, all: (exact, n)}, "kind": {kind: (exact, n)}}."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row, predicted in zip(rows, predictions, strict=True):
        right = predicted in row.variants
        for key in (("label", row.label), ("label", "all"), ("kind", row.kind or "-")):
            counts[key][0] += right
            counts[key][1] += 1
    table: dict[str, dict[str, tuple[int, int]]] = {"label": {}, "kind": {}}
    for group, name in sorted(counts, key=lambda k: (k[0], k[1] == "all", k[1])):
        table[group][name] = tuple(counts[(group, name)])  # type: ignore[assignment]
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=CHALLENGE, help="challenge TSV (default: %(default)s)")
    parser.add_argument("--rules", type=Path, default=ROOT / "resources" / "regender" / "es", help="rules folder")
    parser.add_argument("--sequences", choices=("extended", "paper"), default="extended",
                        help="the paper's POS sequences only, or the project's extension too (default: extended)")
    parser.add_argument("--backend", default="spacy")
    parser.add_argument("--misses", action="store_true", help="print every line that is not exactly right")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*W095.*")

    from cdaflow.regender.testsets import read_test_set
    from cdaflow.text.parsing import ParserUnavailable

    try:
        rows = read_test_set(args.file)
        results = outputs([row.segment for row in rows], args.rules, args.sequences, args.backend)
    except ParserUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    except (OSError, ValueError) as exc:  # a malformed file names its line and field
        print(f"regender_challenge.py: error: {exc}", file=sys.stderr)
        return 2
    predictions = [variant for variant, _ in results]
    table = score(rows, predictions)
    neutral_changed = sum(row.label == "N" and predicted != row.segment for row, predicted in zip(rows, predictions))
    print(f"{args.file.name}: {len(rows)} lines, rules {args.rules} ({args.sequences} sequences), "
          f"backend {args.backend}")
    for group in ("label", "kind"):
        print(f"{group:<14} {'exact':>5} / {'n':<3}    %")
        for name, (exact, total) in table[group].items():
            print(f"{name:<14} {exact:>5} / {total:<3} {100 * exact / total:5.1f}")
    print(f"neutral lines changed: {neutral_changed} / {table['label'].get('N', (0, 0))[1]}")
    if args.misses:
        for row, (predicted, decision) in zip(rows, results):
            if predicted not in row.variants:
                print(f"  {row.id} [{row.label} {row.kind}] {row.segment}\n    got  {predicted}"
                      f"\n    gold {' || '.join(row.variants)}\n    tags {decision.sequence} ({decision.reason})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
