"""`cdaflow datasets fetch --force` and `repin` against the local HTTP server: the old copy stays
until a new one is complete and verified."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from cdaflow.cli import main

from .conftest import tar_gz

if TYPE_CHECKING:
    from .conftest import LocalServer


V1 = tar_gz({"v.txt": b"version 1\n"})
V2 = tar_gz({"v.txt": b"version 2\n"})
FAST = {"retries": 0, "backoff": 0, "timeout": 5, "deadline": 30}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, http_server: LocalServer) -> dict[str, Any]:
    """A project folder whose one dataset `toy` is served by the test, already fetched once (V1)."""
    served = {"data": V1, "status": 200}

    def route(h: Any, n: int) -> None:
        if served["status"] != 200:
            h.send_status(served["status"])
        else:
            h.send_data(served["data"])

    url = http_server.route("/toy.tgz", route)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"scale": "demo", "downloads": FAST, "datasets": {"toy": {"url": url}}}))
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "--config", str(config), "fetch"]) == 0
    return {"config": str(config), "served": served, "root": tmp_path}


def dataset(project: dict[str, Any]) -> bytes:
    return (project["root"] / "resources/data/toy/v.txt").read_bytes()


def pin(project: dict[str, Any]) -> str:
    rows = (project["root"] / "results/downloads.tsv").read_text().splitlines()[1:]
    (row,) = [r for r in rows if r.startswith("toy\t")]
    return row.split("\t")[4]


def hidden_leftovers(project: dict[str, Any]) -> list[str]:
    return [p.name for p in (project["root"] / "resources/data").iterdir() if p.name != "toy"]


def test_force_fetch_replaces_the_folder_when_the_new_copy_is_good(
    project: dict[str, Any], http_server: LocalServer
) -> None:
    marker = project["root"] / "resources/data/toy/local-edit.txt"
    marker.write_text("not part of the dataset")
    # --force downloads again (not from the cache), verifies against the pin and swaps it in.
    assert main(["datasets", "--config", project["config"], "fetch", "--force", "toy"]) == 0
    assert http_server.count("/toy.tgz") == 2
    assert dataset(project) == b"version 1\n" and pin(project) == sha(V1)
    assert not marker.exists()
    assert hidden_leftovers(project) == []


def test_force_fetch_keeps_the_old_copy_on_404(project: dict[str, Any], capsys: Any) -> None:
    project["served"]["status"] = 404
    capsys.readouterr()
    assert main(["datasets", "--config", project["config"], "fetch", "--force", "toy"]) == 2
    err = capsys.readouterr().err
    assert "404" in err and "existing copy at resources/data/toy is kept unchanged" in err
    assert dataset(project) == b"version 1\n" and pin(project) == sha(V1)
    assert hidden_leftovers(project) == []


def test_force_fetch_keeps_the_old_copy_on_a_pin_mismatch(project: dict[str, Any], capsys: Any) -> None:
    project["served"]["data"] = V2  # upstream changed; the config has no sha256, the lock file pins V1
    capsys.readouterr()
    assert main(["datasets", "--config", project["config"], "fetch", "--force", "toy"]) == 2
    err = capsys.readouterr().err
    rejected = Path("resources/downloads/toy/.rejected/toy.tgz")
    assert f"kept at {rejected}" in err and "repin toy" in err
    assert (project["root"] / rejected).read_bytes() == V2  # the new download, to inspect
    assert (project["root"] / "resources/downloads/toy/toy.tgz").read_bytes() == V1  # cache intact
    assert dataset(project) == b"version 1\n" and pin(project) == sha(V1)
    assert hidden_leftovers(project) == []

    # Accepting the change on purpose: repin fetches it, pins it and swaps it in.
    assert main(["datasets", "repin", "toy", "--config", project["config"]]) == 0
    out = capsys.readouterr().out
    assert f"toy: pin of toy.tgz: {sha(V1)} -> {sha(V2)}" in out
    assert dataset(project) == b"version 2\n" and pin(project) == sha(V2)


def test_force_fetch_keeps_the_old_copy_on_a_corrupt_lock_file(project: dict[str, Any], capsys: Any) -> None:
    lock = project["root"] / "results/downloads.tsv"
    lock.write_text(lock.read_text().replace("\ttoy.tgz\t", "\ttoy.tgz\tnot-a-size-"))
    before = lock.read_text()
    capsys.readouterr()
    assert main(["datasets", "--config", project["config"], "fetch", "--force", "toy"]) == 2
    err = capsys.readouterr().err
    assert "downloads.tsv, line 2, field 'size'" in err and "kept unchanged" in err
    assert dataset(project) == b"version 1\n" and lock.read_text() == before
    assert hidden_leftovers(project) == []


def test_fetch_without_force_leaves_an_existing_folder(project: dict[str, Any], capsys: Any) -> None:
    project["served"]["status"] = 500
    assert main(["datasets", "--config", project["config"], "fetch", "toy"]) == 0
    assert "already at" in capsys.readouterr().out


def test_repin_a_local_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    source = tmp_path / "mine"
    source.mkdir()
    (source / "a.txt").write_text("one\n")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"scale": "demo", "datasets": {"mine": {"path": str(source)}}}))
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "--config", str(config), "fetch"]) == 0
    (source / "b.txt").write_text("two\n")
    capsys.readouterr()
    assert main(["datasets", "--config", str(config), "fetch", "--force", "mine"]) == 2
    err = capsys.readouterr().err
    assert "changed since" in err and "added: b.txt" in err and "repin mine" in err
    assert "was not rebuilt" in err and "hard links" in err
    assert main(["datasets", "--config", str(config), "verify"]) == 1
    out = capsys.readouterr().out
    assert "added: b.txt" in out and "repin mine" in out
    assert main(["datasets", "--config", str(config), "repin", "mine"]) == 0
    assert "mine: pin of mine: " in capsys.readouterr().out
    assert (tmp_path / "resources/data/mine/b.txt").read_text() == "two\n"
    assert main(["datasets", "--config", str(config), "verify"]) == 0


def test_repin_needs_a_name(tmp_path: Path, capsys: Any) -> None:
    with pytest.raises(SystemExit) as info:
        main(["datasets", "repin"])
    assert info.value.code == 2
