"""The device of a job that may hold a GPU: a workflow rule, or a command given ``--gpu`` (torch is
imported only when a device is chosen).

A job whose rule asks for a GPU (its ``gpu`` resource) runs on CUDA when torch can use it. When torch
cannot, what happens depends on whether the job was *given* a GPU:

- allocated (SLURM's ``SLURM_JOB_GPUS``/``SLURM_STEP_GPUS``/``SLURM_GPUS_ON_NODE`` or a
  ``CUDA_VISIBLE_DEVICES`` naming a device) on a node with an NVIDIA driver: the job stops with one
  line (:class:`GpuUnusable`). Falling back would run a GPU-sized job on CPU until its wall time
  runs out, and the profile's retry would repeat it;
- not allocated (``snakemake --cores 8`` on a laptop, the demo, the rehearsal, all with
  ``compute.gpu: 1``): the job runs on CPU, with a warning when the machine has an NVIDIA driver
  that this torch cannot use;
- allocated on a node without any NVIDIA driver (a stand-in GRES, as the SLURM tests configure): no
  environment could use it; the job runs on CPU with a warning.

A GPU that torch sees but whose architecture the wheel has no kernels for (a P100 or V100 under the
CUDA 13 wheel) stops the job in every case: its first kernel would fail.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "GpuUnusable", "arch_supported", "command_gpu", "gpu_allocation", "gpu_device", "nvidia_driver",
]

# What SLURM sets in a job given GPUs (gres/gpu); CUDA_VISIBLE_DEVICES is also set by other schedulers.
ALLOCATION_VARIABLES = ("SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE", "CUDA_VISIBLE_DEVICES")
# The kernel module's version file: present wherever the NVIDIA driver is loaded, containers included.
PROC_DRIVER = Path("/proc/driver/nvidia/version")
# NVIDIA's minimum drivers under CUDA minor version compatibility, per CUDA major
# (docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).
MIN_DRIVER = {12: 525, 13: 580}
README = "README, Clusters and conda"


class GpuUnusable(SystemExit):
    """A job given a GPU that its torch cannot use: exit status 1. Its one line, saying why and what to
    do, is logged (the rule's log and stderr) before it is raised, so Python prints nothing more."""

    def __init__(self, line: str) -> None:
        super().__init__(1)
        self.line = line

    def __str__(self) -> str:
        return self.line


def gpu_allocation(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables showing that the scheduler gave this job GPUs; empty when none did."""
    environ = os.environ if environ is None else environ
    found = {}
    for name in ALLOCATION_VARIABLES:
        value = environ.get(name, "").strip()
        # "" and -1 hide every device; SLURM writes NoDevFiles for a GRES without device files.
        if value in ("", "-1", "NoDevFiles") or (name == "SLURM_GPUS_ON_NODE" and value == "0"):
            continue
        found[name] = value
    return found


def nvidia_driver(timeout: float = 20) -> str | None:
    """The NVIDIA driver's version (``nvidia-smi``, else the kernel module's version file); None without one."""
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            result = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"],
                                    capture_output=True, text=True, timeout=timeout, check=False)  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            result = None
        if result is not None and result.returncode == 0 and result.stdout.split():
            return result.stdout.split()[0]  # one line per GPU, all the same driver
    try:
        text = PROC_DRIVER.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." (or "Open Kernel
    # Module for x86_64  580.65.06  Release Build ...")
    match = re.search(r"Kernel Module\b.*?\s(\d+\.\d+(?:\.\d+)?)\s", text)
    return match[1] if match else "present (version unreadable)"


def _arch(name: str) -> tuple[str, int, int, str] | None:
    """``sm_86`` → ``("sm", 8, 6, "")``, ``compute_120`` → ``("compute", 12, 0, "")``, ``sm_90a`` →
    ``("sm", 9, 0, "a")``."""
    match = re.fullmatch(r"(sm|compute)_(\d+)(\d)([a-z]?)", name)
    return (match[1], int(match[2]), int(match[3]), match[4]) if match else None


def arch_supported(capability: tuple[int, int], arch_list: Iterable[str]) -> bool:
    """Whether a wheel built for ``arch_list`` (``torch.cuda.get_arch_list()``) runs on a GPU of this
    compute capability: machine code for the same major and a lower or equal minor (``sm_80`` runs on
    8.6), or PTX for a lower or equal capability (compiled when loaded)."""
    archs = [arch for arch in map(_arch, arch_list) if arch]
    if not archs:  # a build that does not say: let CUDA decide
        return True
    for kind, major, minor, suffix in archs:
        if suffix == "a":  # arch-specific features (sm_90a): that capability only
            if (major, minor) == tuple(capability):
                return True
            continue
        if kind == "sm" and major == capability[0] and minor <= capability[1]:
            return True
        if kind == "compute" and (major, minor) <= tuple(capability):
            return True
    return False


def _describe_torch(torch: Any, driver: str | None) -> str:
    """``torch 2.13.0+cpu (torch.version.cuda None) in /x/.venv, NVIDIA driver 535.104.05``."""
    return (f"torch {torch.__version__} (torch.version.cuda {torch.version.cuda}) in {sys.prefix}, "
            f"NVIDIA driver {driver or 'none found'}")  # fmt: skip


def _advice(torch: Any, driver: str | None) -> str:
    """What to do, most specific first: a CPU-only torch, a driver older than the wheel's CUDA, or else."""
    if not torch.version.cuda:
        return f"run Snakemake with --sdm conda so the job gets envs/torch.yaml's CUDA torch ({README})"
    major = int(torch.version.cuda.split(".")[0])
    needed = MIN_DRIVER.get(major)
    installed = re.match(r"\d+", driver or "")
    if needed and installed and int(installed[0]) < needed:
        return (f"CUDA {torch.version.cuda} needs NVIDIA driver >= {needed}: update the driver, or deploy "
                f"the CUDA 12.6 build with `make envs TORCH_CUDA=12.6` ({README})")  # fmt: skip
    return f"check the driver against the wheel's CUDA {torch.version.cuda} and the GPU's architecture ({README})"


def _allocated(allocation: Mapping[str, str]) -> str:
    shown = [f"{name}={value}" for name, value in allocation.items() if name != "CUDA_VISIBLE_DEVICES"]
    return "GPU(s) allocated (" + (" ".join(shown) or "by CUDA_VISIBLE_DEVICES") + ")"


def gpu_device(gpus: int, rule: str = "script", environ: Mapping[str, str] | None = None) -> str:
    """``"cuda"`` or ``"cpu"`` for a job that asked for ``gpus`` GPUs; raises :class:`GpuUnusable` when
    it was given a GPU that its torch cannot use (see the module's docstring). Logs the device line
    that ``results/signature.json`` gathers (:func:`cdaflow.pipeline.signature.logged_devices`):
    ``device cuda (<GPU model>, CUDA <torch.version.cuda>, driver <version>)`` or ``device cpu``."""
    log = logging.getLogger(f"cdaflow.rule.{rule}")
    if not gpus or gpus <= 0:
        log.info("device cpu")
        return "cpu"
    import torch

    environ = os.environ if environ is None else environ
    visible = environ.get("CUDA_VISIBLE_DEVICES", "<unset>")
    allocation = gpu_allocation(environ)

    def stop(what: str, advice: str) -> GpuUnusable:
        line = f"rule {rule}: {what}; CUDA_VISIBLE_DEVICES={visible}; {advice}"
        log.error("%s", line)
        return GpuUnusable(line)

    if torch.cuda.is_available():
        driver = nvidia_driver()
        name = torch.cuda.get_device_name()
        capability = tuple(torch.cuda.get_device_capability())
        archs = torch.cuda.get_arch_list()
        if not arch_supported(capability, archs):
            # The builds of cdaflow.pipeline.environments.TORCH_CUDA_BUILDS: only CUDA 12 has pre-Turing kernels,
            # only CUDA 13 (PyPI's wheel) Blackwell's.
            build = "TORCH_CUDA=12.6` (Maxwell to Hopper)" if capability < (7, 5) else "TORCH_CUDA=pypi` (CUDA 13)"
            raise stop(
                f"the GPU {name} (compute capability {capability[0]}.{capability[1]}) is not among the "
                f"architectures of {_describe_torch(torch, driver)} ({' '.join(archs)})",
                f"deploy a build with its kernels: `make envs {build} ({README})",
            )
        log.info("device cuda (%s, CUDA %s, driver %s)", name, torch.version.cuda, driver or "unknown")
        return "cuda"
    driver = nvidia_driver()
    if allocation and driver:
        raise stop(f"{_allocated(allocation)} but torch cannot use CUDA: {_describe_torch(torch, driver)}",
                   _advice(torch, driver))  # fmt: skip
    if allocation:
        log.warning("%s but this node has no NVIDIA driver (no nvidia-smi, no %s): not a CUDA GPU; running "
                    "on CPU", _allocated(allocation), PROC_DRIVER)  # fmt: skip
    elif driver:
        log.warning("this machine has an NVIDIA driver but torch cannot use CUDA (%s); no GPU was allocated, "
                    "so the job runs on CPU: %s", _describe_torch(torch, driver), _advice(torch, driver))  # fmt: skip
    log.info("device cpu")
    return "cpu"


def command_gpu(option: str = "--gpu") -> str:
    """``"cuda"`` for a command given `option` when torch can run on this machine's GPU; a GPU that
    was asked for but cannot be used (no CUDA in this torch, no driver, an architecture the wheel has
    no kernels for) raises ValueError with one line, as :func:`gpu_device` stops a workflow job."""
    import torch

    driver = nvidia_driver()
    if torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        capability = tuple(torch.cuda.get_device_capability())
        archs = torch.cuda.get_arch_list()
        if not arch_supported(capability, archs):
            raise ValueError(
                f"{option}: the GPU {name} (compute capability {capability[0]}.{capability[1]}) is not among the "
                f"architectures of {_describe_torch(torch, driver)} ({' '.join(archs)}); drop {option} to run on CPU"
            )
        return "cuda"
    if not torch.version.cuda:
        advice = "this torch is built for CPU only: install a CUDA build of torch, or drop " + option
    elif not driver:
        advice = f"no NVIDIA driver found (no nvidia-smi, no {PROC_DRIVER}); drop {option} to run on CPU"
    else:
        advice = _advice(torch, driver).split(" (README")[0] + f"; or drop {option} to run on CPU"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    shown = f"; CUDA_VISIBLE_DEVICES={visible}" if visible is not None else ""
    raise ValueError(f"{option}: torch cannot use a GPU here ({_describe_torch(torch, driver)}{shown}); {advice}")
