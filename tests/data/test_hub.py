"""Hub models fetched into resources/models: complete or not at all, pinned in the lock file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdaflow.data.hub import HubError, fetch_hub_model, hub_folder_name, hub_refs
from cdaflow.data.lockfile import LockFile
from tests.mock_servers import mock_server

FAST = {"retries": 1, "backoff": 0.0, "timeout": 5, "sleep": lambda _s: None}


def repo(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def test_fetch_writes_the_repository_and_pins_its_commit(tmp_path: Path) -> None:
    source = repo(tmp_path / "repo", {"config.json": b'{"hidden_size": 8}', "sub/model.safetensors": b"w" * 5000})
    lock = LockFile(tmp_path / "downloads.tsv")
    dest = tmp_path / "models" / "org--tiny"
    with mock_server() as server:
        server.serve_repo("org/tiny", source)
        fetch_hub_model("org/tiny", dest, endpoint=server.base, lockfile=lock, **FAST)
        commit = server.commit("org/tiny")
    assert (dest / "config.json").read_bytes() == b'{"hidden_size": 8}'
    assert (dest / "sub/model.safetensors").read_bytes() == b"w" * 5000
    assert not (dest / ".cache").exists()  # huggingface_hub's bookkeeping is not part of the model
    record = json.loads((dest / ".cdaflow-hub.json").read_text())
    assert record["commit"] == commit and record["revision"] == "main"
    entry = lock.get("hub:org/tiny", "(snapshot)")
    assert entry.url.endswith(f"/org/tiny/tree/{commit}") and len(entry.sha256) == 64
    # A second fetch without a revision asks for the pinned commit, not main.
    with mock_server() as server:
        server.serve_repo("org/tiny", source)
        fetch_hub_model("org/tiny", dest, endpoint=server.base, lockfile=lock, **FAST)
        assert f"GET /api/models/org/tiny/revision/{commit}" not in server.requests  # a commit needs no resolving
        assert any(r.startswith(f"GET /api/models/org/tiny/tree/{commit}") for r in server.requests)


def test_a_failed_fetch_leaves_the_old_folder(tmp_path: Path) -> None:
    dest = tmp_path / "models" / "org--gone"
    dest.mkdir(parents=True)
    (dest / "old.txt").write_text("kept")
    with mock_server() as server, pytest.raises(HubError, match="org/gone"):
        fetch_hub_model("org/gone", dest, endpoint=server.base, **FAST)
    assert (dest / "old.txt").read_text() == "kept"
    assert [p.name for p in dest.parent.iterdir()] == ["org--gone"]  # no temporary folder left


def test_hub_refs_and_folder_names() -> None:
    config = {"a": {"model": {"hub": "gpt2"}}, "b": [{"encoder": {"hub": "org/m", "revision": "v1"}}]}
    assert hub_refs(config) == {"gpt2": {"hub": "gpt2", "revision": None}, "org--m": {"hub": "org/m", "revision": "v1"}}
    assert hub_folder_name("sentence-transformers/bert-base-nli-max-tokens") == (
        "sentence-transformers--bert-base-nli-max-tokens"
    )
    with pytest.raises(HubError, match="two revisions"):
        hub_refs({"x": {"hub": "org/m"}, "y": {"hub": "org/m", "revision": "v2"}})
    with pytest.raises(HubError, match="not a Hub repository id"):
        hub_folder_name("../etc")


def test_hub_disabled_by_the_environment_is_said_in_one_line(tmp_path: Path, monkeypatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with mock_server() as server, pytest.raises(HubError, match="HF_HUB_OFFLINE is set") as error:
        fetch_hub_model("org/tiny", tmp_path / "org--tiny", endpoint=server.base, **FAST)
    assert not server.requests  # refused before any request reached the Hub
    assert "\n" not in str(error.value)
    assert not (tmp_path / "org--tiny").exists()
