"""Study D's comparison tables in the paper's layout (Tables 6-11) from the per-model results.

* :func:`seat_table`: effect size d per SEAT test (rows) and model (columns), plus the average
  effect size over the gender tests C6-C8b only, as the captions of Tables 6 and 7 define it
  (Fig. 6 plots the same average); the retention tests C1 and C2 stay in the table, outside the
  average. The row label names the tests averaged. The average is taken over absolute values,
  so that a bias in either direction counts as bias (every one of the paper's gender-test d is
  positive, so this equals the paper's mean there).
* :func:`senteval_table`: one row per model, one column per task with its headline score
  (accuracy in %, Pearson r for relatedness and STS tasks) and the second figure the paper
  prints beside it (MRPC F1, Spearman ρ) in a ``<task>_f1`` / ``<task>_spearman`` column
  (Tables 8-9).
* :func:`senteval_overall`: the mean over tasks of the headline scores, correlations scaled to
  0-100, and its difference from the Original model (Table 10). Only tasks scored for every
  model count, so that models are compared on the same tasks; the tasks counted are listed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["AVERAGE_PREFIX", "GENDER_TESTS", "average_row_label", "seat_table", "senteval_overall", "senteval_table"]

# The tests the paper averages (captions of Tables 6 and 7: "average effect size is computed on C6-C8b").
GENDER_TESTS = ("C6", "C6b", "C7", "C7b", "C8", "C8b")
AVERAGE_PREFIX = "average |d|"


def average_row_label(tests: Sequence[str]) -> str:
    """The average row's label, naming the tests it averages: ``average |d| (C6, C6b, ...)``."""
    return f"{AVERAGE_PREFIX} ({', '.join(tests) if tests else 'no gender test run'})"


AVERAGE_ROW = average_row_label(GENDER_TESTS)


def _order(present: Sequence[str], models: Sequence[str]) -> list[str]:
    return [m for m in models if m in set(present)] + [m for m in present if m not in set(models)]


def seat_table(seat: pd.DataFrame, models: Sequence[str] = ()) -> pd.DataFrame:
    """Effect sizes ``[test × model]`` plus the average |d| over the gender tests C6-C8b that were run.

    A model missing one of the averaged tests gets no average (NaN), so that no two averages
    in the row are taken over different tests.
    """
    done = seat.dropna(subset=["effect_size"])
    wide = done.pivot(index="test", columns="model", values="effect_size")
    tests = list(dict.fromkeys(done["test"]))
    wide = wide.reindex(index=tests, columns=_order(list(wide.columns), models))
    averaged = [test for test in GENDER_TESTS if test in wide.index]
    average = (
        wide.loc[averaged].abs().mean(axis=0, skipna=False) if averaged else pd.Series(np.nan, index=wide.columns)
    )
    average = average.to_frame(average_row_label(averaged)).T
    return pd.concat([wide, average]).rename_axis("test").reset_index()


def senteval_table(senteval: pd.DataFrame, models: Sequence[str] = ()) -> pd.DataFrame:
    """Headline score per ``[model × task]``, with MRPC's F1 and the Spearman ρ beside them."""
    ok = senteval[senteval["status"] == "ok"]
    tasks = list(dict.fromkeys(senteval["task"]))
    rows = []
    for model in _order(list(dict.fromkeys(senteval["model"])), models):
        row: dict[str, object] = {"model": model}
        scored = ok[ok["model"] == model].set_index("task")
        for task in tasks:
            row[task] = scored["score"].get(task, np.nan)
            for extra in ("f1", "spearman"):
                if extra in scored and task in scored.index and pd.notna(scored.at[task, extra]):
                    row[f"{task}_{extra}"] = scored.at[task, extra]
        rows.append(row)
    return pd.DataFrame(rows)


def senteval_overall(senteval: pd.DataFrame, models: Sequence[str] = (), baseline: str = "original") -> pd.DataFrame:
    """Mean headline score over the tasks every model was scored on, and its difference from `baseline`."""
    ok = senteval[senteval["status"] == "ok"].copy()
    order = _order(list(dict.fromkeys(senteval["model"])), models)
    if ok.empty:
        return pd.DataFrame({"model": order, "overall": np.nan, "difference": np.nan, "tasks": ""})
    correlation = ok["metric"].fillna("").str.startswith("pearson")
    ok["scaled"] = ok["score"].astype(float).where(~correlation, ok["score"].astype(float) * 100)
    wide = ok.pivot(index="model", columns="task", values="scaled").reindex(order)
    common = [task for task in dict.fromkeys(ok["task"]) if wide[task].notna().all()]
    overall = wide[common].mean(axis=1) if common else pd.Series(np.nan, index=wide.index)
    base = overall.get(baseline, np.nan)
    return pd.DataFrame(
        {
            "model": order,
            "overall": overall.to_numpy(),
            "difference": (overall - base).to_numpy(),
            "tasks": ",".join(common),
        }
    )
