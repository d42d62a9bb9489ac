"""Robust HTTP(S) downloads: retries, resume with ``Range`` (within a run and across runs),
an overall deadline, streaming sha256, atomic rename."""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cdaflow import __version__

__all__ = [
    "USER_AGENT",
    "DownloadError",
    "FetchResult",
    "Log",
    "emit",
    "fetch",
    "normalise_sha256",
    "sha256_file",
    "sha256_tree",
    "tree_files",
]

USER_AGENT = f"cdaflow/{__version__}"

#: A logger, a ``print``-like callable, or None for the ``cdaflow.data`` logger.
Log = logging.Logger | Callable[[str], object] | None

_LOGGER = logging.getLogger("cdaflow.data")
_RETRY_STATUSES = frozenset({408, 429})
# Seconds of retrying without receiving a byte after which a download gives up (an unreachable
# host, a server down): the config's retries and backoff alone can add up to tens of minutes
# (paper.yaml: 8 retries, backoff 5 s: 21 min). CDAFLOW_DOWNLOAD_RETRY_WINDOW overrides it.
RETRY_WINDOW = 300.0
RETRY_WINDOW_ENV = "CDAFLOW_DOWNLOAD_RETRY_WINDOW"


def retry_window() -> float:
    """The retry window in seconds: :data:`RETRY_WINDOW`, or the environment's override."""
    text = os.environ.get(RETRY_WINDOW_ENV)
    if text is None:
        return RETRY_WINDOW
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise DownloadError(f"{RETRY_WINDOW_ENV}={text!r}: give a number of seconds above 0")
    return value
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
_CONTENT_RANGE_RE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


class DownloadError(RuntimeError):
    """A download failed for good; the message names the URL and the cause."""


@dataclass(frozen=True)
class FetchResult:
    """A completed, verified download."""

    path: Path
    url: str
    size: int
    sha256: str


class _Retryable(Exception):
    """An attempt failed in a way another attempt may fix."""


def emit(log: Log, message: str, level: int = logging.INFO) -> None:
    """Send ``message`` to ``log`` (a Logger or a callable) or the package logger."""
    if log is None:
        _LOGGER.log(level, message)
    elif isinstance(log, logging.Logger):
        log.log(level, message)
    else:
        log(message)


def normalise_sha256(value: str, *, what: str = "sha256") -> str:
    """Return ``value`` as lower-case hex, or raise ValueError if it is not a sha256."""
    text = value.strip().lower()
    if not _SHA256_RE.fullmatch(text):
        raise ValueError(f"{what}: {value!r} is not a 64-digit hexadecimal sha256")
    return text


