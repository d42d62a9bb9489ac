"""Exact, batched belief propagation for the tag MRF of Study A (Zmigrod et al. 2019, §3, App. A).

The model over the tags ``m`` of a dependency tree ``T`` is

    log Pr(m | T) = Σ_i unary[i, m_i] + Σ_{j not a root} edge[j, m_head(j), m_j] - log Z(T),

i.e. ``unary`` holds log φ_i and ``edge[b, j]`` holds log ψ for the arc between token
``j`` and its head, indexed **[tag of head, tag of child]**. The edge slot of a root
token and all padding are ignored. ``edge`` is either that dense ``[B, N, K, K]`` tensor
or an :class:`ArcTable` (one matrix per arc type plus each arc's type: the MRF's form).

One dynamic program (:func:`_upward`, leaves to roots) is written once over a
:class:`~cdaflow.morph_cda.semiring.Semiring`: the log semiring gives ``log Z``, the max
semiring gives the MAP score and, by back-tracking, its assignment; node marginals are the gradient
of ``log Z`` with respect to the unary potentials (exact; torch-struct's approach).
Nodes of every tree in a :class:`TreeBatch` are grouped by depth, so each pass runs
one vectorised step per depth level and no Python loop over sentences or nodes. On CPU
without gradients a level's messages come from a fused kernel (:mod:`.kernels`); torch
ops compute them everywhere else (CUDA, training).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from cdaflow.morph_cda import kernels
from cdaflow.morph_cda.semiring import LogSemiring, MaxSemiring, Semiring

__all__ = [
    "ArcTable",
    "DepthLevel",
    "TreeBatch",
    "log_partition",
    "map_assign",
    "marginals",
    "score",
]


@dataclass(frozen=True)
class DepthLevel:
    """All nodes at one depth, across every tree of a batch (index tensors of length M)."""

    batch: Tensor  # tree of each node
    node: Tensor  # 0-based position of the node in its tree
    parent: Tensor  # 0-based position of its head in the tree (-1 for roots)
    parent_pos: Tensor  # row of the head within the previous level (-1 for roots)
    flat: Tensor  # batch * N + node: row of the node in [B * N, ...] views of the inputs


@dataclass(frozen=True, eq=False)
class TreeBatch:
    """A padded batch of dependency trees with nodes grouped by depth level.

    Build it with :meth:`from_heads`. Node-level tensors (``order`` and the ``node_*``
    fields) list every real token once, sorted by depth (roots first); ``level_sizes``
    splits them into :attr:`levels`. A child's depth is its head's depth + 1, so the
    messages into level ``d`` all come from level ``d + 1``.
    """

    heads: Tensor  # [B, N] 0-based head position; -1 for roots and padding
    mask: Tensor  # [B, N] True for real tokens
    lengths: Tensor  # [B]
    depth: Tensor  # [B, N] 0 for roots, -1 for padding
    order: Tensor  # [num_nodes] flat index b * N + n of each node, level by level
    node_batch: Tensor  # [num_nodes]
    node_index: Tensor  # [num_nodes]
    node_parent: Tensor  # [num_nodes]
    node_parent_pos: Tensor  # [num_nodes]
    level_sizes: tuple[int, ...]

    @classmethod
    def from_heads(
        cls, heads: Sequence[Sequence[int]], device: torch.device | str | None = None
    ) -> TreeBatch:
        """Build a batch from 1-based head ids per token (0 = root, the UD HEAD column).

        A sentence may have several roots (a forest); its score is then the sum over its
        trees. Raises ``ValueError`` on out-of-range heads, self-loops and cycles.
        """
        lengths = np.fromiter((len(h) for h in heads), dtype=np.int64, count=len(heads))
        batch_size = len(lengths)
        max_len = int(lengths.max(initial=0))
        total = int(lengths.sum())
        flat = np.fromiter(itertools.chain.from_iterable(heads), dtype=np.int64, count=total)

        mask = np.arange(max_len) < lengths[:, None]
        tree_of = np.repeat(np.arange(batch_size), lengths)
        pos_of = np.nonzero(mask)[1]
        bad = (flat < 0) | (flat > lengths[tree_of]) | (flat == pos_of + 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"tree {tree_of[i]}: token {pos_of[i] + 1} has invalid head {flat[i]}"
            )

        head0 = np.full((batch_size, max_len), -1, dtype=np.int64)
        head0[mask] = flat - 1
        rows = np.arange(batch_size)[:, None]
        depth = np.where(mask, 0, -1)
        ancestor = head0.copy()
        # Pointer-chasing over all nodes at once; a node still climbing after
        # max_len steps sits on a cycle.
        for _ in range(max_len):
            climbing = ancestor >= 0
            if not climbing.any():
                break
            depth += climbing
            ancestor = np.where(climbing, head0[rows, np.maximum(ancestor, 0)], -1)
        if (ancestor >= 0).any():
            raise ValueError(f"tree {int(np.nonzero(ancestor >= 0)[0][0])} has a cycle")

        node_b, node_n = np.nonzero(mask)
        node_d = depth[node_b, node_n]
        by_depth = np.argsort(node_d, kind="stable")
        node_b, node_n, node_d = node_b[by_depth], node_n[by_depth], node_d[by_depth]
        sizes = np.bincount(node_d)
        starts = np.cumsum(sizes) - sizes
        row_in_level = np.full((batch_size, max_len), -1, dtype=np.int64)
        row_in_level[node_b, node_n] = np.arange(total) - starts[node_d]
        node_p = head0[node_b, node_n]
        node_pp = np.where(node_p >= 0, row_in_level[node_b, np.maximum(node_p, 0)], -1)

        def tensor(a: np.ndarray) -> Tensor:
            return torch.as_tensor(a, device=device)

        return cls(
            heads=tensor(head0),
            mask=tensor(mask),
            lengths=tensor(lengths),
            depth=tensor(depth),
            order=tensor(node_b * max_len + node_n),
            node_batch=tensor(node_b),
            node_index=tensor(node_n),
            node_parent=tensor(node_p),
            node_parent_pos=tensor(node_pp),
            level_sizes=tuple(int(s) for s in sizes),
        )

    @property
    def batch_size(self) -> int:
        return self.heads.shape[0]

    @property
    def max_len(self) -> int:
        return self.heads.shape[1]

    @property
    def num_nodes(self) -> int:
        return self.order.shape[0]

    @property
    def device(self) -> torch.device:
        return self.heads.device

    @functools.cached_property
    def levels(self) -> tuple[DepthLevel, ...]:
        """Per-depth views of the node tensors; ``levels[0]`` holds the roots."""
        parts = [
            t.split(self.level_sizes)
            for t in (self.node_batch, self.node_index, self.node_parent,
                      self.node_parent_pos, self.order)
        ]
        return tuple(DepthLevel(*fields) for fields in zip(*parts, strict=True))

    def to(self, device: torch.device | str) -> TreeBatch:
        """This batch with all index tensors on ``device`` (``self`` if already there)."""
        if torch.device(device) == self.device:
            return self
        moved = {
            name: getattr(self, name).to(device)
            for name in (
                "heads", "mask", "lengths", "depth", "order",
                "node_batch", "node_index", "node_parent", "node_parent_pos",
            )
        }
        return TreeBatch(level_sizes=self.level_sizes, **moved)


@dataclass(frozen=True)
class ArcTable:
    """Edge log-potentials shared by arc type: the form the tag MRF produces.

    ``table[u]`` is one ``[K, K]`` log ψ indexed [tag of head, tag of child] and
    ``index[b, j]`` the row used by the arc from token ``j`` to its head (any valid row
    for roots and padding, which are ignored). A dense ``[B, N, K, K]`` edge tensor is
    the special case of one row per token. Passing the table instead of materialising
    ``table[index]`` saves memory in both passes, and its rows stay in cache.
    """

    table: Tensor  # [U, K, K]
    index: Tensor  # [B, N] long

    @classmethod
    def dense(cls, edge: Tensor) -> ArcTable:
        """One row per token of a dense ``[B, N, K, K]`` edge tensor."""
        b, n, k = edge.shape[0], edge.shape[1], edge.shape[-1]
        index = torch.arange(b * n, device=edge.device).view(b, n)
        return cls(edge.reshape(b * n, k, k), index)


# Arcs per vectorised step: a chunk's [C, K, K] scores (2.4 MB at K = 24) stay in cache
# between the gather, the add and the reduction.
_ARC_CHUNK = 1024
# CPU messages outside autograd go through the fused kernels of `kernels` (tests switch
# this off to check them against the torch path).
_use_fused_kernels = True


def _prepare(
    unary: Tensor, edge: Tensor | ArcTable, trees: TreeBatch, clamp: Tensor | None
) -> tuple[Tensor, ArcTable, TreeBatch]:
    """Validate shapes, move ``trees`` to the inputs' device and apply ``clamp``."""
    if unary.dim() != 3:
        raise ValueError(f"unary must be [B, N, K], got {tuple(unary.shape)}")
    b, n, k = unary.shape
    if (b, n) != (trees.batch_size, trees.max_len):
        raise ValueError(
            f"unary is [{b}, {n}, K] but trees are [{trees.batch_size}, {trees.max_len}]"
        )
    if isinstance(edge, ArcTable):
        arcs = edge
        if arcs.table.dim() != 3 or arcs.table.shape[1:] != (k, k):
            raise ValueError(f"arc table must be [U, {k}, {k}], got {tuple(arcs.table.shape)}")
        if arcs.index.shape != (b, n) or arcs.index.dtype != torch.long:
            raise ValueError(f"arc index must be a long tensor of shape {(b, n)}")
        if arcs.index.numel() and (
            int(arcs.index.min()) < 0 or int(arcs.index.max()) >= arcs.table.shape[0]
        ):
            raise ValueError(f"arc index out of range for a table of {arcs.table.shape[0]} rows")
    else:
        if edge.shape != (b, n, k, k):
            raise ValueError(f"edge must be {(b, n, k, k)}, got {tuple(edge.shape)}")
        arcs = ArcTable.dense(edge)
    if arcs.table.dtype != unary.dtype or arcs.table.device != unary.device:
        raise ValueError("unary and edge must share dtype and device")
    if arcs.index.device != unary.device:
        arcs = ArcTable(arcs.table, arcs.index.to(unary.device))
    if clamp is not None:
        if clamp.shape != unary.shape or clamp.dtype != torch.bool:
            raise ValueError(f"clamp must be a bool tensor of shape {tuple(unary.shape)}")
        unary = unary.masked_fill(~clamp.to(unary.device), Semiring.zero)
    return unary, arcs, trees.to(unary.device)


