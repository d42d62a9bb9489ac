"""A local HTTP server (127.0.0.1, random port) whose behaviour each test scripts per path."""

from __future__ import annotations

import io
import re
import tarfile
import threading
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

_RANGE_RE = re.compile(r"bytes=(\d+)-$")


@dataclass(frozen=True)
class Seen:
    """A request the server received."""

    path: str
    headers: dict[str, str]  # lower-case names


class Handler(BaseHTTPRequestHandler):
    """Dispatches GET to ``server.routes[path](handler, n)``, n counting from 0 per path."""

    server: _Server

    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        with self.server.lock:
            n = self.server.counts[path]
            self.server.counts[path] += 1
            self.server.seen.append(Seen(path, {k.lower(): v for k, v in self.headers.items()}))
        route = self.server.routes.get(path)
        if route is None:
            self.send_status(404)
        else:
            route(self, n)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_status(self, code: int) -> None:
        body = f"status {code}\n".encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_data(self, data: bytes, *, honour_range: bool = True) -> None:
        """Send ``data``, as a 206 partial response when asked for ``Range: bytes=N-``."""
        match = _RANGE_RE.match(self.headers.get("Range", ""))
        if honour_range and match:
            start = int(match.group(1))
            if start >= len(data):
                self.send_status(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            body = data[start:]
        else:
            self.send_response(200)
            body = data
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_truncated(self, data: bytes, keep: int) -> None:
        """Promise all of ``data`` but close the connection after ``keep`` bytes."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[:keep])
        self.wfile.flush()
        self.close_connection = True

    def send_unsized(self, data: bytes, keep: int) -> None:
        """Send ``keep`` bytes of ``data`` with no Content-Length, then close: looks complete."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        self.wfile.write(data[:keep])
        self.wfile.flush()
        self.close_connection = True

    def send_chunked(self, data: bytes, keep: int, *, terminate: bool) -> None:
        """Send ``data[:keep]`` in chunked encoding; without ``terminate`` the last chunk is missing."""
        self.protocol_version = "HTTP/1.1"
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, keep, 1000):
            piece = data[start : min(start + 1000, keep)]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        if terminate:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def drip(self, data: bytes, interval: float) -> None:
        """Send ``data`` one byte every ``interval`` seconds (stops when the test ends or the client leaves)."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        for i in range(len(data)):
            if self.server.release.wait(interval):
                break
            try:
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
            except OSError:
                break
        self.close_connection = True

    def stall(self, data: bytes, keep: int, seconds: float) -> None:
        """Send ``keep`` bytes of ``data`` then go silent (the client should time out)."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[:keep])
        self.wfile.flush()
        self.server.release.wait(seconds)
        self.close_connection = True


Route = Callable[[Handler, int], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.routes: dict[str, Route] = {}
        self.counts: Counter[str] = Counter()
        self.seen: list[Seen] = []
        self.release = threading.Event()


class LocalServer:
    """Test-facing handle: register routes, build URLs, inspect requests."""

    def __init__(self, server: _Server) -> None:
        self._server = server
        host, port = server.server_address[:2]
        self.base_url = f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def route(self, path: str, handler: Route) -> str:
        self._server.routes[path] = handler
        return self.url(path)

    def serve(self, path: str, data: bytes, *, honour_range: bool = True) -> str:
        return self.route(path, lambda h, n: h.send_data(data, honour_range=honour_range))

    def requests(self, path: str | None = None) -> list[Seen]:
        with self._server.lock:
            return [s for s in self._server.seen if path is None or s.path == path]

    def count(self, path: str | None = None) -> int:
        return len(self.requests(path))


@pytest.fixture
def http_server() -> Iterator[LocalServer]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield LocalServer(server)
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def no_sleep() -> list[float]:
    """Record the delays ``fetch`` asks for instead of sleeping (pass ``sleep=no_sleep.append``)."""
    return []


def tar_gz(files: dict[str, bytes]) -> bytes:
    """A .tar.gz archive of `files` (member name -> bytes), built in memory."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
