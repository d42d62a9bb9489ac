"""``onmt_train`` with the copy-attention accuracy of OpenNMT-py 3.5.1 fixed (§3.2.2's validation accuracy).

The paper reports the transfer model's validation accuracy (84.52 %). OpenNMT-py 3.5.1 computes
that statistic wrongly for copy attention: ``onmt.utils.loss.LossCompute._compute_loss`` flattens
the batch-first scores (sentence by sentence) and ``_unbottle`` views them back time-major,
``(-1, batch, vocab)``, before ``collapse_copy_scores`` merges each sentence's copy scores into the
target vocabulary using ``batch["src_ex_vocab"][b]``. Rows then meet another sentence's copy
vocabulary, so the argmax the accuracy counts is mostly wrong (we saw 3-13 % accuracy beside
validation perplexities of 3-30). The loss is computed separately and is right; only the
statistics (accuracy, and so the logged ``acc``) are affected.

The fix re-views the scores batch-first, as they are stored, before collapsing them; everything
else is OpenNMT-py's ``onmt_train``.

On a GPU, 3.5.1's ``collapse_copy_scores`` fails outright: it builds its index tensors on the CPU
("Expected all tensors to be on the same device ... index_select"; reported upstream and fixed
after 3.5.1; found by the project's first GPU run, ``benchmarks/gpu_speedup.py``).
:func:`collapse_copy_scores` is the same merge with its indices on the scores' device; :func:`patch`
puts it in the loss and in the translator (validation and ``transferer.Transferer``).

Run as ``python -m cdaflow.gap_subjective.onmt_train -config ...``.

Resuming with ``-train_from`` (a job killed at its wall-time limit) fails in 3.5.1 for two reasons
that :func:`load_for_training` fixes: ``load_checkpoint`` calls ``torch.load`` without
``weights_only=False``, which torch ≥ 2.6 refuses for a checkpoint holding an ``argparse.Namespace``;
and ``NMTModel.load_state_dict`` looks a copy generator's parameters up by their bare names
(``weight``) while they are saved as ``linear.weight``, ``linear_copy.weight``, ... ("Missing key in
checkpoint: generator.linear.weight"). The generator entries are handed over under the model's own
names (``generator.linear.weight``), which its first lookup finds.

A resumed training also equals an uninterrupted one (bit for bit on the CPU with one thread), which
3.5.1 alone does not give: its checkpoints hold weights, optimizer and step, but not where the
training iterator was nor the random states, so ``-train_from`` read the corpus from its start again,
reseeded. Each checkpoint now also holds, under ``checkpoint["optim"][RESUME_KEY]`` (beside onmt's own
``training_step``; written as :meth:`Optimizer.state_dict` is called by the model saver, so in the same
atomic file; onmt ignores the key): the number of batches the training iterator has yielded (one per
step, or ``accum_count``), the state its batch shuffler started from, and the Python ``random``, numpy
and torch (and CUDA) random states. On ``-train_from ... -reset_optim none``, :class:`ResumableBatches`
sets the shuffler's start state, replays the iterator for that many batches (the corpus is read, bucketed,
shuffled and batched again, the batches thrown away: about 1.5 ms a batch of 16 short pairs on a CPU, so
a few minutes for 100,000 steps), then restores the random states: the next batch, its dropout and all
that follows are the uninterrupted run's. The iterator is replayed rather than saved because onmt's is a
generator (mid-bucket, mid-corpus) that cannot be pickled. A checkpoint without the key (written before
this, or resumed with another ``-reset_optim``) resumes as before, with a log line saying the data restart.
Checked with ``num_workers`` 0, our setting (with workers, the replay counts on their batch order again
and their own random states are not saved). Not saved: ``average_decay``'s moving average (unused here).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["RESUME_KEY", "ResumableBatches", "collapse_batch_first", "collapse_copy_scores", "load_for_training",
           "main", "patch"]

RESUME_KEY = "cdaflow_resume"
_resume_state: dict[str, Any] | None = None  # from -train_from's checkpoint, taken by the training iterator
_train_batches: ResumableBatches | None = None  # this process's training iterator, for the saver


def collapse_copy_scores(scores: Any, batch: dict[str, Any], tgt_vocab: Any, batch_dim: int = 1) -> Any:
    """OpenNMT-py 3.5.1's ``collapse_copy_scores`` with its index tensors on ``scores``' device.

    For each sentence ``b``, the copy score of each source piece that the target vocabulary also has is
    added to that piece's vocabulary score and blanked (1e-10), in place; returns ``scores``.
    """
    import torch

    offset = len(tgt_vocab)
    for b in range(scores.size(batch_dim)):
        src_vocab = batch["src_ex_vocab"][b]
        pairs = [(offset + i, tgt_vocab[src_vocab.ids_to_tokens[i]]) for i in range(1, len(src_vocab))]
        pairs = [(copied, kept) for copied, kept in pairs if kept != 0]
        if pairs:
            blank, fill = torch.tensor(pairs, dtype=torch.int64).to(scores.device).unbind(1)
            score = scores[:, b] if batch_dim == 1 else scores[b]
            score.index_add_(1, fill, score.index_select(1, blank))
            score.index_fill_(1, blank, 1e-10)
    return scores


def collapse_batch_first(scores: Any, batch: dict[str, Any], tgt_vocab: Any, batch_dim: int = 1) -> Any:
    """``collapse_copy_scores`` for the scores ``LossCompute`` hands over, read in their real order.

    ``scores`` arrives as a ``(-1, batch, vocab)`` view of batch-first rows; the same storage
    viewed ``(batch, -1, vocab)`` puts every row beside its own sentence, and collapsing that
    view in place (``batch_dim=0``) fixes the tensor the caller holds.
    """
    if batch_dim != 1:  # only LossCompute's call is re-ordered; any other caller is left alone
        return collapse_copy_scores(scores, batch, tgt_vocab, batch_dim=batch_dim)
    batch_size = scores.size(1)
    collapse_copy_scores(scores.view(batch_size, -1, scores.size(2)), batch, tgt_vocab, batch_dim=0)
    return scores


class ResumableBatches:
    """OpenNMT-py's training iterator, counting the batches it yields; given the `state` of a checkpoint,
    fast-forwarded to where that checkpoint was saved (see the module docstring)."""

    def __init__(self, batches: Any, state: dict[str, Any] | None = None) -> None:
        self.batches = batches
        self.shuffler = getattr(batches, "random_shuffler", None)  # absent behind num_workers' DataLoader
        self.shuffle_state = state["shuffle_state"] if state else getattr(self.shuffler, "random_state", None)
        self.resume = state
        self.yielded = 0

    def __iter__(self) -> Any:
        import random

        import numpy as np
        import torch
        from onmt.utils.logging import logger

        if self.resume is not None and self.shuffler is not None:
            self.shuffler._random_state = self.shuffle_state
        iterator = iter(self.batches)
        if (state := self.resume) is not None:
            self.resume = None
            for _ in range(state["batches"]):
                next(iterator)
            self.yielded = state["batches"]
            random.setstate(state["python"])
            np.random.set_state(state["numpy"])
            torch.set_rng_state(state["torch"])
            if state["cuda"] is not None and torch.cuda.is_available():
                torch.cuda.set_rng_state_all(state["cuda"])
            logger.info("Resumed after %d training batches, random states restored", self.yielded)
        for batch in iterator:
            self.yielded += 1
            yield batch

    def state(self) -> dict[str, Any]:
        """What a checkpoint saved now needs to go on exactly from here."""
        import random

        import numpy as np
        import torch

        cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
        return {"batches": self.yielded, "shuffle_state": self.shuffle_state, "python": random.getstate(),
                "numpy": np.random.get_state(), "torch": torch.get_rng_state(), "cuda": cuda}


def build_dataset_iter(opt: Any, transforms_cls: Any, vocabs: Any, *args: Any, **kwargs: Any) -> Any:
    """``build_dynamic_dataset_iter`` for ``train_single.main``; its training iterator a :class:`ResumableBatches`."""
    global _train_batches
    from onmt.constants import CorpusTask
    from onmt.inputters.dynamic_iterator import build_dynamic_dataset_iter
    from onmt.utils.logging import logger

    batches = build_dynamic_dataset_iter(opt, transforms_cls, vocabs, *args, **kwargs)
    if kwargs.get("task", CorpusTask.TRAIN) != CorpusTask.TRAIN:
        return batches
    state = _resume_state if opt.train_from and opt.reset_optim == "none" else None
    if opt.train_from and state is None:
        logger.info("%s holds no %s state (an older run, or -reset_optim): the training data start again from "
                    "their beginning, so this run will differ from an uninterrupted one", opt.train_from, RESUME_KEY)
    _train_batches = ResumableBatches(batches, state)
    return _train_batches


def optimizer_state_dict(self: Any) -> dict[str, Any]:
    """``Optimizer.state_dict``, with the training iterator's :meth:`ResumableBatches.state` under RESUME_KEY."""
    state = _onmt_state_dict(self)
    if _train_batches is not None:
        state[RESUME_KEY] = _train_batches.state()
    return state


