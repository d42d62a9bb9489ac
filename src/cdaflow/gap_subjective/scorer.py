"""The official GAP scorer (Webster et al. 2018), as Pant & Dadu (2022) use it in §4.1 and Table 8.

A faithful port of ``gap_scorer.py`` from google-research-datasets/gap-coreference:

* every gold example contributes two binary decisions, "is Name A the pronoun's antecedent" and
  "is Name B", to the Overall counts and to the counts of its gender;
* the gender is the pronoun's (she/her/hers feminine, he/his/him masculine);
* a gold example without a system answer counts as a false negative for *both* decisions, whatever
  the gold label (so a missing answer can cost even where the gold says FALSE);
* system answers for IDs that are not in the gold are ignored;
* precision, recall and F1 per group; F1 is 0 when precision + recall is 0;
* bias = feminine F1 / masculine F1, undefined ("-" in the official scorecard, NaN here) when
  either F1 is 0, exactly as the official ``if bias_terms[M] and bias_terms[F]``.

The paper's §4.1 calls the bias both "the ratio of feminine to masculine F1" and "M/F"; the numbers
in its Table 8 (GAP: M 0.802, F 0.790, B 0.984 = 0.790 / 0.802) are F/M, the official definition,
which is what this module reports. Scores are fractions in [0, 1] like Table 8 (the official
scorecard prints percentages; the ratios are the same).

Deliberate differences, all on malformed input, where the official script prints and carries on:
an unreadable TRUE/FALSE value or a duplicate ID in a system file raises `SystemFileError` naming
the file, line and field.

The system file format is the official one: ``ID<TAB>A-coref<TAB>B-coref`` with TRUE/FALSE values,
no header (an ``ID A-coref B-coref`` header line is tolerated on reading).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cdaflow.gap_subjective.gap import GapExample, read_gap
from cdaflow.io.atomic import atomic_file

__all__ = [
    "SYSTEM_COLUMNS",
    "Scorecard",
    "Scores",
    "SystemFileError",
    "read_system_tsv",
    "score",
    "score_files",
    "write_system_tsv",
]

logger = logging.getLogger(__name__)

SYSTEM_COLUMNS: tuple[str, str, str] = ("ID", "A-coref", "B-coref")
GENDERS: tuple[str, str] = ("masculine", "feminine")
_BOOLEANS = {"true": True, "false": False}


class SystemFileError(ValueError):
    """A malformed system output file; the message names the file, line and field."""


@dataclass(frozen=True)
class Scores:
    """Confusion counts of binary coreference decisions, and the metrics derived from them."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        denominator = self.tp + self.fp
        return self.tp / denominator if denominator else 0.0

    @property
    def recall(self) -> float:
        denominator = self.tp + self.fn
        return self.tp / denominator if denominator else 0.0

    @property
    def f1(self) -> float:
        precision, recall = self.precision, self.recall
        denominator = precision + recall
        return 2 * precision * recall / denominator if denominator else 0.0


@dataclass(frozen=True)
class Scorecard:
    """Overall and per-gender scores of one system on one gold set, and the F/M bias."""

    overall: Scores
    masculine: Scores
    feminine: Scores
    missing: tuple[str, ...] = field(default=())  # gold IDs without a system answer

    @property
    def bias(self) -> float:
        """Feminine F1 / masculine F1; NaN when either is 0 (the official scorer prints "-")."""
        if self.masculine.f1 and self.feminine.f1:
            return self.feminine.f1 / self.masculine.f1
        return math.nan

    def as_row(self) -> dict[str, float | int]:
        """Table 8's columns (O, P, R, M, F, B) plus the count of missing answers."""
        return {
            "overall_f1": self.overall.f1,
            "precision": self.overall.precision,
            "recall": self.overall.recall,
            "masculine_f1": self.masculine.f1,
            "feminine_f1": self.feminine.f1,
            "bias": self.bias,
            "missing": len(self.missing),
        }

    def to_text(self) -> str:
        """The official scorer's printed scorecard (percentages, one decimal; bias two decimals)."""
        lines: list[str] = []
        for name, scores in (("Overall", self.overall), ("Masculine", self.masculine), ("Feminine", self.feminine)):
            lines.append(
                f"{name} recall: {100 * scores.recall:.1f} precision: {100 * scores.precision:.1f} "
                f"f1: {100 * scores.f1:.1f}"
            )
            lines.append(f"\t\ttp {scores.tp:d}\tfp {scores.fp:d}")
            lines.append(f"\t\tfn {scores.fn:d}\ttn {scores.tn:d}")
        bias = "-" if math.isnan(self.bias) else f"{self.bias:.2f}"
        lines.append(f"Bias (F/M): {bias}\n")
        return "\n".join(lines)


