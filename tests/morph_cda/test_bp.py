"""Batched tree belief propagation against brute-force enumeration over all K^n tag sequences."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from torch import Tensor

from cdaflow.morph_cda import bp
from cdaflow.morph_cda.bp import (
    ArcTable,
    TreeBatch,
    log_partition,
    map_assign,
    marginals,
    score,
)
from cdaflow.morph_cda.semiring import LogSemiring, MaxSemiring, safe_logsumexp

NEG_INF = float("-inf")


@dataclass
class Case:
    heads: list[int]  # 1-based, 0 = root
    unary: Tensor  # [n, K] float64
    edge: Tensor  # [n, K, K] float64, [head tag, child tag]
    clamp: Tensor | None  # [n, K] bool


@dataclass
class Exact:
    log_z: float
    marginals: Tensor  # [n, K]
    edge_marginals: Tensor  # [n, K, K]
    best: float
    best_tags: list[int]
    gap: float  # best minus second-best score; the MAP is unique when > 0


def random_heads(rng: np.random.Generator, n: int, forest: bool = False) -> list[int]:
    """A uniformly shuffled recursive tree: each token's head precedes it in a random order."""
    order = rng.permutation(n)
    heads = [0] * n
    for i, tok in enumerate(order[1:], start=1):
        root_again = forest and rng.random() < 0.2
        heads[tok] = 0 if root_again else int(order[rng.integers(i)]) + 1
    return heads


def random_case(rng: np.random.Generator, n: int, k: int, clamp_p: float = 0.5,
                forest: bool = False) -> Case:
    unary = torch.from_numpy(rng.normal(scale=2.0, size=(n, k)))
    edge = torch.from_numpy(rng.normal(scale=2.0, size=(n, k, k)))
    clamp = None
    if rng.random() < clamp_p:
        clamp = torch.from_numpy(rng.random((n, k)) < 0.7)
        # Mostly feasible clamps; an occasional all-False row tests the infeasible path.
        rows = np.nonzero(~clamp.numpy().any(1))[0]
        for j in rows:
            if rng.random() < 0.7:
                clamp[j, rng.integers(k)] = True
    return Case(random_heads(rng, n, forest), unary, edge, clamp)


def brute_force(case: Case) -> Exact:
    n, k = case.unary.shape
    assign = torch.tensor(list(itertools.product(range(k), repeat=n)), dtype=torch.long)
    assign = assign.reshape(-1, n)
    unary = case.unary
    if case.clamp is not None:
        unary = unary.masked_fill(~case.clamp, NEG_INF)
    scores = unary[torch.arange(n), assign].sum(1)
    for j, h in enumerate(case.heads):
        if h:
            scores = scores + case.edge[j, assign[:, h - 1], assign[:, j]]
    log_z = torch.logsumexp(scores, 0)
    probs = (scores - log_z).exp() if torch.isfinite(log_z) else torch.zeros_like(scores)
    onehot = torch.nn.functional.one_hot(assign, k).double()
    marg = torch.einsum("m,mnk->nk", probs, onehot)
    edge_marg = torch.zeros(n, k, k, dtype=torch.float64)
    for j, h in enumerate(case.heads):
        if h:
            edge_marg[j] = torch.einsum("m,ma,mc->ac", probs, onehot[:, h - 1], onehot[:, j])
    top = torch.topk(scores, min(2, len(scores))).values
    gap = float(top[0] - top[1]) if len(top) > 1 else float("inf")
    best_idx = int(scores.argmax())
    return Exact(float(log_z), marg, edge_marg, float(scores.max()),
                 assign[best_idx].tolist(), gap)


def pad_batch(cases: list[Case], fill: float = 0.0, dtype: torch.dtype = torch.float64,
              ) -> tuple[TreeBatch, Tensor, Tensor, Tensor]:
    """Stack cases into padded tensors; padding and root edge slots hold ``fill``."""
    trees = TreeBatch.from_heads([c.heads for c in cases])
    b, n = trees.batch_size, trees.max_len
    k = cases[0].unary.shape[1]
    unary = torch.full((b, n, k), fill, dtype=torch.float64)
    edge = torch.full((b, n, k, k), fill, dtype=torch.float64)
    clamp = torch.ones(b, n, k, dtype=torch.bool)
    for i, c in enumerate(cases):
        m = len(c.heads)
        unary[i, :m] = c.unary
        for j, h in enumerate(c.heads):
            if h:
                edge[i, j] = c.edge[j]
        if c.clamp is not None:
            clamp[i, :m] = c.clamp
    return trees, unary.to(dtype), edge.to(dtype), clamp


