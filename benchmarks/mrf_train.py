"""Benchmark one MRF training epoch (Study A) on a treebank of the paper's size.

The paper's Spanish training set has 14,187 trees. The real UD 2.2 Spanish-GSD dev trees
(1,400) are repeated up to `--sentences`, and one epoch of Adam on the NLL (exact BP, batched)
is timed for the LIN and NN parameterizations. The simple baseline is the same update computed
one sentence at a time (batch size 1), timed on `--baseline-sentences` trees and scaled.

    python benchmarks/mrf_train.py [--conllu PATH] [--sentences 14187] [--batch-size 256] [--threads N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from cdaflow.io.conllu import read_conllu, words
from cdaflow.morph_cda.model import AgreementMRF, make_batches
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.morph_cda.tree_encoding import encode

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DEFAULT_CONLLU = SHARED_DATA / "ud-treebanks-v2.2/UD_Spanish-GSD/es_gsd-ud-dev.conllu"


def epoch_seconds(model: AgreementMRF, batches, limit: int | None = None) -> tuple[float, int]:
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1e-4)
    seen = 0
    start = time.perf_counter()
    for batch in batches:
        optimizer.zero_grad()
        loss = model.nll(batch).sum()
        (loss / batch.size).backward()
        optimizer.step()
        seen += batch.size
        if limit and seen >= limit:
            break
    return time.perf_counter() - start, seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conllu", type=Path, default=DEFAULT_CONLLU)
    parser.add_argument("--sentences", type=int, default=14187)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--baseline-sentences", type=int, default=300)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    if not args.conllu.exists():
        print(f"skipped: {args.conllu} not found (pass --conllu)")
        return 0
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    trees = list(read_conllu(args.conllu))
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in trees for w in words(s))
    encoded = [encode(s, inventory) for s in trees]
    encoded = (encoded * (args.sentences // len(encoded) + 1))[: args.sentences]
    print(f"{len(encoded)} trees ({len(trees)} distinct), K={inventory.size} tags, {args.threads} threads")
    start = time.perf_counter()
    batches = make_batches(encoded, args.batch_size)
    print(f"batching: {time.perf_counter() - start:.2f} s")
    singles = make_batches(encoded[: args.baseline_sentences], 1)
    for parameterization in ("lin", "nn"):
        batched_s, n = epoch_seconds(AgreementMRF(inventory, parameterization, "es"), batches)
        single_s, m = epoch_seconds(AgreementMRF(inventory, parameterization, "es"), singles)
        per_single = single_s / m
        print(
            f"{parameterization}: epoch of {n} trees {batched_s:.1f} s ({n / batched_s:,.0f} trees/s); "
            f"one tree at a time {1 / per_single:,.0f} trees/s (epoch ≈ {per_single * n:.0f} s); "
            f"ratio {per_single * n / batched_s:.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
