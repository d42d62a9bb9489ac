"""Atomic output (files and folders): a failed writer leaves nothing, a finished one appears at once."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def check_replaceable(destination: Path) -> None:
    """Refuse a folder whose replacement would delete the caller's own files."""
    resolved = destination.resolve()
    protected = resolved in (Path(resolved.anchor), Path.home().resolve())
    if protected or Path.cwd().resolve().is_relative_to(resolved):
        raise ValueError(
            f"{destination}: refusing to replace this folder (a filesystem root, the home folder, or the working "
            "folder or one of its parents)"
        )


@contextlib.contextmanager
def atomic_directory(destination: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary sibling folder to fill; on success it replaces `destination`.

    On any exception the temporary folder is removed and `destination` is left as it was. The old
    folder is moved aside before the new one takes its name and deleted only then. A destination
    that is a filesystem root, the home folder, or the working folder or one of its parents is
    refused: replacing it would delete the caller's own files.
    """
    destination = Path(destination)
    check_replaceable(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}."))
    old = None
    try:
        yield tmp
        os.chmod(tmp, 0o755)  # mkdtemp makes it 0700
        if destination.exists() or destination.is_symlink():
            old = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}.old."))
            os.replace(destination, old / "previous")
        os.replace(tmp, destination)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and (old / "previous").exists() and not destination.exists():
            os.replace(old / "previous", destination)  # put the old folder back
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def atomic_file(
    destination: str | os.PathLike[str],
    mode: str = "w",
    *,
    encoding: str | None = "utf-8",
    newline: str | None = None,
) -> Iterator[IO]:
    """Yield a handle on a temporary sibling file; on success it is synced and renamed to
    `destination`, on any exception it is removed and `destination` is left as it was."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    temp = destination.with_name(f".{destination.name}.{uuid.uuid4().hex}.tmp")
    # os.open with 0o666 honours the umask, unlike tempfile's private 0o600 files.
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        binary = "b" in mode
        with open(
            fd, mode, encoding=None if binary else encoding, newline=None if binary else newline
        ) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, destination)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
