"""Keys and folders of resumable trainings, without torch.

A training that can be resumed is tied to what it was trained from: :func:`digest` and
:func:`inputs_key` make that key; :func:`resume_folder` gives a tool that keeps its own resume
state (OpenNMT-py, Sockeye) a stable folder, emptied when the key changed. Kept apart from
:mod:`cdaflow.io.checkpoints` (torch training states) so that rules whose env has no torch
(Study B's classifier and error tables import the Sockeye wrapper's names) can import it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["digest", "digest_texts", "inputs_key", "remove_resume_folder", "resume_folder"]

log = logging.getLogger(__name__)


def digest(value: Any) -> str:
    """A short stable hash of a JSON-able value (settings, a data sample), for checkpoint keys."""
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def digest_texts(texts: Iterable[str]) -> str:
    """A short stable hash of a stream of texts (a training set), computed without joining them."""
    hasher = hashlib.sha256()
    for text in texts:
        hasher.update(text.encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()[:16]


def inputs_key(paths: Iterable[str | os.PathLike[str]]) -> dict[str, Any]:
    """Each input file's (or folder's files') size and modification time: a cheap test that a
    checkpoint was made from the same inputs (a re-created input starts training afresh)."""
    key: dict[str, Any] = {}
    for name in paths:
        if not str(name):  # an optional input left empty (not the working folder)
            continue
        path = Path(name)
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        key[str(path)] = [
            [str(f.relative_to(path)) if path.is_dir() else f.name, f.stat().st_size, f.stat().st_mtime_ns]
            for f in files
            if f.exists()
        ]
    return key


def resume_folder(folder: str | os.PathLike[str], key: Mapping[str, Any]) -> Path:
    """`folder` for a tool that keeps its own resume state (OpenNMT-py, Sockeye), emptied first when
    it was left by a training of another key (settings, inputs); the key is kept in ``resume.json``."""
    folder = Path(folder)
    wanted = digest(key)
    record = folder / "resume.json"
    if folder.exists():
        try:
            same = json.loads(record.read_text(encoding="utf-8")).get("key") == wanted
        except (OSError, ValueError, AttributeError):
            same = False
        if not same:
            log.warning("%s: left by a training of other settings or inputs; starting afresh", folder)
            shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not record.exists():
        temp = folder / f".resume.json.{uuid.uuid4().hex}.tmp"
        temp.write_text(json.dumps({"key": wanted}) + "\n", encoding="utf-8")
        os.replace(temp, record)
    return folder


def remove_resume_folder(folder: str | os.PathLike[str]) -> None:
    """Remove `folder` and its parents left empty, up to the ``.checkpoints`` folder of the study
    (a finished workflow leaves no empty resume folders behind)."""
    folder = Path(folder)
    shutil.rmtree(folder, ignore_errors=True)
    chain = [folder, *folder.parents]
    root = next((i for i, parent in enumerate(chain) if parent.name == ".checkpoints"), None)
    if root is None:
        return
    for parent in chain[1 : root + 1]:
        try:
            parent.rmdir()  # only when empty: another job's resume state stays
        except OSError:
            return
