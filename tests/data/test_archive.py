from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cdaflow.data.archive import ArchiveError, archive_kind, extract

FILES = {"corpus/README": b"read me\n", "corpus/data/train.txt": b"one\ntwo\n", "corpus/data/test.txt": b"three\n"}


def make_tar(path: Path, files: dict[str, bytes], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def add_tar_member(path: Path, info: tarfile.TarInfo, data: bytes = b"") -> None:
    with tarfile.open(path, "a") as tf:
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data) if data else None)


def make_zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def assert_clean(workdir: Path, allowed: set[str]) -> None:
    """Only ``allowed`` names exist in ``workdir``: no target, no temporary folder."""
    assert {p.name for p in workdir.iterdir()} == allowed


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.zip", "zip"), ("a.ZIP", "zip"), ("a.tar", "tar"), ("a.tar.gz", "tar.gz"), ("a.tgz", "tar.gz"),
        ("a.tar.xz", "tar.xz"), ("a.txz", "tar.xz"), ("a.tar.bz2", "tar.bz2"), ("a.csv.gz", "gz"),
        ("a.conllu.xz", "xz"), ("a.txt.bz2", "bz2"), ("a.txt", None), ("a.gzip", None), ("README", None),
        (".gz", None),
    ],
)
def test_archive_kind(name: str, kind: str | None) -> None:
    assert archive_kind(Path("dir.zip") / name) == kind


@pytest.mark.parametrize(
    ("suffix", "mode"),
    [(".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar.xz", "w:xz"), (".tar.bz2", "w:bz2"), (".tar", "w")],
)
def test_extract_tar(tmp_path: Path, suffix: str, mode: str) -> None:
    archive = make_tar(tmp_path / f"corpus{suffix}", FILES, mode)
    target = tmp_path / "out" / "corpus"
    written = extract(archive, target)
    assert tree(target) == FILES
    assert written == sorted(target / name for name in FILES)
    assert_clean(tmp_path / "out", {"corpus"})


def test_extract_zip(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "corpus.zip", {"corpus/": b"", **FILES})
    target = tmp_path / "out"
    assert extract(archive, target) == sorted(target / name for name in FILES)
    assert tree(target) == FILES


def test_extract_zip_keeps_executable_bit(tmp_path: Path) -> None:
    archive = tmp_path / "tools.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("run.sh")
        info.create_system = 3
        info.external_attr = (stat.S_IFREG | 0o755) << 16
        zf.writestr(info, "#!/bin/sh\n")
    extract(archive, tmp_path / "out")
    assert os.access(tmp_path / "out" / "run.sh", os.X_OK)


@pytest.mark.parametrize(("suffix", "opener"), [(".gz", gzip.open), (".xz", lzma.open), (".bz2", bz2.open)])
def test_extract_single_file(tmp_path: Path, suffix: str, opener: Callable[..., Any]) -> None:
    archive = tmp_path / f"train.conllu{suffix}"
    with opener(archive, "wb") as fh:
        fh.write(b"# sent_id = 1\n")
    target = tmp_path / "out"
    assert extract(archive, target) == [target / "train.conllu"]
    assert (target / "train.conllu").read_bytes() == b"# sent_id = 1\n"


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_strip_components(tmp_path: Path, kind: str) -> None:
    files = {"./corpus-1.0/README": b"r", "./corpus-1.0/data/a.txt": b"a"}
    if kind == "tar":
        archive = make_tar(tmp_path / "c.tar.gz", files)
    else:
        archive = make_zip(tmp_path / "c.zip", {k[2:]: v for k, v in files.items()})
    extract(archive, tmp_path / "out", strip_components=1)
    assert tree(tmp_path / "out") == {"README": b"r", "data/a.txt": b"a"}


def test_strip_components_removing_everything(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "c.tar.gz", {"a/b.txt": b"b"})
    with pytest.raises(ArchiveError, match="strip_components=2"):
        extract(archive, tmp_path / "out", strip_components=2)
    assert_clean(tmp_path, {"c.tar.gz"})


def test_strip_components_collision(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "c.tar.gz", {"v1/a.txt": b"1", "v2/a.txt": b"2"})
    with pytest.raises(ArchiveError, match=r"'v1/a\.txt' and 'v2/a\.txt'"):
        extract(archive, tmp_path / "out", strip_components=1)
    assert_clean(tmp_path, {"c.tar.gz"})


def test_target_must_not_exist(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "c.tar.gz", FILES)
    (tmp_path / "out").mkdir()
    with pytest.raises(FileExistsError):
        extract(archive, tmp_path / "out")
    assert list((tmp_path / "out").iterdir()) == []


def test_internal_symlinks_and_hardlinks_are_kept(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "c.tar", {"top/data/a.txt": b"a"}, "w")
    link = tarfile.TarInfo("top/latest")
    link.type, link.linkname = tarfile.SYMTYPE, "data/a.txt"
    add_tar_member(archive, link)
    hard = tarfile.TarInfo("top/copy.txt")
    hard.type, hard.linkname = tarfile.LNKTYPE, "top/data/a.txt"
    add_tar_member(archive, hard)
    target = tmp_path / "out"
    extract(archive, target, strip_components=1)
    assert os.readlink(target / "latest") == "data/a.txt"
    assert (target / "latest").read_bytes() == b"a"
    assert (target / "copy.txt").read_bytes() == b"a"


