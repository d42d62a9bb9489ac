"""Markers of the workflow tests (registered here so that pyproject.toml stays untouched)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slurm: starts a one-node SLURM cluster (installs Debian's slurm and munge; skipped where it cannot)"
    )
