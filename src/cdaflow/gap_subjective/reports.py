"""Study C's result tables, each beside the paper's own figures (``paper_*`` columns).

The paper's numbers come from ``resources/gap_subjective/paper.yaml`` (:mod:`cdaflow.paper`):

* :func:`detector_table` (§3.2.1) and :func:`transfer_table` (§3.2.2): one row each;
* :func:`table2`: sentences within each threshold, per split and overall;
* :func:`table3_markdown`: kept transfers drawn at random;
* :func:`table4` and :func:`table7`: contexts converted and offsets found again, per split;
* :func:`table6`: mean human ratings of original and transferred sentences;
* :func:`table8`: the coreference benchmark on GAP and GAP-Subjective test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from cdaflow import paper
from cdaflow.gap_subjective.human_eval import RatingError
from cdaflow.gap_subjective.offsets import MENTIONS

__all__ = [
    "DETECTOR_METRICS",
    "TABLE3_EXAMPLES",
    "TABLE8_DATASETS",
    "detector_table",
    "table2",
    "table3_markdown",
    "table4",
    "table6",
    "table7",
    "table8",
    "transfer_table",
]

STUDY = "gap_subjective"
# Held-out metrics of the detector the paper reports (§3.2.1), in column order.
DETECTOR_METRICS = ("accuracy", "precision", "recall", "f1")
TABLE3_EXAMPLES = 10
# Table 8's datasets: the name the table prints, and the prefix of their paper.yaml entries.
TABLE8_DATASETS = {"gap": "GAP", "gap_subjective": "GAP-Subjective"}
# Table 8's columns (the official scorer's O, P, R, M, F, B) and their paper.yaml entry suffixes.
TABLE8_PAPER_COLUMNS = {
    "paper_O": "f1",
    "paper_P": "precision",
    "paper_R": "recall",
    "paper_M": "masculine_f1",
    "paper_F": "feminine_f1",
    "paper_B": "bias",
}


def detector_table(
    model: Mapping[str, Any],
    device: str,
    train_sentences: int,
    test_sentences: int,
    metrics: Mapping[str, float],
    scale: str,
) -> pd.DataFrame:
    """The detector's held-out accuracy, precision, recall and F1 beside the paper's (RoBERTa-base)."""
    row = {
        "model": ", ".join(f"{k}={v}" for k, v in model.items()),
        "device": device,
        "train_sentences": train_sentences,
        "test_sentences": test_sentences,
        **{k: metrics[k] for k in DETECTOR_METRICS},
        **{f"paper_{k}": paper.value(STUDY, f"detector_{k}") for k in DETECTOR_METRICS},
        "scale": scale,
    }
    return pd.DataFrame([row])


def transfer_table(
    train_pairs: int, valid_pairs: int, settings: Any, metrics: Mapping[str, float], scale: str
) -> pd.DataFrame:
    """The transfer model's size and validation perplexity and accuracy (%) beside the paper's."""
    row = {
        "train_pairs": train_pairs,
        "valid_pairs": valid_pairs,
        "train_steps": settings.train_steps,
        "hidden_size": settings.hidden_size,
        "layers": settings.layers,
        "valid_perplexity": metrics.get("perplexity"),
        "valid_accuracy": metrics.get("accuracy"),
        **{f"paper_{k}": paper.value(STUDY, f"transfer_{k}") for k in ("valid_perplexity", "valid_accuracy")},
        "scale": scale,
    }
    return pd.DataFrame([row])


def table2(verdicts: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 2: per split (and overall) the sentences passing each test and all three."""
    printed = paper.value(STUDY, "table2_sentences")
    rows = []
    for split, frame in [*verdicts.items(), ("overall", pd.concat(list(verdicts.values()), ignore_index=True))]:
        total = len(frame)
        kept = int(frame["kept"].sum())
        row = {
            "split": split,
            "total_sentences": total,
            "within_gleu": int(frame["within_gleu"].sum()),
            "within_perplexity": int(frame["within_perplexity"].sum()),
            "objective": int(frame["objective"].sum()),
            "final": kept,
            "final_pct": 100.0 * kept / total if total else float("nan"),
        }
        counts = printed.get(split)
        if counts:
            row.update({f"paper_{k}": counts[k] for k in ("total", "within_gleu", "within_perplexity", "objective")})
            row.update(paper_final=counts["final"], paper_final_pct=100.0 * counts["final"] / counts["total"])
        rows.append(row)
    return pd.DataFrame(rows)