def check_against_brute_force(case: Case, dtype: torch.dtype, atol: float) -> None:
    exact = brute_force(case)
    trees, unary, edge, clamp = pad_batch([case], dtype=dtype)
    unary.requires_grad_(True)
    edge.requires_grad_(True)

    log_z = log_partition(unary, edge, trees, clamp)
    log_z.sum().backward()
    assert unary.grad is not None and edge.grad is not None
    assert torch.isfinite(unary.grad).all() and torch.isfinite(edge.grad).all()
    marg = marginals(unary.detach(), edge.detach(), trees, clamp)
    tags, best = map_assign(unary.detach(), edge.detach(), trees, clamp)

    if exact.log_z == NEG_INF:
        assert log_z.item() == NEG_INF and best.item() == NEG_INF
        assert not marg.any() and not unary.grad.any() and not edge.grad.any()
        return
    assert log_z.item() == pytest.approx(exact.log_z, abs=atol, rel=atol)
    torch.testing.assert_close(marg[0].double(), exact.marginals, atol=atol, rtol=0)
    # d log Z / d unary = node marginals, d log Z / d edge = edge marginals.
    torch.testing.assert_close(unary.grad[0].double(), exact.marginals, atol=atol, rtol=0)
    torch.testing.assert_close(edge.grad[0].double(), exact.edge_marginals, atol=atol, rtol=0)
    assert best.item() == pytest.approx(exact.best, abs=atol, rel=atol)
    assert score(tags, unary, edge, trees, clamp).item() == pytest.approx(best.item(), abs=atol)
    if exact.gap > 10 * atol:
        assert tags[0].tolist() == exact.best_tags


@pytest.mark.parametrize("seed", range(80))
def test_random_trees_match_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    case = random_case(rng, n=int(rng.integers(1, 8)), k=int(rng.integers(2, 5)),
                       forest=seed % 5 == 0)
    check_against_brute_force(case, torch.float32, atol=2e-5)


@pytest.mark.parametrize("seed", range(10))
def test_float64_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    case = random_case(rng, n=int(rng.integers(1, 8)), k=int(rng.integers(2, 5)))
    check_against_brute_force(case, torch.float64, atol=1e-10)


@pytest.mark.parametrize("shape", ["chain", "star"])
def test_chain_and_star(shape: str) -> None:
    n = 7
    heads = [0, *range(1, n)] if shape == "chain" else [0] + [1] * (n - 1)
    trees = TreeBatch.from_heads([heads])
    assert trees.level_sizes == ((1,) * n if shape == "chain" else (1, n - 1))
    for seed in range(3):
        rng = np.random.default_rng(seed)
        case = random_case(rng, n, k=3)
        case.heads = heads
        check_against_brute_force(case, torch.float32, atol=2e-5)


def test_single_node() -> None:
    unary = torch.tensor([[[0.5, -1.0, 2.0]]])
    edge = torch.randn(1, 1, 3, 3)  # a root's edge slot is ignored
    trees = TreeBatch.from_heads([[0]])
    assert log_partition(unary, edge, trees).item() == pytest.approx(
        torch.logsumexp(unary[0, 0], 0).item())
    torch.testing.assert_close(marginals(unary, edge, trees), unary.softmax(-1))
    tags, best = map_assign(unary, edge, trees)
    assert tags.tolist() == [[2]] and best.item() == pytest.approx(2.0)


def test_empty_sentence_and_empty_batch() -> None:
    trees = TreeBatch.from_heads([[], [0]])
    unary = torch.randn(2, 1, 2)
    edge = torch.randn(2, 1, 2, 2)
    log_z = log_partition(unary, edge, trees)
    assert log_z[0].item() == 0.0
    tags, best = map_assign(unary, edge, trees)
    assert tags[0].tolist() == [-1] and best[0].item() == 0.0
    none = TreeBatch.from_heads([])
    assert log_partition(torch.zeros(0, 0, 2), torch.zeros(0, 0, 2, 2), none).shape == (0,)


