"""Study D's wide tables (Tables 6-11) on hand-made per-model results."""

import math

import pandas as pd
import pytest

from cdaflow.sentence_bias.reports import AVERAGE_ROW, seat_table, senteval_overall, senteval_table


def test_seat_table_averages_absolute_effect_sizes_of_gender_tests_only():
    seat = pd.DataFrame(
        [
            {"model": "hard_debias", "test": "C6", "effect_size": 0.5},
            {"model": "original", "test": "C6", "effect_size": 1.5},
            {"model": "original", "test": "C7", "effect_size": -0.5},
            {"model": "hard_debias", "test": "C7", "effect_size": 0.1},
            {"model": "original", "test": "C1", "effect_size": 9.0},  # retention: in the table, not averaged
            {"model": "hard_debias", "test": "C1", "effect_size": 9.0},
            {"model": "original", "test": "C8", "effect_size": None},  # not run: no row in the table
        ]
    )
    wide = seat_table(seat, ["original", "sub95", "hard_debias"])
    assert list(wide.columns) == ["test", "original", "hard_debias"]
    label = "average |d| (C6, C7)"  # names the tests averaged
    assert list(wide["test"]) == ["C6", "C7", "C1", label]
    average = wide.set_index("test").loc[label]
    assert average["original"] == pytest.approx(1.0) and average["hard_debias"] == pytest.approx(0.3)


def test_seat_table_model_missing_an_averaged_test_gets_no_average():
    seat = pd.DataFrame(
        [
            {"model": "original", "test": "C6", "effect_size": 1.0},
            {"model": "original", "test": "C7", "effect_size": 1.0},
            {"model": "sub95", "test": "C6", "effect_size": 1.0},
        ]
    )
    average = seat_table(seat).set_index("test").loc["average |d| (C6, C7)"]
    assert average["original"] == 1.0 and math.isnan(average["sub95"])


# The per-test effect sizes of Dolci et al. (2023), Tables 6, 7 and 11 (C1, C2, C6, C6b, C7, C7b, C8, C8b).
PAPER_SEAT = {
    "original": [1.523, 0.894, 1.674, 0.286, 1.124, 1.543, 1.269, 1.629],
    "sub95": [1.572, 0.974, 1.585, 0.358, 0.512, 1.439, 0.730, 1.450],
    "aug90": [1.622, 1.093, 1.676, 0.292, 0.489, 1.586, 0.566, 1.560],
    "glove_hd": [1.506, 1.037, 0.889, 0.188, 0.737, 1.552, 0.008, 0.702],
}
# The "Average Effect Size" row of the same tables.
PAPER_AVERAGE = {"original": 1.254, "sub95": 1.012, "aug90": 1.028, "glove_hd": 0.679}


def test_seat_average_reproduces_the_papers_average_row():
    tests = ["C1", "C2", "C6", "C6b", "C7", "C7b", "C8", "C8b"]
    seat = pd.DataFrame(
        [
            {"model": model, "test": test, "effect_size": d}
            for model, values in PAPER_SEAT.items()
            for test, d in zip(tests, values, strict=True)
        ]
    )
    wide = seat_table(seat, list(PAPER_SEAT)).set_index("test")
    assert AVERAGE_ROW == "average |d| (C6, C6b, C7, C7b, C8, C8b)"
    assert list(wide.index) == [*tests, AVERAGE_ROW]
    for model, paper in PAPER_AVERAGE.items():
        assert round(wide.at[AVERAGE_ROW, model], 3) == paper, model


def _senteval_rows():
    return pd.DataFrame(
        [
            {"model": "original", "task": "MR", "status": "ok", "metric": "acc", "score": 80.0},
            {"model": "original", "task": "MRPC", "status": "ok", "metric": "acc/f1", "score": 70.0, "f1": 80.0},
            {"model": "original", "task": "STSBenchmark", "status": "ok", "metric": "pearson/spearman",
             "score": 0.7, "spearman": 0.6},
            {"model": "original", "task": "TREC", "status": "missing", "metric": None, "score": None},
            {"model": "sub95", "task": "MR", "status": "ok", "metric": "acc", "score": 81.0},
            {"model": "sub95", "task": "MRPC", "status": "ok", "metric": "acc/f1", "score": 68.0, "f1": 79.0},
            {"model": "sub95", "task": "STSBenchmark", "status": "ok", "metric": "pearson/spearman",
             "score": 0.75, "spearman": 0.7},
            {"model": "sub95", "task": "TREC", "status": "ok", "metric": "acc", "score": 90.0},
        ]
    )


def test_senteval_table_keeps_the_second_figures():
    wide = senteval_table(_senteval_rows(), ["original", "sub95"]).set_index("model")
    assert wide.at["original", "MR"] == 80.0 and wide.at["sub95", "MRPC_f1"] == 79.0
    assert wide.at["original", "STSBenchmark_spearman"] == 0.6
    assert math.isnan(wide.at["original", "TREC"])  # missing data stays visible as NaN


def test_overall_score_on_common_tasks_with_correlations_scaled():
    overall = senteval_overall(_senteval_rows(), ["original", "sub95"]).set_index("model")
    # TREC is missing for the original model, so it is left out for both.
    assert overall.at["original", "tasks"] == "MR,MRPC,STSBenchmark"
    assert overall.at["original", "overall"] == pytest.approx((80 + 70 + 70) / 3)
    assert overall.at["sub95", "overall"] == pytest.approx((81 + 68 + 75) / 3)
    assert overall.at["sub95", "difference"] == pytest.approx(4 / 3)
    assert overall.at["original", "difference"] == 0