def _evil_tar_paths(tmp_path: Path, member: str) -> Path:
    # A harmless member first: nothing, not even it, may be written.
    return make_tar(tmp_path / "evil.tar.gz", {"good.txt": b"fine", member: b"pwned"})


@pytest.mark.parametrize("member", ["../evil", "a/../../evil", "a/../evil", "/tmp/cdaflow-evil", "C:/evil"])
def test_tar_path_traversal_refused(tmp_path: Path, member: str) -> None:
    archive = _evil_tar_paths(tmp_path, member)
    with pytest.raises(ArchiveError, match="refusing") as info:
        extract(archive, tmp_path / "out")
    assert repr(member) in str(info.value) and str(archive) in str(info.value)
    assert_clean(tmp_path, {"evil.tar.gz"})
    assert not (tmp_path.parent / "evil").exists()


@pytest.mark.parametrize("member", ["../evil", "data/../../evil", "/abs/evil", "..\\evil"])
def test_zip_path_traversal_refused(tmp_path: Path, member: str) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good.txt", "fine")
        # ZipFile.writestr would sanitise a ZipInfo-less name; set it verbatim.
        info = zipfile.ZipInfo("placeholder")
        info.filename = member
        zf.writestr(info, "pwned")
    with pytest.raises(ArchiveError, match="refusing") as info_:
        extract(archive, tmp_path / "out")
    assert repr(member) in str(info_.value)
    assert_clean(tmp_path, {"evil.zip"})


@pytest.mark.parametrize("linkname", ["../../etc/passwd", "/etc/passwd", "sub/../../../x", "../sub/../.."])
def test_tar_symlink_escaping_refused(tmp_path: Path, linkname: str) -> None:
    archive = make_tar(tmp_path / "evil.tar", {"good.txt": b"fine"}, "w")
    info = tarfile.TarInfo("sub/link")
    info.type, info.linkname = tarfile.SYMTYPE, linkname
    add_tar_member(archive, info)
    with pytest.raises(ArchiveError, match="'sub/link'"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.tar"})


def test_tar_write_through_symlink_refused(tmp_path: Path) -> None:
    # "d/up" -> ".." is inside the target by itself, but "d/up/up" -> ".." would then escape.
    archive = make_tar(tmp_path / "evil.tar", {"d/keep.txt": b"k"}, "w")
    for name in ("d/up", "d/up/up"):
        info = tarfile.TarInfo(name)
        info.type, info.linkname = tarfile.SYMTYPE, ".."
        add_tar_member(archive, info)
    with pytest.raises(ArchiveError, match=r"'d/up/up'.*symlink 'd/up'"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.tar"})


def test_tar_symlink_chain_escaping_refused(tmp_path: Path) -> None:
    # "b -> a/.." looks like "." lexically, but with "a -> ." it is the target's parent.
    archive = make_tar(tmp_path / "evil.tar", {"good.txt": b"fine"}, "w")
    for name, linkname in (("a", "."), ("b", "a/..")):
        info = tarfile.TarInfo(name)
        info.type, info.linkname = tarfile.SYMTYPE, linkname
        add_tar_member(archive, info)
    with pytest.raises(ArchiveError, match=r"'b'.*through the symlink 'a'"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.tar"})


def test_tar_hardlink_escaping_refused(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "evil.tar", {"good.txt": b"fine"}, "w")
    info = tarfile.TarInfo("hard")
    info.type, info.linkname = tarfile.LNKTYPE, "../outside.txt"
    add_tar_member(archive, info)
    with pytest.raises(ArchiveError, match="'hard'"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.tar"})


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_tar_special_files_refused(tmp_path: Path, kind: bytes) -> None:
    archive = make_tar(tmp_path / "evil.tar", {"good.txt": b"fine"}, "w")
    info = tarfile.TarInfo("dev/thing")
    info.type = kind
    add_tar_member(archive, info)
    with pytest.raises(ArchiveError, match=r"'dev/thing'.*special"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.tar"})


def test_zip_symlink_escaping_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("link")
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "../../outside")
    with pytest.raises(ArchiveError, match=r"'link'.*outside"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"evil.zip"})


@pytest.mark.parametrize("name", ["broken.tar.gz", "broken.zip", "broken.gz", "broken.xz"])
def test_corrupt_archive(tmp_path: Path, name: str) -> None:
    archive = tmp_path / name
    archive.write_bytes(b"this is not an archive at all" * 10)
    with pytest.raises(ArchiveError, match="broken"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {name})


def test_truncated_tar_gz(tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "c.tar.gz", {"big.bin": os.urandom(50_000)})
    archive.write_bytes(archive.read_bytes()[:20_000])
    with pytest.raises(ArchiveError, match=r"c\.tar\.gz"):
        extract(archive, tmp_path / "out")
    assert_clean(tmp_path, {"c.tar.gz"})


def test_not_an_archive(tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(ArchiveError, match="not a recognised archive"):
        extract(tmp_path / "plain.txt", tmp_path / "out")