def test_batch_of_mixed_lengths_equals_each_tree_alone() -> None:
    rng = np.random.default_rng(7)
    k = 3
    cases = [random_case(rng, n=int(rng.integers(1, 8)), k=k, forest=i % 4 == 0)
             for i in range(24)]
    trees, unary, edge, clamp = pad_batch(cases, dtype=torch.float32)
    log_z = log_partition(unary, edge, trees, clamp)
    marg = marginals(unary, edge, trees, clamp)
    tags, best = map_assign(unary, edge, trees, clamp)
    for i, case in enumerate(cases):
        t1, u1, e1, c1 = pad_batch([case], dtype=torch.float32)
        m = len(case.heads)
        torch.testing.assert_close(log_z[i:i + 1], log_partition(u1, e1, t1, c1))
        torch.testing.assert_close(marg[i, :m], marginals(u1, e1, t1, c1)[0])
        tags1, best1 = map_assign(u1, e1, t1, c1)
        assert tags[i, :m].tolist() == tags1[0].tolist()
        assert (tags[i, m:] == -1).all()
        torch.testing.assert_close(best[i:i + 1], best1)
        torch.testing.assert_close(score(tags[i:i + 1, :m], u1, e1, t1, c1), best1)


def test_arc_table_equals_its_dense_expansion() -> None:
    rng = np.random.default_rng(17)
    k, rows = 4, 5
    cases = [random_case(rng, n=int(rng.integers(1, 9)), k=k) for _ in range(12)]
    trees, unary, _, clamp = pad_batch(cases, dtype=torch.float64)
    table = torch.from_numpy(rng.normal(scale=2.0, size=(rows, k, k))).requires_grad_(True)
    index = torch.from_numpy(rng.integers(rows, size=tuple(trees.mask.shape)))
    dense = table.detach()[index].requires_grad_(True)
    arcs = ArcTable(table, index)
    log_z_table = log_partition(unary, arcs, trees, clamp)
    log_z_dense = log_partition(unary, dense, trees, clamp)
    torch.testing.assert_close(log_z_table, log_z_dense)
    finite = torch.isfinite(log_z_dense)
    log_z_table[finite].sum().backward()
    log_z_dense[finite].sum().backward()
    # The table's gradient is the dense gradient summed over the arcs that share a row.
    arc = trees.heads >= 0
    expected = torch.zeros_like(table).index_add(0, index[arc], dense.grad[arc])
    torch.testing.assert_close(table.grad, expected)
    with torch.no_grad():
        torch.testing.assert_close(log_partition(unary, arcs, trees, clamp), log_z_dense.detach())
    torch.testing.assert_close(marginals(unary, arcs, trees, clamp),
                               marginals(unary, dense.detach(), trees, clamp))
    tags, best = map_assign(unary, arcs, trees, clamp)
    tags_dense, best_dense = map_assign(unary, dense.detach(), trees, clamp)
    assert torch.equal(tags, tags_dense)
    torch.testing.assert_close(best.detach(), best_dense.detach())
    torch.testing.assert_close(score(tags, unary, arcs, trees), score(tags, unary, dense, trees))
    with pytest.raises(ValueError, match="out of range"):
        log_partition(unary, ArcTable(table, index + rows), trees)
    with pytest.raises(ValueError, match="arc table"):
        log_partition(unary, ArcTable(table[:, :2], index), trees)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fused_kernels_equal_chunked_torch_messages(monkeypatch: pytest.MonkeyPatch,
                                                     dtype: torch.dtype) -> None:
    rng = np.random.default_rng(19)
    cases = [random_case(rng, n=int(rng.integers(1, 9)), k=3) for _ in range(16)]
    trees, unary, edge, clamp = pad_batch(cases, dtype=dtype)
    rows = 4
    arcs = ArcTable(torch.from_numpy(rng.normal(size=(rows, 3, 3))).to(dtype),
                    torch.from_numpy(rng.integers(rows, size=tuple(trees.mask.shape))))
    results = []
    for fused, chunk in ((True, 1024), (False, 1024), (False, 2)):
        monkeypatch.setattr(bp, "_use_fused_kernels", fused)
        monkeypatch.setattr(bp, "_ARC_CHUNK", chunk)
        with torch.no_grad():
            results.append([
                (log_partition(unary, e, trees, clamp), *map_assign(unary, e, trees, clamp))
                for e in (edge, arcs)  # a strided dense table and a small contiguous one
            ])
    for other in results[1:]:
        for (log_z, tags, best), (log_z2, tags2, best2) in zip(results[0], other, strict=True):
            torch.testing.assert_close(log_z, log_z2)
            assert torch.equal(tags, tags2)
            assert torch.equal(best, best2)  # max-product: the same float ops, bit for bit


