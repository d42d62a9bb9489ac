"""The device of a Snakemake job: its ``gpu`` resource, checked by :func:`cdaflow.device.gpu_device`."""

from __future__ import annotations

from typing import Any

from cdaflow.device import gpu_device

__all__ = ["rule_device"]


def rule_device(smk: Any) -> str:
    """The device of a Snakemake job: :func:`gpu_device` for its ``gpu`` resource.

    Torch is imported here if the script has not yet; its threads are capped as in :func:`rule_context`.
    """
    import torch

    if hasattr(smk, "threads"):
        torch.set_num_threads(smk.threads)
    from cdaflow.pipeline.cluster import gpus_requested  # the `gpu` resource or a `gres` of gpu (compute.slurm)

    return gpu_device(gpus_requested(smk.resources), getattr(smk, "rule", "script"))
