"""Result tables: TSV written atomically, so a failed rule never leaves half a table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_file


def write_tsv_atomic(table: pd.DataFrame, path: Path, *, float_format: str = "%.6g") -> None:
    with atomic_file(path, newline="") as handle:
        table.to_csv(handle, sep="\t", index=False, float_format=float_format)
