"""A GPU job's device: CUDA when torch can use it; a job given a GPU it cannot use stops in one line."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from cdaflow import device as device_module
from cdaflow.device import GpuUnusable, arch_supported, gpu_allocation, gpu_device, nvidia_driver
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.signature import logged_devices
from cdaflow.text.options import parser_options

ROOT = Path(__file__).resolve().parents[1]
SLURM_GPU = {"SLURM_JOB_GPUS": "0", "SLURM_GPUS_ON_NODE": "1", "CUDA_VISIBLE_DEVICES": "0"}
PROC_TEXT = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
    "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
)


@pytest.fixture
def node(monkeypatch, tmp_path):
    """A node whose driver and scheduler variables the test sets: no nvidia-smi, no allocation, CPU torch."""
    for name in device_module.ALLOCATION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(device_module.shutil, "which", lambda name: None)
    monkeypatch.setattr(device_module, "PROC_DRIVER", tmp_path / "no-driver")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", None)

    def setup(*, driver: str | None = None, allocation: dict[str, str] | None = None) -> None:
        if driver is not None:
            (tmp_path / "version").write_text(driver)
            monkeypatch.setattr(device_module, "PROC_DRIVER", tmp_path / "version")
        for name, value in (allocation or {}).items():
            monkeypatch.setenv(name, value)

    return setup


def test_an_allocated_gpu_without_cuda_stops_in_one_line(node, caplog):
    node(driver=PROC_TEXT, allocation=SLURM_GPU)
    with caplog.at_level(logging.INFO), pytest.raises(GpuUnusable) as stopped:
        gpu_device(1, "regender_tag")
    line = str(stopped.value)
    assert stopped.value.code == 1 and "\n" not in line  # logged, not printed again by Python
    assert line.startswith("rule regender_tag: GPU(s) allocated (SLURM_JOB_GPUS=0 SLURM_GPUS_ON_NODE=1)")
    assert f"torch {torch.__version__} (torch.version.cuda None) in {sys.prefix}" in line
    assert "NVIDIA driver 535.104.05" in line and "CUDA_VISIBLE_DEVICES=0;" in line
    assert line.endswith("run Snakemake with --sdm conda so the job gets envs/torch.yaml's CUDA torch "
                         "(README, Clusters and conda)")  # fmt: skip
    # The rule's log has the same line, and no device line: the job ran nowhere.
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [line]
    assert not any("device " in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)


def test_a_cuda_wheel_on_an_old_driver_is_told_the_minimum_and_the_cuda_12_build(node, monkeypatch):
    node(driver=PROC_TEXT, allocation={"CUDA_VISIBLE_DEVICES": "1"})
    monkeypatch.setattr(torch.version, "cuda", "13.0")
    with pytest.raises(GpuUnusable) as stopped:
        gpu_device(1, "corpus_shard")
    line = str(stopped.value)
    assert "GPU(s) allocated (by CUDA_VISIBLE_DEVICES)" in line and "(torch.version.cuda 13.0)" in line
    assert "CUDA_VISIBLE_DEVICES=1;" in line
    assert "CUDA 13.0 needs NVIDIA driver >= 580: update the driver, or deploy the CUDA 12.6 build with " \
           "`make envs TORCH_CUDA=12.6`" in line  # fmt: skip
    # A driver new enough: the advice is the general one.
    node(driver=PROC_TEXT.replace("535.104.05", "580.65.06"))
    with pytest.raises(GpuUnusable, match=r"check the driver against the wheel's CUDA 13\.0"):
        gpu_device(1, "corpus_shard")


def test_a_laptop_run_without_an_allocation_falls_back_to_cpu(node, caplog):
    """The demo and the rehearsal set compute.gpu: 1 and run without CUDA: they must go on."""
    node()
    with caplog.at_level(logging.INFO):
        assert gpu_device(1, "morph_cda_lm") == "cpu"
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("cdaflow.rule.morph_cda_lm", "INFO", "device cpu")
    ]


def test_a_machine_with_a_driver_but_no_allocation_warns_and_runs_on_cpu(node, caplog):
    node(driver=PROC_TEXT)
    with caplog.at_level(logging.INFO):
        assert gpu_device(1, "morph_cda_lm") == "cpu"
    warning = next(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "NVIDIA driver 535.104.05" in warning and "--sdm conda" in warning
    assert caplog.records[-1].getMessage() == "device cpu"


def test_a_stand_in_gpu_on_a_node_without_a_driver_runs_on_cpu(node, caplog):
    """The SLURM tests' GRES (File=/dev/null) on a machine with no NVIDIA driver: no env could use it."""
    node(allocation={"SLURM_JOB_GPUS": "0", "CUDA_VISIBLE_DEVICES": "0"})
    with caplog.at_level(logging.INFO):
        assert gpu_device(1, "gap_subjective_fluency_lm") == "cpu"
    warning = next(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert warning.startswith("GPU(s) allocated (SLURM_JOB_GPUS=0) but this node has no NVIDIA driver")
    assert caplog.records[-1].getMessage() == "device cpu"


def test_a_cpu_job_is_never_checked(node, caplog, monkeypatch):
    node(driver=PROC_TEXT, allocation=SLURM_GPU)  # even inside an allocation (a GPU rule's neighbour)
    monkeypatch.setattr(device_module, "nvidia_driver", lambda: pytest.fail("a CPU job looked for a driver"))
    with caplog.at_level(logging.INFO):
        assert gpu_device(0, "regender_classifier") == "cpu"
    assert [r.getMessage() for r in caplog.records] == ["device cpu"]


def fake_cuda(monkeypatch, *, name: str, capability: tuple[int, int], archs: list[str]) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: name)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a: capability)
    monkeypatch.setattr(torch.cuda, "get_arch_list", lambda: archs)
    monkeypatch.setattr(torch.version, "cuda", "13.0")


