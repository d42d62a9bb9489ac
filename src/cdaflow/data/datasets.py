"""Acquire one configured dataset (URL, multi-file or local path) into a folder, atomically.

Config entry shapes (validated upstream)::

    {"url": ..., "sha256": ..., "path": ..., "extract": ..., "strip_components": 0, "description": ...}
    {"files": {"<name>": {"url": ..., "sha256": ...}}, "path": ..., "extract": ..., ...}

``path`` overrides ``url``/``files``. ``extract`` None means "extract archives".
Checksums: a configured sha256 must match; otherwise the lock file's record for
the same (dataset, file, url) must match (trust on first use: the pin), and
every acquired file is (re)recorded. A local path is pinned like a download;
when its content changes the pin stops the run until ``cdaflow datasets repin``
accepts the new content.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import posixpath
import secrets
import shutil
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cdaflow.data.archive import ArchiveError, ArchiveTooLarge, archive_kind, extract, temp_sibling
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

__all__ = [
    "ChecksumError",
    "DatasetError",
    "acquire",
    "configured_origins",
    "describe",
    "fetch_options",
    "local_fingerprint",
    "repin_hint",
    "verify",
]


class DatasetError(ValueError):
    """A dataset entry cannot be acquired as configured (bad entry, missing path, collisions)."""


class ChecksumError(DatasetError):
    """An acquired file's sha256 differs from the configured or previously recorded one."""


class ManualDownloadRequired(DatasetError):
    """A dataset whose publisher allows no scripted download has not been saved by hand yet."""


@dataclass(frozen=True)
class _Source:
    file: str  # name in the cache, in the lock file and (unless extracted) in the dataset folder
    url: str | None
    path: Path | None  # absolute local path; set instead of url
    sha256: str | None  # configured, normalised
    manual: bool = False  # saved by hand into the cache (the publisher refuses scripted downloads)

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
        return [_Source(file, url, None, sha(entry.get("sha256"), file), bool(entry.get("manual")))]
    raise DatasetError(f"dataset {name!r}: the entry sets none of 'url', 'files' or 'path'")


def configured_origins(name: str, entry: Mapping[str, Any]) -> list[str]:
    """Where the config says each file of a dataset comes from, as the lock file's ``url`` column
    writes it (a url, or ``path:<absolute path>``); DatasetError for a local path that does not exist."""
    return [source.origin for source in _sources(name, entry)]


_INCOMING = ".incoming"  # downloads not yet verified and extracted (their .part files resume)
_REJECTED = ".rejected"  # downloads refused (checksum, pin, unreadable archive), kept to inspect
_MANIFEST = ".local-manifest.json"  # per-file size, mtime and sha256 of a pinned local path


def repin_hint(name: str) -> str:
    """The command that accepts a dataset's current content as its new pin."""
    return f"cdaflow datasets --config <your config> repin {name}"


@dataclass
class _Obtained:
    """A source's bytes, checked: where to read them, and what to do once the dataset is built."""

    local: Path
    size: int
    sha256: str
    cached: Path | None = None  # where a new download goes once everything succeeded
    rejected: Path | None = None  # where a new download goes if it cannot be used
    manifest: tuple[Path, dict[str, Any]] | None = None  # a local path's manifest to write

    def reject(self) -> Path | None:
        """Move a new download aside for inspection; its path, or None if it was not new."""
        if self.cached is None or self.rejected is None or not self.local.exists():
            return None
        self.rejected.parent.mkdir(parents=True, exist_ok=True)
        os.replace(self.local, self.rejected)
        return self.rejected

    def keep(self) -> None:
        if self.cached is not None and self.local.exists():
            os.replace(self.local, self.cached)
        if self.manifest is not None:
            path, manifest = self.manifest
            _write_json(path, manifest)


