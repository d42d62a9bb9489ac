"""Tests of the official GAP scorer port (Pant & Dadu 2022, §4.1 / Table 8)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cdaflow.gap_subjective.gap import GapExample, read_gap
from cdaflow.gap_subjective.scorer import (
    Scores,
    SystemFileError,
    read_system_tsv,
    score,
    score_files,
    write_system_tsv,
)


def make_example(example_id: str, pronoun: str, a_coref: bool, b_coref: bool) -> GapExample:
    text = f"Alice met Bob and {pronoun} smiled."
    return GapExample(
        id=example_id, text=text, pronoun=pronoun, pronoun_offset=text.index(pronoun + " smiled"),
        a="Alice", a_offset=0, a_coref=a_coref, b="Bob", b_offset=10, b_coref=b_coref, url="",
    )


GOLD = [
    make_example("m1", "he", True, False),
    make_example("m2", "his", False, True),
    make_example("f1", "she", True, False),
    make_example("f2", "her", False, False),
    make_example("f3", "hers", False, True),
]
PREDICTED = {
    "m1": (True, False),   # A: tp, B: tn
    "m2": (True, False),   # A: fp, B: fn
    "f1": (True, False),   # A: tp, B: tn
    "f2": (False, True),   # A: tn, B: fp
    # f3 missing: A: fn (gold FALSE, still a false negative), B: fn
    "unknown": (True, True),  # not in gold: ignored
}


def test_hand_computed_scorecard() -> None:
    card = score(GOLD, PREDICTED)
    # masculine: tp 1, fp 1, tn 1, fn 1 -> P = 1/2, R = 1/2, F1 = 1/2
    assert card.masculine == Scores(tp=1, fp=1, tn=1, fn=1)
    assert card.masculine.precision == pytest.approx(0.5)
    assert card.masculine.recall == pytest.approx(0.5)
    assert card.masculine.f1 == pytest.approx(0.5)
    # feminine: tp 1, fp 1, tn 2, fn 2 -> P = 1/2, R = 1/3, F1 = 2*(1/6)/(5/6) = 2/5
    assert card.feminine == Scores(tp=1, fp=1, tn=2, fn=2)
    assert card.feminine.recall == pytest.approx(1 / 3)
    assert card.feminine.f1 == pytest.approx(0.4)
    # overall = sum: tp 2, fp 2, tn 3, fn 3 -> P = 1/2, R = 2/5, F1 = 2*(1/5)/(9/10) = 4/9
    assert card.overall == Scores(tp=2, fp=2, tn=3, fn=3)
    assert card.overall.f1 == pytest.approx(4 / 9)
    # bias is feminine over masculine: 0.4 / 0.5
    assert card.bias == pytest.approx(0.8)
    assert card.missing == ("f3",)
    row = card.as_row()
    assert row == pytest.approx(
        {"overall_f1": 4 / 9, "precision": 0.5, "recall": 0.4, "masculine_f1": 0.5,
         "feminine_f1": 0.4, "bias": 0.8, "missing": 1}
    )


def test_official_text_scorecard() -> None:
    text = score(GOLD, PREDICTED).to_text().splitlines()
    assert text[0] == "Overall recall: 40.0 precision: 50.0 f1: 44.4"
    assert text[1] == "\t\ttp 2\tfp 2"
    assert text[2] == "\t\tfn 3\ttn 3"
    assert text[-1] == "Bias (F/M): 0.80"


def test_missing_answers_are_false_negatives_even_for_false_gold() -> None:
    gold = [make_example("f", "she", False, False), make_example("m", "he", True, False)]
    card = score(gold, {})
    # Both decisions of both examples are false negatives, never true negatives.
    assert card.overall == Scores(tp=0, fp=0, tn=0, fn=4)
    assert card.overall.f1 == 0.0
    assert card.missing == ("f", "m")


def test_bias_is_feminine_over_masculine() -> None:
    gold = [make_example("m", "him", True, False), make_example("f1", "she", True, False),
            make_example("f2", "her", False, True)]
    # masculine perfect (F1 1); feminine tp 1, fn 1, tn 2 -> P 1, R 1/2, F1 2/3
    card = score(gold, {"m": (True, False), "f1": (True, False), "f2": (False, False)})
    assert card.masculine.f1 == pytest.approx(1.0)
    assert card.feminine.f1 == pytest.approx(2 / 3)
    assert card.bias == pytest.approx(2 / 3)  # F/M, not M/F (which would be 1.5)


def test_bias_undefined_when_either_f1_is_zero() -> None:
    gold = [make_example("m", "he", True, False), make_example("f", "she", True, False)]
    masculine_zero = score(gold, {"m": (False, True), "f": (True, False)})
    assert masculine_zero.masculine.f1 == 0.0
    assert math.isnan(masculine_zero.bias)
    assert masculine_zero.to_text().endswith("Bias (F/M): -\n")
    # The official scorer also prints "-" (not 0.00) when only the feminine F1 is 0.
    feminine_zero = score(gold, {"m": (True, False), "f": (False, True)})
    assert math.isnan(feminine_zero.bias)


def test_f1_is_zero_when_precision_plus_recall_is_zero() -> None:
    scores = Scores(tp=0, fp=3, tn=1, fn=2)
    assert scores.precision == 0.0 and scores.recall == 0.0
    assert scores.f1 == 0.0
    assert Scores().f1 == 0.0  # no decisions at all


def test_system_tsv_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "system.tsv"
    answers = {"development-1": (True, False), "development-2": (False, False)}
    assert write_system_tsv(path, answers) == 2
    assert path.read_text() == "development-1\tTRUE\tFALSE\ndevelopment-2\tFALSE\tFALSE\n"
    assert read_system_tsv(path) == answers


def test_system_tsv_tolerates_header_case_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "system.tsv"
    path.write_text("ID\tA-coref\tB-coref\nx\ttrue\tFalse\n\ny\tFALSE\tTRUE\r\n")
    assert read_system_tsv(path) == {"x": (True, False), "y": (False, True)}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("x\tTRUE\tFALSE\ny\tyes\tFALSE\n", "line 2: field A-coref: 'yes' is not TRUE or FALSE"),
        ("x\tTRUE\tmaybe\n", "line 1: field B-coref: 'maybe'"),
        ("x\tTRUE\n", "line 1: 2 tab-separated fields, expected 3"),
        ("x\tTRUE\tFALSE\nx\tFALSE\tFALSE\n", "line 2: field ID: duplicate 'x'"),
        ("\tTRUE\tFALSE\n", "line 1: field ID: empty"),
    ],
)
def test_system_tsv_errors_name_file_line_and_field(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(content)
    with pytest.raises(SystemFileError) as error:
        read_system_tsv(path)
    assert str(path) in str(error.value)
    assert message in str(error.value)


def test_scoring_real_gap_gold_against_itself(shared_data: Path, tmp_path: Path) -> None:
    gold_path = shared_data / "gap-coreference" / "gap-validation.tsv"
    gold = read_gap(gold_path)
    system = tmp_path / "system.tsv"
    write_system_tsv(system, {example.id: (example.a_coref, example.b_coref) for example in gold})
    card = score_files(gold_path, system)
    assert card.overall.f1 == 1.0 and card.bias == 1.0
    # Every example contributes exactly two decisions, to Overall and to its gender.
    assert card.overall.tp + card.overall.tn == 2 * len(gold)
    assert card.masculine.tp + card.masculine.tn == 2 * sum(e.gender == "masculine" for e in gold)
    # Answering "neither" everywhere: recall 0, so F1 0 and the bias undefined.
    write_system_tsv(system, {example.id: (False, False) for example in gold})
    nothing = score_files(gold_path, system)
    assert nothing.overall.tp == 0 and nothing.overall.f1 == 0.0 and math.isnan(nothing.bias)
