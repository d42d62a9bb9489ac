"""Benchmark batched tree MAP inference (``cdaflow.morph_cda.bp``) on real UD trees.

Times MAP inference on every sentence of a CoNLL-U file with random potentials
(fixed seed), (a) with a straightforward per-sentence recursive max-product written
here (a few torch or numpy ops per node: the simple baseline) and (b) with the batched
``map_assign``; checks that both give identical tags and equal scores, and prints
sentences/s and the speed ratio, plus the cost of ``log_partition`` + backward.

Potentials come in the form the tag MRF produces (``--potentials typed``, the default):
one random K x K log ψ per arc type (head UPOS, dependent UPOS, relation) of the real
trees, passed as an ``ArcTable``. ``--potentials dense`` draws one matrix per token
instead (a [B, N, K, K] tensor; memory-bound).

    python benchmarks/bp.py [--conllu PATH] [--tags 24] [--potentials typed|dense]
                            [--batch-size 512] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import conllu
import numpy as np
import torch
from torch import Tensor

from cdaflow.morph_cda.bp import ArcTable, TreeBatch, log_partition, map_assign

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DEFAULT_CONLLU = SHARED_DATA / "ud-treebanks-v2.2/UD_Spanish-GSD/es_gsd-ud-dev.conllu"


def read_trees(path: Path) -> tuple[list[list[int]], list[tuple[str, str, str]]]:
    """HEAD column of every sentence and each token's arc type (head UPOS, UPOS, DEPREL).

    Multiword-token ranges and empty nodes are dropped.
    """
    heads: list[list[int]] = []
    arc_types: list[tuple[str, str, str]] = []
    with path.open(encoding="utf-8") as f:
        for sentence in conllu.parse_incr(f):
            words = [tok for tok in sentence if isinstance(tok["id"], int)]
            heads.append([tok["head"] for tok in words])
            arc_types += [
                (words[tok["head"] - 1]["upos"] if tok["head"] else "ROOT", tok["upos"],
                 tok["deprel"])
                for tok in words
            ]
    return heads, arc_types


def children_of(heads: list[int]) -> tuple[list[list[int]], list[int]]:
    children: list[list[int]] = [[] for _ in heads]
    roots: list[int] = []
    for j, h in enumerate(heads):
        (children[h - 1] if h else roots).append(j)
    return children, roots


def backtrack(children: list[list[int]], roots: list[int], backptr: dict, up: Callable) -> tuple[list[int], float]:
    """Each root's best tag from its belief `up(root)`, then every child's from its parent's via `backptr`."""
    tags = [0] * len(children)

    def down(j: int, tag: int) -> None:
        tags[j] = tag
        for c in children[j]:
            down(c, int(backptr[c][tag]))

    best = 0.0
    for r in roots:
        belief = up(r)
        tag = int(belief.argmax())
        best += float(belief[tag])
        down(r, tag)
    return tags, best


def simple_map_torch(heads: list[int], unary: Tensor, edge: Tensor) -> tuple[list[int], float]:
    """Recursive max-product on one tree, one torch op per node (the simple baseline)."""
    children, roots = children_of(heads)
    backptr: dict[int, Tensor] = {}

    def up(j: int) -> Tensor:
        incoming = torch.zeros_like(unary[j])
        for c in children[j]:
            msg, backptr[c] = (edge[c] + up(c).unsqueeze(0)).max(dim=1)
            incoming = incoming + msg
        return unary[j] + incoming  # same association as the batched pass: bitwise-equal

    return backtrack(children, roots, backptr, up)