def _chunked_messages(
    semiring: type[Semiring], table_cm: Tensor, rows: Tensor, belief: Tensor,
    buffer: Tensor, out: Tensor,
) -> Tensor:
    """Messages of one level with torch ops (any device), in cache-sized chunks of arcs."""
    for lo in range(0, rows.shape[0], _ARC_CHUNK):
        hi = min(lo + _ARC_CHUNK, rows.shape[0])
        scores = torch.index_select(table_cm, 0, rows[lo:hi], out=buffer[: hi - lo])
        semiring.times_(scores, belief[lo:hi].unsqueeze(-1))
        semiring.sum_(scores, dim=1, out=out[lo:hi])
    return out


def _upward(
    semiring: type[Semiring], unary: Tensor, arcs: ArcTable, trees: TreeBatch
) -> tuple[Tensor, list[Tensor], list[Tensor]]:
    """Leaves-to-roots pass, one vectorised step per depth level.

    Returns the per-tree total ``[B]`` (the semiring sum over all assignments), per
    level ``d`` the inside beliefs ``[M_d, K]`` (the semiring sum over the subtree of
    each node with the node's own tag fixed), and per level the arc-table row of each
    node.
    """
    b, n, k = unary.shape
    sizes = trees.level_sizes
    levels = trees.levels
    unary_flat = unary.reshape(b * n, k)
    rows_in_order = arcs.index.reshape(b * n).index_select(0, trees.order)
    arc_rows = rows_in_order.split(sizes)
    total = unary.new_full((b,), semiring.one)
    track = torch.is_grad_enabled() and (unary.requires_grad or arcs.table.requires_grad)
    if track:
        # One gather per input, split into per-level views, makes the backward a
        # single scatter; per-level gathers would each back-propagate into a
        # full-size zero tensor.
        unary_lv: Sequence[Tensor] = unary_flat.index_select(0, trees.order).split(sizes)
        edge_sel = arcs.table.index_select(0, rows_in_order[sizes[0] if sizes else 0:])
        edge_lv = edge_sel.split(sizes[1:])
        if edge_sel.numel() == 0:
            # Keeps unary and edge in the graph (zero, not None, gradients) for
            # batches without arcs or tokens.
            total = total + unary_flat[:0].sum() + arcs.table[:0].sum()
    else:
        unary_lv = [unary_flat.index_select(0, level.flat) for level in levels]
        # Child-major [U, K_child, K_head] rows make the reduction over the child's tag
        # run across contiguous head-tag vectors. A small table is transposed once; a
        # dense per-token one is gathered through a strided view instead of copied.
        table_cm = arcs.table.transpose(1, 2)
        if table_cm.shape[0] <= trees.num_nodes:
            table_cm = table_cm.contiguous()
        chunk = min(max(sizes[1:], default=0), _ARC_CHUNK)
        arcs_buffer = unary.new_empty((chunk, k, k))

    beliefs: list[Tensor] = [unary_flat[:0]] * len(sizes)
    incoming: Tensor | None = None
    for d in range(len(sizes) - 1, -1, -1):
        beliefs[d] = unary_lv[d] if incoming is None else semiring.times(unary_lv[d], incoming)
        if d == 0:
            break
        # scores[r, h, c] = arcs[r, h, c] ⊗ belief[r, c]; the message from node r to
        # its head is msg[r, h] = ⊕_c scores[r, h, c].
        if track:
            msg = semiring.sum(semiring.times(edge_lv[d - 1], beliefs[d].unsqueeze(-2)), dim=-1)
        else:
            msg = unary.new_empty((sizes[d], k))
            if _use_fused_kernels and kernels.supports(semiring.name, msg):
                kernels.fused_messages(semiring.name, table_cm, arc_rows[d], beliefs[d], msg)
            else:
                _chunked_messages(semiring, table_cm, arc_rows[d], beliefs[d], arcs_buffer, msg)
        # ⊗ is + in log space, so the product over a variable number of children is
        # an index_add into the parent level.
        incoming = msg.new_full((sizes[d - 1], k), semiring.one).index_add_(
            0, levels[d].parent_pos, msg
        )
    if sizes:
        total = total.index_add(0, levels[0].batch, semiring.sum(beliefs[0], dim=-1))
    return total, beliefs, list(arc_rows)


