"""Study A's result tables and figures, each beside the paper's own numbers (``paper_*`` columns).

The paper's numbers come from ``resources/morph_cda/paper.yaml`` (:mod:`cdaflow.paper`):

* :func:`prepare_summary`: the training, dev and annotated sentences of one language;
* :func:`reinflection_table` (Table 1): held-out reinflection accuracy;
* :func:`intrinsic_tables` (Table 3): BASE, LIN, NN with log α tuned on dev, and SWAP, on test;
  :func:`examples_markdown` shows one model's counterfactuals;
* :func:`corpus_stats` (Table 4) and :func:`noun_counts_table`: the augmented corpora;
* :func:`extrinsic_tables` (Fig. 4, Table 5, the reduction factors, Fig. 5, Table 8) with
  :func:`fig4` and :func:`fig5`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cdaflow import paper
from cdaflow.morph_cda.annotations import Annotation
from cdaflow.morph_cda.augment import CORPORA, AugmentCounts
from cdaflow.morph_cda.cda import Counterfactual, CounterfactualGenerator
from cdaflow.morph_cda.evaluation import (
    evaluate,
    evaluate_swap,
    example_markdown,
    relation_rows,
    relation_scores,
    tune_log_alpha,
)
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.probes import Probe, grammaticality, stereotyped_nouns, stereotyping
from cdaflow.morph_cda.reinflection import Reinflector

__all__ = [
    "METRICS",
    "ExtrinsicTables",
    "IntrinsicTables",
    "corpus_stats",
    "examples_markdown",
    "extrinsic_tables",
    "fig4",
    "fig5",
    "intrinsic_tables",
    "noun_counts_table",
    "paper_number",
    "prepare_summary",
    "reinflection_table",
    "with_table3_paper_columns",
]

STUDY = "morph_cda"
# Table 3's columns, in order; paper.yaml names each cell <lang>_<model>_<metric>.
METRICS = ("tag_precision", "tag_recall", "tag_f1", "tag_accuracy", "form_accuracy")
# Table 8 shows the probes of one Spanish noun (the first one when the gazetteer lacks it).
TABLE8_LANG, TABLE8_NOUN = "es", "ingeniero"


def paper_number(name: str) -> Any:
    """A number (or mapping) of paper.yaml by name; None when the paper has none of that name."""
    return paper.load(STUDY).get(name, {}).get("value")


def _scale_and_lang(table: pd.DataFrame, scale: str, lang: str) -> pd.DataFrame:
    table.insert(0, "lang", lang)
    table.insert(0, "scale", scale)
    return table


def prepare_summary(
    scale: str, lang: str, train: int, dropped_train: int, dev: int, dropped_dev: int, annotated: Sequence[Annotation]
) -> pd.DataFrame:
    """Sentences per part: training and dev trees (with the annotated ones removed), annotated dev and test."""
    parts = [
        ("train", train, dropped_train),
        ("dev", dev, dropped_dev),
        ("annotated_dev", sum(a.eval_split == "dev" for a in annotated), 0),
        ("annotated_test", sum(a.eval_split == "test" for a in annotated), 0),
    ]
    return pd.DataFrame(
        [{"scale": scale, "lang": lang, "part": p, "sentences": n, "annotated_removed": d} for p, n, d in parts]
    )


def reinflection_table(
    scale: str, lang: str, train_pairs: int, heldout_pairs: int, lexicon_entries: int, heldout_accuracy: float
) -> pd.DataFrame:
    """Table 1: held-out accuracy of the reinflection model (%), beside the paper's."""
    return pd.DataFrame(
        [
            {
                "scale": scale,
                "lang": lang,
                "train_pairs": train_pairs,
                "heldout_pairs": heldout_pairs,
                "lexicon_entries": lexicon_entries,
                "heldout_accuracy": heldout_accuracy,
                "paper_accuracy": paper_number(f"{lang}_reinflection"),
            }
        ]
    )


@dataclass
class IntrinsicTables:
    """Table 3 (`table`), its rows per link and relation, the dev scores of every log α tried, the
    test outputs per model, and per trained model its tuned (log α, carry_gender)."""

    table: pd.DataFrame
    by_relation: pd.DataFrame
    tuning: pd.DataFrame
    outputs: dict[str, list[Counterfactual]]
    tuned: dict[str, tuple[float, bool]] = field(default_factory=dict)


