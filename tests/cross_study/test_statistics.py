"""Summaries of paired bias scores (cdaflow.cross_study.statistics), hand-computed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cdaflow.cross_study.statistics import bias_summary, paired_difference


def test_paired_difference_edge_cases_and_seed():
    constant = paired_difference([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert constant == {"mean_difference": 0.5, "ci_low": 0.5, "ci_high": 0.5}
    single = paired_difference([1.0], [3.0])
    assert single["mean_difference"] == 2.0 and math.isnan(single["ci_low"])
    a, b = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    first = paired_difference(a, b, n_resamples=999, seed=7)
    assert first == paired_difference(a, b, n_resamples=999, seed=7)
    assert first["mean_difference"] == 2.5
    assert 1.0 <= first["ci_low"] < 2.5 < first["ci_high"] <= 4.0
    with pytest.raises(ValueError, match="paired scores"):
        paired_difference([1.0, 2.0], [1.0])


def test_bias_summary_hand_computed():
    table = pd.DataFrame(
        {
            "original_net": [-0.2, 0.4],
            "counterpart_net": [0.1, 0.2],
            "original_abs": [0.2, 0.4],
            "counterpart_abs": [0.3, 0.3],
        }
    )
    summary = bias_summary(table, comparison="toy", measures=("net", "abs"), n_resamples=99, seed=1).set_index(
        "measure"
    )
    assert summary.loc["net", "mean_original"] == pytest.approx(0.1)
    assert summary.loc["net", "mean_abs_original"] == pytest.approx(0.3)
    assert summary.loc["net", "mean_counterpart"] == pytest.approx(0.15)
    assert summary.loc["net", "mean_difference"] == pytest.approx(0.05)  # (0.3 - 0.2) / 2
    assert summary.loc["abs", "mean_difference"] == pytest.approx(0.0)
    assert summary.loc["abs", "n"] == 2 and summary.loc["abs", "comparison"] == "toy"