def log_partition(
    unary: Tensor, edge: Tensor | ArcTable, trees: TreeBatch, clamp: Tensor | None = None
) -> Tensor:
    """``log Z`` per tree, ``[B]``; differentiable in ``unary`` and ``edge``.

    ``edge`` is a dense ``[B, N, K, K]`` tensor or an :class:`ArcTable`. ``clamp``
    ([B, N, K] bool) lists the allowed tags per token; others get -inf. A tree with no
    allowed assignment gets -inf and a zero (not NaN) gradient.
    """
    unary, arcs, trees = _prepare(unary, edge, trees, clamp)
    total, _, _ = _upward(LogSemiring, unary, arcs, trees)
    return total


def marginals(
    unary: Tensor, edge: Tensor | ArcTable, trees: TreeBatch, clamp: Tensor | None = None
) -> Tensor:
    """Node marginals Pr(m_j = k | T), ``[B, N, K]``, as the gradient of ``log Z``.

    Padding and infeasible trees get all-zero rows. The result is differentiable when
    grad mode is on and ``unary`` or ``edge`` requires grad.
    """
    table = edge.table if isinstance(edge, ArcTable) else edge
    create_graph = torch.is_grad_enabled() and (unary.requires_grad or table.requires_grad)
    with torch.enable_grad():
        # Differentiating w.r.t. a zero offset keeps the graph to unary and edge intact.
        offset = torch.zeros_like(unary, requires_grad=True)
        log_z = log_partition(unary + offset, edge, trees, clamp)
        (grad,) = torch.autograd.grad(log_z.sum(), offset, create_graph=create_graph)
    return grad