def intrinsic_tables(
    scale: str,
    lang: str,
    models: Mapping[str, AgreementMRF],
    reinflector: Reinflector,
    dev: Sequence[Annotation],
    test: Sequence[Annotation],
    grid: Sequence[float],
    carry_gender: Any,
    log: Callable[..., None] | None = None,
) -> IntrinsicTables:
    """Table 3: each model's log α (and gender carrying) tuned on dev, scored on test; then SWAP."""
    rows, tuning, outputs, by_relation, tuned = [], [], {}, [], {}
    for name, mrf in models.items():
        generator = CounterfactualGenerator(mrf, reinflector, lang, grid[0])
        best, results = tune_log_alpha(generator, dev, grid, carry_gender)
        tuning += [{"model": name, "log_alpha": a, "carry_gender": c} | r for a, c, r in results]
        scores, outputs[name] = evaluate(generator, test)
        rows.append({"model": name, "log_alpha": best, "carry_gender": generator.carry_gender} | scores.as_row())
        by_relation += relation_rows(name, relation_scores(test, outputs[name]))
        tuned[name] = (best, generator.carry_gender)
        if log is not None:
            log("%s: log α %.2f, %s", name, best, {m: round(rows[-1][m], 2) for m in METRICS})
    rows.append({"model": "SWAP", "log_alpha": None, "carry_gender": None} | evaluate_swap(test).as_row())
    return IntrinsicTables(
        _scale_and_lang(with_table3_paper_columns(pd.DataFrame(rows), lang), scale, lang),
        _scale_and_lang(pd.DataFrame(by_relation), scale, lang),
        pd.DataFrame(tuning),
        outputs,
        tuned,
    )


