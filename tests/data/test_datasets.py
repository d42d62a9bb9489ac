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

from cdaflow.data import datasets as datasets_module
from cdaflow.data.archive import ArchiveError, ArchiveTooLarge
from cdaflow.data.datasets import ChecksumError, DatasetError, acquire, describe, local_fingerprint, verify
from cdaflow.data.download import DownloadError, sha256_tree
from cdaflow.data.lockfile import LockFile

from .conftest import tar_gz

if TYPE_CHECKING:
    from .conftest import LocalServer

FAST = {"retries": 1, "backoff": 0.0, "timeout": 5, "sleep": lambda _s: None}


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
    with pytest.raises(ChecksumError, match="changed: words.txt.*repin words"):
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
    assert "repin toy" in message and "set sha256" in message
    assert work["lockfile"].get("toy", "corpus.tgz") == first  # lock unchanged
    assert tree(work["data"] / "toy") == {"v.txt": b"v1"}  # previous dataset untouched
    assert not (work["cache_dir"] / "toy" / "corpus.tgz").exists()
    rejected = work["cache_dir"] / "toy" / ".rejected" / "corpus.tgz"
    assert rejected.read_bytes() == served["data"] and f"kept at {rejected}" in message

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
    assert [p.name for p in (work["cache_dir"] / "toy").rglob("*") if p.is_file()] == [".cdaflow.lock"]
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


def test_describe(tmp_path: Path) -> None:
    entries = {
        "a": {"url": "https://x/a.zip", "sha256": "0" * 64, "description": "A", "url_source": "A's page"},
        "b": {"path": "/data/b", "url": "https://x/b.zip", "description": "B"},
        "c": {"files": {"1": {"url": "https://x/1", "sha256": "0" * 64}, "2": {"url": "https://x/2"}}},
        "d": {"url": "https://x/names.zip", "manual": True},
    }
    saved = tmp_path / "d" / "names.zip"
    rows = describe(entries, cache_dir=tmp_path)
    assert rows == [
        {"name": "a", "source": "url", "location": "https://x/a.zip", "sha256": "yes", "url_source": "A's page",
         "description": "A"},
        {"name": "b", "source": "path", "location": "/data/b", "sha256": "no", "url_source": "", "description": "B"},
        {"name": "c", "source": "files", "location": "https://x/1 https://x/2", "sha256": "no", "url_source": "",
         "description": ""},
        {"name": "d", "source": "manual", "location": f"https://x/names.zip -> save by hand as {saved} (not saved yet)",
         "sha256": "no", "url_source": "", "description": ""},
    ]  # fmt: skip
    saved.parent.mkdir()
    saved.write_bytes(b"x")
    assert describe(entries, cache_dir=tmp_path)[3]["location"].endswith("(saved)")


def test_manual_dataset_stops_with_one_line_until_saved_by_hand(work: dict[str, Any]) -> None:
    """The publisher refuses scripted downloads (SSA): no request is made; the error says what to save where."""
    names = zip_bytes({"yob1880.txt": b"Mary,F,7065\nJohn,M,9655\n"})
    entry = {"url": "https://www.ssa.gov/oact/babynames/names.zip", "manual": True}
    saved = work["cache_dir"] / "ssa" / "names.zip"
    with pytest.raises(datasets_module.ManualDownloadRequired) as error:
        run("ssa", entry, work)
    message = str(error.value)
    assert "\n" not in message and "https://www.ssa.gov/oact/babynames/names.zip" in message and str(saved) in message
    assert_no_dest(work, "ssa")
    assert datasets_module.manual_pending({"ssa": entry}, work["data"], work["cache_dir"]) == [message]
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_bytes(names)
    dest = run("ssa", entry, work)
    assert tree(dest) == {"yob1880.txt": b"Mary,F,7065\nJohn,M,9655\n"}
    assert work["lockfile"].entries()["ssa/names.zip"].sha256 == sha(names)
    assert datasets_module.manual_pending({"ssa": entry}, work["data"], work["cache_dir"]) == []
    # A wrong file saved later is refused by the pin, and the dataset stays as it was.
    saved.write_bytes(zip_bytes({"yob1880.txt": b"other"}))
    with pytest.raises(ChecksumError, match="saved by hand"):
        run("ssa", entry, work, refetch=True)
    assert tree(dest) == {"yob1880.txt": b"Mary,F,7065\nJohn,M,9655\n"}