CUDA_13_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]


def test_a_usable_gpu_is_logged_with_its_model_cuda_and_driver(node, monkeypatch, caplog, tmp_path):
    node(driver=PROC_TEXT.replace("535.104.05", "580.65.06"), allocation=SLURM_GPU)
    fake_cuda(monkeypatch, name="NVIDIA H100 80GB HBM3", capability=(9, 0), archs=CUDA_13_ARCHS)
    with caplog.at_level(logging.INFO):
        assert gpu_device(1, "regender_train") == "cuda"
    line = "device cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)"
    assert [r.getMessage() for r in caplog.records] == [line]
    # The run signature reads it back from the rule's log.
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "train.log").write_text(f"2026-01-01 00:00:00,000 INFO cdaflow.rule.regender_train: {line}\n")
    assert logged_devices(tmp_path / "logs") == ["cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)"]


def test_a_gpu_the_wheel_has_no_kernels_for_stops(node, monkeypatch):
    """A V100 (7.0) under the CUDA 13 wheel: torch sees it, its first kernel would fail."""
    node(driver=PROC_TEXT.replace("535.104.05", "580.65.06"))  # no allocation needed: the GPU is here
    fake_cuda(monkeypatch, name="Tesla V100-SXM2-32GB", capability=(7, 0), archs=CUDA_13_ARCHS)
    with pytest.raises(GpuUnusable) as stopped:
        gpu_device(1, "sentence_bias_train_infersent")
    line = str(stopped.value)
    assert "the GPU Tesla V100-SXM2-32GB (compute capability 7.0) is not among the architectures of torch" in line
    assert "(sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120)" in line
    assert line.endswith("deploy a build with its kernels: `make envs TORCH_CUDA=12.6` (Maxwell to Hopper) "
                         "(README, Clusters and conda)")  # fmt: skip
    # A Blackwell GPU under the CUDA 12.6 build: the other way round.
    fake_cuda(monkeypatch, name="NVIDIA B200", capability=(10, 0), archs=["sm_50", "sm_60", "sm_70", "sm_90"])
    with pytest.raises(GpuUnusable, match=r"`make envs TORCH_CUDA=pypi` \(CUDA 13\)"):
        gpu_device(1, "sentence_bias_train_infersent")


def test_architectures_follow_cuda_binary_compatibility():
    cuda_13, cuda_126 = CUDA_13_ARCHS, ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    assert arch_supported((8, 9), cuda_13)  # Ada runs sm_86 machine code
    assert arch_supported((12, 1), cuda_13) and arch_supported((13, 0), cuda_13)  # PTX of 12.0 compiles there
    assert not arch_supported((7, 0), cuda_13) and not arch_supported((6, 0), cuda_13)  # V100, P100
    assert arch_supported((6, 1), cuda_126) and arch_supported((7, 0), cuda_126)
    assert not arch_supported((10, 0), cuda_126)  # no Blackwell kernels, no PTX
    assert not arch_supported((9, 1), ["sm_90a"]) and arch_supported((9, 0), ["sm_90a"])
    assert arch_supported((7, 0), [])  # a build that does not say


