"""What the SLURM profile submits for paper-config jobs, captured by stand-in sbatch/squeue/sacct.

No job runs: the stand-ins record each ``sbatch`` call and report the job failed, so each job is tried
once more (the profile's ``retries``) and submitted again. The jobs' inputs are placeholders, so the
executor submits exactly the jobs asked for; a dataset served from 127.0.0.1 shows that downloads run
here, as local rules, and are never submitted. The profile deploys the rules' conda envs: a stand-in
``conda`` (slurm_stubs) answers Snakemake's calls on this host, where no conda is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdaflow.config import validate
from cdaflow.pipeline.cluster import load_jobs
from tests.mock_servers import mock_server
from tests.workflow import slurm_stubs
from tests.workflow.test_snakemake import project_copy, snakemake

TARGETS = {
    "sentence_bias_train_infersent": "results/sentence_bias/train_infersent/original",
    "gap_subjective_benchmark": "results/gap_subjective/table8_benchmark.tsv",  # trains an MLP on its GPU
    "regender_classifier": "results/regender/es/table2_classifier.tsv",  # heavy, on CPUs (scikit-learn)
    "regender_rules": "results/regender/es/rules/shard0.tsv",  # light rules: the profile's defaults
    "gap_subjective_wnc": "results/gap_subjective/wnc/pairs.tsv",
}
GPU_RULES = {"sentence_bias_train_infersent", "gap_subjective_benchmark"}
HEAVY_RULES = GPU_RULES | {"regender_classifier"}
# Where compute.slurm sends them: a GPU and a CPU block, and one override of each kind.
SLURM = {
    "gpu": {"partition": "gpu-a100", "account": "acct-gpu"},
    "cpu": {"partition": "cpu-std", "account": "acct-cpu"},
    "rules": {
        "regender_classifier": {"partition": "cpu-bigmem"},
        "sentence_bias_train_infersent": {"account": "acct-nli"},
    },
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


def submit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slurm: dict, targets: dict[str, str], retries: int
) -> tuple[Path, list[dict], subprocess.CompletedProcess]:
    """Plan `targets` of the paper config with config compute.slurm `slurm` through the SLURM profile and
    stand-in SLURM and conda commands; return the project copy and the captured ``sbatch`` calls."""
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
        overlay = {"datasets": {"gap": {"files": files}}, "compute": {"slurm": slurm}}
        (copy / "local.yaml").write_text(yaml.safe_dump(overlay))
        configs = ["--configfile", "config/paper.yaml", "local.yaml"]
        placeholders(copy, configs, list(targets.values()), list(targets))
        bin_dir = slurm_stubs.install(tmp_path / "slurm")
        path = [str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]]
        monkeypatch.setenv("PATH", os.pathsep.join(path))
        result = snakemake(
            *targets.values(), "resources/data/gap", *configs,
            "--workflow-profile", "profiles/slurm", "--retries", str(retries), "--keep-going",
            "--allowed-rules", *targets, "fetch_dataset",
            "--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1",
            cwd=copy,
        )  # fmt: skip
        requests = server.requests
    assert (copy / "resources/data/gap/gap-test.tsv").is_file(), result.stderr[-4000:]  # the download ran here
    assert any("gap-test.tsv" in request for request in requests)
    return copy, slurm_stubs.submissions(tmp_path / "slurm"), result


@pytest.mark.slow
def test_paper_jobs_reach_sbatch_sized_placed_and_deployed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy, submitted, result = submit(tmp_path, monkeypatch, SLURM, TARGETS, retries=1)
    output = result.stdout[-4000:] + result.stderr[-4000:]
    calls: dict[str, list[dict]] = {}
    for call in submitted:
        calls.setdefault(call["rule"], []).append(call)
    assert set(calls) == set(TARGETS), output  # the download never reached sbatch
    assert all(len(tries) == 2 for tries in calls.values()), output  # each failed once, then its retry

    config = validate(yaml.safe_load((copy / "config/paper.yaml").read_text()), source="paper")
    jobs = load_jobs(copy / "resources/jobs.yaml")
    threads = config["compute"]["threads"]
    profile = yaml.safe_load((copy / "profiles/slurm/config.yaml").read_text())
    for rule, (first, retry) in ((rule, (tries[0]["options"], tries[1]["options"])) for rule, tries in calls.items()):
        gpu = rule in GPU_RULES
        # Placement: compute.slurm's block for the job's kind, then the rule's own entry.
        block = {**SLURM["gpu" if gpu else "cpu"], **SLURM["rules"].get(rule, {})}
        assert (first["-p"], first["-A"]) == (block["partition"], block["account"]), (rule, first)
        assert (first.get("--gpus") == "1") == gpu and "--gres" not in first, (rule, first)
        if rule in HEAVY_RULES:
            expected = jobs.size(rule, config, threads=threads, gpu=gpu)
            assert first["--cpus-per-task"] == str(threads), (rule, first)
            assert first["-t"] == str(expected["runtime"]), (rule, first)
            assert first["--mem"] == str(expected["mem_mb"]), (rule, first)
        # A retry asks for more time, up to the cap (a job at the cap resumes from its checkpoints).
        grown = jobs.runtime_for_attempt(int(first["-t"]), 2) if rule in HEAVY_RULES else 2 * int(first["-t"])
        assert retry["-t"] == str(grown), (rule, first["-t"], retry["-t"])
        assert int(retry["-t"]) > int(first["-t"]) or int(first["-t"]) >= jobs.max_runtime, (rule, retry)
        same = {key: value for key, value in first.items() if key not in ("-t", "--comment", "--wrap")}
        assert {key: retry.get(key) for key in same} == same, rule  # only the time grows (the wrap: --attempt)
    assert set(SLURM["rules"]) < set(calls)  # both overrides were exercised
    assert calls["regender_rules"][0]["options"]["-t"] == "60"  # the profile's default, first try
    infersent = calls["sentence_bias_train_infersent"][0]["options"]
    assert infersent["--cpus-per-task"] == "8" and infersent["--gpus"] == "1"
    assert "cpus_per_task" not in profile["default-resources"]  # it would override every rule's threads
    assert infersent["-t"] != "60"
    assert int(calls["regender_classifier"][0]["options"]["--mem"]) > profile["default-resources"]["mem_mb"]

    # Each job runs in its rule's conda env: the wrapped command says so, and the envs were made here.
    for call in submitted:
        wrapped = call["options"].get("--wrap", "") + call["script"]
        assert re.search(r"--(software-deployment-method|sdm|deployment-method) conda\b", wrapped), (
            call["rule"],
            wrapped,
        )
    created = {Path(args[args.index("--file") + 1]).suffix for args in slurm_stubs.conda_calls(tmp_path / "slurm")
               if args[:2] == ["env", "create"]}  # fmt: skip
    assert created == {".yaml"}, slurm_stubs.conda_calls(tmp_path / "slurm")
    assert any(args[0] == "env-python" for args in slurm_stubs.conda_calls(tmp_path / "slurm"))  # post-deploy ran
    shutil.rmtree(copy / ".snakemake", ignore_errors=True)


@pytest.mark.slow
def test_clusters_without_gpus_option_get_gres(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slurm = {"gpu": {"partition": "gpu", "gres_form": "gres"}, "cpu": {"partition": "cpu"}}
    targets = {rule: TARGETS[rule] for rule in ("gap_subjective_benchmark", "regender_rules")}
    copy, submitted, result = submit(tmp_path, monkeypatch, slurm, targets, retries=0)
    calls = {call["rule"]: call["options"] for call in submitted}
    assert set(calls) == set(targets), result.stderr[-4000:]
    mlp, rules = calls["gap_subjective_benchmark"], calls["regender_rules"]
    assert (mlp["-p"], mlp.get("--gres"), "--gpus" in mlp) == ("gpu", "gpu:1", False), mlp
    assert (rules["-p"], "--gres" in rules, "--gpus" in rules) == ("cpu", False, False), rules
    shutil.rmtree(copy / ".snakemake", ignore_errors=True)


@pytest.mark.slow
def test_a_placement_for_an_unknown_rule_is_named(tmp_path: Path) -> None:
    copy = project_copy(tmp_path)
    (copy / "bad.yaml").write_text(yaml.safe_dump({"compute": {"slurm": {"rules": {"regender_rule": {}}}}}))
    result = snakemake("-n", "--configfile", "config.yaml", "bad.yaml", cwd=copy)
    assert result.returncode != 0
    message = "config compute.slurm.rules.regender_rule: the workflow has no rule 'regender_rule'"
    assert message in result.stdout + result.stderr


def test_every_cluster_command_shown_deploys_the_conda_envs() -> None:
    root = Path(__file__).resolve().parents[2]
    profile = yaml.safe_load((root / "profiles/slurm/config.yaml").read_text())
    assert profile["software-deployment-method"] == "conda"
    shown = [
        (name, line)
        for name in ("README.md", "Snakefile", "config/paper.yaml", "profiles/slurm/config.yaml")
        for line in (root / name).read_text().splitlines()
        if "--workflow-profile profiles/slurm" in line
    ]
    assert len(shown) >= 5, shown
    assert [(name, line) for name, line in shown if "--sdm conda" not in line] == []