def simple_map_numpy(heads: list[int], unary: np.ndarray, edge: np.ndarray,
                     ) -> tuple[list[int], float]:
    """The same recursion with numpy ops (cheaper per call than torch on tiny arrays)."""
    children, roots = children_of(heads)
    backptr: dict[int, np.ndarray] = {}

    def up(j: int) -> np.ndarray:
        incoming = np.zeros_like(unary[j])
        for c in children[j]:
            scores = edge[c] + up(c)[None, :]
            backptr[c] = scores.argmax(axis=1)
            incoming = incoming + scores.max(axis=1)
        return unary[j] + incoming

    return backtrack(children, roots, backptr, up)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def best_time(fn: Callable[[], object], device: torch.device, repeats: int) -> float:
    """Fastest wall time of ``fn`` over ``repeats`` runs (best-of-N damps noisy neighbours)."""
    times = []
    for _ in range(repeats):
        sync(device)
        start = time.perf_counter()
        fn()
        sync(device)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conllu", type=Path, default=DEFAULT_CONLLU)
    parser.add_argument("--tags", type=int, default=24, help="tag inventory size K")
    parser.add_argument("--potentials", choices=("typed", "dense"), default="typed",
                        help="one log-potential matrix per arc type (the model's form) "
                             "or per token")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (best is reported)")
    parser.add_argument("--device", default="cpu", help="device for the batched code")
    parser.add_argument("--min-trees", type=int, default=1000)
    args = parser.parse_args(argv)

    if not args.conllu.is_file():
        print(f"skipped: {args.conllu} not found")
        return 0
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    heads, arc_types = read_trees(args.conllu)
    if len(heads) < args.min_trees:
        print(f"error: {args.conllu} has {len(heads)} trees, fewer than --min-trees "
              f"{args.min_trees}", file=sys.stderr)
        return 1
    n, k = len(heads), args.tags
    lengths = np.array([len(h) for h in heads])
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    rng = np.random.default_rng(args.seed)
    unary_all = rng.normal(size=(offsets[-1], k)).astype(np.float32)
    if args.potentials == "typed":
        names, arc_type = np.unique(np.array(arc_types), axis=0, return_inverse=True)
        arc_type = arc_type.reshape(-1)
        table = rng.normal(size=(len(names), k, k)).astype(np.float32)
    else:
        arc_type = np.arange(offsets[-1])
        table = rng.normal(size=(offsets[-1], k, k)).astype(np.float32)
    print(f"{args.conllu.name}: {n} trees, {offsets[-1]} tokens (mean {lengths.mean():.1f}, "
          f"max {lengths.max()}), K={k}, {args.potentials} potentials ({len(table)} "
          f"matrices), torch threads={torch.get_num_threads()}, batched on {device}, "
          f"best of {args.repeats}")

    # (a) The simple per-sentence baselines: each node looks up its arc type's matrix.
    unary_t, table_t = torch.from_numpy(unary_all), torch.from_numpy(table)
    arc_type_t = torch.from_numpy(arc_type)
    spans = list(zip(heads, offsets[:-1], offsets[1:], strict=True))
    simple: dict[str, list[tuple[list[int], float]]] = {}

    def run_simple_torch() -> None:
        simple["torch"] = [simple_map_torch(h, unary_t[a:b], table_t[arc_type_t[a:b]])
                           for h, a, b in spans]

    def run_simple_numpy() -> None:
        simple["numpy"] = [simple_map_numpy(h, unary_all[a:b], table[arc_type[a:b]])
                           for h, a, b in spans]

    cpu = torch.device("cpu")
    t_torch = best_time(run_simple_torch, cpu, args.repeats)
    t_numpy = best_time(run_simple_numpy, cpu, args.repeats)

    # (b) Batched. Trees and padded potentials are built once, outside the timing:
    # a model would emit batched potentials directly.
    def build_trees() -> list[TreeBatch]:
        return [TreeBatch.from_heads(heads[lo:lo + args.batch_size], device=device)
                for lo in range(0, n, args.batch_size)]

    t_trees = best_time(build_trees, device, args.repeats)
    batches: list[tuple[TreeBatch, Tensor, ArcTable]] = []
    table_dev = table_t.to(device)
    for lo, trees in zip(range(0, n, args.batch_size), build_trees(), strict=True):
        a, b = offsets[lo], offsets[lo + trees.batch_size]
        unary = torch.zeros(trees.batch_size, trees.max_len, k, device=device)
        index = torch.zeros(trees.batch_size, trees.max_len, dtype=torch.long, device=device)
        unary[trees.mask] = torch.from_numpy(unary_all[a:b]).to(device)
        index[trees.mask] = torch.from_numpy(arc_type[a:b]).to(device)
        batches.append((trees, unary, ArcTable(table_dev, index)))

    results: list[tuple[Tensor, Tensor]] = []

    def run_map() -> None:
        results.clear()
        with torch.no_grad():
            results.extend(map_assign(u, e, t) for t, u, e in batches)

    def run_log_z_backward() -> None:
        for t, u, e in batches:
            u = u.detach().requires_grad_(True)
            e = ArcTable(e.table.detach().requires_grad_(True), e.index)
            log_partition(u, e, t).sum().backward()

    run_map()  # warm-up
    t_batched = best_time(run_map, device, args.repeats)
    t_log_z = best_time(run_log_z_backward, device, args.repeats)

    batched_tags: list[list[int]] = []
    batched_best: list[float] = []
    for (trees, _, _), (tags, best) in zip(batches, results, strict=True):
        tags_cpu = tags.cpu()
        batched_tags += [tags_cpu[i, :m].tolist() for i, m in enumerate(trees.lengths.tolist())]
        batched_best += best.cpu().tolist()
    for name, out in simple.items():
        differ = sum(tags != batched_tags[i] for i, (tags, _) in enumerate(out))
        assert not differ, f"{differ} MAP assignments differ from the {name} baseline"
        np.testing.assert_allclose([s for _, s in out], batched_best, rtol=1e-5, atol=1e-4)
    print(f"check: MAP tags identical to both baselines on all {n} trees, scores within 1e-5")

    per_1000 = 1000 / n
    runs = {"torch": t_torch, "numpy": t_numpy, f"batched map_assign (B={args.batch_size})": t_batched}
    for label, seconds in runs.items():
        label = label if label.startswith("batched") else f"simple baseline, {label} ops"
        print(f"{label:<28}: {n / seconds:9.0f} sentences/s ({seconds * 1e3:.1f} ms)")
    for baseline in ("torch", "numpy"):
        print(f"speed-up vs {baseline} baseline  : {runs[baseline] / t_batched:6.1f}x")
    for label, seconds in (("log_partition + backward", t_log_z), ("TreeBatch.from_heads", t_trees)):
        print(f"{label:<28}: {seconds * per_1000 * 1e3:6.1f} ms per 1,000 trees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
