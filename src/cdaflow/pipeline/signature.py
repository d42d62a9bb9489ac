"""The signature of a run: what produced the numbers in ``results/`` (after sacrebleu's signatures).

``results/signature.json`` holds the hash of the effective config (validated, defaults filled in), the
project's commit (``+dirty`` when tracked files differ from it), the versions of the packages behind the
numbers, and the devices the jobs ran on (read from the rules' logs, where ``cdaflow.pipeline.device`` writes
them): each GPU's model, the CUDA version of the jobs' torch and the NVIDIA driver, with the rules and
number of jobs that ran on it. :func:`signature_string` gives it as one line, e.g.::

    cdaflow:0.1.0|scale:paper|config:3f2a9c01d7e4|commit:9a89438|python:3.11.7|torch:2.13.0|...|device:cpu+cuda13.0

``results/claims.tsv`` and ``results/README.md`` cite that line: a number is comparable with another only
where the signatures agree.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = [
    "PACKAGES", "config_hash", "git_commit", "logged_devices", "logged_gpu_jobs", "run_signature", "signature_string",
]  # fmt: skip

# The packages whose versions can change a number, in the order the signature lists them.
PACKAGES = (
    "cdaflow", "torch", "numpy", "scipy", "scikit-learn", "pandas", "spacy", "stanza", "transformers",
    "sentence-transformers", "sentencepiece", "sockeye", "opennmt-py", "snakemake",
)  # fmt: skip
SHORT = {"scikit-learn": "sklearn", "sentence-transformers": "sbert", "opennmt-py": "onmt"}


def config_hash(config: Mapping[str, Any]) -> str:
    """sha256 of the config as canonical JSON (sorted keys): equal for equal effective configs."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def git_commit(project: str | Path) -> str:
    """The checkout's commit (short), ``+dirty`` when tracked files changed; ``unknown`` outside git."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()  # fmt: skip

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str]:
    """Installed versions (``-`` where a package is not installed in the environment reading them)."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name).split("+")[0]
        except metadata.PackageNotFoundError:
            versions[name] = "-"
    return versions


# ``device cpu``; ``device cuda (<GPU model>, CUDA <torch.version.cuda>, driver <version>)`` (cdaflow.pipeline.device),
# or ``device cuda (<GPU model>)`` as logs written before the CUDA version was recorded have it.
_DEVICE = re.compile(
    r"cdaflow\.rule\.(?P<rule>\S+): device (?P<device>\S+)"
    r"(?: \((?P<gpu>.+?)(?:, CUDA (?P<cuda>[^,\s]+))?(?:, driver (?P<driver>[^)]+))?\))?$"
)


def _device_lines(log_folder: str | Path) -> Iterator[tuple[Path, re.Match[str]]]:
    """Each device line of the rules' logs, with its log file (one file per job)."""
    for path in sorted(Path(log_folder).rglob("*.log")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            match = _DEVICE.search(line)
            if match:
                yield path, match


def _device_name(match: re.Match[str]) -> str:
    details = [match["gpu"]] if match["gpu"] else []
    details += [f"CUDA {match['cuda']}"] if match["cuda"] else []
    details += [f"driver {match['driver']}"] if match["driver"] else []
    return match["device"] + (f" ({', '.join(details)})" if details else "")


def logged_devices(log_folder: str | Path) -> list[str]:
    """The devices the rules' jobs report in their logs, sorted: ``cpu``,
    ``cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)``."""
    return sorted({_device_name(match) for _, match in _device_lines(log_folder)})


def logged_gpu_jobs(log_folder: str | Path) -> list[dict[str, Any]]:
    """The GPU jobs in the rules' logs, one entry per GPU model, CUDA version and driver: how many
    jobs (log files) ran there and of which rules."""
    groups: dict[tuple[str, str, str], tuple[set[Path], set[str]]] = {}
    for path, match in _device_lines(log_folder):
        if match["device"] == "cpu":
            continue
        key = (match["gpu"] or "unknown", match["cuda"] or "unknown", match["driver"] or "unknown")
        jobs, rules = groups.setdefault(key, (set(), set()))
        jobs.add(path)
        rules.add(match["rule"])
    return [
        {"gpu": gpu, "cuda": cuda, "driver": driver, "jobs": len(jobs), "rules": sorted(rules)}
        for (gpu, cuda, driver), (jobs, rules) in sorted(groups.items())
    ]


def run_signature(scale: str, config_sha256: str, *, project: str | Path, logs: str | Path) -> dict[str, Any]:
    """Everything behind a run's numbers, as ``results/signature.json`` holds it."""
    return {
        "scale": scale,
        "config_sha256": config_sha256,
        "commit": git_commit(project),
        "python": platform.python_version(),
        "packages": package_versions(),
        "devices": logged_devices(logs) or ["cpu"],
        "gpu_jobs": logged_gpu_jobs(logs),
        "machine": platform.machine(),
    }


def signature_string(signature: Mapping[str, Any]) -> str:
    """One line: ``cdaflow:<v>|scale:..|config:<12 hex>|commit:..|python:..|<package>:<v>...|device:..``."""
    packages = dict(signature["packages"])
    parts = [f"cdaflow:{packages.pop('cdaflow', '-')}", f"scale:{signature['scale']}",
             f"config:{signature['config_sha256'][:12]}", f"commit:{signature['commit']}",
             f"python:{signature['python']}"]  # fmt: skip
    parts += [f"{SHORT.get(name, name)}:{version}" for name, version in packages.items()]
    parts.append("device:" + "+".join(sorted({_short_device(device) for device in signature["devices"]})))
    return "|".join(parts)


def _short_device(device: str) -> str:
    """``cuda (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.65.06)`` → ``cuda13.0``; ``cpu`` → ``cpu``."""
    match = re.search(r"CUDA ([^,)\s]+)", device)
    return device.split(" (")[0] + (match[1] if match else "")
