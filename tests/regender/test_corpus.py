"""Candidate filtering, hash sharding with per-shard dedupe, and the parallel corpus."""

import gzip

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
