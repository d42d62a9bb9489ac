from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from cdaflow.data.lockfile import COLUMNS, LockEntry, LockFile, utc_now

SHA_A = "a" * 64
SHA_B = "b" * 64
HEADER = "\t".join(COLUMNS)


def entry(dataset: str, file: str, sha: str = SHA_A, url: str = "https://example.org/x") -> LockEntry:
    return LockEntry(dataset, url, file, 123, sha, "2024-05-01T12:00:00Z")


def test_missing_or_empty_file_has_no_entries(tmp_path: Path) -> None:
    assert LockFile(tmp_path / "results" / "downloads.tsv").entries() == {}
    (tmp_path / "empty.tsv").touch()
    assert LockFile(tmp_path / "empty.tsv").entries() == {}


def test_record_update_and_sort(tmp_path: Path) -> None:
    lock = LockFile(tmp_path / "results" / "downloads.tsv")
    lock.record(entry("zeta", "z.zip"))
    lock.record(entry("alpha", "b.txt"))
    lock.record(entry("alpha", "a.txt"))
    lock.record(entry("zeta", "z.zip", sha=SHA_B, url="https://mirror.example.org/z.zip"))

    lines = lock.path.read_text().splitlines()
    assert lines[0] == HEADER
    assert [line.split("\t")[:3] for line in lines[1:]] == [
        ["alpha", "https://example.org/x", "a.txt"],
        ["alpha", "https://example.org/x", "b.txt"],
        ["zeta", "https://mirror.example.org/z.zip", "z.zip"],
    ]
    entries = lock.entries()
    assert list(entries) == ["alpha/a.txt", "alpha/b.txt", "zeta/z.zip"]
    assert entries["zeta/z.zip"].sha256 == SHA_B
    assert entries["alpha/a.txt"] == entry("alpha", "a.txt")
    assert lock.get("zeta", "z.zip") == entries["zeta/z.zip"]
    assert lock.get("zeta", "nope") is None
    assert [e.file for e in lock.for_dataset("alpha")] == ["a.txt", "b.txt"]
    # No temporary files left beside it; the sidecar lock file is expected.
    assert sorted(p.name for p in lock.path.parent.iterdir()) == ["downloads.tsv", "downloads.tsv.lock"]


def test_record_many_and_remove(tmp_path: Path) -> None:
    lock = LockFile(tmp_path / "downloads.tsv")
    lock.record_many([entry("d", "1"), entry("d", "2"), entry("e", "1")])
    assert lock.remove("d", "2") == 1
    assert list(lock.entries()) == ["d/1", "e/1"]
    assert lock.remove("d") == 1
    assert lock.remove("nope") == 0
    assert list(lock.entries()) == ["e/1"]


def test_utc_now_is_valid() -> None:
    now = utc_now()
    assert now.endswith("Z") and len(now) == 20
    assert LockEntry("d", "u", "f", 0, SHA_A, now).problems() == []


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"url": "has\ttab"}, "url"),
        ({"dataset": ""}, "dataset"),
        ({"size": -1}, "size"),
        ({"sha256": "ABC"}, "sha256"),
        ({"fetched_at": "yesterday"}, "fetched_at"),
        ({"fetched_at": "2024-05-01T12:00:00+02:00"}, "fetched_at"),
    ],
)
def test_record_rejects_invalid_entries(tmp_path: Path, bad: dict, field: str) -> None:
    values = {"dataset": "d", "url": "u", "file": "f", "size": 1, "sha256": SHA_A, "fetched_at": utc_now()}
    values.update(bad)
    lock = LockFile(tmp_path / "downloads.tsv")
    with pytest.raises(ValueError, match=f"'{field}'"):
        lock.record(LockEntry(**values))
    assert not lock.path.exists()


GOOD_ROW = f"d\thttps://x/f.zip\tf.zip\t10\t{SHA_A}\t2024-05-01T12:00:00Z"


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("dataset\turl\n", 1, "header"),
        ("\n\nnope\n", 1, "header"),
        (f"{HEADER}\n{GOOD_ROW}\nd\thttps://x/g\tg\t10\n", 3, "sha256"),
        (f"{HEADER}\n{GOOD_ROW}\t extra\n", 2, "fetched_at"),
        (f"{HEADER}\nd\tu\tf\tten\t{SHA_A}\t2024-05-01T12:00:00Z\n", 2, "size"),
        (f"{HEADER}\nd\tu\tf\t10\tnot-a-hash\t2024-05-01T12:00:00Z\n", 2, "sha256"),
        (f"{HEADER}\nd\tu\tf\t10\t{SHA_A}\tlast tuesday\n", 2, "fetched_at"),
        (f"{HEADER}\n\tu\tf\t10\t{SHA_A}\t2024-05-01T12:00:00Z\n", 2, "dataset"),
        (f"{HEADER}\n{GOOD_ROW}\n\n{GOOD_ROW}\n", 4, "file"),
    ],
)
def test_malformed_file(tmp_path: Path, text: str, line: int, field: str) -> None:
    path = tmp_path / "downloads.tsv"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"line {line}, field '{field}'") as info:
        LockFile(path).entries()
    assert str(path) in str(info.value)


def test_malformed_file_blocks_record(tmp_path: Path) -> None:
    path = tmp_path / "downloads.tsv"
    path.write_text("garbage\n")
    with pytest.raises(ValueError, match="line 1"):
        LockFile(path).record(entry("d", "f"))
    assert path.read_text() == "garbage\n"


def test_blank_lines_and_crlf_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "downloads.tsv"
    path.write_text(f"{HEADER}\r\n{GOOD_ROW}\r\n\r\n")
    assert list(LockFile(path).entries()) == ["d/f.zip"]


def _record_many_times(path: str, worker: int) -> None:
    lock = LockFile(path)
    for i in range(10):
        lock.record(entry(f"w{worker}", f"file{i}"))


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "downloads.tsv"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_record_many_times, args=(str(path), w)) for w in range(6)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert len(LockFile(path).entries()) == 60
