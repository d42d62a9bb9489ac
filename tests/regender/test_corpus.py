"""Candidate filtering, hash sharding with per-shard dedupe, and the parallel corpus."""

import gzip
import random
from collections import Counter

import pytest

from cdaflow.regender.corpus import (
    ParallelPair,
    corpus_stats,
    normalise,
    parallel_pairs,
    shard_corpus,
    shard_of,
    split_pairs,
    unique_lines,
)


@pytest.mark.parametrize(
    ("line", "out"),
    [
        ("  Estoy   cansado. \n", "Estoy cansado."),
        ("- ¿Qué?", "¿Qué?"),
        ("♪ ♪ ♪", None),
        ("...", None),
        ("", None),
        ("uno dos tres cuatro cinco seis siete ocho nueve diez",) * 2,
        ("uno dos tres cuatro cinco seis siete ocho nueve diez once", None),
        ("¡¡2!!", "¡¡2!!"),
    ],
)
def test_normalise(line, out):
    assert normalise(line) == out


def test_shards_are_stable_disjoint_and_duplicates_meet(tmp_path):
    plain = tmp_path / "a.txt"
    plain.write_text("Hola.\nEstoy cansado.\nHola.\n♪\n")
    packed = tmp_path / "b.txt.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as handle:
        handle.write("Estoy cansado.\nLo sé.\n")
    outputs = [tmp_path / f"shard{k}.txt" for k in range(3)]
    counts = shard_corpus([plain, packed], outputs)
    assert (counts.lines, counts.kept, counts.too_long_or_empty) == (6, 5, 1)
    shards = [path.read_text().splitlines() for path in outputs]
    for k, shard in enumerate(shards):
        assert all(shard_of(s, 3) == k for s in shard)
    # Each shard drops its own duplicates: every copy of a segment is in the same shard.
    deduplicated = [unique_lines(path) for path in outputs]
    assert sorted(s for unique, _ in deduplicated for s in unique) == ["Estoy cansado.", "Hola.", "Lo sé."]
    assert sum(dropped for _, dropped in deduplicated) == 2


# blake2b with an 8-byte digest of each segment's UTF-8 bytes, pinned here as hex (computed once,
# outside shard_of): the shard is that digest read as a little-endian integer, modulo the shard count.
PINNED_DIGESTS = {
    "Hola.": "b695cb03ec2efb6d",
    "Estoy cansado.": "121dc0d5bccff89e",
    "Lo sé.": "532ed53bd35143e7",
    "¿Estás lista?": "477b1228b3e7c91a",
    "": "e4a6a0577479b2b4",
    "ñandú 🙂": "1620b5daab8c3e96",
}


@pytest.mark.parametrize("n_shards", [1, 2, 3, 7, 64])
def test_shard_of_matches_pinned_digests(n_shards):
    for segment, digest in PINNED_DIGESTS.items():
        expected = int.from_bytes(bytes.fromhex(digest), "little") % n_shards
        assert shard_of(segment, n_shards) == expected, (segment, n_shards)
    # spelled out for 7 shards, so a change of formula shows as a changed literal too
    assert [shard_of(s, 7) for s in PINNED_DIGESTS] == [5, 5, 5, 1, 5, 4]


