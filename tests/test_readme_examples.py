"""The README's `cdaflow` examples, run verbatim on the results of a demo run.

A newcomer runs `make demo`, then copies the examples: each must end with exit code 0, print
something and show no traceback. The demo results are the project's own `results/` when
`make demo` ran here, or the project folder `CDAFLOW_DEMO_DIR` names; without either the test
is skipped. Examples that download (`datasets fetch`, `repin`) are left out: they need network.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timeouts import workflow_timeout

ROOT = Path(__file__).resolve().parents[1]
NETWORK = re.compile(r"\bdatasets\b.*\b(fetch|repin)\b")
# Lines a reader copies: the tools, and the printf/echo lines that write the files they read.
RUNNABLE = re.compile(r"^(cdaflow |echo .*\| *cdaflow |printf .*> *\S+$)")


def readme_examples(text: str) -> list[str]:
    """The runnable lines of the README's bash blocks, continuation lines joined, comments cut."""
    examples = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s{2,}#.*$", "", line).strip()
            if RUNNABLE.match(line) and not NETWORK.search(line):
                examples.append(" ".join(line.split()))
    return examples


def demo_dir() -> Path | None:
    named = os.environ.get("CDAFLOW_DEMO_DIR")
    for folder in ([Path(named)] if named else []) + [ROOT]:
        if (folder / "results/morph_cda/es/models/lin/cda.json").is_file():
            return folder
    return None


def test_the_readme_has_examples_of_every_tool():
    examples = readme_examples((ROOT / "README.md").read_text(encoding="utf-8"))
    for command in ("parse", "cda", "regender", "bias-score", "seat", "subjectivize", "datasets"):
        assert any(f"cdaflow {command} " in example for example in examples), command
    assert not any("../shared" in example for example in examples)  # a fresh clone has no ../shared


@pytest.mark.slow
def test_readme_examples_run_verbatim_after_make_demo(tmp_path):
    demo = demo_dir()
    if demo is None:
        pytest.skip("no demo results: run `make demo` here, or set CDAFLOW_DEMO_DIR to a project folder that ran it")
    for name in ("results", "resources", "config", "config.yaml"):  # the project root as a reader sees it
        (tmp_path / name).symlink_to(demo / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    failures = []
    for example in readme_examples((ROOT / "README.md").read_text(encoding="utf-8")):
        result = subprocess.run(["bash", "-o", "pipefail", "-c", example], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=workflow_timeout())
        writes_file = re.search(r">\s*\S+$", example)
        if result.returncode != 0 or "Traceback" in result.stderr or not (result.stdout.strip() or writes_file):
            failures.append(f"{example}\n  exit {result.returncode}: {result.stderr.strip()[-500:]}")
    assert not failures, "\n".join(failures)
