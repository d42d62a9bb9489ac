"""A local stand-in for the publishers' servers and the Hugging Face Hub (127.0.0.1, a free port).

:class:`MockServer` serves files at the URL paths they have on their real hosts (``/<host>/<path>``),
and Hub repositories from local folders through the part of the Hub's HTTP API that
``huggingface_hub.snapshot_download`` uses: ``/api/models/<repo>/revision/<rev>`` (the commit a revision
resolves to), ``/api/models/<repo>/tree/<commit>`` (the file listing) and ``/<repo>/resolve/<commit>/<file>``
(HEAD for metadata, GET for content). Every request is recorded. Used by the data tests and by the paper
rehearsal (``tests/workflow/rehearsal.py``).
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def _commit_of(folder: Path) -> str:
    """A stable 40-hex "commit" of a repository folder: the sha1 of its files' names and contents."""
    digest = hashlib.sha1()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, value: object) -> None:
        self._send(200, json.dumps(value).encode(), {"Content-Type": "application/json"})

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        with self.server.lock:
            self.server.requests.append(f"{self.command} {path}")
        if path in self.server.files:
            self._send(200, self.server.files[path].read_bytes(), {"Content-Type": "application/octet-stream"})
            return
        for repo, folder in self.server.repos.items():
            if self._hub(path, repo, folder):
                return
        self._send(404, b"not found\n", {"Content-Type": "text/plain"})

    def _hub(self, path: str, repo: str, folder: Path) -> bool:
        commit = _commit_of(folder)
        files = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}
        if path.startswith(f"/api/models/{repo}/revision/"):
            self._json({"id": repo, "sha": commit, "siblings": [{"rfilename": name} for name in files]})
            return True
        if path.startswith(f"/api/models/{repo}/tree/"):
            listing = [
                {"type": "file", "path": name, "size": p.stat().st_size,
                 "oid": hashlib.sha1(p.read_bytes()).hexdigest()}
                for name, p in files.items()
            ]
            self._json(listing)
            return True
        prefix = f"/{repo}/resolve/"
        if path.startswith(prefix):
            _, _, name = path[len(prefix):].partition("/")
            if name in files:
                data = files[name].read_bytes()
                etag = f'"{hashlib.sha1(data).hexdigest()}"'
                self._send(200, data, {"X-Repo-Commit": commit, "ETag": etag})
                return True
        return False


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.files: dict[str, Path] = {}
        self.repos: dict[str, Path] = {}
        self.requests: list[str] = []


class MockServer:
    """The running server: add files and Hub repositories, read back what was asked for."""

    def __init__(self, server: _Server) -> None:
        self._server = server

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    @property
    def requests(self) -> list[str]:
        with self._server.lock:
            return list(self._server.requests)

    def serve_file(self, url: str, path: Path) -> str:
        """Serve ``path`` where ``url`` (a real publisher's URL) would be; returns the local URL."""
        parts = urllib.parse.urlsplit(url)
        local_path = f"/{parts.netloc}{parts.path}"
        self._server.files[local_path] = Path(path)
        query = f"?{parts.query}" if parts.query else ""
        return f"{self.base}{urllib.parse.quote(local_path)}{query}"

    def serve_repo(self, repo_id: str, folder: Path) -> None:
        """Serve a folder as the Hub repository ``repo_id`` (one revision, any name)."""
        self._server.repos[repo_id] = Path(folder)

    def commit(self, repo_id: str) -> str:
        return _commit_of(self._server.repos[repo_id])


@contextmanager
def mock_server() -> Iterator[MockServer]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield MockServer(server)
    finally:
        server.shutdown()
        server.server_close()