def map_assign(
    unary: Tensor, edge: Tensor | ArcTable, trees: TreeBatch, clamp: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Most probable tags via max-product: ``(tags [B, N] long, best log score [B])``.

    The upward pass keeps each level's max-marginal beliefs; the top-down decode then
    follows back-pointers level by level.

    Padding gets tag -1. The score is differentiable (a subgradient: gradients are the
    indicator of the MAP assignment). For a tree with no allowed assignment the score
    is -inf and its tags are arbitrary.
    """
    unary, arcs, trees = _prepare(unary, edge, trees, clamp)
    best, beliefs, arc_rows = _upward(MaxSemiring, unary, arcs, trees)
    b, n, k = unary.shape
    tags = torch.full((b * n,), -1, dtype=torch.long, device=unary.device)
    if trees.num_nodes:
        table_rows = arcs.table.detach().reshape(-1, k)
        with torch.no_grad():
            _, decoded = MaxSemiring.sum_with_backpointers(beliefs[0], dim=-1)
            per_level = [decoded]
            for level, belief, rows in zip(trees.levels[1:], beliefs[1:], arc_rows[1:],
                                           strict=True):
                head_tags = decoded.index_select(0, level.parent_pos)
                # The back-pointer for the decoded head tag only, recomputed from the
                # stored beliefs with the same arithmetic as the upward pass (so it is
                # that pass's argmax): O(K) per node, whereas an argmax over all K²
                # scores on the way up made the whole MAP ~1.4x slower (K = 24, CPU).
                row = table_rows.index_select(0, rows * k + head_tags)
                _, decoded = MaxSemiring.sum_with_backpointers(
                    MaxSemiring.times(row, belief), dim=-1
                )
                per_level.append(decoded)
            tags.index_copy_(0, trees.order, torch.cat(per_level))
    return tags.view(b, n), best


def score(
    tags: Tensor,
    unary: Tensor,
    edge: Tensor | ArcTable,
    trees: TreeBatch,
    clamp: Tensor | None = None,
) -> Tensor:
    """Unnormalised log score ``[B]`` of the assignment ``tags`` ([B, N]; padding ignored).

    Training uses ``log_partition(...) - score(gold, ...)`` as the NLL.
    """
    unary, arcs, trees = _prepare(unary, edge, trees, clamp)
    b, n, k = unary.shape
    if tags.shape != (b, n):
        raise ValueError(f"tags must be {(b, n)}, got {tuple(tags.shape)}")
    mask = trees.mask
    safe_tags = tags.to(unary.device).masked_fill(~mask, 0)
    node_scores = unary.gather(2, safe_tags.unsqueeze(-1)).squeeze(-1)
    is_child = trees.heads >= 0
    head_tags = safe_tags.gather(1, trees.heads.clamp(min=0))
    pair = (head_tags * k + safe_tags).masked_fill(~is_child, 0)
    arc_scores = arcs.table.reshape(-1, k * k)[arcs.index, pair]
    # where(), not multiplication: padding may hold inf/NaN and -inf * 0 is NaN.
    zero = unary.new_zeros(())
    return (torch.where(mask, node_scores, zero) + torch.where(is_child, arc_scores, zero)).sum(1)
