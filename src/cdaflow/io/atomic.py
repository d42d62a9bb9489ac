"""Atomic folder output: a failed writer leaves nothing, a finished one appears at once."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_directory(destination: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary sibling folder to fill; on success it replaces `destination`.

    On any exception the temporary folder is removed and `destination` is left as it was.
    """
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}."))
    try:
        yield tmp
        os.chmod(tmp, 0o755)  # mkdtemp makes it 0700
        if destination.exists():
            shutil.rmtree(destination)
        os.replace(tmp, destination)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
