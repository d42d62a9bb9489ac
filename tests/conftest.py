"""Shared test helpers."""

from __future__ import annotations

import logging
import runpy
from pathlib import Path
from typing import Any

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# One gold-annotated Spanish sentence in CoNLL-U, the commands' tests' smallest valid input.
GOLD_CONLLU = (
    "# sent_id = s1\n# text = La niña duerme.\n"
    "1\tLa\tel\tDET\t_\tGender=Fem|Number=Sing\t2\tdet\t_\t_\n"
    "2\tniña\tniño\tNOUN\t_\tGender=Fem|Number=Sing\t3\tnsubj\t_\t_\n"
    "3\tduerme\tdormir\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
    "4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n"
)


def shared_data_dir() -> Path | None:
    """``<project root>/../shared/data`` when it exists (read-only real data), else None."""
    path = (PROJECT_ROOT / ".." / "shared" / "data").resolve()
    return path if path.is_dir() else None


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder; skips the test when it is absent."""
    path = shared_data_dir()
    if path is None:
        pytest.skip(f"shared data folder {PROJECT_ROOT.parent / 'shared' / 'data'} is absent")
    return path


# The end-to-end workflow runs, longest first. `make test` runs the suite on two workers with
# --dist loadscope: the validation run's module (the demo's too) goes to one worker and the
# rehearsal's to the other at once, and the unit tests fill the cores their Snakemake jobs leave
# idle. Last in the queue, they would run alone at the end.
LONGEST_FIRST = (
    "test_validation_config_on_shared_data",
    "test_rehearsal_runs_the_paper_dag_end_to_end",
    "test_demo_end_to_end",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return LONGEST_FIRST.index(item.name) if item.name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: every other test keeps its place


def run_rule_script(script: str, smk: Any) -> None:
    """Run ``workflow/scripts/<script>`` as Snakemake would, with `smk` as its ``snakemake`` object; the
    root logger's handlers and level the script's rule_context sets up are undone afterwards."""
    handlers, level = logging.root.handlers[:], logging.root.level
    try:
        runpy.run_path(str(PROJECT_ROOT / "workflow" / "scripts" / script), init_globals={"snakemake": smk})
    finally:
        for handler in logging.root.handlers:
            if handler not in handlers:
                handler.close()
        logging.root.handlers[:] = handlers
        logging.root.setLevel(level)
