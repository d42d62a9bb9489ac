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
else is OpenNMT-py's ``onmt_train``. Run as ``python -m cdaflow.gap_subjective.onmt_train -config ...``.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["collapse_batch_first", "main", "patch"]


def collapse_batch_first(scores: Any, batch: dict[str, Any], tgt_vocab: Any, batch_dim: int = 1) -> Any:
    """``collapse_copy_scores`` for the scores ``LossCompute`` hands over, read in their real order.

    ``scores`` arrives as a ``(-1, batch, vocab)`` view of batch-first rows; the same storage
    viewed ``(batch, -1, vocab)`` puts every row beside its own sentence, and collapsing that
    view in place (``batch_dim=0``) fixes the tensor the caller holds.
    """
    from onmt.modules.copy_generator import collapse_copy_scores

    if batch_dim != 1:  # only LossCompute's call is re-ordered; any other caller is left alone
        return collapse_copy_scores(scores, batch, tgt_vocab, batch_dim=batch_dim)
    batch_size = scores.size(1)
    collapse_copy_scores(scores.view(batch_size, -1, scores.size(2)), batch, tgt_vocab, batch_dim=0)
    return scores


def patch() -> None:
    """Route ``onmt.utils.loss``'s copy-score collapse through :func:`collapse_batch_first`."""
    import onmt.utils.loss

    onmt.utils.loss.collapse_copy_scores = collapse_batch_first


def main() -> int | None:
    from cdaflow.io.weights import quiet_libraries

    with quiet_libraries():  # OpenNMT-py's modules use torch.cuda.amp decorators torch deprecates
        patch()
        from onmt.bin.train import main as onmt_main

    return onmt_main()


if __name__ == "__main__":
    sys.argv[0] = "onmt_train"
    sys.exit(main())
