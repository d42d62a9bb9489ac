from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cdaflow import __version__
from cdaflow.data.download import (
    DownloadError,
    FetchResult,
    fetch,
    sha256_file,
    sha256_tree,
)

if TYPE_CHECKING:
    from .conftest import Handler, LocalServer

PAYLOAD = bytes(range(256)) * 40  # 10 KiB, not a multiple of the chunk size below
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


def _fetch(url: str, dest: Path, sleeps: list[float], **kwargs: object) -> FetchResult:
    options: dict = {"retries": 3, "backoff": 0.01, "timeout": 5, "chunk_size": 1000, "sleep": sleeps.append}
    options.update(kwargs)
    return fetch(url, dest, **options)


def _assert_nothing_left(dest: Path) -> None:
    assert not dest.exists()
    assert not dest.with_name(dest.name + ".part").exists()


def test_fetch_success(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.serve("/data/file.bin", PAYLOAD)
    dest = tmp_path / "sub" / "file.bin"
    result = _fetch(url, dest, no_sleep, sha256=DIGEST.upper())
    assert result == FetchResult(path=dest, url=url, size=len(PAYLOAD), sha256=DIGEST)
    assert dest.read_bytes() == PAYLOAD
    assert sorted(p.name for p in dest.parent.iterdir()) == ["file.bin"]
    (request,) = http_server.requests()
    assert request.headers["user-agent"] == f"cdaflow/{__version__}"
    assert "range" not in request.headers
    assert no_sleep == []


def test_fetch_with_progress_bar(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.serve("/file.bin", PAYLOAD)
    assert _fetch(url, tmp_path / "file.bin", no_sleep, progress=True).sha256 == DIGEST


def test_fetch_follows_redirects(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    http_server.serve("/real.bin", PAYLOAD)

    def redirect(h: Handler, n: int) -> None:
        h.send_response(302)
        h.send_header("Location", "/real.bin")
        h.send_header("Content-Length", "0")
        h.end_headers()

    url = http_server.route("/moved.bin", redirect)
    assert _fetch(url, tmp_path / "moved.bin", no_sleep).sha256 == DIGEST


def test_fetch_404_fails_at_once(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.url("/missing.bin")
    dest = tmp_path / "missing.bin"
    with pytest.raises(DownloadError, match="404") as info:
        _fetch(url, dest, no_sleep)
    assert url in str(info.value)
    assert http_server.count() == 1
    assert no_sleep == []
    _assert_nothing_left(dest)


@pytest.mark.parametrize("status", [401, 403, 410])
def test_fetch_other_4xx_not_retried(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float], status: int
) -> None:
    url = http_server.route("/x.bin", lambda h, n: h.send_status(status))
    with pytest.raises(DownloadError, match=str(status)):
        _fetch(url, tmp_path / "x.bin", no_sleep)
    assert http_server.count() == 1
    _assert_nothing_left(tmp_path / "x.bin")


@pytest.mark.parametrize("status", [500, 502, 503, 408, 429])
def test_fetch_retries_transient_status(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float], status: int
) -> None:
    def flaky(h: Handler, n: int) -> None:
        if n == 0:
            h.send_status(status)
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/flaky.bin", flaky)
    dest = tmp_path / "flaky.bin"
    assert _fetch(url, dest, no_sleep, backoff=0.5).sha256 == DIGEST
    assert dest.read_bytes() == PAYLOAD
    assert http_server.count() == 2
    assert no_sleep == [0.5]


def test_fetch_gives_up_after_retries(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.route("/down.bin", lambda h, n: h.send_status(503))
    dest = tmp_path / "down.bin"
    with pytest.raises(DownloadError, match="503") as info:
        _fetch(url, dest, no_sleep, retries=3, backoff=0.25)
    assert url in str(info.value)
    assert "4 attempt" in str(info.value)
    assert http_server.count() == 4
    assert no_sleep == [0.25, 0.5, 1.0]  # backoff * 2**attempt
    _assert_nothing_left(dest)


def test_fetch_resumes_truncated_transfer(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    half = len(PAYLOAD) // 2

    def truncating(h: Handler, n: int) -> None:
        if n == 0:
            h.send_truncated(PAYLOAD, half)
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/big.bin", truncating)
    dest = tmp_path / "big.bin"
    result = _fetch(url, dest, no_sleep, sha256=DIGEST)
    assert dest.read_bytes() == PAYLOAD
    assert result.size == len(PAYLOAD) and result.sha256 == DIGEST
    first, second = http_server.requests()
    assert "range" not in first.headers
    assert second.headers["range"] == f"bytes={half}-"
    _assert_part_gone(dest)


def _assert_part_gone(dest: Path) -> None:
    assert not dest.with_name(dest.name + ".part").exists()


def test_fetch_restarts_when_server_ignores_range(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    def truncating(h: Handler, n: int) -> None:
        if n == 0:
            h.send_truncated(PAYLOAD, 3000)
        else:
            h.send_data(PAYLOAD, honour_range=False)

    url = http_server.route("/big.bin", truncating)
    dest = tmp_path / "big.bin"
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert dest.read_bytes() == PAYLOAD
    assert http_server.requests()[1].headers["range"] == "bytes=3000-"


def test_fetch_resumes_several_times(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    def dribble(h: Handler, n: int) -> None:
        start = int(h.headers.get("Range", "bytes=0-")[6:-1])
        if n < 3:  # each attempt delivers 2000 more bytes, then drops
            h.send_response(206 if start else 200)
            if start:
                h.send_header("Content-Range", f"bytes {start}-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
            h.send_header("Content-Length", str(len(PAYLOAD) - start))
            h.end_headers()
            h.wfile.write(PAYLOAD[start : start + 2000])
            h.close_connection = True
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/slow.bin", dribble)
    dest = tmp_path / "slow.bin"
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).sha256 == DIGEST
    assert [r.headers.get("range") for r in http_server.requests()] == [
        None, "bytes=2000-", "bytes=4000-", "bytes=6000-"
    ]


def test_fetch_restarts_on_wrong_content_range(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    def confused(h: Handler, n: int) -> None:
        if n == 0:
            h.send_truncated(PAYLOAD, 5000)
        elif n == 1:  # claims to resume from the wrong offset
            h.send_response(206)
            h.send_header("Content-Range", f"bytes 100-{len(PAYLOAD) - 1}/{len(PAYLOAD)}")
            h.send_header("Content-Length", str(len(PAYLOAD) - 100))
            h.end_headers()
            h.wfile.write(PAYLOAD[100:])
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/c.bin", confused)
    dest = tmp_path / "c.bin"
    assert _fetch(url, dest, no_sleep).sha256 == DIGEST
    assert [r.headers.get("range") for r in http_server.requests()] == [None, "bytes=5000-", None]


def test_fetch_truncated_every_time(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.route("/t.bin", lambda h, n: h.send_truncated(PAYLOAD, 100))
    dest = tmp_path / "t.bin"
    with pytest.raises(DownloadError, match=f"received 100 of {len(PAYLOAD)} bytes") as info:
        _fetch(url, dest, no_sleep, retries=2)
    assert url in str(info.value)
    assert http_server.count() == 3
    # What arrived is kept, and named, for the next run to resume.
    part = dest.with_name("t.bin.part")
    assert part.read_bytes() == PAYLOAD[:100]
    assert str(part) in str(info.value) and "next run resumes" in str(info.value)
    assert not dest.exists()


def test_fetch_retries_after_timeout(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    def stalling(h: Handler, n: int) -> None:
        if n == 0:
            h.stall(PAYLOAD, 4000, seconds=3)
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/stall.bin", stalling)
    dest = tmp_path / "stall.bin"
    assert _fetch(url, dest, no_sleep, timeout=0.3).sha256 == DIGEST
    assert http_server.requests()[1].headers["range"] == "bytes=4000-"


def test_fetch_connection_refused(tmp_path: Path, no_sleep: list[float]) -> None:
    import socket

    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/x.bin"
    with pytest.raises(DownloadError, match="network error") as info:
        _fetch(url, tmp_path / "x.bin", no_sleep, retries=2)
    assert url in str(info.value)
    assert len(no_sleep) == 2
    _assert_nothing_left(tmp_path / "x.bin")


def test_fetch_checksum_mismatch(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.serve("/file.bin", PAYLOAD)
    dest = tmp_path / "file.bin"
    wrong = "0" * 64
    with pytest.raises(DownloadError) as info:
        _fetch(url, dest, no_sleep, sha256=wrong)
    message = str(info.value)
    assert url in message and wrong in message and DIGEST in message
    assert http_server.count() == 1  # a mismatch is final, not retried
    _assert_nothing_left(dest)


def test_fetch_keeps_existing_dest_on_failure(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    dest = tmp_path / "file.bin"
    dest.write_bytes(b"old")
    with pytest.raises(DownloadError):
        _fetch(http_server.url("/nope"), dest, no_sleep)
    assert dest.read_bytes() == b"old"
    _assert_part_gone(dest)


def test_fetch_ignores_stale_part_file(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.serve("/file.bin", PAYLOAD)
    dest = tmp_path / "file.bin"
    dest.with_name("file.bin.part").write_bytes(b"garbage from an interrupted run")
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert "range" not in http_server.requests()[0].headers


def test_fetch_rejects_bad_arguments(tmp_path: Path, no_sleep: list[float]) -> None:
    with pytest.raises(DownloadError, match="file:///etc/passwd"):
        _fetch("file:///etc/passwd", tmp_path / "x", no_sleep)
    with pytest.raises(DownloadError, match="invalid URL"):
        _fetch("http://127.0.0.1:notaport/x", tmp_path / "x", no_sleep)
    with pytest.raises(ValueError, match="sha256"):
        _fetch("http://127.0.0.1:9/x", tmp_path / "x", no_sleep, sha256="abc")
    assert list(tmp_path.iterdir()) == []


def test_sha256_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(PAYLOAD)
    assert sha256_file(path) == DIGEST


def _make_tree(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def test_sha256_tree_is_deterministic(tmp_path: Path) -> None:
    files = {"b.txt": b"b", "a/z.txt": b"z", "a/y/x.txt": b"x"}
    _make_tree(tmp_path / "one", files)
    _make_tree(tmp_path / "two", dict(reversed(files.items())))
    (tmp_path / "two" / "empty").mkdir()  # empty folders do not count
    assert sha256_tree(tmp_path / "one") == sha256_tree(tmp_path / "two")

    _make_tree(tmp_path / "renamed", {"b2.txt": b"b", "a/z.txt": b"z", "a/y/x.txt": b"x"})
    _make_tree(tmp_path / "changed", {**files, "b.txt": b"B"})
    hashes = {sha256_tree(tmp_path / d) for d in ("one", "renamed", "changed")}
    assert len(hashes) == 3


def test_sha256_tree_follows_symlinks(tmp_path: Path) -> None:
    _make_tree(tmp_path / "real", {"a.txt": b"a", "d/b.txt": b"b"})
    (tmp_path / "linked").mkdir()
    os.symlink(tmp_path / "real" / "a.txt", tmp_path / "linked" / "a.txt")
    os.symlink(tmp_path / "real" / "d", tmp_path / "linked" / "d")
    os.symlink("..", tmp_path / "real" / "d" / "loop")  # must not recurse forever
    assert sha256_tree(tmp_path / "linked") == sha256_tree(tmp_path / "real")
    with pytest.raises(NotADirectoryError):
        sha256_tree(tmp_path / "real" / "a.txt")


def test_fetch_chunked_encoding_not_terminated_is_resumed(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    def cut_off(h: Handler, n: int) -> None:
        if n == 0:
            h.send_chunked(PAYLOAD, 4000, terminate=False)
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/chunked.bin", cut_off)
    dest = tmp_path / "chunked.bin"
    assert _fetch(url, dest, no_sleep).sha256 == DIGEST
    assert http_server.requests()[1].headers["range"] == "bytes=4000-"


def test_fetch_chunked_encoding_never_terminated_fails(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    url = http_server.route("/chunked.bin", lambda h, n: h.send_chunked(PAYLOAD, 4000, terminate=False))
    with pytest.raises(DownloadError, match="IncompleteRead"):
        _fetch(url, tmp_path / "chunked.bin", no_sleep, retries=1)
    assert not (tmp_path / "chunked.bin").exists()


def test_fetch_deadline_stops_a_dripping_server(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    import time

    url = http_server.route("/drip.bin", lambda h, n: h.drip(PAYLOAD, 0.05))
    dest = tmp_path / "drip.bin"
    started = time.monotonic()
    with pytest.raises(DownloadError) as info:
        _fetch(url, dest, no_sleep, timeout=5, deadline=0.6)
    elapsed = time.monotonic() - started
    assert elapsed < 3, f"the deadline did not stop the download ({elapsed:.1f} s)"
    message = str(info.value)
    assert url in message and "deadline of 0.6 s" in message and "downloads.deadline" in message
    assert http_server.count() == 1  # a deadline is final, not retried
    part = dest.with_name("drip.bin.part")
    assert 0 < part.stat().st_size < len(PAYLOAD) and str(part) in message
    assert not dest.exists()


def test_fetch_deadline_counts_retries(http_server: LocalServer, tmp_path: Path) -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    url = http_server.route("/down.bin", lambda h, n: h.send_status(503))
    with pytest.raises(DownloadError, match="deadline of 10 s"):
        fetch(url, tmp_path / "down.bin", retries=50, backoff=1.0, timeout=5, deadline=10,
              sleep=sleep, clock=lambda: now[0])
    assert http_server.count() == 4  # waits 1 + 2 + 4; the next wait (8) would pass the deadline


def test_fetch_rejects_bad_deadline(tmp_path: Path, no_sleep: list[float]) -> None:
    with pytest.raises(ValueError, match="deadline"):
        _fetch("http://127.0.0.1:9/x", tmp_path / "x", no_sleep, deadline=0)


def test_fetch_resumes_part_file_of_an_earlier_run(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    def first_run_truncates(h: Handler, n: int) -> None:
        if n == 0:
            h.send_truncated(PAYLOAD, 6000)
        else:
            h.send_data(PAYLOAD)

    url = http_server.route("/big.bin", first_run_truncates)
    dest = tmp_path / "big.bin"
    with pytest.raises(DownloadError, match="next run resumes"):
        _fetch(url, dest, no_sleep, retries=0)
    assert dest.with_name("big.bin.part").stat().st_size == 6000
    # A second run (a new call) asks only for the rest.
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert dest.read_bytes() == PAYLOAD
    assert [r.headers.get("range") for r in http_server.requests()] == [None, "bytes=6000-"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bin"]


def test_fetch_earlier_part_restarts_when_server_ignores_range(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    def no_ranges(h: Handler, n: int) -> None:
        if n == 0:
            h.send_truncated(PAYLOAD, 6000)
        else:
            h.send_data(PAYLOAD, honour_range=False)

    url = http_server.route("/big.bin", no_ranges)
    dest = tmp_path / "big.bin"
    with pytest.raises(DownloadError):
        _fetch(url, dest, no_sleep, retries=0)
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert dest.read_bytes() == PAYLOAD


def test_fetch_earlier_part_sends_if_range(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    def with_etag(h: Handler, n: int) -> None:
        if n == 0:
            h.send_response(200)
            h.send_header("ETag", '"v1"')
            h.send_header("Content-Length", str(len(PAYLOAD)))
            h.end_headers()
            h.wfile.write(PAYLOAD[:3000])
            h.close_connection = True
        else:  # the resource changed: a server honouring If-Range sends all of the new one
            h.send_data(PAYLOAD[::-1], honour_range=False)

    url = http_server.route("/e.bin", with_etag)
    dest = tmp_path / "e.bin"
    with pytest.raises(DownloadError):
        _fetch(url, dest, no_sleep, retries=0)
    assert _fetch(url, dest, no_sleep).sha256 == hashlib.sha256(PAYLOAD[::-1]).hexdigest()
    second = http_server.requests()[1].headers
    assert second["range"] == "bytes=3000-" and second["if-range"] == '"v1"'


def test_fetch_part_of_another_url_is_not_resumed(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    http_server.route("/old.bin", lambda h, n: h.send_truncated(PAYLOAD, 6000))
    dest = tmp_path / "file.bin"
    with pytest.raises(DownloadError):
        _fetch(http_server.url("/old.bin"), dest, no_sleep, retries=0)
    url = http_server.serve("/new.bin", PAYLOAD)
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert "range" not in http_server.requests("/new.bin")[0].headers


def test_fetch_complete_part_of_an_earlier_run_is_used(
    http_server: LocalServer, tmp_path: Path, no_sleep: list[float]
) -> None:
    # An earlier run received every byte but was stopped before the rename: the server answers 416.
    url = http_server.serve("/done.bin", PAYLOAD)
    dest = tmp_path / "done.bin"
    dest.with_name("done.bin.part").write_bytes(PAYLOAD)
    dest.with_name("done.bin.part.json").write_text(
        f'{{"url": "{url}", "validator": null, "total": {len(PAYLOAD)}}}'
    )
    assert _fetch(url, dest, no_sleep, sha256=DIGEST).size == len(PAYLOAD)
    assert http_server.count() == 1


def test_fetch_mismatch_kept_for_inspection(http_server: LocalServer, tmp_path: Path, no_sleep: list[float]) -> None:
    url = http_server.serve("/file.bin", PAYLOAD)
    keep = tmp_path / "rejected" / "file.bin"
    with pytest.raises(DownloadError, match="kept at .*rejected/file.bin"):
        _fetch(url, tmp_path / "file.bin", no_sleep, sha256="0" * 64, keep_rejected=keep)
    assert keep.read_bytes() == PAYLOAD
    _assert_nothing_left(tmp_path / "file.bin")


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed): connections are refused."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_host_is_given_up_within_the_retry_window(tmp_path: Path, caplog) -> None:
    """paper.yaml's 8 retries with a 5 s backoff would wait 21 min for a host that refuses every
    connection; the retry window (5 min without a byte) stops it, each retry logged."""
    import logging

    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    url = f"http://127.0.0.1:{_closed_port()}/data.tgz"
    dest = tmp_path / "data.tgz"
    with caplog.at_level(logging.WARNING, logger="cdaflow.data"):
        with pytest.raises(DownloadError) as error:
            fetch(url, dest, retries=8, backoff=5, timeout=5, sleep=sleep, clock=lambda: now[0])
    assert waits == [5, 10, 20, 40, 80]  # the next wait (160 s) would pass 300 s without a byte
    assert str(error.value) == (
        f"{url}: giving up after 6 attempt(s) in 155 s without receiving a byte (the retry window is 300 s; "
        "CDAFLOW_DOWNLOAD_RETRY_WINDOW changes it): network error: [Errno 111] Connection refused (URLError)"
    )
    retries = [r.getMessage() for r in caplog.records if "retrying in" in r.getMessage()]
    assert len(retries) == 5 and retries[0].endswith("retrying in 5 s (1/8)")
    _assert_nothing_left(dest)


def test_the_retry_window_is_configurable(tmp_path: Path, monkeypatch) -> None:
    from cdaflow.data import download

    monkeypatch.setenv(download.RETRY_WINDOW_ENV, "30")
    assert download.retry_window() == 30
    now = [0.0]
    url = f"http://127.0.0.1:{_closed_port()}/x"
    with pytest.raises(DownloadError, match=r"giving up after 3 attempt\(s\) in 15 s .*retry window is 30 s"):
        fetch(url, tmp_path / "x", retries=8, backoff=5, sleep=lambda s: now.__setitem__(0, now[0] + s),
              clock=lambda: now[0])
    with pytest.raises(DownloadError, match=r"giving up after 2 attempt\(s\) in 5 s .*retry window is 12 s"):
        fetch(url, tmp_path / "x", retries=8, backoff=5, give_up_after=12,
              sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    monkeypatch.setenv(download.RETRY_WINDOW_ENV, "soon")
    with pytest.raises(DownloadError, match="CDAFLOW_DOWNLOAD_RETRY_WINDOW='soon': give a number of seconds"):
        download.retry_window()
