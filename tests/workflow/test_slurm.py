"""Slices of the demo and of the paper rehearsal on a real SLURM scheduler (`--workflow-profile profiles/slurm`).

A one-node cluster (tests/workflow/slurm_cluster.py) with a stand-in GPU runs gap_subjective_wnc
and then gap_subjective_fluency_lm, the latter a `gpu=1` rule: the test checks from slurmctld's job
records that the GPU request reached sbatch for that job only. The paper config's rehearsal (Study C's
first steps) fetches its dataset and Hub model on the submit host and submits only the two compute jobs.
Skipped, with the reason, where the cluster cannot start. The fast tests below check the cluster helper
itself (its slurm.conf, and that a daemon that fails to start is reported at once and leaves no process behind).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.workflow.slurm_cluster import (
    SlurmCluster,
    SlurmUnavailable,
    create_cluster,
    ensure_installed,
    parse_scontrol_line,
    pid_alive,
    slurm_conf,
)
from tests.workflow.test_snakemake import project_copy, snakemake

logger = logging.getLogger(__name__)

# gap_subjective_wnc (no GPU) then gap_subjective_fluency_lm (gpu=1, falls back to CPU without CUDA):
# two short jobs.
TARGET = "results/gap_subjective/fluency/lm"
GPU_RULE, CPU_RULE = "gap_subjective_fluency_lm", "gap_subjective_wnc"


def stop_and_check(cluster: SlurmCluster) -> None:
    """Stop the daemons by pid; fail when one needed SIGKILL or any process of ours is left."""
    killed = cluster.stop()
    survivors = cluster.survivors()
    assert not survivors, f"processes of the test cluster survived stopping: {survivors}"
    assert not killed, f"these did not stop on SIGTERM and were killed: {killed}"


@pytest.fixture
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """A running one-node cluster; its daemons are stopped by pid afterwards, also when the test fails."""
    try:
        programs, install_seconds = ensure_installed()
        if install_seconds:
            logger.info("installing slurm and munge took %.1f s", install_seconds)
        # mktemp's short basetemp path: the daemons' unix sockets live below it.
        cluster = create_cluster(tmp_path_factory.mktemp("slurm"), programs)
    except SlurmUnavailable as error:
        pytest.skip(f"SLURM cannot be set up here: {error}")
    started = time.monotonic()
    try:
        try:
            cluster.start(timeout=60)
        except SlurmUnavailable as error:
            pytest.skip(f"the SLURM test cluster did not start: {error}")
        logger.info("the cluster started in %.1f s", time.monotonic() - started)
        yield cluster
    finally:
        stop_and_check(cluster)


@pytest.mark.slow
@pytest.mark.slurm
def test_demo_slice_runs_through_slurm(slurm: SlurmCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = project_copy(tmp_path)
    # No conda on the test machine: the profile's software-deployment-method is dropped, the venv runs the jobs.
    profile = copy / "profiles/slurm/config.yaml"
    profile.write_text(profile.read_text().replace("software-deployment-method: conda\n", ""))
    config = yaml.safe_load((copy / "config.yaml").read_text())
    config["compute"] = {"gpu": 1, "threads": 1, "mem_mb": 1000}
    (copy / "slurm.yaml").write_text(yaml.safe_dump(config))
    # sbatch, squeue and scontrol (called by the executor plugin) find the test cluster by SLURM_CONF;
    # sbatch --export=ALL hands this environment on to the jobs, with the venv's bin first on PATH
    # (its python runs the rules' scripts) and then the cluster's srun shim.
    for name, value in slurm.env.items():
        monkeypatch.setenv(name, value)
    venv_bin = Path(sys.executable).parent
    monkeypatch.setenv("VIRTUAL_ENV", str(venv_bin.parent))
    monkeypatch.setenv("PATH", os.pathsep.join([str(venv_bin), slurm.env["PATH"]]))
    started = time.monotonic()
    result = snakemake(
        TARGET,
        "--configfile", "slurm.yaml",
        "--workflow-profile", "profiles/slurm",
        # The profile's 8000 MB default may exceed 80 % of a small CI machine; nothing enforces it here.
        "--default-resources", "mem_mb=1000", "runtime=10",
        # The plugin waits 40 s before its first status check by default: too long for 5 s jobs.
        "--slurm-init-seconds-before-status-checks", "2",
        "--seconds-between-status-checks", "2",
        "--slurm-keep-successful-logs",  # read below
        cwd=copy,
    )
    logger.info("snakemake on SLURM took %.1f s", time.monotonic() - started)
    output = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, output + "\nslurmctld log:\n" + slurm.log_tail("slurmctld")
    # No accounting storage here: the profile's squeue status command must have been kept.
    assert "Falling back to 'sacct'" not in result.stdout + result.stderr
    assert (copy / "results/gap_subjective/wnc/pairs.tsv").stat().st_size > 0
    assert {path.name for path in (copy / TARGET).iterdir()} >= {"lm.pt", "bpe.model"}

    jobs = {job["Comment"]: job for job in slurm.jobs()}  # the plugin comments each job rule_<name>
    assert set(jobs) == {f"rule_{GPU_RULE}", f"rule_{CPU_RULE}"}, jobs
    for job in jobs.values():
        # Ran through slurmd on this node, not on the submitting host.
        assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", job
        assert job["BatchHost"] == slurm.node_name
    gpu_job, cpu_job = jobs[f"rule_{GPU_RULE}"], jobs[f"rule_{CPU_RULE}"]
    assert gpu_job.get("TresPerJob") == "gres:gpu:1", gpu_job
    assert "gpu" not in cpu_job.get("TresPerJob", "") + cpu_job.get("TRES", ""), cpu_job
    # The job's own log (written by slurmstepd) shows snakemake ran the rule inside the allocation.
    job_logs = list((copy / ".snakemake/slurm_logs" / f"rule_{GPU_RULE}").glob("*.log"))
    assert [path.name for path in job_logs] == [f"{gpu_job['JobId']}.log"]
    assert f"rule {GPU_RULE}:" in job_logs[0].read_text()


def test_slurm_conf_describes_this_node(tmp_path: Path) -> None:
    text = slurm_conf(tmp_path, node="n1", cpus=3, real_memory_mb=1234, controller_port=7001, node_port=7002)
    lines = text.splitlines()
    assert "NodeName=n1 NodeAddr=127.0.0.1 CPUs=3 RealMemory=1234 Gres=gpu:1 State=UNKNOWN" in lines
    assert {"SelectType=select/cons_tres", "ProctrackType=proctrack/linuxproc", "GresTypes=gpu",
            "SlurmctldHost=n1(127.0.0.1)", "SlurmctldPort=7001", "SlurmdPort=7002"} <= set(lines)
    assert f"StateSaveLocation={tmp_path / 'state'}" in lines
    assert f"AuthInfo=socket={tmp_path / 'munge' / 'munge.socket'}" in lines
    # Every path the daemons write is under the cluster's folder.
    paths = [line.split("=", 1)[1] for line in lines if line.split("=")[0].endswith(("Dir", "File", "Location"))]
    assert len(paths) == 6 and all(path.startswith(str(tmp_path)) for path in paths)


def test_parse_scontrol_line_keeps_values_with_equals_signs() -> None:
    line = "JobId=7 JobName=x TRES=cpu=1,mem=100M,node=1 TresPerJob=gres:gpu:1 Comment=rule_a"
    assert parse_scontrol_line(line) == {
        "JobId": "7", "JobName": "x", "TRES": "cpu=1,mem=100M,node=1", "TresPerJob": "gres:gpu:1",
        "Comment": "rule_a",
    }


def fake_daemon(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("body", "reason"),
    [("exit 3", "munged exited with status 3"), ("exec sleep 600", "munged did not become ready within 2 s")],
)
def test_a_daemon_that_fails_to_start_is_reported_and_stopped(
    tmp_path_factory: pytest.TempPathFactory, body: str, reason: str
) -> None:
    fakes = tmp_path_factory.mktemp("fakes")
    programs = {name: fake_daemon(fakes, name, body) for name in ("munged", "munge", "slurmctld", "slurmd", "srun")}
    cluster = create_cluster(tmp_path_factory.mktemp("slurm"), programs)
    started = time.monotonic()
    with pytest.raises(SlurmUnavailable, match=reason):
        cluster.start(timeout=2)
    assert time.monotonic() - started < 10
    pid = cluster.processes["munged"].pid
    stop_and_check(cluster)
    assert not pid_alive(pid) and set(cluster.processes) == {"munged"}


# The paper config's Study C start on the cluster: its two downloads (WNC, the detector's RoBERTa) must
# run here, on the submit host, and only the two compute jobs reach slurmctld.
REHEARSAL_TARGET = "results/gap_subjective/detector/model"
REHEARSAL_JOBS = {"gap_subjective_wnc", "gap_subjective_detector"}


@pytest.mark.slow
@pytest.mark.slurm
@pytest.mark.shared_data
def test_rehearsal_slice_runs_through_slurm(
    slurm: SlurmCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.mock_servers import mock_server
    from tests.workflow import rehearsal

    if not rehearsal.SHARED.is_dir():
        pytest.skip(f"{rehearsal.SHARED} is absent: the fixtures are cut from its real samples")
    paper = rehearsal.paper_config()
    copy = project_copy(tmp_path)
    # No conda on the test machine: the profile's software-deployment-method is dropped, the venv runs the jobs.
    profile = copy / "profiles/slurm/config.yaml"
    profile.write_text(profile.read_text().replace("software-deployment-method: conda\n", ""))
    wnc = tmp_path / "fixtures" / "wnc"
    wnc.mkdir(parents=True)
    for name, data in rehearsal.wnc().items():
        (wnc / name).write_bytes(data)
    roberta = tmp_path / "fixtures" / "roberta-base"
    roberta.mkdir()
    rehearsal.roberta_base(roberta, rehearsal.english_sentences())
    for name, value in slurm.env.items():
        monkeypatch.setenv(name, value)
    venv_bin = Path(sys.executable).parent
    monkeypatch.setenv("VIRTUAL_ENV", str(venv_bin.parent))
    monkeypatch.setenv("PATH", os.pathsep.join([str(venv_bin), slurm.env["PATH"]]))
    with mock_server() as server:
        url = paper["datasets"]["wnc"]["url"]
        archive = wnc / rehearsal.url_file_name(url)
        served = server.serve_file(url, archive)
        server.serve_repo("roberta-base", roberta)
        overlay = {
            "datasets": {"wnc": {"url": served, "sha256": rehearsal.sha256(archive)}},
            "downloads": {"hub_endpoint": server.base, "retries": 1, "backoff": 0.5},
            "compute": {"mem_mb": 1000},  # within the test node's memory; the paper rules ask the config's
        }
        (copy / "urls.yaml").write_text(yaml.safe_dump(overlay, sort_keys=False), encoding="utf-8")
        result = snakemake(
            REHEARSAL_TARGET,
            "--configfile", "config/paper.yaml", "config/rehearsal.yaml", "urls.yaml",
            "--workflow-profile", "profiles/slurm",
            "--default-resources", "mem_mb=1000", "runtime=10",
            "--slurm-init-seconds-before-status-checks", "2",
            "--seconds-between-status-checks", "2",
            cwd=copy,
        )
        requests = server.requests
    output = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, output + "\nslurmctld log:\n" + slurm.log_tail("slurmctld")
    # The downloads ran on this host (the server saw them) and were never submitted.
    assert any(request.endswith(rehearsal.url_file_name(url)) for request in requests), requests
    assert any("/api/models/roberta-base" in request for request in requests), requests
    jobs = {job["Comment"]: job for job in slurm.jobs()}
    assert set(jobs) == {f"rule_{rule}" for rule in REHEARSAL_JOBS}, jobs
    for job in jobs.values():
        assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", job
        assert job["BatchHost"] == slurm.node_name
    assert jobs["rule_gap_subjective_detector"].get("TresPerJob") == "gres:gpu:1"  # compute.gpu: 1, a GPU rule
    assert "gpu" not in jobs["rule_gap_subjective_wnc"].get("TresPerJob", "")  # a CPU rule asks for none
    assert (copy / REHEARSAL_TARGET / "config.json").is_file()
