from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cdaflow.data.archive import ArchiveError
from cdaflow.data.datasets import ChecksumError, DatasetError, acquire, describe, verify
from cdaflow.data.download import DownloadError, sha256_tree
from cdaflow.data.lockfile import LockFile

if TYPE_CHECKING:
    from .conftest import LocalServer

FAST = {"retries": 1, "backoff": 0.0, "timeout": 5, "sleep": lambda _s: None}


def tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


CORPUS = {"corpus-1.0/README": b"readme", "corpus-1.0/train.txt": b"a\nb\n"}
CORPUS_TGZ = tar_gz(CORPUS)


@pytest.fixture
def work(tmp_path: Path) -> dict[str, Any]:
    """Paths laid out like the workflow: data/<name>, cache, results/downloads.tsv."""
    return {
        "data": tmp_path / "data",
        "cache_dir": tmp_path / "cache",
        "lockfile": LockFile(tmp_path / "results" / "downloads.tsv"),
    }


def run(name: str, entry: dict, work: dict[str, Any], **kwargs: Any) -> Path:
    options = {"cache_dir": work["cache_dir"], "lockfile": work["lockfile"], "fetch_kwargs": FAST}
    options.update(kwargs)
    return acquire(name, entry, work["data"] / name, **options)


def assert_no_dest(work: dict[str, Any], name: str) -> None:
    assert not (work["data"] / name).exists()
    leftovers = [p.name for p in work["data"].glob(".*")] if work["data"].exists() else []
    assert leftovers == [], f"temporary folders left behind: {leftovers}"


