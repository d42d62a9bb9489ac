"""Study D's bias scorer of a cross-study rule, built from the rule's inputs (its own module: it
imports torch, which most rules never load)."""

from __future__ import annotations

from typing import Any

from cdaflow.cross_study.bias_swap import Scorer, infersent_scorer
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import input_path

__all__ = ["infersent_scorer_of_rule"]


def infersent_scorer_of_rule(smk: Any) -> Scorer:
    """:func:`cdaflow.cross_study.bias_swap.infersent_scorer` from a rule's files: inputs ``vectors``,
    ``encoder``, ``direction`` and ``words``, params ``pretrained`` and ``encoder_member``; on CUDA
    when the rule holds a GPU."""
    p = smk.params
    return infersent_scorer(
        smk.input.vectors, input_path(smk.input.encoder, p.encoder_member if p.pretrained else None),
        smk.input.direction, smk.input.words, pretrained=p.pretrained,
        device=rule_device(smk),
    )  # fmt: skip
