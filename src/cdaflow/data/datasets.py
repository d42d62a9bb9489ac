"""Acquire one configured dataset (URL, multi-file or local path) into a folder, atomically.

Config entry shapes (validated upstream)::

    {"url": ..., "sha256": ..., "path": ..., "extract": ..., "strip_components": 0, "description": ...}
    {"files": {"<name>": {"url": ..., "sha256": ...}}, "path": ..., "extract": ..., ...}

``path`` overrides ``url``/``files``. ``extract`` None means "extract archives".
Checksums: a configured sha256 must match; otherwise the lock file's record for
the same (dataset, file, url) must match (trust on first use), and every
acquired file is (re)recorded.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import posixpath
import shutil
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cdaflow.data.archive import archive_kind, extract, temp_sibling
from cdaflow.data.download import (
    DownloadError,
    Log,
    emit,
    fetch,
    normalise_sha256,
    sha256_file,
    sha256_tree,
    tree_files,
)
from cdaflow.data.lockfile import LockEntry, LockFile, utc_now

__all__ = ["ChecksumError", "DatasetError", "acquire", "describe", "verify"]


class DatasetError(ValueError):
    """A dataset entry cannot be acquired as configured (bad entry, missing path, collisions)."""


class ChecksumError(DatasetError):
    """An acquired file's sha256 differs from the configured or previously recorded one."""


@dataclass(frozen=True)
class _Source:
    file: str  # name in the cache, in the lock file and (unless extracted) in the dataset folder
    url: str | None
    path: Path | None  # absolute local path; set instead of url
    sha256: str | None  # configured, normalised

    @property
    def origin(self) -> str:
        """The lock file's ``url`` column."""
        return self.url if self.url is not None else f"path:{self.path}"


def _file_name(name: str, file: str, what: str) -> str:
    if not file or file in (".", "..") or "/" in file or "\\" in file or "\0" in file:
        raise DatasetError(f"dataset {name!r}: {what} {file!r} is not a plain file name")
    return file


def _sources(name: str, entry: Mapping[str, Any]) -> list[_Source]:
    def sha(value: Any, file: str) -> str | None:
        if not value:
            return None
        try:
            return normalise_sha256(str(value), what=f"dataset {name!r}: sha256 of {file}")
        except ValueError as exc:
            raise DatasetError(str(exc)) from None

    if entry.get("path"):
        path = Path(os.path.abspath(Path(str(entry["path"])).expanduser()))
        if not os.path.lexists(path):
            raise DatasetError(f"dataset {name!r}: path {entry['path']!r} ({path}) does not exist")
        file = path.name or str(path)
        return [_Source(file, None, path, sha(entry.get("sha256"), file))]
    files = entry.get("files")
    if files:
        sources = []
        for file, spec in files.items():
            _file_name(name, file, "file name")
            url = spec.get("url") if isinstance(spec, Mapping) else None
            if not url:
                raise DatasetError(f"dataset {name!r}: file {file!r} has no url")
            sources.append(_Source(file, str(url), None, sha(spec.get("sha256"), file)))
        return sources
    url = entry.get("url")
    if url:
        url = str(url)
        file = posixpath.basename(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
        _file_name(name, file, f"the file name taken from the URL {url}:")
        return [_Source(file, url, None, sha(entry.get("sha256"), file))]
    raise DatasetError(f"dataset {name!r}: the entry sets none of 'url', 'files' or 'path'")


def acquire(
    name: str,
    entry: Mapping[str, Any],
    dest: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str],
    lockfile: LockFile | None,
    log: Log = None,
    fetch_kwargs: Mapping[str, Any] | None = None,
) -> Path:
    """Build the folder ``dest`` for dataset ``name`` from its config ``entry``; return ``dest``.

    Downloads go to ``cache_dir/<name>/<file>`` (reused when the cached file's
    sha256 is known and matches) and are extracted or hard-linked/copied into a
    temporary sibling of ``dest`` that replaces ``dest`` only once everything
    succeeded; on failure ``dest`` is left as it was. ``fetch_kwargs`` are passed
    to :func:`cdaflow.data.download.fetch` (retries, backoff, timeout, progress, sleep).
    """
    dest = Path(dest)
    cache_dir = Path(cache_dir)
    sources = _sources(name, entry)
    extract_flag = entry.get("extract")
    strip = int(entry.get("strip_components") or 0)
    recorded = lockfile.entries() if lockfile is not None else {}
    needs_cache = any(s.url is not None for s in sources)
    build = temp_sibling(dest, "building")
    try:
        with _cache_lock(cache_dir / name) if needs_cache else contextlib.nullcontext():
            new_entries: list[LockEntry] = []
            for source in sources:
                local, size, digest = _obtain(name, source, cache_dir, recorded, lockfile, log, fetch_kwargs or {})
                if local.is_dir():
                    emit(log, f"dataset {name}: copying {local}")
                    shutil.copytree(local, build, copy_function=_link_or_copy, dirs_exist_ok=True)
                else:
                    _place_file(name, local, source.file, build, extract_flag, strip, log)
                new_entries.append(
                    LockEntry(name, source.origin, source.file, size, digest, utc_now())
                )
        if lockfile is not None:
            lockfile.record_many(new_entries)
        _swap_into_place(build, dest)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    emit(log, f"dataset {name}: ready at {dest}")
    return dest


