"""Thresholding of transferred sentences (§3.2.3, Table 2).

A transferred sentence replaces its original only when it passes all three tests:

A. content preservation: ``gleu_min < GLEU(transferred, original) < gleu_max`` (0.8 and 1.0:
   similar, but not unchanged);
B. fluency: the causal LM's perplexity of the transferred sentence exceeds the original's by at
   most ``max_perplexity_increase`` (100);
C. original attribute: the detector found the original objective (a subjective sentence needs no
   transfer).

:func:`score_transfers` measures the three (GLEU, both perplexities, the detector's verdict) and
:func:`apply_thresholds` gives the verdicts. Table 2 counts each test on its own and the
intersection, per split and overall (:func:`cdaflow.gap_subjective.reports.table2`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from cdaflow.gap_subjective.gleu import sentence_gleu
from cdaflow.settings import settings_from

__all__ = ["Thresholds", "apply_thresholds", "fluency_keep", "score_transfers"]


@dataclass(frozen=True)
class Thresholds:
    gleu_min: float = 0.8
    gleu_max: float = 1.0
    max_perplexity_increase: float = 100.0

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Thresholds:
        return settings_from(cls, config, "thresholding settings")


def fluency_keep(
    original_ppl: Sequence[float] | np.ndarray,
    transferred_ppl: Sequence[float] | np.ndarray,
    max_increase: float = 100.0,
) -> np.ndarray:
    """True where a transfer passes the paper's fluency threshold.

    The increase is ``transferred - original``; a transfer is kept when the increase is at most
    `max_increase` (an increase of exactly 100 is kept: the paper discards changes "more than
    100"). A perplexity *drop* of any size is kept. A NaN perplexity, or infinite original and
    transferred perplexities, give a NaN increase, which is not kept.
    """
    original = np.asarray(original_ppl, dtype=np.float64)
    transferred = np.asarray(transferred_ppl, dtype=np.float64)
    if original.shape != transferred.shape:
        raise ValueError(f"original perplexities have shape {original.shape}, transferred {transferred.shape}")
    if math.isnan(max_increase):
        raise ValueError("max_increase is NaN")
    with np.errstate(invalid="ignore"):  # inf - inf is a NaN increase, handled as "not kept"
        increase = transferred - original
    return increase <= max_increase


def apply_thresholds(scores: pd.DataFrame, thresholds: Thresholds) -> pd.DataFrame:
    """Add the verdict columns to per-sentence scores.

    ``scores`` has ``gleu``, ``ppl_original``, ``ppl_transferred`` and ``subjective`` (the
    detector's verdict on the original). An infinite transferred perplexity (an empty output)
    fails B.
    """
    missing = {"gleu", "ppl_original", "ppl_transferred", "subjective"} - set(scores.columns)
    if missing:
        raise KeyError(f"sentence scores lack the columns {sorted(missing)}")
    out = scores.copy()
    out["within_gleu"] = (out["gleu"] > thresholds.gleu_min) & (out["gleu"] < thresholds.gleu_max)
    out["within_perplexity"] = fluency_keep(
        out["ppl_original"], out["ppl_transferred"], thresholds.max_perplexity_increase
    )
    out["objective"] = ~out["subjective"].astype(bool)
    out["kept"] = out["within_gleu"] & out["within_perplexity"] & out["objective"]
    return out


def _perplexities(scorer: Any, sentences: Sequence[str]) -> np.ndarray:
    """Perplexities, infinite for an empty sentence (a transfer that produced nothing fails B)."""
    result = np.full(len(sentences), np.inf)
    scored = [i for i, s in enumerate(sentences) if s.strip()]
    if scored:
        result[scored] = scorer.perplexities([sentences[i] for i in scored])
    return result


def score_transfers(
    originals: Sequence[str],
    transferred: Sequence[str],
    p_subjective: Sequence[float],
    *,
    scorer: Any,
    thresholds: Thresholds,
    detector_threshold: float = 0.5,
) -> pd.DataFrame:
    """Per sentence: GLEU, both perplexities, the detector's verdict on the original, the verdicts."""
    if not len(originals) == len(transferred) == len(p_subjective):
        raise ValueError("originals, transferred and p_subjective must be aligned")
    frame = pd.DataFrame(
        {
            "original": list(originals),
            "transferred": list(transferred),
            "gleu": [sentence_gleu(t, o) for o, t in zip(originals, transferred)],
            "ppl_original": _perplexities(scorer, originals),
            "ppl_transferred": _perplexities(scorer, transferred),
            "p_subjective": np.asarray(p_subjective, dtype=float),
        }
    )
    frame["subjective"] = frame["p_subjective"] > detector_threshold
    return apply_thresholds(frame, thresholds)
