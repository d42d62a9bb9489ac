"""Safe, atomic extraction of zip, tar (plain/gz/xz/bz2) and single-file gz/xz/bz2 archives."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import posixpath
import re
import secrets
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["ArchiveError", "ArchiveTooLarge", "archive_kind", "extract", "temp_sibling"]

# Longest suffix first, so ".tar.gz" wins over ".gz".
_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".tar.gz", "tar.gz"),
    (".tgz", "tar.gz"),
    (".tar.xz", "tar.xz"),
    (".txz", "tar.xz"),
    (".tar.bz2", "tar.bz2"),
    (".tbz2", "tar.bz2"),
    (".tbz", "tar.bz2"),
    (".tar", "tar"),
    (".zip", "zip"),
    (".gz", "gz"),
    (".xz", "xz"),
    (".bz2", "bz2"),
)
_DECOMPRESSORS: dict[str, Callable[[Path], io.BufferedIOBase]] = {
    "gz": gzip.GzipFile,
    "xz": lzma.LZMAFile,
    "bz2": bz2.BZ2File,
}
_COPY_CHUNK = 1 << 20
# Corrupt, truncated, encrypted or unsupported archives surface as any of these.
_READ_ERRORS = (
    tarfile.TarError, zipfile.BadZipFile, EOFError, lzma.LZMAError, zlib.error, OSError,
    NotImplementedError, RuntimeError, ValueError,
)


class ArchiveError(RuntimeError):
    """An archive is unreadable or contains a member that is unsafe to extract."""


class ArchiveTooLarge(ArchiveError):
    """Extracting an archive would write more than the allowed number of bytes."""


def temp_sibling(path: Path, purpose: str) -> Path:
    """Create a new, empty, hidden folder next to ``path`` (same file system, so renames are atomic).

    Unlike ``tempfile.mkdtemp`` it honours the umask, so a folder renamed onto
    its final name gets ordinary permissions.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        candidate = path.with_name(f".{path.name}.{secrets.token_hex(4)}.{purpose}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate


def archive_kind(path: str | os.PathLike[str]) -> str | None:
    """Archive type from the file name's suffix, or None if it is not an archive.

    One of "zip", "tar", "tar.gz", "tar.xz", "tar.bz2", or "gz"/"xz"/"bz2" for a
    single compressed file.
    """
    name = Path(path).name.lower()
    for suffix, kind in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return kind
    return None


def extract(
    archive: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    strip_components: int = 0,
    max_bytes: int | None = None,
) -> list[Path]:
    """Extract ``archive`` into the new folder ``target``; return the files written, sorted.

    ``target`` must not exist. Everything is extracted into a temporary sibling
    folder that is renamed onto ``target`` at the end, so ``target`` appears
    complete or not at all. Every member is checked before anything is written:
    absolute paths, ``..`` components, links leaving the target, members under a
    symlink and device files raise :class:`ArchiveError`. ``strip_components``
    drops leading path components like ``tar --strip-components`` (ignored for
    single-file .gz/.xz/.bz2, which decompress to ``target/<name without suffix>``).

    The archive is read to its very end, so a truncated download is refused
    rather than half extracted: compressed streams must reach their end-of-stream
    marker and checksum, tars their end-of-archive blocks, zip members their CRC.
    ``max_bytes`` caps the bytes extracted (:class:`ArchiveTooLarge` beyond it):
    tar and zip members are summed from their headers before anything is written
    (zipfile never returns more than a member's declared size), single
    compressed files are counted as they decompress.
    """
    archive = Path(archive)
    target = Path(target)
    if strip_components < 0:
        raise ValueError(f"strip_components must be >= 0, got {strip_components}")
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    kind = archive_kind(archive)
    if kind is None:
        raise ArchiveError(f"{archive}: not a recognised archive (by its suffix)")
    if not archive.is_file():
        raise FileNotFoundError(f"archive {archive} does not exist")
    if os.path.lexists(target):
        raise FileExistsError(f"extraction target {target} already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_sibling(target, "extracting")
    try:
        if kind == "zip":
            relative = _extract_zip(archive, tmp, strip_components, max_bytes)
        elif kind in _DECOMPRESSORS:
            relative = [_decompress_single(archive, tmp, kind, max_bytes)]
        else:
            relative = _extract_tar(archive, tmp, strip_components, max_bytes)
        os.replace(tmp, target)
    except ArchiveError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    except _READ_ERRORS as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ArchiveError(
            f"cannot extract {archive}: {exc} ({type(exc).__name__}); the file is corrupt or "
            f"truncated (a download cut short?)"
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return sorted(target / rel for rel in relative)


@dataclass
class _Member:
    """An archive member after validation: its original and its stripped name."""

    original: str
    name: str  # POSIX path relative to the target, after strip_components
    kind: str  # "file", "dir", "symlink" or "hardlink"
    link: str = ""  # symlink text, or hardlink target (stripped, relative to the target)


def _unsafe(archive: Path, member: str, why: str) -> ArchiveError:
    return ArchiveError(f"{archive}: refusing to extract member {member!r}: {why}")


def _clean_name(archive: Path, raw: str, strip: int, *, member: str | None = None) -> str | None:
    """Validated, stripped relative path of a member (or of ``member``'s hard link target);
    None when stripping removes it all."""
    what = "path" if member is None else f"hard link target {raw!r}"
    if raw.startswith(("/", "\\")) or re.match(r"[A-Za-z]:([/\\]|$)", raw):
        raise _unsafe(archive, member or raw, f"absolute {what}")
    # Backslashes count as separators here: the archive may have been made on Windows.
    if ".." in re.split(r"[/\\]", raw):
        raise _unsafe(archive, member or raw, f"'..' component in {what}")
    parts = [p for p in PurePosixPath(raw).parts if p != "."]
    parts = parts[strip:]
    return "/".join(parts) if parts else None


def _check_members(archive: Path, members: Iterable[_Member], strip: int, archive_members: int) -> list[_Member]:
    """Cross-member checks: link targets, paths through symlinks, name collisions, and that
    `strip` leaves something of the archive's `archive_members` members to extract."""
    members = list(members)
    if strip and not members and archive_members:
        raise ArchiveError(f"{archive}: nothing left to extract after strip_components={strip}")
    symlinks = {m.name for m in members if m.kind == "symlink"}
    by_name: dict[str, _Member] = {}
    for m in members:
        parents = PurePosixPath(m.name).parents
        for parent in list(parents)[:-1]:  # the last "parent" is "." itself
            if str(parent) in symlinks:
                raise _unsafe(archive, m.original, f"path goes through the symlink {str(parent)!r}")
        if m.kind == "symlink":
            _check_symlink(archive, m, symlinks)
        previous = by_name.get(m.name)
        if previous is not None and m.kind != "dir" and previous.original != m.original:
            raise ArchiveError(
                f"{archive}: members {previous.original!r} and {m.original!r} both extract to "
                f"{m.name!r} (check strip_components)"
            )
        by_name[m.name] = m
    for m in members:
        if m.kind == "hardlink":
            source = by_name.get(m.link)
            if source is None or source.kind != "file":
                raise _unsafe(archive, m.original, f"hard link to {m.link!r}, not a regular file in the archive")
    return members


def _check_symlink(archive: Path, m: _Member, symlinks: set[str]) -> None:
    """The link must resolve inside the target without passing through another symlink.

    Resolving step by step (rather than ``normpath``) matters: with ``a -> .``,
    ``b -> a/..`` looks like ``.`` but really points above the target.
    """
    if not m.link or m.link.startswith("/") or re.match(r"[A-Za-z]:", m.link):
        raise _unsafe(archive, m.original, f"symlink to absolute or empty path {m.link!r}")
    parts = [p for p in posixpath.join(posixpath.dirname(m.name), m.link).split("/") if p not in ("", ".")]
    stack: list[str] = []
    for i, part in enumerate(parts):
        if part == "..":
            if not stack:
                raise _unsafe(archive, m.original, f"symlink {m.link!r} points outside the target")
            stack.pop()
            continue
        stack.append(part)
        if i < len(parts) - 1 and "/".join(stack) in symlinks:
            raise _unsafe(archive, m.original, f"symlink {m.link!r} goes through the symlink {'/'.join(stack)!r}")


def _too_large(archive: Path, size: int | None, max_bytes: int) -> ArchiveTooLarge:
    amount = f"{size} bytes, more than" if size is not None else "more than"
    return ArchiveTooLarge(f"{archive}: extracting it would write {amount} the limit of {max_bytes} bytes")


def _check_total(archive: Path, sizes: Iterable[int], max_bytes: int | None) -> None:
    if max_bytes is None:
        return
    total = sum(sizes)
    if total > max_bytes:
        raise _too_large(archive, total, max_bytes)


def _read_tar_to_end(archive: Path, tf: tarfile.TarFile) -> None:
    """Refuse a tar that stops before its end-of-archive block, then read the rest of a compressed
    stream so that its end marker and checksum are checked (tarfile stops reading at that block)."""
    stream = tf.fileobj
    assert stream is not None
    stream.seek(tf.offset)
    block = stream.read(tarfile.BLOCKSIZE)
    if len(block) < tarfile.BLOCKSIZE or block.count(0) != tarfile.BLOCKSIZE:
        raise ArchiveError(
            f"cannot extract {archive}: it ends after {tf.offset} bytes of tar data without the "
            f"end-of-archive marker; the file is truncated (a download cut short?)"
        )
    while stream.read(_COPY_CHUNK):
        pass


def _extract_tar(archive: Path, tmp: Path, strip: int, max_bytes: int | None) -> list[str]:
    with tarfile.open(archive, "r:*") as tf:
        selected: list[tuple[tarfile.TarInfo, _Member]] = []
        for info in tf.getmembers():
            name = _clean_name(archive, info.name, strip)
            if info.isreg():
                kind, link = "file", ""
            elif info.isdir():
                kind, link = "dir", ""
            elif info.issym():
                kind, link = "symlink", info.linkname
            elif info.islnk():
                kind = "hardlink"
                link_name = _clean_name(archive, info.linkname, strip, member=info.name)
                if link_name is None:
                    raise _unsafe(archive, info.name, f"hard link to {info.linkname!r}, removed by strip_components")
                link = link_name
            else:
                raise _unsafe(archive, info.name, "device, fifo or other special file")
            if name is None:
                continue
            selected.append((info, _Member(info.name, name, kind, link)))
        _check_members(archive, (m for _, m in selected), strip, len(tf.getmembers()))
        for info, member in selected:
            info.name = member.name
            if member.kind == "hardlink":
                info.linkname = member.link
        _check_total(archive, (m.size for m, sel in selected if sel.kind == "file"), max_bytes)
        members = [info for info, _ in selected]
        if hasattr(tarfile, "data_filter"):
            # A second line of defence; the checks above give the clear error.
            tf.extractall(tmp, members=members, filter="data")
        else:  # Python < 3.10.12 has no extraction filters
            tf.extractall(tmp, members=members)
        _read_tar_to_end(archive, tf)
    return [m.name for _, m in selected if m.kind != "dir"]


def _extract_zip(archive: Path, tmp: Path, strip: int, max_bytes: int | None) -> list[str]:
    with zipfile.ZipFile(archive) as zf:
        selected: list[tuple[zipfile.ZipInfo, _Member]] = []
        for info in zf.infolist():
            name = _clean_name(archive, info.filename, strip)
            # Unix zips keep st_mode in the high bits; many writers set permissions only.
            file_type = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
            if file_type == stat.S_IFLNK:
                kind, link = "symlink", zf.read(info).decode("utf-8", "surrogateescape")
            elif info.is_dir():
                kind, link = "dir", ""
            elif file_type not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise _unsafe(archive, info.filename, "device, fifo or other special file")
            else:
                kind, link = "file", ""
            if name is None:
                continue
            selected.append((info, _Member(info.filename, name, kind, link)))
        _check_members(archive, (m for _, m in selected), strip, len(zf.infolist()))
        _check_total(archive, (info.file_size for info, m in selected if m.kind == "file"), max_bytes)
        for info, member in selected:
            path = tmp.joinpath(*member.name.split("/"))
            if member.kind == "dir":
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.exists():
                path.unlink()
            if member.kind == "symlink":
                os.symlink(member.link, path)
                continue
            with zf.open(info) as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst, _COPY_CHUNK)
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            if mode & 0o100:
                path.chmod(0o755)
    return [m.name for _, m in selected if m.kind != "dir"]


def _decompress_single(archive: Path, tmp: Path, kind: str, max_bytes: int | None) -> str:
    name = archive.name[: -len(kind) - 1]
    written = 0
    # Read to the end of the stream: its end marker and checksum catch a truncated file.
    with _DECOMPRESSORS[kind](archive) as src, open(tmp / name, "wb") as dst:
        while chunk := src.read(_COPY_CHUNK):
            written += len(chunk)
            if max_bytes is not None and written > max_bytes:
                raise _too_large(archive, None, max_bytes)
            dst.write(chunk)
    return name
