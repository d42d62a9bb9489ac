"""The run signature: config hash, commit, versions, devices, one comparable line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cdaflow.pipeline.signature import (
    config_hash,
    git_commit,
    logged_devices,
    logged_gpu_jobs,
    run_signature,
    signature_string,
)


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


def test_gpu_jobs_record_the_gpu_model_cuda_and_driver(tmp_path):
    """cdaflow.pipeline.device's line for each GPU job; a job that logs its device twice (rule_device, then the
    stanza parser's check) counts once; logs from before the CUDA version was recorded still read."""
    logs = tmp_path / "logs"
    (logs / "regender").mkdir(parents=True)
    h100 = "device cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)"
    v100 = "device cuda (Tesla V100-SXM2-32GB, CUDA 12.6, driver 550.54.15)"
    prefix = "2026-01-01 00:00:00,000 INFO cdaflow.rule."
    tag, cda = f"{prefix}regender_tag: ", f"{prefix}cross_study_cda_regender: "
    (logs / "regender" / "tag_0.log").write_text(f"{tag}rule regender_tag\n{tag}{h100}\n")
    (logs / "regender" / "tag_1.log").write_text(f"{tag}{h100}\n")
    (logs / "cda.log").write_text(f"{cda}{h100}\n{cda}{h100}\n")
    (logs / "train.log").write_text(f"{prefix}regender_train: {v100}\n")
    (logs / "old.log").write_text(f"{prefix}morph_cda_lm: device cuda (NVIDIA A100-SXM4-80GB)\n")
    (logs / "cpu.log").write_text(f"{prefix}regender_classifier: device cpu\n")
    assert logged_devices(logs) == [
        "cpu", "cuda (NVIDIA A100-SXM4-80GB)", "cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)",
        "cuda (Tesla V100-SXM2-32GB, CUDA 12.6, driver 550.54.15)",
    ]  # fmt: skip
    assert logged_gpu_jobs(logs) == [
        {"gpu": "NVIDIA A100-SXM4-80GB", "cuda": "unknown", "driver": "unknown", "jobs": 1, "rules": ["morph_cda_lm"]},
        {"gpu": "NVIDIA H100 80GB HBM3", "cuda": "13.0", "driver": "580.65.06", "jobs": 3,
         "rules": ["cross_study_cda_regender", "regender_tag"]},
        {"gpu": "Tesla V100-SXM2-32GB", "cuda": "12.6", "driver": "550.54.15", "jobs": 1, "rules": ["regender_train"]},
    ]  # fmt: skip
    signature = run_signature("paper", "cd" * 32, project=tmp_path, logs=logs)
    assert signature["gpu_jobs"] == logged_gpu_jobs(logs)
    assert signature_string(signature).endswith("|device:cpu+cuda+cuda12.6+cuda13.0")