def _obtain(
    name: str,
    source: _Source,
    cache_dir: Path,
    recorded: Mapping[str, LockEntry],
    lockfile: LockFile | None,
    log: Log,
    fetch_kwargs: Mapping[str, Any],
) -> tuple[Path, int, str]:
    """The local file or folder for ``source`` with its size and sha256, checked."""
    previous = recorded.get(f"{name}/{source.file}")
    if previous is not None and previous.url != source.origin:
        emit(log, f"dataset {name}: {source.file} now comes from {source.origin} (was {previous.url})")
        previous = None
    if source.path is not None:
        local = source.path
        if local.is_dir():
            digest = sha256_tree(local)
            size = sum(path.stat().st_size for _, path in tree_files(local))
        elif local.is_file():
            digest = sha256_file(local)
            size = local.stat().st_size
        else:
            raise DatasetError(f"dataset {name!r}: path {local} is neither a file nor a folder")
        if source.sha256 is not None and digest != source.sha256:
            raise ChecksumError(
                f"dataset {name!r}: sha256 mismatch for {local}: expected {source.sha256}, got {digest}"
            )
        _check_recorded(name, source, digest, previous, lockfile)
        return local, size, digest

    assert source.url is not None
    cached = cache_dir / name / source.file
    expected = source.sha256 or (previous.sha256 if previous is not None else None)
    if cached.is_file() and expected is not None:
        digest = sha256_file(cached)
        if digest == expected:
            emit(log, f"dataset {name}: using cached {cached}")
            return cached, cached.stat().st_size, digest
        emit(log, f"dataset {name}: cached {cached} has sha256 {digest}, expected {expected}; downloading again")
    emit(log, f"dataset {name}: downloading {source.url}")
    try:
        result = fetch(source.url, cached, sha256=source.sha256, log=log, **fetch_kwargs)
    except DownloadError as exc:
        raise DownloadError(f"dataset {name!r}: {exc}") from exc
    try:
        _check_recorded(name, source, result.sha256, previous, lockfile)
    except ChecksumError:
        cached.unlink(missing_ok=True)
        raise
    return cached, result.size, result.sha256


def _check_recorded(
    name: str, source: _Source, digest: str, previous: LockEntry | None, lockfile: LockFile | None
) -> None:
    """Trust on first use: without a configured sha256, the recorded one must match."""
    if source.sha256 is not None or previous is None or previous.sha256 == digest:
        return
    where = lockfile.path if lockfile is not None else "the lock file"
    raise ChecksumError(
        f"dataset {name!r}: {source.file} from {source.origin} has sha256 {digest}, but {where} "
        f"recorded {previous.sha256} on {previous.fetched_at}. If the upstream data legitimately "
        f"changed, delete the line for {name}/{source.file} from {where} or set sha256 for "
        f"{name!r} in the config; otherwise the file is corrupt or was tampered with."
    )


def _place_file(
    name: str, local: Path, file: str, build: Path, extract_flag: bool | None, strip: int, log: Log
) -> None:
    kind = archive_kind(file)
    if extract_flag is True and kind is None:
        raise DatasetError(f"dataset {name!r}: extract is true but {file} is not a recognised archive")
    if kind is not None and extract_flag is not False:
        emit(log, f"dataset {name}: extracting {file}")
        staging = temp_sibling(build, "extracting")
        try:
            extract(local, staging / "x", strip_components=strip)
            _merge(name, staging / "x", build, "")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return
    target = build / file
    if os.path.lexists(target):
        raise DatasetError(f"dataset {name!r}: {file} is provided by more than one source")
    _link_or_copy(local, target)


