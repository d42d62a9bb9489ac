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

The other tables and figures of the study, each beside the paper's numbers
(``resources/sentence_bias/paper.yaml``): the gender word list's sizes (§3.3), the gender
direction's explained variance and Fig. 2 (§3.2), the SNLI bias scores with Tables 2-3 (§3.1,
§4.2), the retrained encoders' accuracies and Fig. 6, and the transformer encoder's direction,
Tables 12-13 and Fig. 7 (§6).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cdaflow import paper
from cdaflow.io.atomic import atomic_file
from cdaflow.sentence_bias.corpora import pair_scores
from cdaflow.sentence_bias.direction import Direction, cosine
from cdaflow.sentence_bias.score import BiasScore, SentenceScores
from cdaflow.sentence_bias.transformer import FIG7_SENTENCE, PAPER_TABLE13

__all__ = [
    "AVERAGE_PREFIX",
    "GENDER_TESTS",
    "TABLE12_SENTENCE",
    "average_row_label",
    "gender_direction_figure",
    "gender_direction_table",
    "gender_words_table",
    "models_table",
    "seat_figure",
    "seat_table",
    "senteval_overall",
    "senteval_table",
    "snli_score_table",
    "table12_example",
    "table13_examples",
    "table2_example",
    "table3_top_sentences",
    "transformer_direction_table",
    "transformer_figure",
]

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


# -- §3: the word list, the gender direction, the SNLI bias scores (Tables 2-3) --------------------

# The example sentence of Tables 2 and 12: the paper's Table 12 number applies to it only.
TABLE12_SENTENCE = "She likes the new pink dress"


def _paper(name: str) -> Any:
    return paper.value("sentence_bias", name)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save_png(fig, path: str | Path) -> None:
    """The figure as a PNG, renamed into place (readers never see a partial file), then closed."""
    with atomic_file(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
    _pyplot().close(fig)


def gender_words_table(counts: Mapping[str, int], scale: str) -> pd.DataFrame:
    """Size of each part of the list L beside the paper's (§3.3)."""
    reported = _paper("gender_words_counts")
    return pd.DataFrame(
        [{"scale": scale, "part": part, "count": n, "paper": reported.get(part)} for part, n in counts.items()]
    )


def gender_direction_table(directions: Mapping[str, Direction], scale: str) -> pd.DataFrame:
    """Explained variance of the top ten components of each pair set, the top one beside the paper's
    and its cosine with the 10-pair direction (``directions["paper_10_pairs"]``)."""
    reported = _paper("direction_top_component")
    main = directions["paper_10_pairs"]
    rows = []
    for name, direction in directions.items():
        for k, share in enumerate(direction.explained_variance_ratio[:10], start=1):
            rows.append(
                {
                    "scale": scale,
                    "pairs": name,
                    "pairs_used": len(direction.pairs_used),
                    "component": k,
                    "explained_variance": float(share),
                    "paper_top_component": reported[name] if k == 1 else None,
                    "cosine_with_10_pair_direction": float(abs(cosine(direction.vector, main.vector)))
                    if k == 1
                    else None,
                }
            )
    return pd.DataFrame(rows)


def gender_direction_figure(directions: Mapping[str, Direction], path: str | Path) -> None:
    """Fig. 2: the explained-variance spectrum of each pair set, side by side."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(directions), figsize=(5 * len(directions), 3.2), squeeze=False)
    for ax, (name, direction) in zip(axes[0], directions.items()):
        shares = direction.explained_variance_ratio[:10]
        ax.bar(range(1, len(shares) + 1), shares)
        ax.set_title(f"{name} ({len(direction.pairs_used)} pairs)")
        ax.set_xlabel("principal component")
        ax.set_ylabel("explained variance")
    fig.tight_layout()
    _save_png(fig, path)


def snli_score_table(pairs: Sequence[Any], sentences: Sequence[str], scored: SentenceScores) -> pd.DataFrame:
    """Per SNLI pair: premise and hypothesis with their f, m and abs scores, and the pair's score.

    `scored` holds the scores of `sentences` (each distinct sentence once) in that order.
    """
    row = {s: i for i, s in enumerate(sentences)}
    premise = np.array([row[pair.premise] for pair in pairs])
    hypothesis = np.array([row[pair.hypothesis] for pair in pairs])
    table = pd.DataFrame(
        {
            "premise": [pair.premise for pair in pairs],
            "hypothesis": [pair.hypothesis for pair in pairs],
            "label": [pair.label for pair in pairs],
            "premise_f": scored.f[premise],
            "premise_m": scored.m[premise],
            "premise_abs": scored.abs[premise],
            "hypothesis_f": scored.f[hypothesis],
            "hypothesis_m": scored.m[hypothesis],
            "hypothesis_abs": scored.abs[hypothesis],
        }
    )
    table["pair_score"] = pair_scores(table["premise_abs"], table["hypothesis_abs"])
    return table


def table2_example(example: BiasScore, scale: str) -> pd.DataFrame:
    """Table 2: the example sentence word by word, then its overall scores beside the paper's."""
    reported = _paper("table2_overall_bias")
    table = pd.concat(
        [
            pd.DataFrame(example.table()),
            pd.DataFrame(
                [
                    {"word": "overall female bias (eq. 1)", "weighted": example.f, "paper": reported["f"]},
                    {"word": "overall male bias (eq. 2)", "weighted": example.m, "paper": reported["m"]},
                    {"word": "absolute bias (eq. 3)", "weighted": example.abs},
                ]
            ),
        ]
    )
    table.insert(0, "scale", scale)
    return table


def table3_top_sentences(sentences: Sequence[str], scored: SentenceScores, scale: str, n: int = 5) -> pd.DataFrame:
    """Table 3: the `n` sentences with the highest female and the `n` with the highest male bias."""
    f, m = scored.f, scored.m
    order = np.argsort(f)[::-1][:n].tolist() + np.argsort(m)[:n].tolist()
    return pd.DataFrame(
        [
            {
                "scale": scale,
                "direction": "female" if k < n else "male",
                "sentence": sentences[i],
                "bias_score": f[i] if k < n else m[i],
            }
            for k, i in enumerate(order)
        ]
    )


# -- §4-5: the retrained encoders ---------------------------------------------------------------------


def models_table(model_dirs: Sequence[str | Path], scale: str) -> pd.DataFrame:
    """Each retrained encoder's vectors, corpus sizes and NLI accuracy, from its ``config.json``."""
    models = []
    for folder in map(Path, model_dirs):
        config = json.loads((folder / "config.json").read_text())
        models.append(
            {
                "scale": scale,
                "model": config.get("model", folder.name),
                "vectors": config.get("vectors"),
                **{f"{k}_pairs": v for k, v in config.get("pairs", {}).items()},
                "dev_accuracy": config.get("dev_accuracy"),
                "test_accuracy": config.get("test_accuracy"),
            }
        )
    return pd.DataFrame(models)


def seat_figure(seat: pd.DataFrame, models: Sequence[str], scale: str, path: str | Path) -> None:
    """Fig. 6: SEAT effect sizes per test, one bar per retrained encoder."""
    plt = _pyplot()
    done = seat.dropna(subset=["effect_size"]) if "effect_size" in seat else seat.iloc[0:0]
    pivot = done.pivot(index="test", columns="model", values="effect_size") if len(done) else pd.DataFrame()
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(models) + 3), 3.5))
    if len(pivot):
        pivot[[m for m in models if m in pivot.columns]].plot.bar(ax=ax)
    ax.set_ylabel("SEAT effect size d")
    ax.set_title(f"SEAT effect sizes by retrained encoder ({scale})")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    _save_png(fig, path)


