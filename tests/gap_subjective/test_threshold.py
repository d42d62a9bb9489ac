from __future__ import annotations

import math

import pandas as pd
import pytest

from cdaflow.gap_subjective.gleu import sentence_gleu
from cdaflow.gap_subjective.reports import table2
from cdaflow.gap_subjective.threshold import Thresholds, apply_thresholds, score_transfers


def scores(**columns) -> pd.DataFrame:
    base = {"gleu": [0.9], "ppl_original": [50.0], "ppl_transferred": [120.0], "subjective": [False]}
    base.update({k: [v] for k, v in columns.items()})
    return pd.DataFrame(base)


@pytest.mark.parametrize(
    ("gleu", "within"), [(0.8, False), (0.8000001, True), (0.95, True), (0.9999, True), (1.0, False)]
)
def test_gleu_band_is_open_at_both_ends(gleu: float, within: bool) -> None:
    assert bool(apply_thresholds(scores(gleu=gleu), Thresholds())["within_gleu"][0]) is within


@pytest.mark.parametrize(
    ("transferred", "within"), [(150.0, True), (150.01, False), (20.0, True), (math.inf, False), (math.nan, False)]
)
def test_perplexity_increase_of_at_most_100(transferred: float, within: bool) -> None:
    verdict = apply_thresholds(scores(ppl_transferred=transferred), Thresholds())
    assert bool(verdict["within_perplexity"][0]) is within


def test_original_attribute_and_the_intersection() -> None:
    frame = pd.DataFrame(
        {
            "gleu": [0.9, 0.9, 0.5, 0.9],
            "ppl_original": [50.0, 50.0, 50.0, 50.0],
            "ppl_transferred": [60.0, 60.0, 60.0, 400.0],
            "subjective": [False, True, False, False],
        }
    )
    verdict = apply_thresholds(frame, Thresholds())
    assert verdict["objective"].tolist() == [True, False, True, True]
    assert verdict["kept"].tolist() == [True, False, False, False]
    t2 = table2({"development": verdict, "test": verdict.iloc[:1]})
    assert t2["split"].tolist() == ["development", "test", "overall"]
    overall = t2.iloc[2]
    assert (
        overall["total_sentences"],
        overall["within_gleu"],
        overall["within_perplexity"],
        overall["objective"],
        overall["final"],
    ) == (5, 4, 4, 4, 2)
    assert overall["final_pct"] == 40.0
    assert overall["paper_final"] == 3913


def test_settings_reject_unknown_keys() -> None:
    assert Thresholds.from_config({"gleu_min": 0.7}).gleu_min == 0.7
    with pytest.raises(ValueError, match="thresholding settings: unknown key\\(s\\) gleu;"):
        Thresholds.from_config({"gleu": 0.7})
    with pytest.raises(KeyError, match="subjective"):
        apply_thresholds(pd.DataFrame({"gleu": [1.0], "ppl_original": [1.0], "ppl_transferred": [1.0]}), Thresholds())


class LengthScorer:
    """A stand-in fluency LM: the perplexity of a sentence is 10 per word; records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def perplexities(self, sentences):
        self.asked += list(sentences)
        return [10.0 * len(s.split()) for s in sentences]


def test_score_transfers_measures_and_thresholds_each_sentence() -> None:
    senator = "The senator from Ohio gave a long speech on the federal budget to the members of the committee today ."
    player = "He played for the club in the first division for six seasons and scored many goals before he retired ."
    originals = [senator, senator, player, "She was born in Paris ."]
    transferred = [
        senator.replace("long", "long and stirring"),  # close (GLEU 0.84), perplexity +20: kept
        senator,  # unchanged: GLEU 1, not kept
        player.replace("played", "played brilliantly"),  # the original is subjective: not kept
        "",  # nothing came out: infinite perplexity, fails B
    ]
    scorer = LengthScorer()
    out = score_transfers(originals, transferred, [0.1, 0.2, 0.9, 0.5], scorer=scorer, thresholds=Thresholds(),
                          detector_threshold=0.5)
    assert list(out["original"]) == originals and list(out["transferred"]) == transferred
    assert out["gleu"][0] == pytest.approx(sentence_gleu(transferred[0], originals[0])) and out["gleu"][1] == 1.0
    assert list(out["ppl_original"]) == [200.0, 200.0, 200.0, 60.0]
    assert list(out["ppl_transferred"][:3]) == [220.0, 200.0, 210.0] and math.isinf(out["ppl_transferred"][3])
    assert "" not in scorer.asked  # the empty output is never sent to the LM
    assert list(out["subjective"]) == [False, False, True, False]  # 0.5 is not above the threshold
    assert list(out["within_gleu"]) == [True, False, True, False]
    assert list(out["within_perplexity"]) == [True, True, True, False]
    assert list(out["kept"]) == [True, False, False, False]


def test_score_transfers_needs_aligned_inputs() -> None:
    with pytest.raises(ValueError, match="aligned"):
        score_transfers(["a b"], ["a c", "d"], [0.1], scorer=LengthScorer(), thresholds=Thresholds())