def test_shard_of_is_the_same_in_every_process():
    """Python's str hash is salted per process: a shard_of built on it would differ between these runs."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, sys; from cdaflow.regender.corpus import shard_of; "
            "print(json.dumps([shard_of(s, 64) for s in json.loads(sys.argv[1])]))")
    segments = list(PINNED_DIGESTS) + [f"segmento {i}" for i in range(50)]
    runs = []
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, json.dumps(segments)], env=env, check=True,
                             capture_output=True, text=True).stdout
        runs.append(json.loads(out))
    assert runs[0] == runs[1] == runs[2] == [shard_of(s, 64) for s in segments]


def test_parallel_pairs_both_directions_balanced_and_test_free():
    decisions = [
        ("Estoy cansado.", "G", "Estoy cansada.", True),
        ("Estoy cansada.", "G", "Estoy cansado.", True),  # the same pair, found from the other side
        ("Lo veo.", "G", "La veo.", True),
        ("Hola.", "N", "Hola.", False),
        ("Gracias.", "N", "Gracias.", False),
        ("Adiós.", "N", "Adiós.", False),
        ("Vale.", "N", "Vale.", False),
        ("Buenos días.", "N", "Buenos días.", True),
        ("Esto es otra cosa.", None, None, False),
        ("Estoy listo.", "G", "Estoy lista.", True),  # a test segment
    ]
    pairs, counts = parallel_pairs(decisions, neutral_ratio=0.5, exclude={"Estoy lista."}, seed=1)
    g = [p for p in pairs if p.label == "G"]
    n = [p for p in pairs if p.label == "N"]
    assert sorted((p.source, p.target) for p in g) == sorted([
        ("Estoy cansado.", "Estoy cansada."), ("Estoy cansada.", "Estoy cansado."),
        ("Lo veo.", "La veo."), ("La veo.", "Lo veo."),
    ])
    assert len(n) == 2 and all(p.source == p.target for p in n)
    assert all(p.gendered for p in g)
    assert counts == {"uncovered": 1, "test_overlap": 1, "neutral_dropped": 3, "regenderable_pairs": 4,
                      "neutral_pairs": 2}
    with pytest.raises(ValueError, match="without a different variant"):
        parallel_pairs([("Listo.", "G", "Listo.", True)])


def _decisions(n_regenderable, n_neutral, repeats=0):
    rows = [(f"Estoy cansado {i}.", "G", f"Estoy cansada {i}.", i % 2 == 0) for i in range(n_regenderable)]
    rows += [(f"Hola {i}.", "N", f"Hola {i}.", i % 3 == 0) for i in range(n_neutral)]
    rows += [(f"Hola {i}.", "N", f"Hola {i}.", i % 3 == 0) for i in range(repeats)]  # repeated neutral rows
    random.Random(5).shuffle(rows)  # G and N rows interleaved, as in the shards
    return rows


def _keep_all(decisions, seed):
    """What the list-based version returned where it kept every neutral pair: the distinct G pairs,
    then the distinct N pairs, in first-seen order, shuffled by Random(seed)."""
    g, n = {}, {}
    for segment, label, variant, gendered in decisions:
        if label == "G":
            g[ParallelPair(segment, variant, "G", gendered)] = g[ParallelPair(variant, segment, "G", gendered)] = None
        elif label == "N":
            n[ParallelPair(segment, segment, "N", gendered)] = None
    pairs = [*g, *n]
    random.Random(seed).shuffle(pairs)
    return pairs


def test_parallel_pairs_keeping_every_neutral_pair_equals_the_list_based_result():
    decisions = _decisions(30, 40, repeats=5)
    pairs, counts = parallel_pairs(decisions, neutral_ratio=1.0, seed=7)
    assert pairs == _keep_all(decisions, 7)
    assert counts == {"uncovered": 0, "test_overlap": 0, "regenderable_pairs": 60, "neutral_pairs": 40}


def test_parallel_pairs_samples_neutral_pairs_while_streaming():
    decisions = _decisions(20, 500, repeats=100)
    reads = []

    def read():  # a reader the function may call again: counts how often, checks it streams
        reads.append(1)
        return iter(decisions)

    pairs, counts = parallel_pairs(read, neutral_ratio=0.5, seed=3)
    assert len(reads) == 2
    neutral = [p for p in pairs if p.label == "N"]
    assert len(neutral) == 20 == counts["neutral_pairs"] and len(set(neutral)) == 20  # k, each once
    every = {ParallelPair(s, s, "N", g) for s, label, _, g in decisions if label == "N"}
    assert set(neutral) <= every
    assert sum(p.label == "G" for p in pairs) == 40
    # Deterministic for a seed, whatever the input's container; another seed draws another sample.
    assert parallel_pairs(decisions, neutral_ratio=0.5, seed=3) == (pairs, counts)
    other = {p for p in parallel_pairs(decisions, neutral_ratio=0.5, seed=4)[0] if p.label == "N"}
    assert other != set(neutral)
    # The sample does not depend on the order the rows come in (a hash of each pair decides).
    assert {p for p in parallel_pairs(decisions[::-1], neutral_ratio=0.5, seed=3)[0] if p.label == "N"} == set(neutral)


def test_parallel_pairs_neutral_sample_is_uniform():
    decisions = _decisions(5, 20)  # keep 5 of 20 distinct neutral segments
    hits = Counter()
    for seed in range(400):
        hits.update(p.source for p in parallel_pairs(decisions, neutral_ratio=0.5, seed=seed)[0] if p.label == "N")
    assert sum(hits.values()) == 400 * 5 and len(hits) == 20
    # Each segment is kept with probability 1/4: 100 of 400 runs, binomial sd about 8.7.
    assert all(100 - 40 < count < 100 + 40 for count in hits.values()), hits


def test_split_keeps_directions_together_and_counts_words():
    pairs = [ParallelPair(f"a{i} b", f"c{i} b", "G") for i in range(10)]
    pairs += [ParallelPair(f"c{i} b", f"a{i} b", "G") for i in range(10)]
    pairs += [ParallelPair(f"n{i}", f"n{i}", "N") for i in range(10)]
    splits = split_pairs(pairs, dev=4, test=4)
    assert len(splits["dev"]) >= 4 and len(splits["test"]) >= 4
    assert sum(map(len, splits.values())) == 30
    where = {}
    for name, members in splits.items():
        for p in members:
            where.setdefault(frozenset((p.source, p.target)), set()).add(name)
    assert all(len(names) == 1 for names in where.values())
    rows = {(r["set"], r["type"]): r for r in corpus_stats(splits)}
    total = rows[("train", "all")]
    assert total["segments"] == rows[("train", "neutral")]["segments"] + rows[("train", "re-genderable")]["segments"]
    assert rows[("dev", "re-genderable")]["running_words"] == 2 * rows[("dev", "re-genderable")]["segments"]
    with pytest.raises(ValueError, match="cannot give"):
        split_pairs(pairs, dev=20, test=20)