_onmt_state_dict: Any = None  # OpenNMT-py's Optimizer.state_dict, set by patch()


def load_for_training(ckpt_path: str | None) -> dict[str, Any] | None:
    """``onmt.models.model_saver.load_checkpoint`` for ``-train_from``, fixed (see the module docstring).

    Unpickles in full: only for checkpoints this workflow wrote (a resumed training's own). Keeps the
    checkpoint's RESUME_KEY state for the training iterator (:func:`build_dataset_iter`).
    """
    global _resume_state
    if not ckpt_path:
        return None
    from onmt.utils.logging import logger

    from cdaflow.gap_subjective.transferer import load_onmt_checkpoint

    logger.info("Loading checkpoint from %s", ckpt_path)  # onmt's own line
    checkpoint = load_onmt_checkpoint(ckpt_path)
    generator = checkpoint.get("generator") or {}
    checkpoint["model"].update({f"generator.{key}": value for key, value in generator.items()})
    checkpoint["generator"] = {}
    optim = checkpoint.get("optim")
    _resume_state = optim.pop(RESUME_KEY, None) if isinstance(optim, dict) else None
    return checkpoint


def patch() -> None:
    """Route ``onmt.utils.loss``'s copy-score collapse through :func:`collapse_batch_first`, the
    translator's through :func:`collapse_copy_scores`, ``-train_from`` through :func:`load_for_training`, and
    the training iterator and optimizer state through :func:`build_dataset_iter` and :func:`optimizer_state_dict`."""
    global _onmt_state_dict
    import onmt.train_single
    import onmt.translate.translator
    import onmt.utils.loss
    from onmt.utils.optimizers import Optimizer

    onmt.utils.loss.collapse_copy_scores = collapse_batch_first
    onmt.translate.translator.collapse_copy_scores = collapse_copy_scores
    onmt.train_single.load_checkpoint = load_for_training
    onmt.train_single.build_dynamic_dataset_iter = build_dataset_iter
    if Optimizer.state_dict is not optimizer_state_dict:
        _onmt_state_dict = Optimizer.state_dict
        Optimizer.state_dict = optimizer_state_dict


def main() -> int | None:
    from cdaflow.io.weights import quiet_libraries

    with quiet_libraries():  # OpenNMT-py's modules use torch.cuda.amp decorators torch deprecates
        patch()
        from onmt.bin.train import main as onmt_main

    return onmt_main()


if __name__ == "__main__":
    sys.argv[0] = "onmt_train"
    sys.exit(main())
