"""Candidate segments from a monolingual subtitle corpus, and the gender-parallel corpus (§4).

Candidates (:func:`normalise`): whitespace collapsed, a leading dialogue dash removed, and
dropped when longer than ``max_words`` untokenized words (10 in the paper) or without a single
letter or digit ("removing too long and non-alpha numeric segments").

Sharding (:func:`shard_corpus`) streams the corpus once, in constant memory, into ``n`` shard
files by a stable hash of the normalised segment, so exact duplicates meet in the same shard; each
shard's own job drops them (:func:`unique_lines`, memory ``1/n`` of the corpus).

The parallel corpus (:func:`parallel_pairs`, :func:`split_pairs`): every re-genderable segment
gives two pairs, original → variant and variant → original ("we joined both re-gendering
directions"), every neutral segment one pair with source = target; neutral pairs are sampled down
to ``neutral_ratio`` times the re-genderable ones (the paper: 1.15M neutral, 1.05M re-genderable),
and segments of the hand-checked test sets are left out so that no test segment is trained on.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.text import open_text

__all__ = [
    "ParallelPair",
    "corpus_stats",
    "normalise",
    "parallel_pairs",
    "shard_corpus",
    "shard_of",
    "split_pairs",
    "unique_lines",
]

DIALOGUE_DASHES = ("- ", "– ", "— ")


def normalise(line: str, max_words: int = 10) -> str | None:
    """The candidate segment of one corpus line, or None when it is filtered out."""
    text = " ".join(line.split())
    for dash in DIALOGUE_DASHES:
        if text.startswith(dash):
            text = text[len(dash) :]
    if not text or len(text.split()) > max_words:
        return None
    if not any(char.isalnum() for char in text):
        return None
    return text


def shard_of(segment: str, n_shards: int) -> int:
    """Stable shard index of a segment (blake2b of its UTF-8 bytes, not Python's salted hash)."""
    digest = hashlib.blake2b(segment.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") % n_shards


@dataclass
class ShardCounts:
    lines: int = 0
    kept: int = 0
    too_long_or_empty: int = 0


def shard_corpus(sources: Iterable[str | Path], outputs: Sequence[str | Path], *, max_words: int = 10) -> ShardCounts:
    """Normalise, filter and shard every line of `sources` into the files `outputs` (atomically)."""
    counts = ShardCounts()
    n = len(outputs)
    if n < 1:
        raise ValueError("at least one output shard is needed")
    with ExitStack() as stack:
        handles = [stack.enter_context(atomic_file(path, "w", encoding="utf-8")) for path in outputs]
        for source in sources:
            with open_text(source, errors="replace") as lines:  # subtitles have a few broken bytes
                for line in lines:
                    counts.lines += 1
                    segment = normalise(line, max_words)
                    if segment is None:
                        counts.too_long_or_empty += 1
                        continue
                    handles[shard_of(segment, n)].write(segment + "\n")
                    counts.kept += 1
    return counts


def unique_lines(path: str | Path) -> tuple[list[str], int]:
    """The distinct non-empty lines of one shard in first-seen order, and how many repeats were dropped."""
    lines = list(iter_lines(path))
    unique = list(dict.fromkeys(lines))
    return unique, len(lines) - len(unique)


@dataclass(frozen=True)
class ParallelPair:
    source: str
    target: str
    label: str  # "G" (re-genderable) or "N" (neutral)
    gendered: bool = False  # the parser saw a gender-agreeing word in the source segment


Decisions = Iterable[tuple[str, str | None, str | None, bool]]


def _neutral_key(seed: int, segment: str, gendered: bool) -> bytes:
    """A neutral pair's sampling key: a seeded hash, so that a repeated pair draws the same key."""
    salt = seed.to_bytes(8, "little", signed=True)
    return hashlib.blake2b(f"{int(gendered)}{segment}".encode(), digest_size=8, key=salt).digest()


def parallel_pairs(
    decisions: Decisions | Callable[[], Decisions],
    *,
    neutral_ratio: float = 1.0,
    exclude: Iterable[str] = (),
    seed: int = 0,
) -> tuple[list[ParallelPair], dict[str, int]]:
    """Pairs from ``(segment, label, variant, gendered)`` rule decisions; counts of what was kept and dropped.

    A variant inherits its original's `gendered` flag (the rules change a word's gender, not
    whether it has one).

    How many neutral pairs are kept (``neutral_ratio`` × the re-genderable pairs) is known only once
    every decision has been read, so the decisions are read twice: the first pass keeps the
    re-genderable pairs, the second samples the distinct neutral pairs down to that number while
    streaming (bottom-k of a seeded hash of each pair: a uniform sample of the distinct pairs, holding
    at most k of them) instead of holding every neutral segment. Pass a function returning a fresh
    iterator (a file reader) to stream; any other iterable is read into a list first. Kept neutral pairs
    stay in their order of first appearance, so that where none is dropped the result is that of
    keeping them all. ``neutral_dropped`` counts the neutral rows left out (a repeat of a left-out pair
    counts again: telling it from a new pair would mean holding every pair; the workflow's shards hold
    no repeats).
    """
    if callable(decisions):
        read: Callable[[], Decisions] = decisions
    else:
        held = decisions if isinstance(decisions, Sequence) else list(decisions)

        def read() -> Decisions:
            return held

    excluded = set(exclude)
    regenderable: dict[ParallelPair, None] = {}  # a dict, not a set: first-seen order
    counts = {"uncovered": 0, "test_overlap": 0}
    for segment, label, variant, gendered in read():
        if label is None:
            counts["uncovered"] += 1
            continue
        if segment in excluded or (variant is not None and variant in excluded):
            counts["test_overlap"] += 1
            continue
        if label == "G":
            if variant is None or variant == segment:
                raise ValueError(f"re-genderable segment without a different variant: {segment!r}")
            # Two directions of one G segment may meet again as another segment's pair: keep one each.
            regenderable[ParallelPair(segment, variant, "G", gendered)] = None
            regenderable[ParallelPair(variant, segment, "G", gendered)] = None
        elif label != "N":
            raise ValueError(f"unknown label {label!r} for {segment!r}")
    keep = int(round(neutral_ratio * len(regenderable)))
    # Max-heap (negated keys) of the k smallest keys: (key, first position, pair).
    heap: list[tuple[bytes, int, ParallelPair]] = []
    held_pairs: set[ParallelPair] = set()
    unkept = 0  # neutral rows not kept (repeats of a kept pair excluded)
    for position, (segment, label, variant, gendered) in enumerate(read()):
        if label != "N" or segment in excluded or (variant is not None and variant in excluded):
            continue
        pair = ParallelPair(segment, segment, "N", gendered)
        if pair in held_pairs:
            continue
        key = bytes(255 - b for b in _neutral_key(seed, segment, gendered))  # negated: heapq is a min-heap
        if len(heap) < keep:
            heapq.heappush(heap, (key, position, pair))
            held_pairs.add(pair)
        elif heap and key > heap[0][0]:  # a smaller hash than the largest kept: it takes that one's place
            dropped = heapq.heapreplace(heap, (key, position, pair))[2]
            held_pairs.discard(dropped)
            held_pairs.add(pair)
            unkept += 1
        else:
            unkept += 1
    neutral = [pair for _, _, pair in sorted(heap, key=lambda item: item[1])]
    if unkept:
        counts["neutral_dropped"] = unkept
    pairs = [*regenderable, *neutral]
    random.Random(seed).shuffle(pairs)
    counts |= {"regenderable_pairs": len(regenderable), "neutral_pairs": len(neutral)}
    return pairs, counts


def split_pairs(
    pairs: Sequence[ParallelPair], dev: int, test: int
) -> dict[str, list[ParallelPair]]:
    """Train / dev / test, with both directions of a G segment always in the same split.

    Pairs are grouped by their unordered {source, target}; groups go to dev, then test, then
    train in the (already shuffled) order of their first pair, until dev and test hold at least
    `dev` and `test` pairs.
    """
    groups: dict[frozenset[str], list[ParallelPair]] = {}
    for pair in pairs:
        groups.setdefault(frozenset((pair.source, pair.target)), []).append(pair)
    if sum(map(len, groups.values())) < dev + test + 1:
        raise ValueError(f"{len(pairs)} pairs cannot give {dev} dev and {test} test pairs and a training set")
    out: dict[str, list[ParallelPair]] = {"train": [], "dev": [], "test": []}
    for members in groups.values():
        if len(out["dev"]) < dev:
            out["dev"] += members
        elif len(out["test"]) < test:
            out["test"] += members
        else:
            out["train"] += members
    return out


def corpus_stats(splits: dict[str, Sequence[ParallelPair]]) -> list[dict[str, object]]:
    """Rows of the appendix's Table 1: set, type, segments, running words (source side)."""
    rows = []
    for name, pairs in splits.items():
        for kind, members in (
            ("all", pairs),
            ("neutral", [p for p in pairs if p.label == "N"]),
            ("re-genderable", [p for p in pairs if p.label == "G"]),
        ):
            rows.append(
                {
                    "set": name,
                    "type": kind,
                    "segments": len(members),
                    "running_words": sum(len(p.source.split()) for p in members),
                }
            )
    return rows


def iter_lines(path: str | Path) -> Iterator[str]:
    with open_text(path, errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line:
                yield line
