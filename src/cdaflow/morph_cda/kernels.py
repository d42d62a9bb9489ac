"""Fused CPU kernels for one belief-propagation step: all messages of a depth level.

A message from node ``r`` to its head is ``msg[r, h] = ⊕_c (table[u_r, c, h] ⊗ belief[r, c])``
(tables child-major, ``u_r`` the node's arc type). In torch that is a gather, an add and a
reduction over ``[M, K, K]`` temporaries; here one pass per node reads its arc type's
table (a few hundred rows that stay in cache) and writes ``K`` values, in parallel over
nodes. Only used for CPU tensors that need no gradient; :mod:`cdaflow.morph_cda.bp` falls back
to its chunked torch code everywhere else (CUDA, gradients, other dtypes).

The max kernel performs the same float additions and comparisons as the torch path,
so its messages are bitwise identical (NaN potentials aside, which torch propagates
and these kernels skip); the log kernel agrees to rounding.
"""

from __future__ import annotations

import math
import types

import numba
import numpy as np
import torch
from torch import Tensor

__all__ = ["fused_messages", "supports"]

_DTYPES = (torch.float32, torch.float64)


@numba.njit(cache=True, nogil=True)
def _max_into(t: np.ndarray, belief_row: np.ndarray, acc: np.ndarray) -> None:  # pragma: no cover - compiled
    """acc[h] = max_c (t[c, h] + belief_row[c]): one node's max-product message."""
    k = belief_row.shape[0]
    for h in range(k):
        acc[h] = t[0, h] + belief_row[0]
    for c in range(1, k):
        b = belief_row[c]
        for h in range(k):
            v = t[c, h] + b
            if v > acc[h]:
                acc[h] = v


def _max_messages(table: np.ndarray, rows: np.ndarray, belief: np.ndarray,
                  out: np.ndarray) -> None:  # pragma: no cover - compiled
    for r in numba.prange(belief.shape[0]):
        _max_into(table[rows[r]], belief[r], out[r])
    return


def _log_messages(table: np.ndarray, rows: np.ndarray, belief: np.ndarray,
                  out: np.ndarray) -> None:  # pragma: no cover - compiled
    m, k = belief.shape
    for r in numba.prange(m):
        t = table[rows[r]]
        top = out[r]
        _max_into(t, belief[r], top)  # the max first, for a stable log-sum-exp
        total = np.zeros(k, dtype=out.dtype)
        for c in range(k):
            b = belief[r, c]
            for h in range(k):
                if top[h] != -math.inf:
                    total[h] += math.exp(t[c, h] + b - top[h])
        for h in range(k):
            if top[h] != -math.inf:
                top[h] += math.log(total[h])
    return


# Each kernel compiled twice: serial for one thread (no thread pool at all: an idle pool that
# spins would steal the core of a neighbouring job), parallel over nodes for more.
def _compiled(function, parallel: bool):
    # A renamed copy per variant: numba's on-disk cache is keyed by the function's name, not
    # by its compile flags.
    suffix = "parallel" if parallel else "serial"
    clone = types.FunctionType(function.__code__, function.__globals__, f"{function.__name__}_{suffix}")
    clone.__qualname__ = clone.__name__
    return numba.njit(parallel=parallel, cache=True, nogil=True)(clone)


_KERNELS = {
    (kind, parallel): _compiled(function, parallel)
    for kind, function in (("max", _max_messages), ("log", _log_messages))
    for parallel in (False, True)
}


def supports(kind: str, belief: Tensor) -> bool:
    """Whether a fused kernel exists for this semiring ``kind`` and these tensors."""
    return (kind, False) in _KERNELS and belief.device.type == "cpu" and belief.dtype in _DTYPES


def fused_messages(kind: str, table_cm: Tensor, rows: Tensor, belief: Tensor, out: Tensor) -> Tensor:
    """All messages of one level into ``out`` ``[M, K]``.

    ``table_cm`` is ``[U, K_child, K_head]`` (a strided view works, best contiguous),
    ``rows`` ``[M]`` the arc type of each node and ``belief`` ``[M, K]`` each node's
    inside belief.
    """
    # Use exactly the threads torch was given (the rule's `threads`), never more.
    threads = max(1, min(torch.get_num_threads(), numba.config.NUMBA_NUM_THREADS))
    if threads > 1:
        numba.set_num_threads(threads)
    _KERNELS[(kind, threads > 1)](
        table_cm.detach().numpy(),
        rows.contiguous().numpy(),
        belief.detach().contiguous().numpy(),
        out.numpy(),
    )
    return out
