"""The human evaluation kit of §3.2.4 (Table 6).

``rating_sheet`` draws ``per_group`` transferred sentences and ``per_group`` original sentences
(34 and 34 in the paper) from the kept pairs, shuffles them into one blinded sheet (no column
says which is which; the original and the transferred version of one sentence never both appear,
so a judge cannot compare them), and returns the key separately. Judges fill ``fluency``
(1 poor - 5 perfect) and ``subjectivity`` (1 highly objective, factual - 5 highly subjective).
``read_filled_sheet`` checks a judge's sheet; :func:`cdaflow.gap_subjective.reports.table6` joins
the filled sheets with the key and averages per group: Table 6.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

__all__ = ["INSTRUCTIONS", "RatingError", "rating_sheet", "read_filled_sheet"]

SCALES = ("fluency", "subjectivity")
INSTRUCTIONS = (
    "# Rate each sentence on its own. fluency: 1 (poor) to 5 (perfect).",
    "# subjectivity: 1 (highly objective, factual) to 5 (highly subjective).",
    "# Fill both columns with whole numbers 1-5; keep the item column as it is.",
)


class RatingError(ValueError):
    """A malformed filled sheet; the message names the file, line and field."""


def rating_sheet(
    originals: Sequence[str], transferred: Sequence[str], ids: Sequence[str], *, per_group: int = 34, seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(sheet, key) for ``per_group`` transferred and ``per_group`` original sentences."""
    if not len(originals) == len(transferred) == len(ids):
        raise ValueError("originals, transferred and ids must be aligned")
    if per_group < 0 or len(ids) < 2 * per_group:
        raise ValueError(f"{len(ids)} kept sentence pairs; the sheet needs {2 * per_group} distinct ones")
    rng = random.Random(seed)
    chosen = rng.sample(range(len(ids)), 2 * per_group)
    items = [(transferred[i], "transferred", ids[i]) for i in chosen[:per_group]]
    items += [(originals[i], "original", ids[i]) for i in chosen[per_group:]]
    rng.shuffle(items)
    names = [f"item{k + 1:03d}" for k in range(len(items))]
    sheet = pd.DataFrame({"item": names, "sentence": [s for s, _, _ in items], "fluency": "", "subjectivity": ""})
    key = pd.DataFrame({"item": names, "group": [g for _, g, _ in items], "source": [i for _, _, i in items]})
    return sheet, key


def read_filled_sheet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """One judge's filled sheet: item, fluency, subjectivity (whole numbers 1-5)."""
    path = Path(path)
    frame = pd.read_csv(path, sep="\t", comment="#", dtype=str, keep_default_na=False)
    missing = {"item", *SCALES} - set(frame.columns)
    if missing:
        raise RatingError(f"{path}: header lacks {sorted(missing)}")
    header_line = 1 + sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#"))
    ratings: dict[str, list[int]] = {scale: [] for scale in SCALES}  # a sheet with nothing to rate is valid
    for row, record in enumerate(frame.to_dict("records")):
        for scale in SCALES:
            value = record[scale].strip()
            if value not in {"1", "2", "3", "4", "5"}:
                raise RatingError(
                    f"{path}: line {header_line + row + 1}: field {scale}: {value!r} is not a whole number 1-5"
                )
            ratings.setdefault(scale, []).append(int(value))
    return pd.DataFrame({"item": frame["item"], **ratings, "judge": path.stem})
