"""Study D's wide tables (Tables 6-11) on hand-made per-model results."""

import math

import pandas as pd
import pytest

from cdaflow.sentence_bias.reports import AVERAGE_ROW, seat_table, senteval_overall, senteval_table


def test_seat_table_averages_absolute_effect_sizes():
    seat = pd.DataFrame(
        [
            {"model": "hard_debias", "test": "C6", "effect_size": 0.5},
            {"model": "original", "test": "C6", "effect_size": 1.5},
            {"model": "original", "test": "C7", "effect_size": -0.5},
            {"model": "hard_debias", "test": "C7", "effect_size": 0.1},
            {"model": "original", "test": "C8", "effect_size": None},  # not run: no row in the table
        ]
    )
    wide = seat_table(seat, ["original", "sub95", "hard_debias"])
    assert list(wide.columns) == ["test", "original", "hard_debias"]
    assert list(wide["test"]) == ["C6", "C7", AVERAGE_ROW]
    average = wide.set_index("test").loc[AVERAGE_ROW]
    assert average["original"] == pytest.approx(1.0) and average["hard_debias"] == pytest.approx(0.3)


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