# -- §6: a transformer encoder (Tables 12-13, Fig. 7) -------------------------------------------------


def transformer_direction_table(
    direction: Direction, model: Mapping[str, Any], n_pairs: int, half_cosine: float, scale: str
) -> pd.DataFrame:
    """Explained variance of the sentence-pair direction's top ten components, the top one beside
    the paper's, and the cosine of the directions from two disjoint halves of the pairs."""
    reported = _paper("transformer_top_component")
    return pd.DataFrame(
        [
            {
                "scale": scale,
                "model": ", ".join(f"{key}={value}" for key, value in model.items()),
                "pairs_used": n_pairs,
                "component": k,
                "explained_variance": float(share),
                "paper_top_component": reported if k == 1 else None,
                "split_half_cosine": half_cosine if k == 1 else None,
            }
            for k, share in enumerate(direction.explained_variance_ratio[:10], start=1)
        ]
    )


def table12_example(example: BiasScore, sentence: str, scale: str) -> pd.DataFrame:
    """Table 12: the example sentence token by token; the paper's female bias where it is the paper's sentence."""
    reported = _paper("table12_overall_female_bias") if sentence == TABLE12_SENTENCE else None
    table = pd.DataFrame(
        [
            {"token": r.word, "importance": r.importance, "gender_bias": r.bias, "weighted_bias": r.weighted}
            for r in example.words
        ]
        + [
            {"token": "overall female bias (eq. 1)", "weighted_bias": example.f, "paper": reported},
            {"token": "overall male bias (eq. 2)", "weighted_bias": example.m},
        ]
    )
    table.insert(0, "scale", scale)
    return table


def table13_examples(scores: Sequence[BiasScore], scale: str) -> pd.DataFrame:
    """Table 13: female and male bias of the paper's sentences (`scores` in :data:`PAPER_TABLE13` order)."""
    reported = _paper("table13_bias")
    return pd.DataFrame(
        [
            {
                "scale": scale,
                "set": k,
                "sentence": sentence,
                "f_bias": s.f,
                "m_bias": s.m,
                "paper_f_bias": reported[sentence]["f"],
                "paper_m_bias": reported[sentence]["m"],
            }
            for (k, sentence), s in zip(PAPER_TABLE13, scores, strict=True)
        ]
    )


def transformer_figure(direction: Direction, n_pairs: int, fig7: BiasScore, path: str | Path) -> None:
    """Fig. 7: the direction's explained-variance spectrum and the token importance of its sentence."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    shares = direction.explained_variance_ratio[:10]
    left.bar(range(1, len(shares) + 1), shares)
    left.set_title(f"gender direction: {n_pairs} sentence pairs")
    left.set_xlabel("principal component")
    left.set_ylabel("explained variance")
    right.bar(range(len(fig7.words)), [r.importance for r in fig7.words])
    right.set_xticks(range(len(fig7.words)), [r.word for r in fig7.words], rotation=45, ha="right")
    right.set_title(f"token importance: {FIG7_SENTENCE}")
    fig.tight_layout()
    _save_png(fig, path)
