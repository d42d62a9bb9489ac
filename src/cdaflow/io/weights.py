"""Reading saved weights, and loading models without third-party noise (torch, transformers).

Its own module: importing what loads weights must not reach the rules whose env has no torch
(downloads, tables), which read :mod:`cdaflow.io.models`.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["broken_file", "load_state", "load_torch_file", "quiet_libraries"]

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



def broken_file(folder: str | os.PathLike[str]) -> str | None:
    """Which file of a model folder does not read (a truncated .safetensors, bad JSON), if one does not."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".safetensors":
            from safetensors import safe_open

            try:
                with safe_open(str(path), framework="numpy") as handle:  # reads headers, no torch needed
                    for key in handle.keys():
                        handle.get_slice(key)
            except Exception as error:  # noqa: BLE001 - SafetensorError and its kin
                return f"{path}: not a readable safetensors file ({' '.join(str(error).split())[:160]})"
        elif path.suffix == ".json":
            import json

            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, OSError) as error:
                return f"{path}: not valid JSON ({error})"
    return None
