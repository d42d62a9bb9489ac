"""Stand-ins for SLURM's commands that record what the Snakemake SLURM executor submits.

``sbatch`` appends its arguments (and the job script it reads from standard input, if any) to
``<folder>/sbatch.jsonl`` and prints a job id; ``squeue`` and ``sacct`` report every recorded job as
FAILED, so Snakemake stops without running anything; the other commands the executor may call print
nothing. Put :func:`install` 's folder first on PATH.

With ``--sdm conda`` Snakemake creates the rules' conda envs on the submitting host before the first
``sbatch`` (``conda info``, ``conda env create``, then each env's post-deploy script): the ``conda``
stand-in answers those calls, records them in ``<folder>/conda.jsonl`` and makes each env's folder, and
its ``activate`` puts a ``python`` first on PATH that records the post-deploy script's call instead of
installing anything. So planning needs no conda, and the test sees which envs were deployed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SBATCH = """#!{python}
import json, sys
from pathlib import Path
log = Path({log!r})
script = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
calls = log.read_text().splitlines() if log.exists() else []
job_id = 7000 + len(calls)
with log.open("a") as handle:
    handle.write(json.dumps({{"id": job_id, "argv": sys.argv[1:], "script": script}}) + "\\n")
print(job_id)
"""

STATUS = """#!{python}
import json, sys
from pathlib import Path
log = Path({log!r})
for line in (log.read_text().splitlines() if log.exists() else []):
    print(f"{{json.loads(line)['id']}}|FAILED")
"""

SILENT = "#!/bin/sh\nexit 0\n"

CONDA = """#!{python}
import json, sys
from pathlib import Path
root = Path({root!r})
args = sys.argv[1:]
with (root / "conda.jsonl").open("a") as handle:
    handle.write(json.dumps(args) + "\\n")
if args[:2] == ["info", "--json"]:
    print(json.dumps({{"conda_prefix": str(root / "conda"), "platform": "linux-64", "conda_version": "24.11.3"}}))
elif args == ["--version"]:
    print("conda 24.11.3")
elif args[:2] == ["config", "--get"]:
    print(json.dumps({{"get": {{"channel_priority": "strict"}}, "success": True}}))
elif "create" in args[:2]:
    (Path(args[args.index("--prefix") + 1]) / "bin").mkdir(parents=True, exist_ok=True)
"""

# Sourced by Snakemake before an env's post-deploy script: its `python -m pip install` is only recorded.
ACTIVATE = 'export PATH="{env_bin}:$PATH"\n'

ENV_PYTHON = """#!{python}
import json, sys
with open({log!r}, "a") as handle:
    handle.write(json.dumps(["env-python", *sys.argv[1:]]) + "\\n")
"""


def install(folder: Path) -> Path:
    """Write the stand-ins into ``folder/bin``; return that folder (calls land in ``folder/sbatch.jsonl``)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    log = folder / "sbatch.jsonl"
    programs = {"sbatch": SBATCH, "squeue": STATUS, "sacct": STATUS}
    # sacctmgr and sshare report no accounts: the plugin then passes a given account on unchecked.
    programs |= {name: SILENT for name in ("sinfo", "scontrol", "sacctmgr", "sshare", "scancel", "srun")}
    for name, text in programs.items():
        path = bin_dir / name
        path.write_text(text.format(python=sys.executable, log=str(log)))
        path.chmod(0o755)
    env_bin = folder / "conda" / "env-bin"
    for path, text in [
        (bin_dir / "conda", CONDA.format(python=sys.executable, root=str(folder))),
        (folder / "conda" / "bin" / "activate", ACTIVATE.format(env_bin=env_bin)),
        (env_bin / "python", ENV_PYTHON.format(python=sys.executable, log=str(folder / "conda.jsonl"))),
    ]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    return bin_dir


def conda_calls(folder: Path) -> list[list[str]]:
    """Every recorded call of the ``conda`` stand-in (and of an env's ``python``: ``["env-python", ...]``)."""
    log = folder / "conda.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def submissions(folder: Path) -> list[dict]:
    """Every recorded ``sbatch`` call: ``{"id", "argv", "script", "rule", "options"}``.

    ``options`` maps each ``--name`` / ``-x`` option to its value (``--cpus-per-task=8`` and ``-t 60``
    alike); ``rule`` is read from the executor's ``--comment rule_<name>...``.
    """
    log = folder / "sbatch.jsonl"
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    for call in calls:
        words = call["argv"]  # sbatch runs through a shell: its words arrive split and unquoted
        options: dict[str, str] = {}
        i = 0
        while i < len(words):
            word = words[i]
            if word.startswith("-") and "=" in word:
                name, value = word.split("=", 1)
                options[name] = value
            elif word.startswith("-") and i + 1 < len(words) and not words[i + 1].startswith("-"):
                options[word] = words[i + 1]
                i += 1
            elif word.startswith("-"):
                options[word] = ""
            i += 1
        call["options"] = options
        comment = options.get("--comment", "")
        call["rule"] = comment.removeprefix("rule_").split("_wildcards_")[0]
    return calls
