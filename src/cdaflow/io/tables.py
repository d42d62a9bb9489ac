"""Result tables: TSV written atomically, so a failed rule never leaves half a table."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd


def write_tsv_atomic(table: pd.DataFrame, path: Path, *, float_format: str = "%.6g") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            table.to_csv(handle, sep="\t", index=False, float_format=float_format)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