def test_acquire_url_archive(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/dl/corpus-1.0.tar.gz", CORPUS_TGZ)
    entry = {"url": url + "?download=1", "strip_components": 1, "description": "toy"}
    dest = run("toy", entry, work)
    assert dest == work["data"] / "toy"
    assert tree(dest) == {"README": b"readme", "train.txt": b"a\nb\n"}
    assert (work["cache_dir"] / "toy" / "corpus-1.0.tar.gz").read_bytes() == CORPUS_TGZ
    (recorded,) = work["lockfile"].entries().values()
    assert (recorded.dataset, recorded.url, recorded.file) == ("toy", url + "?download=1", "corpus-1.0.tar.gz")
    assert (recorded.size, recorded.sha256) == (len(CORPUS_TGZ), sha(CORPUS_TGZ))
    assert verify("toy", entry, dest, work["lockfile"], cache_dir=work["cache_dir"]) == []
    assert sorted(p.name for p in work["data"].iterdir()) == ["toy"]


def test_acquire_reuses_cache(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    entry = {"url": url}
    run("toy", entry, work)
    (work["data"] / "toy" / "corpus-1.0" / "stale.txt").write_text("replaced on re-acquire")
    assert http_server.count() == 1
    dest = run("toy", entry, work)
    assert http_server.count() == 1  # served from the cache, checked against the lock file
    assert tree(dest) == CORPUS


def test_acquire_reuses_cache_with_configured_sha_and_no_lockfile(
    http_server: LocalServer, work: dict[str, Any]
) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    entry = {"url": url, "sha256": sha(CORPUS_TGZ).upper()}
    run("toy", entry, work, lockfile=None)
    run("toy", entry, work, lockfile=None)
    assert http_server.count() == 1


def test_acquire_redownloads_corrupt_cache(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    entry = {"url": url}
    run("toy", entry, work)
    (work["cache_dir"] / "toy" / "corpus.tgz").write_bytes(b"bit rot")
    problems = verify("toy", entry, work["data"] / "toy", work["lockfile"], cache_dir=work["cache_dir"])
    assert len(problems) == 1 and "corpus.tgz" in problems[0] and sha(CORPUS_TGZ) in problems[0]
    run("toy", entry, work)
    assert http_server.count() == 2
    assert (work["cache_dir"] / "toy" / "corpus.tgz").read_bytes() == CORPUS_TGZ


def test_acquire_plain_file_and_extract_false(http_server: LocalServer, work: dict[str, Any]) -> None:
    csv_url = http_server.serve("/files/lexicon.csv", b"he,she\n")
    zip_url = http_server.serve("/files/keep.zip", zip_bytes({"x.txt": b"x"}))
    assert tree(run("lex", {"url": csv_url}, work)) == {"lexicon.csv": b"he,she\n"}
    assert tree(run("kept", {"url": zip_url, "extract": False}, work)) == {"keep.zip": zip_bytes({"x.txt": b"x"})}
    with pytest.raises(DatasetError, match=r"'lex2'.*lexicon\.csv is not a recognised archive"):
        run("lex2", {"url": csv_url, "extract": True}, work)
    assert_no_dest(work, "lex2")


def test_acquire_single_gz(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/en_ewt-train.conllu.gz", gzip.compress(b"# text = hi\n"))
    assert tree(run("ewt", {"url": url}, work)) == {"en_ewt-train.conllu": b"# text = hi\n"}


def test_acquire_multi_file(http_server: LocalServer, work: dict[str, Any]) -> None:
    train = tar_gz({"split/train.txt": b"train"})
    test = zip_bytes({"split/test.txt": b"test"})
    entry = {
        "files": {
            "train.tar.gz": {"url": http_server.serve("/a/train.tar.gz", train), "sha256": sha(train)},
            "test.zip": {"url": http_server.serve("/b/test.zip", test), "sha256": None},
            "labels.tsv": {"url": http_server.serve("/c/whatever", b"id\tlabel\n")},
        },
        "description": "three files",
    }
    dest = run("multi", entry, work)
    assert tree(dest) == {"split/train.txt": b"train", "split/test.txt": b"test", "labels.tsv": b"id\tlabel\n"}
    entries = work["lockfile"].entries()
    assert sorted(entries) == ["multi/labels.tsv", "multi/test.zip", "multi/train.tar.gz"]
    assert entries["multi/test.zip"].sha256 == sha(test)
    assert entries["multi/labels.tsv"].url == http_server.url("/c/whatever")
    assert sorted(p.name for p in (work["cache_dir"] / "multi").iterdir() if not p.name.startswith(".")) == [
        "labels.tsv", "test.zip", "train.tar.gz"
    ]
    assert verify("multi", entry, dest, work["lockfile"], cache_dir=work["cache_dir"]) == []


def test_acquire_multi_file_collision(http_server: LocalServer, work: dict[str, Any]) -> None:
    entry = {
        "files": {
            "one.tar.gz": {"url": http_server.serve("/one.tar.gz", tar_gz({"d/same.txt": b"1"}))},
            "two.tar.gz": {"url": http_server.serve("/two.tar.gz", tar_gz({"d/same.txt": b"2"}))},
        }
    }
    with pytest.raises(DatasetError, match=r"d/same\.txt is provided by more than one source"):
        run("clash", entry, work)
    assert_no_dest(work, "clash")
    assert work["lockfile"].entries() == {}


def test_acquire_local_folder(tmp_path: Path, work: dict[str, Any]) -> None:
    source = tmp_path / "mine"
    (source / "sub").mkdir(parents=True)
    (source / "a.txt").write_text("a")
    (source / "sub" / "b.txt").write_text("b")
    entry = {"path": str(source), "url": "https://ignored.invalid/x.zip", "extract": True}
    dest = run("local", entry, work)
    assert tree(dest) == {"a.txt": b"a", "sub/b.txt": b"b"}
    assert os.path.samefile(dest / "a.txt", source / "a.txt")  # hard-linked, same file system
    (recorded,) = work["lockfile"].entries().values()
    assert recorded.url == f"path:{source}"
    assert recorded.file == "mine"
    assert recorded.sha256 == sha256_tree(source) == sha256_tree(dest)
    assert recorded.size == 2
    assert verify("local", entry, dest, work["lockfile"]) == []


def test_acquire_local_archive_and_file(tmp_path: Path, work: dict[str, Any]) -> None:
    archive = tmp_path / "corpus.zip"
    archive.write_bytes(zip_bytes({"top/x.txt": b"x"}))
    dest = run("arch", {"path": str(archive), "strip_components": 1, "sha256": sha(archive.read_bytes())}, work)
    assert tree(dest) == {"x.txt": b"x"}
    plain = tmp_path / "words.txt"
    plain.write_text("w")
    assert tree(run("plain", {"path": str(plain)}, work)) == {"words.txt": b"w"}
    assert work["lockfile"].get("plain", "words.txt").url == f"path:{plain}"


def test_acquire_missing_path(tmp_path: Path, work: dict[str, Any]) -> None:
    missing = tmp_path / "nowhere" / "corpus"
    with pytest.raises(DatasetError, match=f"dataset 'gone'.*{missing}"):
        run("gone", {"path": str(missing)}, work)
    assert_no_dest(work, "gone")


def test_acquire_local_path_checksums(tmp_path: Path, work: dict[str, Any]) -> None:
    source = tmp_path / "words.txt"
    source.write_text("v1")
    with pytest.raises(ChecksumError, match=f"'words'.*expected {'0' * 64}, got {sha(b'v1')}"):
        run("words", {"path": str(source), "sha256": "0" * 64}, work)
    assert_no_dest(work, "words")
    run("words", {"path": str(source)}, work)
    # Changed since it was recorded. Replaced, not rewritten in place: the dataset
    # folder may hold a hard link to the very same inode.
    (tmp_path / "new.txt").write_text("v2")
    os.replace(tmp_path / "new.txt", source)
    assert verify("words", {"path": str(source)}, work["data"] / "words", work["lockfile"])
    with pytest.raises(ChecksumError, match="delete the line"):
        run("words", {"path": str(source)}, work)
    assert (work["data"] / "words" / "words.txt").read_text() == "v1"  # the old copy stays


def test_acquire_configured_sha_mismatch(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    wrong = "f" * 64
    with pytest.raises(DownloadError) as info:
        run("toy", {"url": url, "sha256": wrong}, work)
    message = str(info.value)
    assert "'toy'" in message and wrong in message and sha(CORPUS_TGZ) in message and url in message
    assert_no_dest(work, "toy")
    assert not (work["cache_dir"] / "toy" / "corpus.tgz").exists()
    assert work["lockfile"].entries() == {}


def test_acquire_trust_on_first_use(http_server: LocalServer, work: dict[str, Any]) -> None:
    served = {"data": tar_gz({"v.txt": b"v1"})}
    url = http_server.route("/corpus.tgz", lambda h, n: h.send_data(served["data"]))
    entry = {"url": url}
    run("toy", entry, work)
    first = work["lockfile"].get("toy", "corpus.tgz")
    assert first is not None and first.sha256 == sha(served["data"])

    served["data"] = tar_gz({"v.txt": b"v2"})  # upstream silently changed
    (work["cache_dir"] / "toy" / "corpus.tgz").unlink()
    with pytest.raises(ChecksumError) as info:
        run("toy", entry, work)
    message = str(info.value)
    assert "'toy'" in message and first.sha256 in message and sha(served["data"]) in message
    assert "delete the line" in message and "set sha256" in message
    assert work["lockfile"].get("toy", "corpus.tgz") == first  # lock unchanged
    assert tree(work["data"] / "toy") == {"v.txt": b"v1"}  # previous dataset untouched
    assert not (work["cache_dir"] / "toy" / "corpus.tgz").exists()

    # Setting the new checksum in the config is the documented way out.
    run("toy", {"url": url, "sha256": sha(served["data"])}, work)
    assert tree(work["data"] / "toy") == {"v.txt": b"v2"}
    assert work["lockfile"].get("toy", "corpus.tgz").sha256 == sha(served["data"])


def test_acquire_new_url_is_trusted_afresh(http_server: LocalServer, work: dict[str, Any]) -> None:
    old = http_server.serve("/v1/corpus.tgz", tar_gz({"v.txt": b"v1"}))
    new = http_server.serve("/v2/corpus.tgz", tar_gz({"v.txt": b"v2"}))
    run("toy", {"url": old}, work)
    run("toy", {"url": new}, work)
    assert tree(work["data"] / "toy") == {"v.txt": b"v2"}
    assert work["lockfile"].get("toy", "corpus.tgz").url == new


def test_acquire_http_failure_leaves_nothing(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.url("/missing.tgz")
    with pytest.raises(DownloadError, match=f"'toy'.*{url}.*404"):
        run("toy", {"url": url}, work)
    assert_no_dest(work, "toy")
    assert [p.name for p in (work["cache_dir"] / "toy").iterdir()] == [".cdaflow.lock"]
    assert work["lockfile"].entries() == {}


def test_acquire_failure_keeps_previous_dest(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    run("toy", {"url": url}, work)
    with pytest.raises(DownloadError):
        run("toy", {"url": http_server.url("/gone.tgz")}, work)
    assert tree(work["data"] / "toy") == CORPUS
    assert sorted(p.name for p in work["data"].iterdir()) == ["toy"]


def test_acquire_corrupt_archive_leaves_nothing(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", b"not gzip at all")
    with pytest.raises(ArchiveError, match=r"corpus\.tgz"):
        run("toy", {"url": url}, work)
    assert_no_dest(work, "toy")
    assert work["lockfile"].entries() == {}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"description": "nothing"}, "none of 'url', 'files' or 'path'"),
        ({"url": "https://example.org/dir/"}, "not a plain file name"),
        ({"files": {"../x": {"url": "https://example.org/x"}}}, "not a plain file name"),
        ({"files": {"x": {"sha256": "0" * 64}}}, "has no url"),
        ({"url": "https://example.org/x.zip", "sha256": "xyz"}, "sha256"),
    ],
)
def test_acquire_bad_entries(work: dict[str, Any], entry: dict, message: str) -> None:
    with pytest.raises(DatasetError, match=message):
        run("bad", entry, work)
    assert_no_dest(work, "bad")


def test_verify_reports_problems(http_server: LocalServer, work: dict[str, Any]) -> None:
    url = http_server.serve("/corpus.tgz", CORPUS_TGZ)
    entry = {"url": url}
    dest = work["data"] / "toy"
    problems = verify("toy", entry, dest, work["lockfile"])
    assert any("missing" in p for p in problems) and any("no entry" in p for p in problems)
    run("toy", entry, work)
    assert verify("toy", entry, dest, work["lockfile"]) == []
    assert "says" in verify("toy", {"url": url + "?v=2"}, dest, work["lockfile"])[0]
    assert "config says" in verify("toy", {"url": url, "sha256": "0" * 64}, dest, work["lockfile"])[0]
    work["lockfile"].path.write_text("broken\n")
    assert "line 1" in verify("toy", entry, dest, work["lockfile"])[0]


def test_describe() -> None:
    entries = {
        "a": {"url": "https://x/a.zip", "sha256": "0" * 64, "description": "A"},
        "b": {"path": "/data/b", "url": "https://x/b.zip", "description": "B"},
        "c": {"files": {"1": {"url": "https://x/1", "sha256": "0" * 64}, "2": {"url": "https://x/2"}}},
    }
    assert describe(entries) == [
        {"name": "a", "source": "url", "location": "https://x/a.zip", "sha256": "yes", "description": "A"},
        {"name": "b", "source": "path", "location": "/data/b", "sha256": "no", "description": "B"},
        {"name": "c", "source": "files", "location": "https://x/1 https://x/2", "sha256": "no", "description": ""},
    ]