def plain_tar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "keep"),
    [
        # The gzip trailer (CRC, length) is cut: tarfile alone stops at the end-of-archive block.
        ("corpus.tgz", CORPUS_TGZ, len(CORPUS_TGZ) - 6),
        # Cut exactly after the first member: every header read is complete.
        ("corpus.tar", plain_tar({"a.txt": b"a" * 512, "b.txt": b"b" * 512}), 1024),
        ("words.txt.gz", gzip.compress(b"he\tshe\n" * 200, mtime=0), 30),
        ("corpus.zip", zip_bytes(CORPUS), 120),
    ],
)
def test_acquire_truncated_download_without_length_is_not_pinned(
    http_server: LocalServer, work: dict[str, Any], name: str, data: bytes, keep: int
) -> None:
    # The server sends no Content-Length and closes early: the transfer itself looks complete.
    served = {"keep": keep}
    url = http_server.route(f"/{name}", lambda h, n: h.send_unsized(data, served["keep"]))
    with pytest.raises(ArchiveError, match="truncated") as info:
        run("toy", {"url": url}, work)
    assert_no_dest(work, "toy")
    assert work["lockfile"].entries() == {}  # nothing trusted on first use
    rejected = work["cache_dir"] / "toy" / ".rejected" / name
    assert rejected.read_bytes() == data[:keep] and f"kept at {rejected}" in str(info.value)
    assert not (work["cache_dir"] / "toy" / name).exists()
    # The next complete download is accepted and pinned (not refused as tampered).
    served["keep"] = len(data)
    run("toy", {"url": url}, work)
    assert work["lockfile"].get("toy", name).sha256 == sha(data)