def with_table3_paper_columns(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """`table` (one row per model) with the paper's Table 3 cell of each metric (None where it has none)."""
    for metric in METRICS:
        table[f"paper_{metric}"] = [paper_number(f"{lang}_{model.lower()}_{metric}") for model in table["model"]]
    return table


def examples_markdown(
    scale: str, lang: str, test: Sequence[Annotation], outputs: Mapping[str, list[Counterfactual]]
) -> str:
    """examples.md: every test sentence with the LIN model's counterfactual (the first model's without LIN)."""
    model = "LIN" if "LIN" in outputs else next(iter(outputs))
    lines = [
        f"# Study A counterfactuals, {lang} ({scale} scale), {model} model\n",
        "Changed words in **bold**; every test sentence, errors included (form differs from gold).\n",
    ]
    lines += [example_markdown(a, o) for a, o in zip(test, outputs[model])]
    return "\n".join(lines)


def corpus_stats(scale: str, lang: str, gazetteer_pairs: int, counts: AugmentCounts) -> pd.DataFrame:
    """Table 4: gazetteer pairs and animate sentences of one language's corpus, beside the paper's."""
    table4 = paper_number("table4_corpora") or {}
    row = table4.get(lang, {})
    return pd.DataFrame(
        [
            {
                "scale": scale,
                "lang": lang,
                "gazetteer_pairs": gazetteer_pairs,
                "sentences": counts.sentences,
                "animate_sentences": counts.animate_sentences,
                "animate_percent": counts.animate_percent,
                "animate_nouns": counts.animate_nouns,
                "copies": counts.copies,
                "paper_gazetteer_pairs": row.get("gazetteer_pairs"),
                "paper_animate_percent": row.get("animate_percent"),
            }
        ]
    )


def noun_counts_table(counts: Counter[tuple[str, str]]) -> pd.DataFrame:
    """Occurrences of each gazetteer noun (by its masculine lemma) as masculine and as feminine."""
    pairs = sorted({m for m, _ in counts})
    return pd.DataFrame(
        [{"masculine": m, "masc": counts[(m, "Masc")], "fem": counts[(m, "Fem")]} for m in pairs],
        columns=["masculine", "masc", "fem"],
    )


@dataclass
class ExtrinsicTables:
    """Fig. 4 / Table 5 (`results`), the reduction factors, Fig. 5's groups, Tables 4 and 8."""

    results: pd.DataFrame
    reductions: pd.DataFrame
    groups: pd.DataFrame
    table4: pd.DataFrame
    table8: pd.DataFrame


def extrinsic_tables(
    scale: str,
    langs: Sequence[str],
    probes: Sequence[str | Path],
    nouns: Sequence[str | Path],
    stats: Sequence[str | Path],
    lms: Sequence[str | Path],
    threshold: float,
) -> ExtrinsicTables:
    """Stereotyping and grammaticality under each language's three LMs (§5.2), from the probe
    scores (`probes`), the noun counts (`nouns`), the corpus stats and the LM folders
    (``.../<lang>/lm/<corpus>/metrics.json``)."""
    fig5_es = paper_number("fig5_es_mean_stereotyping") or {}
    rows, groups, reductions, table8 = [], [], [], None
    lm_folders = {(Path(f).parent.parent.name, Path(f).name): Path(f) for f in lms}
    for lang, probes_path, nouns_path in zip(langs, probes, nouns, strict=True):
        table = pd.read_csv(probes_path, sep="\t", keep_default_na=False)
        items = [Probe(r.masculine, r.adjective, r.kind, r.phrase) for r in table.itertuples()]
        counts = pd.read_csv(nouns_path, sep="\t", keep_default_na=False)
        leaning = stereotyped_nouns({r.masculine: (r.masc, r.fem) for r in counts.itertuples()}, threshold)
        for corpus in CORPORA:
            st = stereotyping(items, table[corpus].tolist())
            gr = grammaticality(items, table[corpus].tolist())
            metrics = json.loads((lm_folders[(lang, corpus)] / "metrics.json").read_text())
            rows.append(
                {
                    "scale": scale,
                    "lang": lang,
                    "corpus": corpus,
                    "nouns": len({n for n, _ in st}),
                    "stereotyping": float(np.mean(np.abs(list(st.values())))),
                    "stereotyping_signed": float(np.mean(list(st.values()))),
                    "grammaticality": float(np.mean(list(gr.values()))),
                    "lm_dev_perplexity": metrics["dev_perplexity"],
                }
            )
            for gender in ("Fem", "Masc"):
                values = [v for (noun, _), v in st.items() if leaning.get(noun) == gender]
                groups.append(
                    {
                        "scale": scale,
                        "lang": lang,
                        "stereotyped_toward": gender,
                        "corpus": corpus,
                        "nouns": len({noun for noun, g in leaning.items() if g == gender}),
                        "mean_stereotyping": float(np.mean(values)) if values else None,
                        "paper_es": fig5_es.get(corpus, {}).get(gender) if lang == "es" else None,
                    }
                )
        by_corpus = {r["corpus"]: r["stereotyping"] for r in rows if r["lang"] == lang}
        reductions.append(
            {
                "scale": scale,
                "lang": lang,
                "reduction_original_over_mrf": by_corpus["original"] / by_corpus["mrf"],
                "reduction_original_over_swap": by_corpus["original"] / by_corpus["swap"],
                "paper": paper_number(f"{lang}_reduction"),
            }
        )
        if lang == TABLE8_LANG:
            noun = TABLE8_NOUN if TABLE8_NOUN in set(table["masculine"]) else table["masculine"].iloc[0]
            table8 = table[table["masculine"] == noun]
    average = {
        key: float(np.mean([r[key] for r in reductions]))
        for key in ("reduction_original_over_mrf", "reduction_original_over_swap")
    }
    reductions.append({"scale": scale, "lang": "average", **average, "paper": paper_number("average_reduction")})
    return ExtrinsicTables(
        pd.DataFrame(rows),
        pd.DataFrame(reductions),
        pd.DataFrame(groups),
        pd.concat([pd.read_csv(f, sep="\t") for f in stats]),
        table8 if table8 is not None else pd.DataFrame(columns=["lang"]),
    )


def fig4(results: pd.DataFrame, scale: str):
    """Fig. 4: stereotyping and grammaticality per language, one bar per corpus."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    for ax, metric in zip(axes, ("stereotyping", "grammaticality"), strict=True):
        wide = results.pivot(index="lang", columns="corpus", values=metric)[list(CORPORA)]
        wide.plot.bar(ax=ax, rot=0)
        ax.set_title(f"{metric} ({scale})")
    return fig


def fig5(groups: pd.DataFrame):
    """Fig. 5: mean stereotyping of the nouns stereotyped toward one gender, one bar per corpus."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.4))
    scored = groups.dropna(subset=["mean_stereotyping"])
    if len(scored):
        scored.pivot_table(index=["lang", "stereotyped_toward"], columns="corpus", values="mean_stereotyping")[
            list(CORPORA)
        ].plot.bar(ax=ax, rot=0)
    ax.set_title("nouns stereotyped toward one gender")
    return fig
