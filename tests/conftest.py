"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

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