def _merge(name: str, src: Path, dst: Path, relative: str) -> None:
    """Move the contents of ``src`` into ``dst``; a path may come from one source only."""
    for child in sorted(src.iterdir()):
        target = dst / child.name
        rel = f"{relative}{child.name}"
        if child.is_dir() and not child.is_symlink() and target.is_dir() and not target.is_symlink():
            _merge(name, child, target, rel + "/")
        elif os.path.lexists(target):
            raise DatasetError(f"dataset {name!r}: {rel} is provided by more than one source")
        else:
            os.replace(child, target)


def _link_or_copy(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    try:
        os.link(src, dst)
    except OSError:  # other file system, no permission, or links unsupported
        shutil.copy2(src, dst)


def _swap_into_place(build: Path, dest: Path) -> None:
    if not os.path.lexists(dest):
        os.replace(build, dest)
        return
    if dest.is_symlink() or not dest.is_dir():
        dest.unlink()
        os.replace(build, dest)
        return
    # A non-empty folder cannot be renamed over: move it aside first, restore it on failure.
    trash = temp_sibling(dest, "old")
    old = trash / "old"
    os.replace(dest, old)
    try:
        os.replace(build, dest)
    except BaseException:
        os.replace(old, dest)
        shutil.rmtree(trash, ignore_errors=True)
        raise
    shutil.rmtree(trash, ignore_errors=True)


@contextlib.contextmanager
def _cache_lock(folder: Path) -> Iterator[None]:
    """Serialise acquisitions sharing a cache folder (two processes would share ``.part`` files)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".cdaflow.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def verify(
    name: str,
    entry: Mapping[str, Any],
    dest: str | os.PathLike[str],
    lockfile: LockFile | None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Problems with an acquired dataset (empty if none), for ``cdaflow datasets verify``.

    Checks that ``dest`` exists, that every file has a lock entry agreeing with
    the config, and that local paths and cached downloads (if ``cache_dir`` is
    given) still have the expected sha256.
    """
    dest = Path(dest)
    problems: list[str] = []
    if not dest.is_dir():
        problems.append(f"dataset {name}: {dest} is missing")
    try:
        sources = _sources(name, entry)
    except DatasetError as exc:
        return [*problems, str(exc)]
    try:
        recorded = lockfile.entries() if lockfile is not None else {}
    except ValueError as exc:
        return [*problems, str(exc)]
    for source in sources:
        previous = recorded.get(f"{name}/{source.file}")
        expected = source.sha256
        if lockfile is not None:
            if previous is None:
                problems.append(f"dataset {name}: {source.file} has no entry in {lockfile.path}")
            elif previous.url != source.origin:
                problems.append(
                    f"dataset {name}: {lockfile.path} records {source.file} from {previous.url}, "
                    f"the config says {source.origin}"
                )
                previous = None
            elif source.sha256 is not None and previous.sha256 != source.sha256:
                problems.append(
                    f"dataset {name}: {lockfile.path} records sha256 {previous.sha256} for "
                    f"{source.file}, the config says {source.sha256}"
                )
        if expected is None and previous is not None:
            expected = previous.sha256
        if source.path is not None:
            local: Path | None = source.path
        elif cache_dir is not None and (Path(cache_dir) / name / source.file).is_file():
            local = Path(cache_dir) / name / source.file
        else:
            local = None
        if local is None or expected is None:
            continue
        digest = sha256_tree(local) if local.is_dir() else sha256_file(local)
        if digest != expected:
            problems.append(f"dataset {name}: {local} has sha256 {digest}, expected {expected}")
    return problems


def describe(entries: Mapping[str, Mapping[str, Any]]) -> list[dict[str, str]]:
    """One row per dataset (config order): name, source, location, sha256 ("yes"/"no"), description."""
    rows = []
    for name, entry in entries.items():
        if entry.get("path"):
            source, location, known = "path", str(entry["path"]), bool(entry.get("sha256"))
        elif entry.get("files"):
            files = entry["files"]
            source = "files"
            location = " ".join(str(spec.get("url", "")) for spec in files.values())
            known = all(spec.get("sha256") for spec in files.values())
        else:
            source, location, known = "url", str(entry.get("url") or ""), bool(entry.get("sha256"))
        rows.append({
            "name": name,
            "source": source,
            "location": location,
            "sha256": "yes" if known else "no",
            "description": str(entry.get("description") or ""),
        })
    return rows

