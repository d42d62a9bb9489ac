"""Resumable training: a training state saved atomically to a stable folder, and found again.

A cluster job killed at its wall-time limit loses everything its rule declared as output
(Snakemake deletes the outputs of a failed job) and everything in a temporary folder. The long
trainers therefore write their resume state to a folder that is *not* a declared output (the rule
passes it as ``params.checkpoints``, e.g. ``results/<study>/.checkpoints/<rule>/<wildcards>``), so
the retry of the same job finds it and continues from the last checkpoint. Once the rule has
written its output, the script removes the folder (:meth:`CheckpointStore.finish`).

A checkpoint is one ``torch.save`` file ``step-<N>.pt`` written to a temporary name, synced and
renamed: a kill during the write leaves the previous checkpoint intact. It holds a *key* (the
settings and inputs the training depends on, see :func:`inputs_key`); a checkpoint whose key
differs from the current job's (the config or an input changed since) is discarded and training
starts afresh. Files are read with ``weights_only=True``: states hold tensors and plain Python
values only (see :func:`rng_state`). A rule script's store (:func:`rule_store`) also saves when
SLURM's SIGTERM announces the kill.

Trainers that are command-line tools keeping their own resume state (OpenNMT-py, Sockeye) get the
same stable folder through :func:`resume_folder`, which empties it when the key differs.
"""

from __future__ import annotations

import logging
import os
import random
import re
import signal
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cdaflow.io.resume import digest, digest_texts, inputs_key, remove_resume_folder, resume_folder

__all__ = [
    "CheckpointStore",
    "clone_state",
    "digest",
    "digest_texts",
    "inputs_key",
    "remove_resume_folder",
    "restore_rng",
    "resume_folder",
    "rng_state",
    "rule_store",
]

log = logging.getLogger(__name__)

_NAME = re.compile(r"^step-(\d+)\.pt$")
FORMAT = "cdaflow-training-state"


def rule_store(smk: Any, **options: Any) -> CheckpointStore:
    """The checkpoint store of a Snakemake job: folder ``params.checkpoints``, keyed by the rule,
    its wildcards, its other params and its inputs (a changed config or input starts afresh).

    The folder must not be a declared output: Snakemake deletes those when a job fails.
    """
    params = {name: value for name, value in smk.params.items() if name != "checkpoints"}
    key = {
        "rule": smk.rule,
        "wildcards": dict(smk.wildcards.items()),
        "params": digest(params),
        "inputs": inputs_key(str(path) for path in smk.input),
    }
    return CheckpointStore(smk.params.checkpoints, key, **{"save_on_sigterm": True, **options})


# -- random number generators ------------------------------------------------------------------
def rng_state(*generators: np.random.Generator | random.Random) -> dict[str, Any]:
    """The state of torch's (CPU and CUDA), NumPy's and Python's global generators and of
    `generators` (the trainer's own), as tensors and plain values (readable with weights_only)."""
    name, keys, pos, has_gauss, cached = np.random.get_state(legacy=True)
    state: dict[str, Any] = {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else [],
        "numpy": [name, torch.from_numpy(np.asarray(keys, dtype=np.int64)), int(pos), int(has_gauss), float(cached)],
        "python": _python_state(random.getstate()),
        "own": [_generator_state(g) for g in generators],
    }
    return state


def restore_rng(state: Mapping[str, Any], *generators: np.random.Generator | random.Random) -> None:
    """Put back what :func:`rng_state` saved (the same `generators`, in the same order)."""
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available() and torch.cuda.device_count() == len(state["cuda"]):
        torch.cuda.set_rng_state_all(state["cuda"])
    name, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), pos, has_gauss, cached))
    random.setstate(_python_tuple(state["python"]))
    own = state["own"]
    if len(own) != len(generators):
        raise ValueError(f"checkpoint holds {len(own)} generator states, {len(generators)} given")
    for generator, saved in zip(generators, own):
        if isinstance(generator, random.Random):
            generator.setstate(_python_tuple(saved))
        else:
            generator.bit_generator.state = saved


def _python_state(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _python_tuple(saved: list) -> tuple:
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)


def _generator_state(generator: np.random.Generator | random.Random) -> Any:
    if isinstance(generator, random.Random):
        return _python_state(generator.getstate())
    return generator.bit_generator.state  # nested dicts of str and int (PCG64, Philox, ...)