def acquire(
    name: str,
    entry: Mapping[str, Any],
    dest: str | os.PathLike[str],
    *,
    cache_dir: str | os.PathLike[str],
    lockfile: LockFile | None,
    log: Log = None,
    fetch_kwargs: Mapping[str, Any] | None = None,
    max_extracted_bytes: int | None = None,
    refetch: bool = False,
    repin: bool = False,
) -> Path:
    """Build the folder ``dest`` for dataset ``name`` from its config ``entry``; return ``dest``.

    Downloads go to ``cache_dir/<name>/.incoming/<file>``; once every source is
    verified (configured sha256, else the pin in ``lockfile``) and extracted or
    hard-linked/copied into a temporary sibling of ``dest``, they move to
    ``cache_dir/<name>/<file>`` (reused later when their sha256 is known and
    matches), the lock file is updated and the new folder replaces ``dest``. On
    any failure ``dest``, the cache and the lock file are left as they were; a
    download refused for its checksum, its pin or an unreadable archive is kept
    in ``cache_dir/<name>/.rejected/`` and the error says so.

    ``refetch`` downloads again even when the cache is valid. ``repin`` accepts
    the current content in place of the lock file's pin (a configured sha256
    still has to match). ``max_extracted_bytes`` caps what one archive may
    extract to. ``fetch_kwargs`` go to :func:`cdaflow.data.download.fetch`
    (retries, backoff, timeout, deadline, progress, sleep).
    """
    dest = Path(dest)
    cache_dir = Path(cache_dir)
    sources = _sources(name, entry)
    extract_flag = entry.get("extract")
    strip = int(entry.get("strip_components") or 0)
    recorded = lockfile.entries() if lockfile is not None else {}
    build = temp_sibling(dest, "building")
    try:
        with _cache_lock(cache_dir / name):
            new_entries: list[LockEntry] = []
            obtained: list[_Obtained] = []
            for source in sources:
                got = _obtain(
                    name, source, cache_dir / name, recorded, lockfile, log, fetch_kwargs or {},
                    refetch=refetch, repin=repin,
                )
                obtained.append(got)
                try:
                    if got.local.is_dir():
                        emit(log, f"dataset {name}: copying {got.local}")
                        shutil.copytree(got.local, build, copy_function=_link_or_copy, dirs_exist_ok=True)
                    else:
                        _place_file(name, got.local, source.file, build, extract_flag, strip, log,
                                    max_extracted_bytes)
                except ArchiveError as exc:
                    kept = got.reject()
                    hint = (
                        "; if the archive really is this large, raise downloads.max_extracted_bytes "
                        "in the config" if isinstance(exc, ArchiveTooLarge) else ""
                    )
                    where = f"; the download is kept at {kept} for inspection" if kept else ""
                    raise type(exc)(f"dataset {name!r}: {exc}{hint}{where}") from exc
                new_entries.append(LockEntry(name, source.origin, source.file, got.size, got.sha256, utc_now()))
            for got in obtained:
                got.keep()
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
    folder: Path,
    recorded: Mapping[str, LockEntry],
    lockfile: LockFile | None,
    log: Log,
    fetch_kwargs: Mapping[str, Any],
    *,
    refetch: bool,
    repin: bool,
) -> _Obtained:
    """The local file or folder for ``source`` with its size and sha256, checked."""
    previous = recorded.get(f"{name}/{source.file}")
    if previous is not None and previous.url != source.origin:
        emit(log, f"dataset {name}: {source.file} now comes from {source.origin} (was {previous.url})")
        previous = None
    pinned = previous if source.sha256 is None else None
    if source.path is not None:
        manifest_path = folder / _MANIFEST
        old_manifest = _read_json(manifest_path)
        if not (source.path.is_dir() or source.path.is_file()):
            raise DatasetError(f"dataset {name!r}: path {source.path} is neither a file nor a folder")
        digest, size, files = _hash_local(source.path, old_manifest)
        if source.sha256 is not None and digest != source.sha256:
            raise ChecksumError(
                f"dataset {name!r}: sha256 mismatch for {source.path}: expected {source.sha256}, got {digest}"
            )
        if pinned is not None and pinned.sha256 != digest:
            if not repin:
                where = lockfile.path if lockfile is not None else "the lock file"
                changes = ""
                if old_manifest.get("sha256") == pinned.sha256 and isinstance(old_manifest.get("files"), dict):
                    changes = _changes(old_manifest["files"], files)
                raise ChecksumError(
                    f"dataset {name!r}: the local path {source.path} changed since {where} pinned it on "
                    f"{pinned.fetched_at} (sha256 {pinned.sha256}, now {digest}){changes}. If the change "
                    f"is intended, run `{repin_hint(name)}` to pin the new content and run again; "
                    f"otherwise restore {source.path}."
                )
            emit(log, f"dataset {name}: re-pinned {source.path}: sha256 {pinned.sha256} -> {digest}")
        manifest = {"path": str(source.path), "sha256": digest, "files": files}
        return _Obtained(source.path, size, digest, manifest=(manifest_path, manifest))

    assert source.url is not None
    cached = folder / source.file
    rejected = folder / _REJECTED / source.file
    expected = source.sha256 or (pinned.sha256 if pinned is not None and not repin else None)
    if not refetch and cached.is_file() and expected is not None:
        digest = sha256_file(cached)
        if digest == expected:
            emit(log, f"dataset {name}: using cached {cached}")
            return _Obtained(cached, cached.stat().st_size, digest)
        emit(log, f"dataset {name}: cached {cached} has sha256 {digest}, expected {expected}; downloading again")
    if source.manual:
        if not cached.is_file():
            raise ManualDownloadRequired(manual_instructions(name, source.url, cached))
        digest = sha256_file(cached)
        if expected is not None and digest != expected:
            raise ChecksumError(
                f"dataset {name!r}: {cached}, saved by hand, has sha256 {digest}, expected {expected}: save "
                f"{source.url} again (or, if the publisher changed it, run `{repin_hint(name)}`)"
            )
        emit(log, f"dataset {name}: using {cached}, saved by hand from {source.url}")
        return _Obtained(cached, cached.stat().st_size, digest)
    emit(log, f"dataset {name}: downloading {source.url}")
    incoming = folder / _INCOMING / source.file
    try:
        result = fetch(source.url, incoming, sha256=source.sha256, log=log, keep_rejected=rejected, **fetch_kwargs)
    except DownloadError as exc:
        raise DownloadError(f"dataset {name!r}: {exc}") from exc
    got = _Obtained(incoming, result.size, result.sha256, cached=cached, rejected=rejected)
    if pinned is not None and pinned.sha256 != result.sha256:
        if not repin:
            kept = got.reject()
            where = lockfile.path if lockfile is not None else "the lock file"
            raise ChecksumError(
                f"dataset {name!r}: {source.file} from {source.origin} has sha256 {result.sha256}, but "
                f"{where} pinned {pinned.sha256} on {pinned.fetched_at}. The new download is kept at "
                f"{kept} for inspection; the dataset and its pin are unchanged. If the upstream data "
                f"legitimately changed, run `{repin_hint(name)}` (or set sha256 for {name!r} in the "
                f"config); otherwise the file is corrupt or was tampered with."
            )
        emit(log, f"dataset {name}: re-pinned {source.file}: sha256 {pinned.sha256} -> {result.sha256}")
    return got