def test_acquire_unterminated_chunked_download_is_resumed(http_server: LocalServer, work: dict[str, Any]) -> None:
    def cut_off(h: Any, n: int) -> None:
        if n == 0:
            h.send_chunked(CORPUS_TGZ, len(CORPUS_TGZ) // 2, terminate=False)
        else:
            h.send_data(CORPUS_TGZ)

    url = http_server.route("/corpus.tgz", cut_off)
    run("toy", {"url": url, "strip_components": 1}, work)
    assert tree(work["data"] / "toy") == {"README": b"readme", "train.txt": b"a\nb\n"}
    assert work["lockfile"].get("toy", "corpus.tgz").sha256 == sha(CORPUS_TGZ)
    assert http_server.requests()[1].headers["range"] == f"bytes={len(CORPUS_TGZ) // 2}-"


def test_acquire_caps_extracted_size(http_server: LocalServer, work: dict[str, Any]) -> None:
    bomb = gzip.compress(b"\0" * 200_000)  # 200 kB from a few hundred bytes
    url = http_server.serve("/zeros.txt.gz", bomb)
    with pytest.raises(ArchiveTooLarge, match="limit of 100000 bytes.*downloads.max_extracted_bytes"):
        run("bomb", {"url": url}, work, max_extracted_bytes=100_000)
    assert_no_dest(work, "bomb")
    assert work["lockfile"].entries() == {}
    big_tar = http_server.serve("/big.tgz", tar_gz({"x.bin": b"x" * 5000}))
    with pytest.raises(ArchiveTooLarge, match="5000 bytes, more than the limit of 4000"):
        run("big", {"url": big_tar}, work, max_extracted_bytes=4000)
    assert tree(run("big", {"url": big_tar}, work, max_extracted_bytes=5000)) == {"x.bin": b"x" * 5000}


def test_acquire_repin_accepts_changed_upstream(http_server: LocalServer, work: dict[str, Any]) -> None:
    served = {"data": tar_gz({"v.txt": b"v1"})}
    url = http_server.route("/corpus.tgz", lambda h, n: h.send_data(served["data"]))
    run("toy", {"url": url}, work)
    served["data"] = tar_gz({"v.txt": b"v2"})
    with pytest.raises(ChecksumError):
        run("toy", {"url": url}, work, refetch=True)
    assert tree(work["data"] / "toy") == {"v.txt": b"v1"}
    run("toy", {"url": url}, work, refetch=True, repin=True)
    assert tree(work["data"] / "toy") == {"v.txt": b"v2"}
    assert work["lockfile"].get("toy", "corpus.tgz").sha256 == sha(served["data"])
    assert (work["cache_dir"] / "toy" / "corpus.tgz").read_bytes() == served["data"]


def test_local_fingerprint_follows_names_sizes_and_times(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("a")
    (folder / "sub" / "b.txt").write_text("b")
    first = local_fingerprint(folder)
    assert local_fingerprint(folder) == first
    (folder / "sub" / "b.txt").write_text("bb")  # edited in place: the folder's own mtime does not move
    second = local_fingerprint(folder)
    assert second != first
    os.utime(folder / "a.txt", ns=(1, 1))  # same size, other time
    third = local_fingerprint(folder)
    assert third != second
    (folder / "c.txt").write_text("")
    assert local_fingerprint(folder) != third
    assert local_fingerprint(tmp_path / "nowhere") == "missing"
    assert local_fingerprint(folder / "a.txt") != local_fingerprint(folder / "c.txt")


def test_acquire_local_folder_change_stops_until_repinned(tmp_path: Path, work: dict[str, Any]) -> None:
    source = tmp_path / "mine"
    source.mkdir()
    for name in ("a.txt", "b.txt", "gone.txt"):
        (source / name).write_text(name)
    entry = {"path": str(source)}
    run("local", entry, work)
    pinned = work["lockfile"].get("local", "mine")

    (tmp_path / "a.new").write_text("edited")
    os.replace(tmp_path / "a.new", source / "a.txt")
    (source / "added.txt").write_text("new")
    (source / "gone.txt").unlink()
    with pytest.raises(ChecksumError) as info:
        run("local", entry, work)
    message = str(info.value)
    assert f"local path {source} changed" in message and pinned.sha256 in message
    assert "added: added.txt; removed: gone.txt; changed: a.txt" in message
    assert "cdaflow datasets --config <your config> repin local" in message
    assert work["lockfile"].get("local", "mine") == pinned
    assert tree(work["data"] / "local")["a.txt"] == b"a.txt"  # the previous copy stays

    run("local", entry, work, repin=True)
    assert work["lockfile"].get("local", "mine").sha256 == sha256_tree(source)
    assert tree(work["data"] / "local") == {"a.txt": b"edited", "added.txt": b"new", "b.txt": b"b.txt"}
    run("local", entry, work)  # the new pin holds
    assert verify("local", entry, work["data"] / "local", work["lockfile"]) == []


def test_acquire_local_folder_rereads_only_changed_files(
    tmp_path: Path, work: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "mine"
    source.mkdir()
    for i in range(5):
        (source / f"f{i}.txt").write_text(f"file {i}")
    run("local", {"path": str(source)}, work)
    read: list[str] = []
    real = datasets_module.sha256_file

    def counting(path: Any, *args: Any) -> str:
        read.append(Path(path).name)
        return real(path, *args)

    monkeypatch.setattr(datasets_module, "sha256_file", counting)
    run("local", {"path": str(source)}, work)
    assert read == []  # sizes and times unchanged: the pinned hashes are reused
    (source / "f3.txt").write_text("file 3, longer")
    with pytest.raises(ChecksumError, match="changed: f3.txt"):
        run("local", {"path": str(source)}, work)
    assert read == ["f3.txt"]
    assert verify("local", {"path": str(source)}, work["data"] / "local", work["lockfile"])  # verify reads all