def table3_markdown(
    verdicts: Mapping[str, pd.DataFrame], seed: int, scale: str, examples: int = TABLE3_EXAMPLES
) -> str:
    """Table 3: `examples` kept transfers drawn at random (seeded), as a Markdown table."""
    kept = [(split, row) for split, frame in verdicts.items() for row in frame[frame["kept"]].to_dict("records")]
    sample = random.Random(seed).sample(kept, min(examples, len(kept)))
    lines = [
        f"# Table 3: kept transfers ({len(sample)} drawn at random of {len(kept)}; scale: {scale})\n\n",
        "| split | original (objective) | transferred (subjective) | GLEU | perplexity change |\n"
        "|---|---|---|---|---|\n",
    ]
    for split, row in sample:
        cells = [
            split,
            row["original"],
            row["transferred"],
            f"{row['gleu']:.3f}",
            f"{row['ppl_transferred'] - row['ppl_original']:+.1f}",
        ]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |\n")
    return "".join(lines)


def table7(records: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 7: % of instances whose pronoun / A / B / all offsets were found, per split.

    ``records`` holds each split's :meth:`~cdaflow.gap_subjective.offsets.Rebuilt.record` rows.
    Instances with no transferred sentence count as found, as in the paper (its percentages are of
    all examples).
    """
    printed = paper.value(STUDY, "table7_found_pct")
    rows = []
    for split, frame in records.items():
        row = {"split": split, "examples": len(frame)}
        for column in [f"{name.lower()}_found" for name in MENTIONS] + ["all_found"]:
            row[f"{column}_pct"] = 100.0 * frame[column].astype(bool).mean() if len(frame) else float("nan")
        if split in printed:
            row.update({f"paper_{k}": printed[split][k] for k in ("pronoun", "a", "b", "all")})
        rows.append(row)
    return pd.DataFrame(rows)


def table4(records: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 4: % of contexts with at least one kept transfer, and % changed in the release."""
    printed = paper.value(STUDY, "table4_converted_pct")
    rows = []
    for split, frame in records.items():
        n = len(frame)
        rows.append(
            {
                "split": split,
                "contexts": n,
                "converted_pct": 100.0 * (frame["replaced"] > 0).mean() if n else float("nan"),
                "released_changed_pct": 100.0 * frame["changed"].astype(bool).mean() if n else float("nan"),
                "paper_converted_pct": printed.get(split, float("nan")),
            }
        )
    return pd.DataFrame(rows)


def table6(sheets: Sequence[pd.DataFrame], key: pd.DataFrame) -> pd.DataFrame:
    """Table 6: mean fluency and subjectivity of original and transferred sentences.

    ``sheets`` are filled sheets (:func:`~cdaflow.gap_subjective.human_eval.read_filled_sheet`),
    ``key`` the sheet's key. A group with no ratings (a run that kept too few transfers to rate)
    gets empty means and a note saying so, rather than no row.
    """
    if not sheets:
        raise ValueError("no filled sheets")
    printed = paper.value(STUDY, "table6_ratings")
    ratings = pd.concat(sheets, ignore_index=True)
    unknown = sorted(set(ratings["item"]) - set(key["item"]))
    if unknown:
        raise RatingError(f"items not in the key: {unknown[:5]}")
    # astype(str): an empty sheet or key reads back with a float item column.
    joined = ratings.astype({"item": str}).merge(key.astype({"item": str}), on="item")
    rows = []
    for group in ("original", "transferred"):
        part = joined[joined["group"] == group]
        rated = len(part) > 0
        rows.append(
            {
                "group": group,
                "fluency": part["fluency"].mean() if rated else None,
                "subjectivity": part["subjectivity"].mean() if rated else None,
                "ratings": len(part),
                "judges": part["judge"].nunique(),
                "paper_fluency": printed[group]["fluency"],
                "paper_subjectivity": printed[group]["subjectivity"],
                "note": "" if rated else "no ratings: the run kept too few transfers to rate",
            }
        )
    return pd.DataFrame(rows)


def table8(scores: Sequence[tuple[str, str, Mapping[str, Any]]], scale: str) -> pd.DataFrame:
    """Table 8: one row per (dataset, split, scorer row) of `scores`, beside the paper's O P R M F B.

    `dataset` is a key of :data:`TABLE8_DATASETS`; the scorer row is
    :meth:`~cdaflow.gap_subjective.scorer.Scorecard.as_row`.
    """
    rows = []
    for dataset, split, card in scores:
        row = {"dataset": TABLE8_DATASETS[dataset], "split": split, **card}
        row.update({column: paper.value(STUDY, f"{dataset}_{name}") for column, name in TABLE8_PAPER_COLUMNS.items()})
        rows.append(row)
    return pd.DataFrame(rows).assign(bias_definition="F/M (official GAP scorer)", scale=scale)
