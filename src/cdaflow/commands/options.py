"""Argparse value types shared by every subcommand.

A numeric option outside its range is refused by argparse itself (usage message, exit code 2)
instead of reaching the code, where a batch size of 0 would silently produce nothing.
"""

from __future__ import annotations

import argparse
import os

from cdaflow.io.text import MAX_BATCH_SIZE

__all__ = [
    "MAX_BEAM_SIZE", "MAX_SAMPLES", "batch_size", "beam_size", "bounded_int", "nonnegative_int",
    "positive_int", "processes", "samples", "torch_device",
]

# A beam holds this many hypotheses per sentence: the papers use 5; hundreds only slow a run down.
MAX_BEAM_SIZE = 100
# SEAT permutation samples: time grows with them (the default is 100,000; 100 times that is hours).
MAX_SAMPLES = 10_000_000


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def positive_int(text: str) -> int:
    """An integer >= 1 (batch sizes, beam sizes, sample counts)."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (seeds, counts where 0 means none)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def bounded_int(low: int, high: int):
    """An argparse type: an integer from `low` to `high` inclusive."""

    def parse(text: str) -> int:
        value = _integer(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, got {value:,}")
        return value

    parse.__name__ = f"integer {low}..{high}"
    return parse


def batch_size(text: str) -> int:
    """A batch size from 1 to :data:`MAX_BATCH_SIZE`."""
    return bounded_int(1, MAX_BATCH_SIZE)(text)


def beam_size(text: str) -> int:
    """A beam size from 1 to :data:`MAX_BEAM_SIZE`."""
    return bounded_int(1, MAX_BEAM_SIZE)(text)


def samples(text: str) -> int:
    """A number of permutation samples from 1 to :data:`MAX_SAMPLES`."""
    return bounded_int(1, MAX_SAMPLES)(text)


def usable_cpus() -> int:
    """CPU cores this process may run on (its affinity mask: a SLURM job's or taskset's share)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def processes(text: str) -> int:
    """A worker-process count from 1 to the cores this process may use (more only slows it down)."""
    value = positive_int(text)
    cores = usable_cpus()
    if value > cores:
        raise argparse.ArgumentTypeError(
            f"{value} worker processes on {cores} usable CPU core(s) would only slow the run; give at most {cores}"
        )
    return value


def torch_device(text: str) -> str:
    """A torch device this machine has (cpu, cuda, cuda:1, mps), checked before any model loads."""
    import torch

    try:
        device = torch.device(text)
    except (RuntimeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a torch device (cpu, cuda, cuda:N, mps)") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise argparse.ArgumentTypeError(
                f"{text!r}: no CUDA device here (torch {torch.__version__}, built "
                f"{'with CUDA ' + torch.version.cuda if torch.version.cuda else 'for CPU only'}); use cpu"
            )
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise argparse.ArgumentTypeError(f"{text!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    elif device.type == "mps" and not torch.backends.mps.is_available():
        raise argparse.ArgumentTypeError(f"{text!r}: no MPS device here; use cpu")
    elif device.type != "cpu":
        raise argparse.ArgumentTypeError(f"{text!r}: unsupported device type (cpu, cuda, mps)")
    return text
