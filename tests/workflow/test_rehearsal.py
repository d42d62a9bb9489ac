"""The paper run rehearsed: config/paper.yaml with its downloads and the Hub served from 127.0.0.1.

The rehearsal (config/paper.yaml + config/rehearsal.yaml + the generated urls.yaml) plans the same rules
as the paper config and runs them all, downloads and Hub fetches included, to results/README.md.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.mock_servers import mock_server
from tests.workflow import rehearsal
from tests.workflow.test_snakemake import SHARED_DATA, project_copy, snakemake

ROOT = Path(__file__).resolve().parents[2]
PAPER = yaml.safe_load((ROOT / "config/paper.yaml").read_text(encoding="utf-8"))


def planned_rules(*configfiles: str, cwd: Path = ROOT) -> dict[str, int]:
    """``{rule: jobs}`` of the whole DAG that a dry run plans for the given config files."""
    result = snakemake("-n", "--forceall", "--quiet", "rules", "--configfile", *configfiles, cwd=cwd)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    table = result.stdout + result.stderr
    start = table.index("Job stats:")
    counts = {}
    for line in table[start:].splitlines()[3:]:
        match = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if not match or match[1] == "total":
            break
        counts[match[1]] = int(match[2])
    return counts


def fake_urls(tmp_path: Path) -> Path:
    """A urls.yaml like the rehearsal's, without building or serving anything (for dry runs)."""
    overlay = {"datasets": {}, "downloads": {"hub_endpoint": "http://127.0.0.1:9"}}
    for name, entry in PAPER["datasets"].items():
        if entry.get("files"):
            urls = {file: {"url": f"http://127.0.0.1:9/{name}/{file}"} for file in entry["files"]}
            overlay["datasets"][name] = {"files": urls}
        else:
            overlay["datasets"][name] = {"url": f"http://127.0.0.1:9/{name}/{rehearsal.url_file_name(entry['url'])}"}
    path = tmp_path / "urls.yaml"
    path.write_text(yaml.safe_dump(overlay))
    return path


def test_rehearsal_plans_the_same_rules_as_the_paper_config(tmp_path):
    paper = planned_rules("config/paper.yaml")
    rehearsed = planned_rules("config/paper.yaml", "config/rehearsal.yaml", str(fake_urls(tmp_path)))
    assert set(rehearsed) == set(paper)
    # Only sizes shrink: one job per dataset and Hub model, as many shards as the overlay says.
    for rule in ("fetch_dataset", "fetch_model", "treebank_split", "morph_cda_train_mrf", "regender_translate",
                 "gap_subjective_transfer"):  # fmt: skip
        assert rehearsed[rule] == paper[rule], rule


def test_rehearsal_overlay_changes_only_sizes():
    """config/rehearsal.yaml names no dataset, file, treebank split or model: the paper's stay."""
    overlay = yaml.safe_load((ROOT / "config/rehearsal.yaml").read_text(encoding="utf-8"))
    assert set(overlay) <= {"scale", "compute", "parsing", "corpora", "studies"}
    assert all(set(entry) == {"shards"} for entry in overlay["corpora"].values())
    text = yaml.safe_dump(overlay)
    for key in ("dataset:", "file:", "path:", "url:", "hub:", "package:", "train:", "annotations:"):
        assert key not in text, key


def test_every_paper_dataset_and_hub_model_has_a_fixture():
    assert set(PAPER["datasets"]) == set(rehearsal.BUILDERS)
    assert set(rehearsal.hub_repos(PAPER)) == set(rehearsal.HUB_BUILDERS)


@pytest.mark.slow
@pytest.mark.shared_data
def test_rehearsal_runs_the_paper_dag_end_to_end(tmp_path):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent: the fixtures are cut from its real samples")
    built = rehearsal.build(tmp_path / "fixtures")
    copy = project_copy(tmp_path)
    with mock_server() as server:
        overlay = rehearsal.serve_and_configure(server, built)
        (copy / "urls.yaml").write_text(yaml.safe_dump(overlay, sort_keys=False), encoding="utf-8")
        configs = ["--configfile", "config/paper.yaml", "config/rehearsal.yaml", "urls.yaml"]
        # SSA names: the run stops at once and says what to save where; saved by hand, it goes on.
        stopped = snakemake("resources/data/ssa_names", "--cores", "1", *configs, cwd=copy)
        assert stopped.returncode != 0
        assert "allows no scripted download" in stopped.stdout + stopped.stderr
        assert not any("ssa.gov" in request for request in server.requests)
        rehearsal.save_by_hand(copy, built)
        result = snakemake("all", "datasets", "--cores", "2", *configs, cwd=copy)
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
        requests = server.requests
    # Every dataset came through its URL (or the hand-saved file) and was checked against its sha256.
    with open(copy / "results/downloads.tsv", encoding="utf-8") as handle:
        lock = list(csv.DictReader(handle, delimiter="\t"))
    assert {row["dataset"] for row in lock} >= set(PAPER["datasets"])
    expected = {name: spec["sha256"] for name, spec in overlay["datasets"].items() if "sha256" in spec}
    for row in lock:
        if row["dataset"] in expected:
            assert row["sha256"] == expected[row["dataset"]], row
    # The Hub models were fetched once each, on this host, and pinned.
    assert {row["dataset"] for row in lock if row["dataset"].startswith("hub:")} == {
        f"hub:{repo}" for repo in rehearsal.HUB_BUILDERS
    }
    assert any("/api/models/roberta-base/" in request for request in requests)
    readme = (copy / "results/README.md").read_text(encoding="utf-8")
    assert "Scale of this run: **rehearsal**" in readme
    for table in ("table3_intrinsic.tsv", "table3_error_rates.tsv", "table8_benchmark.tsv", "seat.tsv", "senteval.tsv"):
        assert table in readme, table
    senteval = {row["task"]: row["status"] for row in csv.DictReader(
        open(copy / "results/sentence_bias/senteval.tsv", encoding="utf-8"), delimiter="\t")}  # fmt: skip
    ok = {task for task, status in senteval.items() if status == "ok"}
    assert ok >= {"MRPC", "SICKEntailment", "SICKRelatedness", "STS14", "STSBenchmark"}  # paper-only tasks
    again = snakemake("-n", "all", "--cores", "2", *configs, cwd=copy)
    assert "Nothing to be done" in again.stdout + again.stderr


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
