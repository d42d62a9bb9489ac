"""``sockeye-train`` (Sockeye 3.1.34) with its resumed data order fixed: a resumed training equals an
uninterrupted one.

Sockeye saves the data iterator's position (``curr_batch_index``: the next batch to read) with each
checkpoint's training state. ``sockeye.data_io.ParallelSampleIter.load_state`` then steps it back one
batch ("Right after loading the iterator state, next() should be called", from the MXNet-era loop that
read a batch ahead), but Sockeye 3's loop (``sockeye.training.EarlyStoppingTrainer.fit``) calls
``next()`` only for the batch it trains on. A resumed training so trains once more on the batch before
the checkpoint, and after a checkpoint that fell on an epoch's end it reads the new epoch's last batch
first: every later batch, and the weights, differ from an uninterrupted run's. The fix keeps the saved
position.

A kill can also leave a state that cannot be resumed: at a checkpoint Sockeye renames the new
``training_state/`` (whose ``params`` links to ``../params.<N>``) into place *before* it writes
``params.<N>``, and with ``--keep-last-params 1`` the previous parameters go right after. Killed in
between, the state points at a missing or half-written file. Here ``params.<N>`` is written first, then
the state, then older files are removed; a kill at any point leaves a complete state and its parameters.

Everything else is Sockeye's ``sockeye-train``; run as
``python -m cdaflow.regender.sockeye_train <sockeye-train arguments>``.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["main", "patch"]


def patch() -> None:
    """Make ``ParallelSampleIter.load_state`` keep the saved position and write a checkpoint's parameters
    before its training state (see the module docstring)."""
    from sockeye import data_io, training, utils

    original = data_io.ParallelSampleIter.load_state
    if getattr(original, "_cdaflow_fixed", False):
        return
    trainer = training.EarlyStoppingTrainer
    save_state, save_params = trainer._save_training_state, trainer._save_params

    def save_training_state(self: Any, train_iter: Any) -> None:
        if not utils.using_deepspeed() and utils.is_primary_worker():
            self.sockeye_model.save_parameters(self.current_params_fname)  # the file the state will link to
            self._cdaflow_params_of = self.state.checkpoint
        save_state(self, train_iter)

    def save_checkpoint_params(self: Any, use_checkpoint: bool = False) -> None:
        if use_checkpoint and getattr(self, "_cdaflow_params_of", None) == self.state.checkpoint:
            # written before the state: only remove older files now, as Sockeye's _save_params does
            training.cleanup_params_files(
                self.config.output_dir, self.config.max_params_files_to_keep, self.state.checkpoint,
                self.state.best_checkpoint, self.config.keep_initializations, self.config.max_params_files_to_cache,
                self.config.cache_metric, self.config.cache_strategy,
            )
            return
        save_params(self, use_checkpoint)

    trainer._save_training_state = save_training_state
    trainer._save_params = save_checkpoint_params

    def load_state(self: Any, fname: str) -> None:
        original(self, fname)
        self.curr_batch_index += 1  # undo Sockeye's step back: the saved index is the next batch to train on

    load_state._cdaflow_fixed = True  # type: ignore[attr-defined]
    data_io.ParallelSampleIter.load_state = load_state


def main() -> None:
    patch()
    from sockeye.train import main as sockeye_main

    sockeye_main()


if __name__ == "__main__":
    sys.argv[0] = "sockeye-train"
    main()
