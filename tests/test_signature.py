"""The run signature: config hash, commit, versions, devices, one comparable line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cdaflow.signature import config_hash, git_commit, logged_devices, run_signature, signature_string


def test_config_hash_ignores_key_order_and_sees_every_value():
    assert config_hash({"a": 1, "b": {"c": [1, 2]}}) == config_hash({"b": {"c": [1, 2]}, "a": 1})
    assert config_hash({"a": 1, "b": {"c": [1, 2]}}) != config_hash({"a": 1, "b": {"c": [2, 1]}})


def test_commit_is_marked_dirty_when_tracked_files_change(tmp_path):
    assert git_commit(tmp_path) == "unknown"
    for args in (["init", "-q"], ["config", "user.email", "a@b"], ["config", "user.name", "a"]):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True)
    (tmp_path / "f.txt").write_text("one\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "f.txt"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True)
    clean = git_commit(tmp_path)
    assert len(clean) == 12 and "+" not in clean
    (tmp_path / "untracked.txt").write_text("ignored\n")
    assert git_commit(tmp_path) == clean
    (tmp_path / "f.txt").write_text("two\n")
    assert git_commit(tmp_path) == clean + "+dirty"


def test_devices_come_from_the_rules_logs(tmp_path):
    logs = tmp_path / "logs" / "study"
    logs.mkdir(parents=True)
    (logs / "a.log").write_text("2026-01-01 00:00:00,000 INFO cdaflow.rule.x: device cpu\n")
    (logs / "b.log").write_text("2026-01-01 00:00:00,000 INFO cdaflow.rule.y: device cuda (NVIDIA H100 80GB HBM3)\n")
    assert logged_devices(tmp_path / "logs") == ["cpu", "cuda (NVIDIA H100 80GB HBM3)"]
    signature = run_signature("demo", "ab" * 32, project=tmp_path, logs=tmp_path / "logs")
    line = signature_string(signature)
    assert line.startswith("cdaflow:0.1.0|scale:demo|config:abababababab|commit:unknown|python:")
    assert "|torch:" in line and "|sklearn:" in line and line.endswith("|device:cpu+cuda")
    assert run_signature("demo", "0" * 64, project=tmp_path, logs=Path(tmp_path / "none"))["devices"] == ["cpu"]
