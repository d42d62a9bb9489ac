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
("Expected all tensors to be on the same device ... index_select"; OpenNMT-py issue 2596, fixed
after 3.5.1; found by the project's first GPU run, ``benchmarks/gpu_speedup.py``).
:func:`collapse_copy_scores` is the same merge with its indices on the scores' device; :func:`patch`
puts it in the loss and in the translator (validation and ``transfer.Transferer``).

Run as ``python -m cdaflow.gap_subjective.onmt_train -config ...``.

Resuming with ``-train_from`` (a job killed at its wall-time limit) fails in 3.5.1 for two reasons
that :func:`load_for_training` fixes: ``load_checkpoint`` calls ``torch.load`` without
``weights_only=False``, which torch ≥ 2.6 refuses for a checkpoint holding an ``argparse.Namespace``;
and ``NMTModel.load_state_dict`` looks a copy generator's parameters up by their bare names
(``weight``) while they are saved as ``linear.weight``, ``linear_copy.weight``, ... ("Missing key in
checkpoint: generator.linear.weight"). The generator entries are handed over under the model's own
names (``generator.linear.weight``), which its first lookup finds.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["collapse_batch_first", "collapse_copy_scores", "load_for_training", "main", "patch"]


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


def load_for_training(ckpt_path: str | None) -> dict[str, Any] | None:
    """``onmt.models.model_saver.load_checkpoint`` for ``-train_from``, fixed (see the module docstring).

    Unpickles in full: only for checkpoints this workflow wrote (a resumed training's own).
    """
    if not ckpt_path:
        return None
    from onmt.utils.logging import logger

    from cdaflow.gap_subjective.transfer import load_onmt_checkpoint

    logger.info("Loading checkpoint from %s", ckpt_path)  # onmt's own line
    checkpoint = load_onmt_checkpoint(ckpt_path)
    generator = checkpoint.get("generator") or {}
    checkpoint["model"].update({f"generator.{key}": value for key, value in generator.items()})
    checkpoint["generator"] = {}
    return checkpoint


def patch() -> None:
    """Route ``onmt.utils.loss``'s copy-score collapse through :func:`collapse_batch_first`, the
    translator's through :func:`collapse_copy_scores`, and ``-train_from`` through :func:`load_for_training`."""
    import onmt.train_single
    import onmt.translate.translator
    import onmt.utils.loss

    onmt.utils.loss.collapse_copy_scores = collapse_batch_first
    onmt.translate.translator.collapse_copy_scores = collapse_copy_scores
    onmt.train_single.load_checkpoint = load_for_training


def main() -> int | None:
    from cdaflow.io.weights import quiet_libraries

    with quiet_libraries():  # OpenNMT-py's modules use torch.cuda.amp decorators torch deprecates
        patch()
        from onmt.bin.train import main as onmt_main

    return onmt_main()


if __name__ == "__main__":
    sys.argv[0] = "onmt_train"
    sys.exit(main())
