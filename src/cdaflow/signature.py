"""The signature of a run: what produced the numbers in ``results/`` (after sacrebleu's signatures).

``results/signature.json`` holds the hash of the effective config (validated, defaults filled in), the
project's commit (``+dirty`` when tracked files differ from it), the versions of the packages behind the
numbers, and the devices the jobs ran on (read from the rules' logs, where ``cdaflow.device`` writes
them). :func:`signature_string` gives it as one line, e.g.::

    cdaflow:0.1.0|scale:paper|config:3f2a9c01d7e4|commit:9a89438|python:3.11.7|torch:2.13.0|...|device:cuda

``results/claims.tsv`` and ``results/README.md`` cite that line: a number is comparable with another only
where the signatures agree.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "config_hash", "git_commit", "logged_devices", "run_signature", "signature_string"]

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


_DEVICE = re.compile(r"cdaflow\.rule\.\S+: device (\S+)(?: \((.+)\))?$")


def logged_devices(log_folder: str | Path) -> list[str]:
    """The devices the rules' jobs report in their logs (``cpu``, ``cuda (NVIDIA H100 80GB HBM3)``), sorted."""
    found: set[str] = set()
    for path in Path(log_folder).rglob("*.log"):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            match = _DEVICE.search(line)
            if match:
                found.add(match[1] + (f" ({match[2]})" if match[2] else ""))
    return sorted(found)


def run_signature(scale: str, config_sha256: str, *, project: str | Path, logs: str | Path) -> dict[str, Any]:
    """Everything behind a run's numbers, as ``results/signature.json`` holds it."""
    return {
        "scale": scale,
        "config_sha256": config_sha256,
        "commit": git_commit(project),
        "python": platform.python_version(),
        "packages": package_versions(),
        "devices": logged_devices(logs) or ["cpu"],
        "machine": platform.machine(),
    }


def signature_string(signature: Mapping[str, Any]) -> str:
    """One line: ``cdaflow:<v>|scale:..|config:<12 hex>|commit:..|python:..|<package>:<v>...|device:..``."""
    packages = dict(signature["packages"])
    parts = [f"cdaflow:{packages.pop('cdaflow', '-')}", f"scale:{signature['scale']}",
             f"config:{signature['config_sha256'][:12]}", f"commit:{signature['commit']}",
             f"python:{signature['python']}"]  # fmt: skip
    parts += [f"{SHORT.get(name, name)}:{version}" for name, version in packages.items()]
    parts.append("device:" + "+".join(device.split(" (")[0] for device in signature["devices"]))
    return "|".join(parts)
