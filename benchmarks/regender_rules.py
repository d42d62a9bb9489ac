"""Benchmark Study B's rule matching and rewriting on already-tagged segments.

Tags the project's hand-checked test segments once with the configured backend (spaCy here;
its throughput is printed separately), repeats them to ``--segments`` tagged segments, and times
(a) a naive matcher that tries every POS sequence of ``sequences.tsv`` as its own regular
expression, segment by segment, and (b) :meth:`RuleSet.decide` (one dict lookup on the joined
tags). Both must give identical decisions; prints segments/s and the ratio.

    python benchmarks/regender_rules.py [--segments 200000] [--backend spacy]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings

from cdaflow.regender.rules import FINAL, Decision, RuleSet, Segment
from cdaflow.regender.segments import tag_texts
from cdaflow.regender.tagset import TagMap
from cdaflow.regender.testsets import TEST_SETS, read_test_set
from cdaflow.text.parsing import ParserUnavailable, get_parser


class NaiveMatcher:
    """The simple baseline: every sequence a compiled regex, tried in file order."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.patterns = [
            (re.compile("^" + re.escape(sequence) + "$"), label, category)
            for sequence, (label, category) in rules.sequences.items()
        ]

    def decide(self, segment: Segment) -> Decision:
        if segment.n_words > self.rules.max_words:
            return self.rules.decide(segment)
        tags = "-".join(segment.tags)
        if segment.tags[-1:] != (FINAL,):
            tags += "-" + FINAL
        vcl = re.search(r"(^|-)VCL(-|$)", tags) or any(
            t == "Vinf" and w.lower().endswith(("lo", "la", "los", "las"))
            for w, t in zip(segment.tokens, segment.tags)
        )
        candidates = (tags, tags.replace("VMfin", "Vfin"))
        if vcl or any(pattern.match(key) for key in candidates for pattern, _, _ in self.patterns):
            return self.rules.decide(segment)  # the same rewriting once a pattern matched
        return Decision(None, None, tags, "sequence not covered by the rules")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=200_000)
    parser.add_argument("--backend", default="spacy")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*W095.*")
    texts = [row.segment for path in TEST_SETS.values() for row in read_test_set(path)]
    try:
        backend = get_parser(args.backend, "es")
    except ParserUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    tagmap, rules = TagMap.load(), RuleSet.load()
    start = time.perf_counter()
    tagged = list(tag_texts(backend, texts, tagmap))
    tagging = time.perf_counter() - start
    corpus = [tagged[i % len(tagged)] for i in range(args.segments)]
    naive = NaiveMatcher(rules)

    def best(fn) -> tuple[float, list[Decision]]:
        times, out = [], []
        for _ in range(args.repeats):
            begin = time.perf_counter()
            out = [fn(segment) for segment in corpus]
            times.append(time.perf_counter() - begin)
        return min(times), out

    t_naive, naive_out = best(naive.decide)
    t_fast, fast_out = best(rules.decide)
    assert naive_out == fast_out, "the naive matcher and RuleSet.decide disagree"
    labels = {label: sum(d.label == label for d in fast_out) for label in ("G", "N", None)}
    print(f"{len(texts)} distinct test segments tagged by {args.backend} in {tagging:.2f} s "
          f"({len(texts) / tagging:,.0f} segments/s, tagging measured once)")
    print(f"{len(corpus):,} tagged segments ({labels['G']:,} G, {labels['N']:,} N, {labels[None]:,} not covered), "
          f"{len(rules.sequences)} sequences, best of {args.repeats}, one core")
    print(f"naive per-pattern regex loop : {len(corpus) / t_naive:12,.0f} segments/s")
    print(f"RuleSet.decide (dict lookup) : {len(corpus) / t_fast:12,.0f} segments/s")
    print(f"speed-up                     : {t_naive / t_fast:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
