"""Data subtraction / augmentation corpora (Dolci et al. 2023, §4.2)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from cdaflow.sentence_bias.corpora import (
    PAPER_PERCENTILES,
    AugmentCounts,
    Pair,
    augment,
    derived_corpora,
    pair_scores,
    resplit,
    resplit_by_premise,
    score_histogram,
    subtract,
    thresholds,
)
from cdaflow.sentence_bias.swap import Swapper, load_swap_pairs

CORPUS = [
    Pair("A girl in pink twirls a ribbon", "A ribbon is being twirled", "entailment"),  # 0.9, gender
    Pair("Two men are outside and talking", "The men are discussing football", "neutral"),  # 0.5, gender
    Pair("A dog runs in the park", "An animal is outside", "entailment"),  # 0.8, no gender word
    Pair("Mary plays the piano", "Nobody plays", "contradiction"),  # 0.2 (below)
    Pair("A cat sleeps", "A man sleeps", "contradiction"),  # 0.7, gender only in hypothesis
]
SCORES = np.array([0.9, 0.5, 0.8, 0.2, 0.7])


@pytest.fixture(scope="module")
def swapper() -> Swapper:
    return Swapper(load_swap_pairs(), ["Mary"], ["James"])


def test_pair_scores_is_max_of_the_two() -> None:
    result = pair_scores([0.1, 0.5, 0.0], [0.3, 0.2, 0.0])
    np.testing.assert_array_equal(result, [0.3, 0.5, 0.0])


@pytest.mark.parametrize(
    ("premise", "hypothesis", "match"),
    [([0.1, 0.2], [0.1], "premise scores"), ([0.1, -0.2], [0.1, 0.1], "non-negative"), ([np.nan], [0.1], "NaN")],
)
def test_pair_scores_rejects_bad_input(premise, hypothesis, match) -> None:
    with pytest.raises(ValueError, match=match):
        pair_scores(premise, hypothesis)


def test_thresholds_linear_interpolation() -> None:
    scores = np.arange(101, dtype=float) / 100  # 0.00 ... 1.00: percentile p is exactly p/100
    result = thresholds(scores)
    assert list(result) == list(PAPER_PERCENTILES) == [97, 95, 93, 90]
    assert result == pytest.approx({97: 0.97, 95: 0.95, 93: 0.93, 90: 0.90})
    # hand-computed linear interpolation: rank 0.9 * 4 = 3.6 between 4.0 and 10.0 -> 4 + 0.6 * 6 = 7.6
    assert thresholds([10.0, 1.0, 3.0, 2.0, 4.0], percentiles=(90, 50)) == pytest.approx({90: 7.6, 50: 3.0})
    with pytest.raises(ValueError, match="outside"):
        thresholds(scores, percentiles=(101,))
    with pytest.raises(ValueError, match="no scores"):
        thresholds([])


def test_subtract_drops_pairs_above_threshold() -> None:
    kept = subtract(CORPUS, SCORES, 0.7)
    assert kept == [CORPUS[1], CORPUS[3], CORPUS[4]]  # 0.7 itself is not above the threshold
    scores = np.arange(1000) / 999
    assert len(subtract(list(range(1000)), scores, thresholds(scores)[95])) == 950
    with pytest.raises(ValueError, match="5 pairs but 4 scores"):
        subtract(CORPUS, SCORES[:4], 0.5)


def test_augment_counts_and_duplicates(swapper) -> None:
    corpus, counts = augment(CORPUS, SCORES, 0.6, swapper)
    assert counts == AugmentCounts(n_input=5, n_above=3, n_duplicated=2, n_no_gender=1, n_output=7, n_words_swapped=2)
    assert corpus == [
        CORPUS[0],
        Pair("A boy in pink twirls a ribbon", "A ribbon is being twirled", "entailment"),  # Table 5
        CORPUS[1],
        CORPUS[2],  # no gender word: not duplicated
        CORPUS[3],  # below the threshold (has a name, but is not considered)
        CORPUS[4],
        Pair("A cat sleeps", "A woman sleeps", "contradiction"),
    ]


def test_augment_swaps_both_sentences_and_keeps_extra_fields(swapper) -> None:
    @dataclass(frozen=True)
    class NLIPair:
        premise: str
        hypothesis: str
        label: str
        pair_id: str

    pair = NLIPair("Two men are outside", "The men are discussing football", "neutral", "p1")
    corpus, counts = augment([pair], [1.0], 0.5, swapper)
    assert corpus[1] == NLIPair("Two women are outside", "The women are discussing football", "neutral", "p1")
    assert counts.n_words_swapped == 2


def test_resplit_sizes_and_determinism() -> None:
    pairs = [Pair(f"p{i}", f"h{i}", "neutral") for i in range(50)]
    split = resplit(pairs, dev_size=10, test_size=5, seed=3)
    assert (len(split.train), len(split.dev), len(split.test)) == (35, 10, 5)
    assert sorted(split.train + split.dev + split.test, key=lambda p: int(p.premise[1:])) == pairs
    assert resplit(pairs, 10, 5, seed=3) == split
    assert resplit(pairs, 10, 5, seed=4) != split
    assert split.train != pairs[15:]  # shuffled
    assert len(resplit(pairs, 0, 49, seed=0).train) == 1


def test_resplit_by_premise_keeps_each_premise_in_one_part() -> None:
    # 30 premises with 1-4 hypotheses each; one premise also written with other spacing
    pairs = [Pair(f"premise {i}", f"h{i}.{j}", "neutral") for i in range(30) for j in range(1 + i % 4)]
    pairs.append(Pair("premise  7 ", "h7.extra", "entailment"))
    split = resplit_by_premise(pairs, dev_size=10, test_size=10, seed=3)
    premises = [{" ".join(p.premise.split()) for p in part} for part in split]
    assert not premises[0] & premises[1] and not premises[0] & premises[2] and not premises[1] & premises[2]
    assert sorted(split.train + split.dev + split.test, key=repr) == sorted(pairs, key=repr)
    for part, size in ((split.dev, 10), (split.test, 10)):
        assert size <= len(part) < size + 4  # at most one premise's pairs more
    assert resplit_by_premise(pairs, 10, 10, seed=3) == split
    assert resplit_by_premise(pairs, 10, 10, seed=4) != split
    # a pair-level split of the same pairs does put premises in two parts: what this guards against
    naive = resplit(pairs, 10, 10, seed=3)
    assert {p.premise for p in naive.dev} & {p.premise for p in naive.train}


def test_resplit_by_premise_too_small() -> None:
    pairs = [Pair("same premise", f"h{i}", "neutral") for i in range(50)]
    with pytest.raises(ValueError, match="by premise: 50 pairs in 1 premises"):
        resplit_by_premise(pairs, dev_size=1, test_size=1, seed=0)
    with pytest.raises(ValueError, match="non-negative"):
        resplit_by_premise(pairs, dev_size=-1, test_size=1, seed=0)


def test_resplit_too_small() -> None:
    with pytest.raises(ValueError, match="too small.*20 pairs.*20"):
        resplit([Pair("p", "h", "neutral")] * 20, dev_size=10, test_size=10, seed=0)
    with pytest.raises(ValueError, match="non-negative"):
        resplit([Pair("p", "h", "neutral")] * 20, dev_size=-1, test_size=10, seed=0)


def test_score_histogram_writes_png(tmp_path: Path) -> None:
    scores = np.random.default_rng(0).gamma(2.0, 0.01, size=2000)
    path = score_histogram(scores, thresholds(scores), tmp_path / "fig" / "fig5.png")
    assert path == tmp_path / "fig" / "fig5.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in path.parent.iterdir()] == ["fig5.png"]  # no temporary file left
    score_histogram(scores, [0.02, 0.05], path, log=True, title=None)  # plain values, overwrite
    assert path.stat().st_size > 1000


@pytest.mark.shared_data
def test_augment_real_snli(shared_data: Path, swapper) -> None:
    """Real SNLI dev pairs, with the word count standing in for the bias score."""
    path = shared_data / "snli_1.0-partial" / "Deltaus_sBiMPM__snli_1.0_dev.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    pairs = [Pair(r["sentence1"], r["sentence2"], r["gold_label"]) for r in records]
    scores = pair_scores(
        [len(p.premise.split()) / 100 for p in pairs], [len(p.hypothesis.split()) / 100 for p in pairs]
    )
    limits = thresholds(scores)
    corpus, counts = augment(pairs, scores, limits[90], swapper)
    assert counts.n_above == int(np.sum(scores > limits[90])) > 0
    assert 0.3 * counts.n_above < counts.n_duplicated < counts.n_above  # most SNLI pairs mention a person
    assert len(corpus) == len(pairs) + counts.n_duplicated
    assert len(subtract(pairs, scores, limits[90])) == len(pairs) - counts.n_above
    split = resplit(corpus, dev_size=100, test_size=100, seed=1)
    assert len(split.train) == len(corpus) - 200


def test_derived_corpora_sub_then_aug_per_percentile(swapper) -> None:
    scores = np.array(SCORES)
    made = list(derived_corpora(CORPUS, scores, (90, 50), swapper, dev_size=1, test_size=1, seed=3))
    assert [name for name, _, _ in made] == ["sub90", "aug90", "sub50", "aug50"]
    cut = thresholds(scores, (90, 50))
    for name, split, row in made:
        percentile = int(name[3:])
        assert row["corpus"] == name and row["percentile"] == percentile and row["threshold"] == cut[percentile]
        assert (row["train"], row["dev"], row["test"]) == (len(split.train), len(split.dev), len(split.test))
        assert row["pairs"] == row["train"] + row["dev"] + row["test"]
    sub50, aug50 = made[2][2], made[3][2]
    assert sub50["pairs"] == len(subtract(CORPUS, scores, cut[50]))  # the pairs at or below the median
    # Augmentation duplicates the pairs above the median that have a gender word to swap.
    assert aug50["pairs"] == len(CORPUS) + aug50["duplicated"] and aug50["duplicated"] >= 1
    assert "duplicated" not in sub50 and aug50["above_threshold_without_gender_words"] == 1
    again = list(derived_corpora(CORPUS, scores, (90, 50), swapper, dev_size=1, test_size=1, seed=3))
    assert [split for _, split, _ in again] == [split for _, split, _ in made]  # seeded re-split