def _tally(counts: dict[str, int], gold: bool, system: bool | None) -> None:
    # The official branch order: a missing answer is a false negative whatever the gold says.
    if system is None:
        counts["fn"] += 1
    elif gold and system:
        counts["tp"] += 1
    elif system:
        counts["fp"] += 1
    elif gold:
        counts["fn"] += 1
    else:
        counts["tn"] += 1


def score(gold: Sequence[GapExample], predicted: Mapping[str, tuple[bool, bool]]) -> Scorecard:
    """Score system answers (ID -> (A-coref, B-coref)) against gold examples, as ``gap_scorer.py``."""
    if not gold:
        raise ValueError("score: no gold examples")
    counts = {group: {"tp": 0, "fp": 0, "tn": 0, "fn": 0} for group in ("overall", *GENDERS)}
    missing: list[str] = []
    seen: set[str] = set()
    for example in gold:
        if example.id in seen:
            raise ValueError(f"score: duplicate gold ID {example.id!r}")
        seen.add(example.id)
        answer = predicted.get(example.id)
        if answer is None:
            missing.append(example.id)
            system_a: bool | None = None
            system_b: bool | None = None
        else:
            system_a, system_b = answer
        for group in ("overall", example.gender):
            _tally(counts[group], example.a_coref, system_a)
            _tally(counts[group], example.b_coref, system_b)
    if missing:
        logger.warning("%d of %d gold examples have no system answer (each counts as 2 false negatives)",
                       len(missing), len(gold))
    return Scorecard(
        overall=Scores(**counts["overall"]),
        masculine=Scores(**counts["masculine"]),
        feminine=Scores(**counts["feminine"]),
        missing=tuple(missing),
    )


def read_system_tsv(path: str | os.PathLike[str]) -> dict[str, tuple[bool, bool]]:
    """A system output file (``ID<TAB>A-coref<TAB>B-coref``, TRUE/FALSE any case) as ID -> (A, B)."""
    path = Path(path)
    answers: dict[str, tuple[bool, bool]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for line_number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue  # the official csv reader skips blank lines too
            values = line.split("\t")
            where = f"{path}: line {line_number}"
            if len(values) != len(SYSTEM_COLUMNS):
                raise SystemFileError(
                    f"{where}: {len(values)} tab-separated fields, expected {len(SYSTEM_COLUMNS)} "
                    f"({', '.join(SYSTEM_COLUMNS)})"
                )
            if line_number == 1 and tuple(values) == SYSTEM_COLUMNS:
                continue
            example_id = values[0]
            if not example_id:
                raise SystemFileError(f"{where}: field ID: empty")
            flags: list[bool] = []
            for name, value in zip(SYSTEM_COLUMNS[1:], values[1:]):
                flag = _BOOLEANS.get(value.strip().lower())
                if flag is None:
                    raise SystemFileError(f"{where}: field {name}: {value!r} is not TRUE or FALSE")
                flags.append(flag)
            if example_id in answers:
                raise SystemFileError(f"{where}: field ID: duplicate {example_id!r}")
            answers[example_id] = (flags[0], flags[1])
    return answers


def write_system_tsv(path: str | os.PathLike[str], predicted: Mapping[str, tuple[bool, bool]]) -> int:
    """Write answers in the official system format (no header, TRUE/FALSE), atomically; returns rows."""
    lines: list[str] = []
    for example_id, (a_coref, b_coref) in predicted.items():
        if not example_id or any(character in example_id for character in "\t\r\n"):
            raise ValueError(f"{path}: ID {example_id!r} is empty or holds a tab or newline")
        lines.append(f"{example_id}\t{'TRUE' if a_coref else 'FALSE'}\t{'TRUE' if b_coref else 'FALSE'}\n")
    with atomic_file(Path(path)) as handle:
        handle.writelines(lines)
    return len(lines)


def score_files(gold_tsv: str | os.PathLike[str], system_tsv: str | os.PathLike[str]) -> Scorecard:
    """The official command line's ``run_scorer``: a GAP gold tsv against a system tsv."""
    return score(read_gap(gold_tsv), read_system_tsv(system_tsv))
