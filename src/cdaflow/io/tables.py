"""Result tables: TSV written atomically, so a failed rule never leaves half a table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_file


def write_tsv_atomic(table: pd.DataFrame, path: Path, *, float_format: str = "%.6g") -> None:
    with atomic_file(path, newline="") as handle:
        table.to_csv(handle, sep="\t", index=False, float_format=float_format)


def read_tsv(path: Path | str, *, text_columns: tuple[str, ...] = ()) -> pd.DataFrame:
    """A table written by :func:`write_tsv_atomic`. Only empty cells are missing values (a
    sentence reading "NA" or "null" stays text); ``text_columns`` come back as str, empty as ""."""
    table = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""],
                        dtype={name: str for name in text_columns})
    for name in text_columns:
        table[name] = table[name].fillna("")
    return table