def test_allocation_variables_that_hide_every_device_are_no_allocation():
    assert gpu_allocation({"CUDA_VISIBLE_DEVICES": "", "SLURM_GPUS_ON_NODE": "0"}) == {}
    assert gpu_allocation({"CUDA_VISIBLE_DEVICES": "-1", "SLURM_JOB_GPUS": "NoDevFiles"}) == {}
    assert gpu_allocation({"SLURM_STEP_GPUS": "2,3", "HOME": "/x"}) == {"SLURM_STEP_GPUS": "2,3"}


def test_driver_version_from_nvidia_smi_or_the_kernel_module(monkeypatch, tmp_path):
    monkeypatch.setattr(device_module, "PROC_DRIVER", tmp_path / "version")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert nvidia_driver() is None
    (tmp_path / "version").write_text(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Sun Jul 20 00:00:00 UTC 2025\n"
    )
    assert nvidia_driver() == "580.65.06"
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\n[ \"$1\" = --query-gpu=driver_version ] || exit 9\nprintf '570.86.15\\n570.86.15\\n'\n")
    smi.chmod(0o755)
    assert nvidia_driver() == "570.86.15"  # nvidia-smi first, one line per GPU


def test_stanza_parsing_goes_through_the_same_check(node):
    assert parser_options({}, "stanza", "es", gpu=0)["use_gpu"] is False
    assert parser_options({}, "stanza", "es", gpu=1, rule="regender_tag")["use_gpu"] is False  # no allocation
    node(driver=PROC_TEXT, allocation=SLURM_GPU)
    with pytest.raises(GpuUnusable, match=r"^rule regender_tag: GPU\(s\) allocated \(SLURM_JOB_GPUS=0"):
        parser_options({"stanza_model_dir": "m"}, "stanza", "es", gpu=1, rule="regender_tag")
    assert "use_gpu" not in parser_options({}, "spacy", "es", gpu=1)  # spaCy parses on CPU: no GPU asked for


def test_rule_device_reads_the_rules_gpu_resource(node):
    node(driver=PROC_TEXT, allocation=SLURM_GPU)
    smk = SimpleNamespace(rule="morph_cda_lm", threads=1, resources=SimpleNamespace(gpu=0))
    assert rule_device(smk) == "cpu"
    smk.resources.gpu = 1
    with pytest.raises(GpuUnusable, match="^rule morph_cda_lm: "):
        rule_device(smk)
    # compute.slurm's gres form: no `gpu` resource, a gres of gpu instead
    smk.resources = SimpleNamespace(gres="gpu:a100:1")
    with pytest.raises(GpuUnusable, match="^rule morph_cda_lm: "):
        rule_device(smk)


def test_a_rule_script_given_an_unusable_gpu_exits_with_one_line(tmp_path):
    """A real job: rule_context and rule_device in a fresh Python with a stand-in nvidia-smi and SLURM's
    variables; CUDA_VISIBLE_DEVICES is empty, so torch sees no GPU on any machine."""
    (tmp_path / "bin").mkdir()
    smi = tmp_path / "bin" / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 550.54.15\n")
    smi.chmod(0o755)
    script = textwrap.dedent(
        f"""
        from types import SimpleNamespace
        from cdaflow.pipeline.device import rule_device
        from cdaflow.pipeline.runtime import rule_context
        smk = SimpleNamespace(rule="regender_train", threads=1, resources=SimpleNamespace(gpu=1),
                              log=[{str(tmp_path / "job.log")!r}], wildcards={{}}, config={{}})
        with rule_context(smk) as (smk, log):
            rule_device(smk)
            log.info("trained")
        """
    )
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "SLURM_JOB_GPUS": "0", "CUDA_VISIBLE_DEVICES": ""}  # fmt: skip
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    # One line, on stderr and in the rule's log, the last of each.
    stopped = [line for line in result.stderr.splitlines() if "allocated" in line]
    assert len(stopped) == 1 and stopped == result.stderr.strip().splitlines()[-1:], result.stderr
    line = stopped[0].split(" ERROR cdaflow.rule.regender_train: ", 1)[1]
    assert line.startswith("rule regender_train: GPU(s) allocated (SLURM_JOB_GPUS=0) but torch cannot use CUDA")
    assert "NVIDIA driver 550.54.15" in line and "CUDA_VISIBLE_DEVICES=;" in line
    log = (tmp_path / "job.log").read_text(encoding="utf-8").strip().splitlines()
    assert log[-1] == stopped[0] and not any("trained" in entry for entry in log)
