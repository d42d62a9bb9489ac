"""Log-space semirings for dynamic programming on trees (in the style of torch-struct).

A dynamic program written against :class:`Semiring` computes the log partition
function with :class:`LogSemiring` and the best (MAP) score with
:class:`MaxSemiring`. Both work on log-scores, so ``times`` is addition and
``one``/``zero`` are ``0``/``-inf`` for both.
"""

from __future__ import annotations

from typing import ClassVar

import torch
from torch import Tensor

__all__ = ["LogSemiring", "MaxSemiring", "Semiring", "safe_logsumexp"]


def safe_logsumexp(x: Tensor, dim: int = -1) -> Tensor:
    """``logsumexp`` over ``dim`` whose gradient is 0, never NaN, where every input is -inf.

    ``torch.logsumexp`` returns -inf for an all -inf slice, but its backward computes
    ``exp(-inf - -inf) = NaN``; with shared parameters that NaN would poison every
    gradient, so dead slices are masked in both passes.
    """
    m = x.amax(dim=dim, keepdim=True).detach()
    dead = m == float("-inf")
    m = m.masked_fill(dead, 0.0)
    total = (x - m).exp().sum(dim=dim)
    dead = dead.squeeze(dim)
    out = total.masked_fill(dead, 1.0).log() + m.squeeze(dim)
    return out.masked_fill(dead, float("-inf"))


class Semiring:
    """A commutative semiring over log-scores: ``times`` is ``+``; subclasses define ``sum``."""

    name: ClassVar[str] = ""
    zero: ClassVar[float] = float("-inf")
    one: ClassVar[float] = 0.0

    @staticmethod
    def times(a: Tensor, b: Tensor) -> Tensor:
        """Semiring product (broadcasting)."""
        return a + b

    @staticmethod
    def times_(a: Tensor, b: Tensor) -> Tensor:
        """In-place semiring product into ``a``; only for temporaries outside autograd."""
        return a.add_(b)

    @classmethod
    def sum(cls, x: Tensor, dim: int = -1) -> Tensor:
        """Semiring sum over ``dim``."""
        raise NotImplementedError

    @classmethod
    def sum_(cls, x: Tensor, dim: int, out: Tensor) -> Tensor:
        """Semiring sum over ``dim`` into ``out``; may overwrite ``x`` (temporaries outside autograd)."""
        return out.copy_(cls.sum(x, dim))

    @classmethod
    def sum_with_backpointers(cls, x: Tensor, dim: int = -1) -> tuple[Tensor, Tensor | None]:
        """Semiring sum over ``dim`` plus the index that attains it (``None`` if meaningless)."""
        return cls.sum(x, dim), None


class LogSemiring(Semiring):
    """Sum-product in log space: ``plus`` is logsumexp (NaN-free gradient at -inf)."""

    name = "log"

    @classmethod
    def sum(cls, x: Tensor, dim: int = -1) -> Tensor:
        return safe_logsumexp(x, dim)


class MaxSemiring(Semiring):
    """Max-product in log space (Viterbi): ``plus`` is max; back-pointers are the argmax."""

    name = "max"

    @classmethod
    def sum(cls, x: Tensor, dim: int = -1) -> Tensor:
        return x.amax(dim=dim)

    @classmethod
    def sum_(cls, x: Tensor, dim: int, out: Tensor) -> Tensor:
        # Pairwise halving with elementwise maximum: over a short non-innermost dim this is
        # ~2.5x faster than amax on CPU (K = 24), and it yields the same values exactly.
        n = x.shape[dim]
        if n < 2:
            return out.copy_(x.amax(dim=dim))
        while n > 2:
            half = n // 2
            low = x.narrow(dim, 0, half)
            torch.maximum(low, x.narrow(dim, n - half, half), out=low)
            n -= half
            x = x.narrow(dim, 0, n)
        return torch.maximum(x.select(dim, 0), x.select(dim, 1), out=out)

    @classmethod
    def sum_with_backpointers(cls, x: Tensor, dim: int = -1) -> tuple[Tensor, Tensor]:
        values, indices = torch.max(x, dim=dim)
        return values, indices
