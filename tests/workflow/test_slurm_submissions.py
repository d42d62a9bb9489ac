"""What the SLURM profile submits for paper-config jobs, captured by stand-in sbatch/squeue/sacct.

No job runs: the stand-ins record each ``sbatch`` call and report the job failed. The jobs' inputs are
placeholders, so the executor submits exactly the jobs asked for; a dataset served from 127.0.0.1 shows
that downloads run here, as local rules, and are never submitted.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from cdaflow.cluster import load_jobs
from cdaflow.config import validate
from tests.mock_servers import mock_server
from tests.workflow import slurm_stubs
from tests.workflow.test_snakemake import project_copy, snakemake

TARGETS = {
    "sentence_bias_train_infersent": "results/sentence_bias/train_infersent/original",
    "corpus_shard": "results/common/corpora/wiki_es/shard0.conllu",
    "regender_classifier": "results/regender/es/table2_classifier.tsv",
}


def placeholders(copy: Path, configs: list[str], targets: list[str], rules: list[str]) -> list[str]:
    """Create every input the target jobs lack (folders for names without a suffix), as a dry run
    restricted to their rules names them; return what was created."""
    created: list[str] = []
    for _ in range(20):
        result = snakemake("-n", *targets, *configs, "--allowed-rules", *rules, cwd=copy)
        if result.returncode == 0:
            return created
        text = result.stdout + result.stderr
        block = re.search(r"affected files:\n((?:\s{8}\S.*\n?)+)", text)
        assert block, text[-3000:]
        for line in block.group(1).splitlines():
            path = copy / line.strip()
            if path.suffix:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("placeholder\n")
            else:
                path.mkdir(parents=True, exist_ok=True)
            created.append(line.strip())
    raise AssertionError(f"inputs still missing after creating {created}")


@pytest.mark.slow
def test_paper_jobs_reach_sbatch_sized_by_their_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = project_copy(tmp_path)
    paper = yaml.safe_load((copy / "config/paper.yaml").read_text())
    gap = tmp_path / "gap"
    gap.mkdir()
    with mock_server() as server:
        # One download, served here: it must run on this host, not through sbatch.
        files = {}
        for name, spec in paper["datasets"]["gap"]["files"].items():
            (gap / name).write_text("ID\tText\n")
            files[name] = {"url": server.serve_file(spec["url"], gap / name)}
        (copy / "local.yaml").write_text(yaml.safe_dump({"datasets": {"gap": {"files": files}}}))
        configs = ["--configfile", "config/paper.yaml", "local.yaml"]
        placeholders(copy, configs, list(TARGETS.values()), list(TARGETS))
        bin_dir = slurm_stubs.install(tmp_path / "slurm")
        path = [str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]
        monkeypatch.setenv("PATH", os.pathsep.join(path))
        result = snakemake(
            *TARGETS.values(), "resources/data/gap", *configs,
            "--workflow-profile", "profiles/slurm", "--retries", "0", "--keep-going",
            "--allowed-rules", *TARGETS, "fetch_dataset",
            "--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1",
            cwd=copy,
        )  # fmt: skip
        requests = server.requests
    output = result.stdout[-4000:] + result.stderr[-4000:]
    calls = {call["rule"]: call for call in slurm_stubs.submissions(tmp_path / "slurm")}
    assert set(calls) == set(TARGETS), output  # the download never reached sbatch ...
    assert (copy / "resources/data/gap/gap-test.tsv").is_file(), output  # ... it ran here
    assert any("gap-test.tsv" in request for request in requests)

    config = validate(yaml.safe_load((copy / "config/paper.yaml").read_text()), source="paper")
    jobs = load_jobs(copy / "resources/jobs.yaml")
    threads = config["compute"]["threads"]
    for rule, call in calls.items():
        options = call["options"]
        gpu = rule != "regender_classifier"  # scikit-learn; stanza parses corpora on a GPU at paper scale
        expected = jobs.size(rule, config, threads=threads, gpu=gpu)
        assert options["--cpus-per-task"] == str(threads), (rule, options)
        assert options["-t"] == str(expected["runtime"]), (rule, options)
        assert options["--mem"] == str(expected["mem_mb"]), (rule, options)
        assert (options.get("--gpus") == "1") == gpu, (rule, options)
    infersent = calls["sentence_bias_train_infersent"]["options"]
    assert infersent["--cpus-per-task"] == "8" and infersent["--gpus"] == "1"
    profile = yaml.safe_load((copy / "profiles/slurm/config.yaml").read_text())
    assert "cpus_per_task" not in profile["default-resources"]  # it would override every rule's threads
    assert infersent["-t"] != str(profile["default-resources"]["runtime"])
    assert int(calls["regender_classifier"]["options"]["--mem"]) > profile["default-resources"]["mem_mb"]
    shutil.rmtree(copy / ".snakemake", ignore_errors=True)
