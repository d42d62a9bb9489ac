"""cdaflow: reproducible workflow and tools for four studies of gender bias in NLP data.

Shared pieces live in :mod:`cdaflow.io` (file formats), :mod:`cdaflow.data`
(dataset acquisition) and :mod:`cdaflow.text` (parsing); each study has its own
subpackage (``morph_cda``, ``regender``, ``gap_subjective``, ``sentence_bias``).

The tools from Python (:mod:`cdaflow.api`; README, "Use from Python")::

    from cdaflow import CDA
    cda = CDA.load("results/morph_cda/es/models/lin")
    records = cda(["La profesora está cansada."])   # records[0]["counterfactual"]

``CDA``, ``Regenderer``, ``Subjectivizer``, ``BiasScorer``, ``SEAT``, ``CdaflowError`` and
``CdaflowWarning`` are imported on first use, so ``import cdaflow`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# The public API, imported from cdaflow.api when first named (torch and spaCy load only then).
_API = ("CDA", "SEAT", "BiasScorer", "CdaflowError", "CdaflowWarning", "DemoModelWarning", "Regenderer",
        "Subjectivizer")
__all__ = ["__version__", *_API]

if TYPE_CHECKING:
    from cdaflow.api import (  # noqa: F401
        CDA,
        SEAT,
        BiasScorer,
        CdaflowError,
        CdaflowWarning,
        DemoModelWarning,
        Regenderer,
        Subjectivizer,
    )


def __getattr__(name: str) -> Any:
    if name in _API:
        # import_module, not an import statement: cdaflow.pipeline.environments walks every module's imports
        # to find a workflow rule's packages, and every rule imports this package
        return getattr(importlib.import_module("cdaflow.api"), name)
    raise AttributeError(f"module 'cdaflow' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
