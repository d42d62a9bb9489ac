"""The downloads lock file (``results/downloads.tsv``): what was fetched, from where, with which sha256."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["COLUMNS", "LockEntry", "LockFile", "utc_now"]

COLUMNS: tuple[str, ...] = ("dataset", "url", "file", "size", "sha256", "fetched_at")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")


def utc_now() -> str:
    """The current time as ISO-8601 UTC with a ``Z`` suffix, to the second."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class LockEntry:
    """One acquired file: ``url`` is the download URL or ``path:<absolute path>``."""

    dataset: str
    url: str
    file: str
    size: int
    sha256: str
    fetched_at: str

    @property
    def key(self) -> str:
        """``dataset/file``: the key of :meth:`LockFile.entries`."""
        return f"{self.dataset}/{self.file}"

    def problems(self) -> list[tuple[str, str]]:
        """(field, message) for every invalid field; empty when the entry is valid."""
        found: list[tuple[str, str]] = []
        for name in ("dataset", "url", "file", "sha256", "fetched_at"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                found.append((name, "must be a non-empty string"))
            elif any(c in value for c in "\t\r\n"):
                found.append((name, "must not contain tabs or line breaks"))
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 0:
            found.append(("size", f"must be a non-negative integer, got {self.size!r}"))
        if isinstance(self.sha256, str) and self.sha256 and not _SHA256_RE.fullmatch(self.sha256):
            found.append(("sha256", f"must be 64 lower-case hex digits, got {self.sha256!r}"))
        if isinstance(self.fetched_at, str) and self.fetched_at and _parse_time(self.fetched_at) is None:
            found.append(("fetched_at", f"must be an ISO-8601 UTC time, got {self.fetched_at!r}"))
        return found

    def to_row(self) -> str:
        return "\t".join(str(getattr(self, c)) for c in COLUMNS)


def _parse_time(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    offset = parsed.utcoffset()
    if offset is None or offset.total_seconds() != 0:
        return None
    return parsed


class LockFile:
    """A TSV lock file; writers serialise on an ``fcntl.flock`` of ``<path>.lock``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")

    def __repr__(self) -> str:
        return f"LockFile({str(self.path)!r})"

    def entries(self) -> dict[str, LockEntry]:
        """All entries keyed by ``dataset/file`` (empty if the file does not exist).

        Raises ValueError naming the file, line and field for malformed content.
        """
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        return self._parse(text)

    def get(self, dataset: str, file: str) -> LockEntry | None:
        return self.entries().get(f"{dataset}/{file}")

    def for_dataset(self, dataset: str) -> list[LockEntry]:
        return [e for e in self.entries().values() if e.dataset == dataset]

    def record(self, entry: LockEntry) -> None:
        """Insert ``entry`` or replace the one with the same (dataset, file)."""
        self.record_many([entry])

    def record_many(self, entries: Iterable[LockEntry]) -> None:
        """Insert or replace several entries in one locked, atomic rewrite."""
        new = list(entries)
        for entry in new:
            problems = entry.problems()
            if problems:
                field, message = problems[0]
                raise ValueError(f"{self.path}: cannot record {entry.key}: field {field!r} {message}")
        with self._locked():
            current = self.entries()
            for entry in new:
                current[entry.key] = entry
            self._write(current.values())

    def remove(self, dataset: str, file: str | None = None) -> int:
        """Remove the entries of ``dataset`` (only ``file`` if given); return how many."""
        with self._locked():
            current = self.entries()
            keep = {
                k: e for k, e in current.items()
                if not (e.dataset == dataset and (file is None or e.file == file))
            }
            removed = len(current) - len(keep)
            if removed:
                self._write(keep.values())
        return removed

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _parse(self, text: str) -> dict[str, LockEntry]:
        if not text.strip():  # e.g. created by ``touch``
            return {}
        lines = text.splitlines()
        if lines[0].rstrip("\r").split("\t") != list(COLUMNS):
            raise ValueError(
                f"{self.path}, line 1, field 'header': expected the header "
                f"{chr(9).join(COLUMNS)!r}, got {lines[0]!r}"
            )
        result: dict[str, LockEntry] = {}
        for number, line in enumerate(lines[1:], start=2):
            line = line.rstrip("\r")
            if not line.strip():
                continue
            values = line.split("\t")
            if len(values) != len(COLUMNS):
                field = COLUMNS[len(values)] if len(values) < len(COLUMNS) else COLUMNS[-1]
                what = "missing" if len(values) < len(COLUMNS) else "followed by extra fields"
                raise ValueError(
                    f"{self.path}, line {number}, field {field!r}: {what} "
                    f"(expected {len(COLUMNS)} tab-separated fields, got {len(values)})"
                )
            fields = dict(zip(COLUMNS, values, strict=True))
            size_text = fields.pop("size")
            if not size_text.isdigit():
                raise ValueError(
                    f"{self.path}, line {number}, field 'size': "
                    f"must be a non-negative integer, got {size_text!r}"
                )
            entry = LockEntry(size=int(size_text), **fields)
            problems = entry.problems()
            if problems:
                field, message = problems[0]
                raise ValueError(f"{self.path}, line {number}, field {field!r}: {message}")
            if entry.key in result:
                raise ValueError(
                    f"{self.path}, line {number}, field 'file': duplicate entry for dataset "
                    f"{entry.dataset!r} file {entry.file!r}"
                )
            result[entry.key] = entry
        return result

    def _write(self, entries: Iterable[LockEntry]) -> None:
        ordered = sorted(entries, key=lambda e: (e.dataset, e.file))
        body = "\t".join(COLUMNS) + "\n" + "".join(e.to_row() + "\n" for e in ordered)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o644
            os.chmod(tmp, mode)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

