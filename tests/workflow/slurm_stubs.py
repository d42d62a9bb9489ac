"""Stand-ins for SLURM's commands that record what the Snakemake SLURM executor submits.

``sbatch`` appends its arguments (and the job script it reads from standard input, if any) to
``<folder>/sbatch.jsonl`` and prints a job id; ``squeue`` and ``sacct`` report every recorded job as
FAILED, so Snakemake stops without running anything; the other commands the executor may call print
nothing. Put :func:`install` 's folder first on PATH.
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


def install(folder: Path) -> Path:
    """Write the stand-ins into ``folder/bin``; return that folder (calls land in ``folder/sbatch.jsonl``)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    log = folder / "sbatch.jsonl"
    programs = {"sbatch": SBATCH, "squeue": STATUS, "sacct": STATUS}
    programs |= {name: SILENT for name in ("sinfo", "scontrol", "sacctmgr", "scancel", "srun")}
    for name, text in programs.items():
        path = bin_dir / name
        path.write_text(text.format(python=sys.executable, log=str(log)))
        path.chmod(0o755)
    return bin_dir


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