@pytest.mark.parametrize("size", range(1, 10))
def test_in_place_max_reduction_equals_amax(size: int) -> None:
    x = torch.randn(5, size, 7)
    expected = x.amax(dim=1)
    out = torch.empty(5, 7)
    assert MaxSemiring.sum_(x.clone(), dim=1, out=out) is out
    assert torch.equal(out, expected)
    LogSemiring.sum_(x.clone(), dim=1, out=out)
    torch.testing.assert_close(out, torch.logsumexp(x, dim=1))


def test_padding_does_not_leak() -> None:
    rng = np.random.default_rng(11)
    cases = [random_case(rng, n=n, k=4, clamp_p=0.0) for n in (1, 3, 6)]
    trees, unary, edge, _ = pad_batch(cases, fill=0.0)
    _, nan_unary, nan_edge, _ = pad_batch(cases, fill=float("nan"))
    nan_unary.requires_grad_(True)
    nan_edge.requires_grad_(True)
    log_z = log_partition(nan_unary, nan_edge, trees)
    torch.testing.assert_close(log_z, log_partition(unary, edge, trees))
    log_z.sum().backward()
    assert nan_unary.grad is not None and nan_edge.grad is not None
    assert not nan_unary.grad[~trees.mask].any()
    is_child = trees.heads >= 0
    assert not nan_edge.grad[~is_child].any()  # padding and root edge slots
    assert torch.isfinite(nan_unary.grad).all() and torch.isfinite(nan_edge.grad).all()
    tags, best = map_assign(nan_unary.detach(), nan_edge.detach(), trees)
    tags0, best0 = map_assign(unary, edge, trees)
    assert torch.equal(tags, tags0) and torch.equal(best, best0)
    assert torch.isfinite(score(tags, nan_unary, nan_edge, trees)).all()


def test_infeasible_tree_gives_zero_not_nan_gradients() -> None:
    rng = np.random.default_rng(3)
    cases = [random_case(rng, n=5, k=3, clamp_p=0.0) for _ in range(2)]
    trees, unary, edge, clamp = pad_batch(cases, dtype=torch.float32)
    clamp[1, 2] = False  # token 3 of tree 1 has no allowed tag: Z = 0
    unary.requires_grad_(True)
    edge.requires_grad_(True)
    log_z = log_partition(unary, edge, trees, clamp)
    assert torch.isfinite(log_z[0]) and log_z[1].item() == NEG_INF
    log_z.sum().backward()
    assert unary.grad is not None and edge.grad is not None
    assert torch.isfinite(unary.grad).all() and torch.isfinite(edge.grad).all()
    assert not unary.grad[1].any() and not edge.grad[1].any()
    torch.testing.assert_close(unary.grad[0], marginals(unary, edge, trees, clamp)[0])
    assert map_assign(unary, edge, trees, clamp)[1][1].item() == NEG_INF


def test_hard_edge_constraints_with_partial_dead_messages() -> None:
    rng = np.random.default_rng(5)
    for _ in range(10):
        case = random_case(rng, n=6, k=3, clamp_p=0.0)
        # Agreement-style hard constraints: many head/child tag pairs are impossible.
        case.edge = case.edge.masked_fill(torch.from_numpy(rng.random((6, 3, 3)) < 0.5),
                                          NEG_INF)
        check_against_brute_force(case, torch.float32, atol=2e-5)


def test_nll_gradient_is_marginals_minus_gold() -> None:
    rng = np.random.default_rng(9)
    cases = [random_case(rng, n=n, k=4, clamp_p=0.0) for n in (2, 5, 7)]
    trees, unary, edge, _ = pad_batch(cases, dtype=torch.float32)
    gold = torch.randint(0, 4, (3, trees.max_len))
    unary.requires_grad_(True)
    nll = log_partition(unary, edge, trees) - score(gold, unary, edge, trees)
    assert (nll >= 0).all()
    nll.sum().backward()
    onehot = torch.nn.functional.one_hot(gold, 4).float() * trees.mask.unsqueeze(-1)
    torch.testing.assert_close(unary.grad, marginals(unary, edge, trees) - onehot)


