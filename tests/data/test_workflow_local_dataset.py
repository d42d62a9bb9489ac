"""The fetch_dataset rule notices edits inside a local-path dataset folder (Snakemake alone sees
only the folder's own mtime), stops on the pin with the repin command, and runs again once re-pinned."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdaflow.cli import main
from tests.timeouts import workflow_timeout

ROOT = Path(__file__).resolve().parents[2]


def snakemake(work: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(work),
         "--configfile", str(config), "--cores", "1", *args, "resources/data/mine"],
        capture_output=True, text=True, timeout=workflow_timeout(),
    )


def test_editing_a_local_dataset_reruns_it_and_checks_the_pin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    source = tmp_path / "mine"
    source.mkdir()
    (source / "a.txt").write_text("first\n")
    (source / "b.txt").write_text("b\n")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"scale": "demo", "datasets": {"mine": {"path": str(source)}}}))

    first = snakemake(work, config)
    assert first.returncode == 0, first.stderr
    assert (work / "resources/data/mine/a.txt").read_text() == "first\n"
    unchanged = snakemake(work, config, "-n")
    assert "Nothing to be done" in unchanged.stdout + unchanged.stderr

    # Edited in place: same folder mtime, so only the content parameter can tell.
    folder_mtime = source.stat().st_mtime_ns
    (source / "a.txt").write_text("second version\n")
    assert source.stat().st_mtime_ns == folder_mtime
    planned = snakemake(work, config, "-n")
    assert "fetch_dataset" in planned.stdout + planned.stderr

    stopped = snakemake(work, config)
    assert stopped.returncode != 0
    log = (work / "logs/common/fetch_dataset/mine.log").read_text()
    assert "changed since" in log and "changed: a.txt" in log and "repin mine" in log

    monkeypatch.chdir(work)
    assert main(["datasets", "--config", str(config), "repin", "mine"]) == 0
    again = snakemake(work, config)
    assert again.returncode == 0, again.stderr
    assert (work / "resources/data/mine/a.txt").read_text() == "second version\n"