def manual_instructions(name: str, url: str | None, saved_as: Path) -> str:
    """One line: what to download by hand for a `manual` dataset, and where to save it."""
    return (
        f"dataset {name!r}: its publisher allows no scripted download: open {url} in a browser, save the "
        f"file as {saved_as} and run again"
    )


def manual_pending(entries: Mapping[str, Mapping[str, Any]], data_dir: str | os.PathLike[str],
                   cache_dir: str | os.PathLike[str]) -> list[str]:
    """The instructions of every `manual` dataset neither acquired nor saved by hand yet."""
    lines = []
    for name, entry in entries.items():
        if not entry.get("manual") or entry.get("path") or (Path(data_dir) / name).exists():
            continue
        source = _sources(name, entry)[0]
        saved = Path(cache_dir) / name / source.file
        if not saved.is_file():
            lines.append(manual_instructions(name, source.url, saved))
    return lines


def fetch_options(downloads: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :func:`cdaflow.data.download.fetch` that the config's `downloads` sets."""
    return {key: downloads[key] for key in ("retries", "backoff", "timeout", "deadline")}


def local_fingerprint(path: str | os.PathLike[str]) -> str:
    """A cheap digest of a local file or folder's names, sizes and modification times.

    It changes whenever a file is added, removed, resized or written (no file is
    read), so the workflow passes it as a rule parameter to rerun a local-path
    dataset, and what depends on it, when its content may have changed; the
    rule then checks the content against the pin. "missing" if ``path`` does not exist.
    """
    root = Path(os.path.abspath(Path(path).expanduser()))
    if not root.exists():
        return "missing"
    digest = hashlib.sha256()
    for relative, stat in _stat_tree(root):
        digest.update(f"{relative}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _stat_tree(root: Path) -> list[tuple[str, os.stat_result]]:
    if root.is_dir():
        return [(relative, full.stat()) for relative, full in tree_files(root)]
    return [(root.name, root.stat())]


def _hash_local(path: Path, manifest: Mapping[str, Any]) -> tuple[str, int, dict[str, list]]:
    """(sha256, total size, files) of a local file or folder, as :func:`sha256_tree` / :func:`sha256_file`.

    A file whose size and modification time match ``manifest`` (the last pinned
    state of the same path) keeps its recorded sha256 and is not read again, so
    checking a large folder costs one ``stat`` per file plus reading what changed.
    """
    old = manifest.get("files") if manifest.get("path") == str(path) else None
    old = old if isinstance(old, dict) else {}
    files: dict[str, list] = {}
    tree = hashlib.sha256()
    for relative, full in tree_files(path) if path.is_dir() else [(path.name, path)]:
        stat = full.stat()
        known = old.get(relative)
        if isinstance(known, list) and len(known) == 3 and known[:2] == [stat.st_size, stat.st_mtime_ns]:
            sha = known[2]
        else:
            sha = sha256_file(full)
        files[relative] = [stat.st_size, stat.st_mtime_ns, sha]
        tree.update(f"{relative}\0{sha}\n".encode())
    digest = tree.hexdigest() if path.is_dir() else next(iter(files.values()))[2]
    return digest, sum(entry[0] for entry in files.values()), files


def _changes(old: Mapping[str, Any], new: Mapping[str, list], limit: int = 5) -> str:
    """'; added: a, b; removed: c; changed: d' between two manifests' file tables."""
    def names(items: list[str]) -> str:
        shown = ", ".join(items[:limit])
        return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")

    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(
        k for k in set(new) & set(old)
        if not (isinstance(old[k], list) and len(old[k]) == 3 and old[k][2] == new[k][2])
    )
    parts = [f"{what}: {names(items)}" for what, items in
             (("added", added), ("removed", removed), ("changed", changed)) if items]
    return "".join(f"; {part}" for part in parts)


def _read_json(path: Path) -> dict[str, Any]:
    """A manifest, or {} if it is missing or unreadable (it only saves re-reading files)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _write_json(path: Path, value: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_text(json.dumps(value, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _place_file(
    name: str,
    local: Path,
    file: str,
    build: Path,
    extract_flag: bool | None,
    strip: int,
    log: Log,
    max_bytes: int | None = None,
) -> None:
    kind = archive_kind(file)
    if extract_flag is True and kind is None:
        raise DatasetError(f"dataset {name!r}: extract is true but {file} is not a recognised archive")
    if kind is not None and extract_flag is not False:
        emit(log, f"dataset {name}: extracting {file}")
        staging = temp_sibling(build, "extracting")
        try:
            extract(local, staging / "x", strip_components=strip, max_bytes=max_bytes)
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
            changes = ""
            if source.path is not None and cache_dir is not None:
                manifest = _read_json(Path(cache_dir) / name / _MANIFEST)
                if manifest.get("sha256") == expected and isinstance(manifest.get("files"), dict):
                    changes = _changes(manifest["files"], _hash_local(local, {})[2])
            hint = f" (if intended: `{repin_hint(name)}`)" if source.path is not None else ""
            problems.append(f"dataset {name}: {local} has sha256 {digest}, expected {expected}{changes}{hint}")
    return problems


def describe(entries: Mapping[str, Mapping[str, Any]], cache_dir: str | os.PathLike[str] | None = None,
             ) -> list[dict[str, str]]:
    """One row per dataset (config order): name, source (path, files, url or manual), location,
    sha256 ("yes"/"no"), where the url comes from, description. A manual dataset's location says
    where to save it (``cache_dir``, default ``resources/downloads``) and whether it is there."""
    cache = Path(cache_dir) if cache_dir is not None else Path("resources/downloads")
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
            if entry.get("manual"):
                saved = cache / name / _sources(name, entry)[0].file
                state = "saved" if saved.is_file() else "not saved yet"
                source, location = "manual", f"{location} -> save by hand as {saved} ({state})"
        rows.append({
            "name": name,
            "source": source,
            "location": location,
            "sha256": "yes" if known else "no",
            "url_source": str(entry.get("url_source") or ""),
            "description": str(entry.get("description") or ""),
        })
    return rows