# -- the store ------------------------------------------------------------------------------------
class CheckpointStore:
    """Training states of one job in `folder`: the latest is kept, older ones are removed.

    `key` is what the training depends on besides the trainer's own settings (which the trainer
    adds in :meth:`resume`). :meth:`due` says when to save: every `every_steps` optimizer steps
    and/or every `every_seconds` of wall time (a job killed at its limit loses at most that much),
    trainers also save at the end of each epoch. With `save_on_sigterm`, a SIGTERM (what SLURM sends
    at the time limit, KillWait seconds before SIGKILL) makes the next step save, after which the
    signal takes its course. `on_save(step, path)` runs after each save (tests stop a training there
    to simulate a kill).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        key: Mapping[str, Any] | None = None,
        *,
        every_steps: int | None = None,
        every_seconds: float | None = 1800.0,
        keep: int = 1,
        on_save: Callable[[int, Path], None] | None = None,
        save_on_sigterm: bool = False,
    ) -> None:
        if every_steps is not None and every_steps < 1:
            raise ValueError(f"every_steps must be positive, got {every_steps}")
        if every_seconds is not None and every_seconds <= 0:
            raise ValueError(f"every_seconds must be positive, got {every_seconds}")
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        self.folder = Path(folder)
        self.key: dict[str, Any] = dict(key or {})
        self.every_steps, self.every_seconds, self.keep = every_steps, every_seconds, keep
        self.on_save = on_save
        self._last_step: int | None = None
        self._last_time = time.monotonic()
        self._terminated = False
        self._previous_handler: Any = None
        if save_on_sigterm and threading.current_thread() is threading.main_thread():
            self._previous_handler = signal.signal(signal.SIGTERM, self._on_sigterm)

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        log.warning("SIGTERM: saving a checkpoint after this step, then stopping")
        self._terminated = True

    def checkpoints(self) -> list[tuple[int, Path]]:
        """(step, path) of the checkpoint files present, oldest first."""
        if not self.folder.is_dir():
            return []
        found = [(int(m.group(1)), p) for p in self.folder.iterdir() if (m := _NAME.match(p.name))]
        return sorted(found)

    def resume(
        self, trainer_key: Mapping[str, Any] | None = None, *, map_location: Any = "cpu"
    ) -> dict[str, Any] | None:
        """The latest saved state made under the same key (job key + `trainer_key`), or None.

        Checkpoints made under another key are removed (their training would not continue this
        one); an unreadable file is skipped for the one before it.
        """
        self.key = {**self.key, **dict(trainer_key or {})}
        wanted = digest(self.key)
        self._last_time = time.monotonic()
        for step, path in reversed(self.checkpoints()):
            try:
                saved = torch.load(path, map_location=map_location, weights_only=True)
            except Exception as error:  # noqa: BLE001 - a damaged file: fall back to an older one
                log.warning("%s: unreadable checkpoint (%s); skipped", path, error)
                continue
            if not isinstance(saved, dict) or saved.get("format") != FORMAT:
                log.warning("%s: not a training checkpoint; skipped", path)
                continue
            if saved.get("key") != wanted:
                log.warning(
                    "%s: made with other settings or inputs; discarding %s and training from the start",
                    path,
                    self.folder,
                )
                self.clear()
                return None
            self._last_step = step
            log.info("resuming from %s (step %d)", path, step)
            return saved["state"]
        return None

    def due(self, step: int) -> bool:
        """Whether a checkpoint should be written after optimizer step `step`."""
        if self._terminated:
            return True
        if self.every_steps is not None and step - (self._last_step or 0) >= self.every_steps:
            return True
        return self.every_seconds is not None and time.monotonic() - self._last_time >= self.every_seconds

    def save(self, step: int, state: Mapping[str, Any]) -> Path:
        """Write `state` as the checkpoint of step `step` atomically; remove older ones beyond `keep`."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"step-{step:012d}.pt"
        temp = self.folder / f".{path.name}.{uuid.uuid4().hex}.tmp"
        try:
            with open(temp, "wb") as handle:
                torch.save({"format": FORMAT, "key": digest(self.key), "step": step, "state": dict(state)}, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        _sync_folder(self.folder)
        for _, old in self.checkpoints()[: -self.keep]:
            if old != path:
                old.unlink(missing_ok=True)
        self._last_step, self._last_time = step, time.monotonic()
        if self.on_save is not None:
            self.on_save(step, path)
        if self._terminated:  # saved: let the signal do what it would have done
            signal.signal(signal.SIGTERM, self._previous_handler or signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        return path

    def clear(self) -> None:
        """Remove every checkpoint (and the folder)."""
        remove_resume_folder(self.folder)
        self._last_step = None

    def release(self) -> None:
        """Give SIGTERM its previous handler back (the training is over)."""
        if self._previous_handler is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._previous_handler)
            self._previous_handler = None

    def finish(self) -> None:
        """The job's output is written: the resume state is no longer needed."""
        self.release()
        self.clear()


def _sync_folder(folder: Path) -> None:
    """fsync the folder so the rename survives a node crash (not possible everywhere)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def clone_state(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A detached CPU copy of `module`'s state dict (for a best-so-far model held in a checkpoint)."""
    return {key: value.detach().to("cpu", copy=True) for key, value in module.state_dict().items()}
