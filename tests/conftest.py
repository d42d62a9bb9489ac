"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]


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
