"""Benchmark Study B's rule matching and rewriting on already-tagged segments.

Tags the project's hand-checked test segments and chat challenge lines once with the configured
backend (spaCy here; its throughput is printed separately), repeats them to ``--segments`` tagged
segments, and times (a) a naive matcher that tries every POS sequence of the paper's
``sequences.tsv`` as its own regular expression, segment by segment, (b) :meth:`RuleSet.decide`
with the paper's sequences (one dict lookup on the joined tags; (a) and (b) must give identical
decisions), and (c) :meth:`RuleSet.decide` with the extended set (filler chunks, the extension's
patterns as one regex cached per tag string), once with its cache and once without (every tag
string matched afresh, as on a corpus whose sequences never repeat). Prints segments/s and ratios.

    python benchmarks/regender_rules.py [--segments 200000] [--backend spacy]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from pathlib import Path

from cdaflow.regender.rules import RuleSet
from cdaflow.regender.segment_types import FINAL, Decision, Segment
from cdaflow.regender.segments import tag_texts
from cdaflow.regender.tagset import TagMap
from cdaflow.regender.testsets import TEST_SETS, read_test_set
from cdaflow.text.parsing import ParserUnavailable, get_parser

CHALLENGE = Path(__file__).resolve().parents[1] / "tests" / "regender" / "challenge" / "chat.tsv"


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
    texts = [row.segment for path in (*TEST_SETS.values(), CHALLENGE) for row in read_test_set(path)]
    try:
        backend = get_parser(args.backend, "es")
    except ParserUnavailable as exc:
        print(f"skipped: {exc}")
        return 0
    tagmap, rules, extended = TagMap.load(), RuleSet.load(sequences="paper"), RuleSet.load(sequences="extended")
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
    t_extended, extended_out = best(extended.decide)
    cached = extended._match_cached
    extended._match_cached = extended._match  # no cache: every tag string matched afresh
    try:
        t_uncached, uncached_out = best(extended.decide)
    finally:
        extended._match_cached = cached
    assert uncached_out == extended_out

    def counts(decisions) -> str:
        labels = {label: sum(d.label == label for d in decisions) for label in ("G", "N", None)}
        return f"{labels['G']:,} G, {labels['N']:,} N, {labels[None]:,} not covered"

    print(f"{len(texts)} distinct segments tagged by {args.backend} in {tagging:.2f} s "
          f"({len(texts) / tagging:,.0f} segments/s, tagging measured once)")
    print(f"{len(corpus):,} tagged segments, best of {args.repeats}, one core")
    print(f"  paper sequences ({len(rules.sequences)}): {counts(fast_out)}")
    print(f"  extended ({len(extended.sequences)} sequences, {len(extended.patterns)} patterns): "
          f"{counts(extended_out)}")
    print(f"naive per-pattern regex loop, paper     : {len(corpus) / t_naive:12,.0f} segments/s")
    print(f"RuleSet.decide, paper (dict lookup)     : {len(corpus) / t_fast:12,.0f} segments/s")
    print(f"RuleSet.decide, extended                : {len(corpus) / t_extended:12,.0f} segments/s")
    print(f"RuleSet.decide, extended, no match cache: {len(corpus) / t_uncached:12,.0f} segments/s")
    print(f"speed-up of paper decide over naive     : {t_naive / t_fast:8.1f}x")
    print(f"extended / paper decide time            : {t_extended / t_fast:8.1f}x "
          f"({t_uncached / t_fast:.1f}x without the cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