def test_map_score_gradient_is_indicator_of_map() -> None:
    rng = np.random.default_rng(13)
    trees, unary, edge, _ = pad_batch([random_case(rng, n=6, k=3, clamp_p=0.0)])
    unary.requires_grad_(True)
    tags, best = map_assign(unary, edge, trees)
    best.sum().backward()
    assert unary.grad is not None
    torch.testing.assert_close(unary.grad[0], torch.nn.functional.one_hot(tags[0], 3).double())


def test_gradcheck_and_differentiable_marginals() -> None:
    rng = np.random.default_rng(17)
    trees, unary, edge, _ = pad_batch(
        [random_case(rng, n=4, k=2, clamp_p=0.0), random_case(rng, n=3, k=2, clamp_p=0.0)])
    unary.requires_grad_(True)
    edge.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda u, e: log_partition(u, e, trees), (unary, edge))
    assert torch.autograd.gradcheck(lambda u, e: marginals(u, e, trees), (unary, edge))


def test_safe_logsumexp_and_semirings() -> None:
    x = torch.tensor([[NEG_INF, NEG_INF], [0.0, NEG_INF], [1.0, 2.0]], requires_grad=True)
    out = safe_logsumexp(x, -1)
    torch.testing.assert_close(out.detach(), torch.logsumexp(x.detach(), -1))
    out[1:].sum().backward()  # an all -inf row must not poison the rest
    assert x.grad is not None and torch.isfinite(x.grad).all()
    assert LogSemiring.sum_with_backpointers(x)[1] is None
    values, idx = MaxSemiring.sum_with_backpointers(x.detach())
    assert idx[1:].tolist() == [0, 1] and values[2].item() == 2.0


def test_tree_batch_structure_and_validation() -> None:
    # UD convention: 1-based heads, 0 = root.
    trees = TreeBatch.from_heads([[2, 0, 2, 3], [0]])
    assert trees.depth.tolist() == [[1, 0, 1, 2], [0, -1, -1, -1]]
    assert trees.heads.tolist() == [[1, -1, 1, 2], [-1, -1, -1, -1]]
    assert trees.level_sizes == (2, 2, 1)
    for d, level in enumerate(trees.levels):
        assert (trees.depth[level.batch, level.node] == d).all()
        if d:
            prev = trees.levels[d - 1]
            assert torch.equal(prev.node[level.parent_pos], level.parent)
            assert torch.equal(prev.batch[level.parent_pos], level.batch)
    assert trees.to("cpu") is trees
    with pytest.raises(ValueError, match="cycle"):
        TreeBatch.from_heads([[0, 3, 2]])
    with pytest.raises(ValueError, match="invalid head"):
        TreeBatch.from_heads([[0, 5]])
    with pytest.raises(ValueError, match="invalid head"):
        TreeBatch.from_heads([[0, 2]])
    with pytest.raises(ValueError, match="unary"):
        log_partition(torch.zeros(2, 3, 2), torch.zeros(2, 3, 2, 2), trees)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_matches_cpu() -> None:
    rng = np.random.default_rng(21)
    cases = [random_case(rng, n=int(rng.integers(1, 8)), k=4) for _ in range(16)]
    trees, unary, edge, clamp = pad_batch(cases)
    dev = torch.device("cuda")
    cu_unary, cu_edge, cu_clamp = unary.to(dev), edge.to(dev), clamp.to(dev)
    cu_log_z = log_partition(cu_unary, cu_edge, trees, cu_clamp)  # CPU trees follow inputs
    assert cu_log_z.device.type == "cuda"
    torch.testing.assert_close(cu_log_z.cpu(), log_partition(unary, edge, trees, clamp))
    torch.testing.assert_close(marginals(cu_unary, cu_edge, trees.to(dev), cu_clamp).cpu(),
                               marginals(unary, edge, trees, clamp))
    tags, best = map_assign(unary, edge, trees, clamp)
    cu_tags, cu_best = map_assign(cu_unary, cu_edge, trees, cu_clamp)
    torch.testing.assert_close(cu_best.cpu(), best)
    feasible = torch.isfinite(best)
    assert torch.equal(cu_tags.cpu()[feasible], tags[feasible])