def sha256_file(path: str | os.PathLike[str], chunk_size: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def tree_files(directory: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """(relative POSIX path, path) of every file under ``directory``, sorted, following symlinks."""
    root = Path(directory)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory")
    files: list[tuple[str, Path]] = []
    for current, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(current)
        # Prune symlinks that point back at an ancestor: following them would never end.
        dirnames[:] = [
            name for name in dirnames
            if not _is_ancestor(os.path.realpath(os.path.join(current, name)), real)
        ]
        for filename in filenames:
            full = Path(current, filename)
            files.append((full.relative_to(root).as_posix(), full))
    return sorted(files)


def sha256_tree(directory: str | os.PathLike[str]) -> str:
    """Deterministic sha256 of a folder: sorted relative POSIX paths and each file's sha256.

    Symlinks are followed (a file is hashed by content wherever it lives), so a
    copied tree hashes like its source. Empty folders do not contribute.
    """
    digest = hashlib.sha256()
    for relative, full in tree_files(directory):
        digest.update(f"{relative}\0{sha256_file(full)}\n".encode())
    return digest.hexdigest()


def _is_ancestor(candidate: str, path: str) -> bool:
    return path == candidate or path.startswith(candidate.rstrip(os.sep) + os.sep)


def fetch(
    url: str,
    dest: str | os.PathLike[str],
    *,
    sha256: str | None = None,
    retries: int = 5,
    backoff: float = 1.0,
    timeout: float = 60,
    deadline: float | None = None,
    chunk_size: int = 1 << 20,
    progress: bool = False,
    log: Log = None,
    sleep: Callable[[float], object] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    keep_rejected: str | os.PathLike[str] | None = None,
    give_up_after: float | None = None,
) -> FetchResult:
    """Download ``url`` to ``dest`` atomically, retrying and resuming as needed.

    Bytes stream to ``dest + ".part"``; a truncated transfer is resumed with a
    ``Range`` request (or restarted if the server ignores it). 5xx, 408, 429 and
    network errors are retried up to ``retries`` times, waiting
    ``backoff * 2**attempt`` seconds; other HTTP errors fail at once.
    ``timeout`` bounds each wait for the server; ``deadline`` (seconds, None for
    none) bounds the whole download of this file, retries included, so a server
    that drips bytes cannot hold a run forever. ``give_up_after`` (seconds; default
    :func:`retry_window`, 5 minutes) stops the retries once that long has passed without a byte
    received (since the start or the last attempt that received some): an unreachable host is
    reported in minutes, whatever ``retries`` and ``backoff`` add up to; each retry is logged.

    On success the part file is renamed onto ``dest`` (``dest`` is never written
    otherwise). A transfer that gave up (retries exhausted, deadline, interrupt)
    keeps its part file and a ``.part.json`` note of where it came from, so the
    next call resumes it (with ``If-Range``, so a changed resource restarts from
    zero); a permanent HTTP error removes them. A sha256 mismatch removes the
    download, or moves it to ``keep_rejected`` for inspection when given.
    """
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise DownloadError(f"{url}: only http:// and https:// URLs can be downloaded")
    expected = normalise_sha256(sha256, what=f"expected sha256 for {url}") if sha256 else None
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    if deadline is not None and deadline <= 0:
        raise ValueError(f"deadline must be > 0 seconds, got {deadline}")
    dest = Path(dest)
    part = _Part(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part.adopt(url, log)
    ends_at = clock() + deadline if deadline is not None else None
    try:
        transfer = _Transfer(
            timeout=timeout, deadline=deadline, ends_at=ends_at, clock=clock, chunk_size=chunk_size,
            progress=progress, log=log,
        )
        window = give_up_after if give_up_after is not None else retry_window()
        size, digest = _download(url, part, transfer, retries=retries, backoff=backoff, sleep=sleep, window=window)
        if expected is not None and digest != expected:
            where = part.reject(keep_rejected)
            kept = f"; the download is kept at {where} for inspection" if where else ""
            raise DownloadError(
                f"{url}: sha256 mismatch: expected {expected}, got {digest} ({size} bytes received){kept}"
            )
        os.replace(part.path, dest)
        part.forget()
    except _Incomplete as exc:
        # Kept for the next run to resume; the bytes are checked by sha256 at the end anyway.
        kept = part.path.stat().st_size if part.path.exists() else 0
        if kept:
            raise DownloadError(
                f"{exc}; the {kept} bytes received are kept in {part.path} and the next run resumes from there"
            ) from None
        part.forget()
        raise DownloadError(str(exc)) from None
    except DownloadError:
        part.discard()
        raise
    # Any other exception (an interrupt) keeps what was received for the next run to resume.
    emit(log, f"downloaded {url} -> {dest} ({size} bytes, sha256 {digest})", logging.DEBUG)
    return FetchResult(path=dest, url=url, size=size, sha256=digest)


class _Incomplete(DownloadError):
    """The transfer gave up before the end (retries, deadline); its part file is worth resuming."""


class _Part:
    """``dest.part`` and its note ``dest.part.json``: the URL and validators it was started from."""

    def __init__(self, dest: Path) -> None:
        self.path = dest.with_name(dest.name + ".part")
        self.note = dest.with_name(dest.name + ".part.json")
        self.validator: str | None = None  # ETag or Last-Modified, for If-Range
        self.total: int | None = None  # full size announced by the server

    def adopt(self, url: str, log: Log) -> None:
        """Keep a part file left by an earlier run only if its note says it is of ``url``."""
        if not self.path.exists():
            self.note.unlink(missing_ok=True)
            return
        try:
            note = json.loads(self.note.read_text(encoding="utf-8"))
            valid = isinstance(note, dict) and note.get("url") == url
        except (OSError, ValueError):
            valid = False
        if not valid:
            # No note, or another URL's: it cannot be trusted to be the same resource.
            self.discard()
            return
        self.validator = note.get("validator") if isinstance(note.get("validator"), str) else None
        total = note.get("total")
        self.total = total if isinstance(total, int) and not isinstance(total, bool) else None
        emit(log, f"{url}: resuming from the {self.path.stat().st_size} bytes an earlier run left in {self.path}")

    def start(self, url: str, response: http.client.HTTPResponse, total: int | None) -> None:
        """Record where a fresh transfer comes from, before its first byte is written."""
        self.validator = response.headers.get("ETag") or response.headers.get("Last-Modified")
        self.total = total
        note = {"url": url, "validator": self.validator, "total": total}
        self.note.write_text(json.dumps(note) + "\n", encoding="utf-8")

    def reject(self, keep: str | os.PathLike[str] | None) -> Path | None:
        if keep is None or not self.path.exists():
            self.discard()
            return None
        keep = Path(keep)
        keep.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.path, keep)
        self.note.unlink(missing_ok=True)
        return keep

    def forget(self) -> None:
        self.note.unlink(missing_ok=True)

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)
        self.note.unlink(missing_ok=True)
        self.validator = self.total = None


@dataclass(frozen=True)
class _Transfer:
    """How each request of one download runs: its waits, its deadline, its chunks and its reports."""

    timeout: float
    deadline: float | None
    ends_at: float | None  # clock() reading at which `deadline` runs out
    clock: Callable[[], float]
    chunk_size: int
    progress: bool
    log: Log

    def out_of_time(self, wait: float = 0.0) -> bool:
        """Whether the deadline has passed, or would pass during a further `wait` seconds."""
        return self.ends_at is not None and self.clock() + wait >= self.ends_at


def _download(
    url: str,
    part: _Part,
    transfer: _Transfer,
    *,
    retries: int,
    backoff: float,
    sleep: Callable[[float], object],
    window: float = RETRY_WINDOW,
) -> tuple[int, str]:
    attempt = 0
    progress_at = transfer.clock()  # the start, or the end of the last attempt that received bytes
    while True:
        had = _size(part.path)
        try:
            return _attempt(url, part, transfer)
        except _Retryable as exc:
            problem = str(exc)
        if _size(part.path) != had:
            progress_at = transfer.clock()
        if attempt >= retries:
            raise _Incomplete(f"{url}: giving up after {attempt + 1} attempt(s): {problem}")
        delay = backoff * 2**attempt
        if transfer.out_of_time(delay):
            raise _Incomplete(
                f"{url}: {_over_deadline(transfer.deadline)} (after {attempt + 1} attempt(s): {problem})"
            )
        if transfer.clock() + delay - progress_at > window:
            waited = transfer.clock() - progress_at
            raise _Incomplete(
                f"{url}: giving up after {attempt + 1} attempt(s) in {waited:.0f} s without receiving a byte "
                f"(the retry window is {window:g} s; {RETRY_WINDOW_ENV} changes it): {problem}"
            )
        emit(transfer.log, f"{url}: {problem}; retrying in {delay:g} s ({attempt + 1}/{retries})", logging.WARNING)
        sleep(delay)
        attempt += 1


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _over_deadline(deadline: float | None) -> str:
    return (
        f"did not finish within the deadline of {deadline:g} s for one file "
        f"(downloads.deadline in the config)"
    )


def _attempt(url: str, part: _Part, transfer: _Transfer) -> tuple[int, str]:
    """One request; returns (size, sha256) of the complete part file or raises."""
    path = part.path
    offset = path.stat().st_size if path.exists() else 0
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
        if part.validator:
            # The server answers 200 with the whole new resource if it changed since.
            headers["If-Range"] = part.validator
    request = urllib.request.Request(url, headers=headers)
    timeout, ends_at = transfer.timeout, transfer.ends_at
    wait = timeout if ends_at is None else max(min(timeout, ends_at - transfer.clock()), 0.001)
    try:
        response = urllib.request.urlopen(request, timeout=wait)
    except urllib.error.HTTPError as exc:
        exc.close()
        status = f"HTTP {exc.code} {exc.reason}".rstrip()
        if exc.code == 416 and offset:
            if part.total is not None and offset == part.total:
                # An earlier run received every byte but stopped before the rename.
                return offset, sha256_file(path)
            part.discard()
            raise _Retryable(f"{status} for range {offset}-; restarting from zero") from None
        if exc.code >= 500 or exc.code in _RETRY_STATUSES:
            raise _Retryable(status) from None
        raise DownloadError(f"{url}: {status}") from None
    except (ValueError, http.client.InvalidURL) as exc:  # e.g. a malformed port
        raise DownloadError(f"{url}: invalid URL: {exc}") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if transfer.out_of_time():
            raise _Incomplete(f"{url}: {_over_deadline(transfer.deadline)}") from None
        raise _Retryable(f"network error: {reason!s} ({type(exc).__name__})") from None

    with response:
        length_header = response.headers.get("Content-Length")
        length = int(length_header) if length_header and length_header.isdigit() else None
        digest = hashlib.sha256()
        if offset and response.status == 206:
            content_range = response.headers.get("Content-Range", "").strip()
            match = _CONTENT_RANGE_RE.fullmatch(content_range)
            announced = int(match.group(3)) if match and match.group(3) != "*" else None
            if (
                not match
                or int(match.group(1)) != offset
                or (part.total is not None and announced is not None and announced != part.total)
            ):
                part.discard()
                raise _Retryable(
                    f"server answered range {offset}- with Content-Range "
                    f"{response.headers.get('Content-Range')!r}; restarting from zero"
                )
            with open(path, "rb") as fh:
                while chunk := fh.read(transfer.chunk_size):
                    digest.update(chunk)
            mode = "ab"
        elif response.status == 200:
            if offset:
                emit(
                    transfer.log,
                    f"{url}: server ignored the Range request (or the file changed); restarting from zero",
                )
            offset = 0
            mode = "wb"
            part.start(url, response, length)
        else:
            raise DownloadError(f"{url}: unexpected HTTP {response.status} {response.reason}")
        total = offset + length if length is not None else None
        received = 0
        bar = _progress_bar(path, total=total, initial=offset, enabled=transfer.progress)
        try:
            with open(path, mode) as fh:
                while True:
                    try:
                        # read1 returns what has arrived (at most one wait of `timeout`), so a
                        # server that drips bytes is seen by the deadline check below.
                        chunk = response.read1(transfer.chunk_size)
                    except (OSError, http.client.HTTPException) as exc:
                        # IncompleteRead here is, among others, chunked encoding never terminated.
                        raise _Retryable(
                            f"connection lost after {offset + received} of "
                            f"{total if total is not None else 'unknown'} bytes: "
                            f"{exc!s} ({type(exc).__name__})"
                        ) from None
                    if not chunk:
                        break
                    try:
                        fh.write(chunk)
                    except OSError as exc:
                        raise DownloadError(f"{url}: cannot write {path}: {exc}") from exc
                    digest.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
                    if transfer.out_of_time():
                        raise _Incomplete(
                            f"{url}: {_over_deadline(transfer.deadline)}: received {offset + received} of "
                            f"{total if total is not None else 'unknown'} bytes"
                        )
        finally:
            bar.close()
    if length is not None and received < length:
        raise _Retryable(f"transfer truncated: received {offset + received} of {total} bytes")
    return offset + received, digest.hexdigest()


class _Bar(Protocol):
    def update(self, n: int) -> object: ...

    def close(self) -> object: ...


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(part: Path, *, total: int | None, initial: int, enabled: bool) -> _Bar:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    name = part.name.removesuffix(".part")
    bar: _Bar = tqdm(
        total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024, desc=name, leave=False
    )
    return bar
