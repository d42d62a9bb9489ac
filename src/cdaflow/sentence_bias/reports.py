"""Study D's comparison tables in the paper's layout (Tables 6-11) from the per-model results.

* :func:`seat_table`: effect size d per SEAT test (rows) and model (columns), plus the average
  effect size over the tests (Tables 6-7, 11; Fig. 6). The average is taken over absolute
  values, so that a bias in either direction counts as bias.
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

__all__ = ["seat_table", "senteval_overall", "senteval_table"]

AVERAGE_ROW = "average |d|"


def _order(present: Sequence[str], models: Sequence[str]) -> list[str]:
    return [m for m in models if m in set(present)] + [m for m in present if m not in set(models)]


def seat_table(seat: pd.DataFrame, models: Sequence[str] = ()) -> pd.DataFrame:
    """Effect sizes ``[test × model]`` plus the :data:`AVERAGE_ROW` of |d| over the tests."""
    done = seat.dropna(subset=["effect_size"])
    wide = done.pivot(index="test", columns="model", values="effect_size")
    tests = list(dict.fromkeys(done["test"]))
    wide = wide.reindex(index=tests, columns=_order(list(wide.columns), models))
    average = wide.abs().mean(axis=0).to_frame(AVERAGE_ROW).T
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
