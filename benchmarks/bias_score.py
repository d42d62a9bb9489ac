"""Benchmark the batched bias score (Study D) and the SEAT permutation test.

Scores sentences with an InferSent encoder (a freshly initialised one over the offline GloVe 6B
50d by default, or `--model DIR --vectors DIR` from the workflow) batched, and one sentence at a
time (the simple baseline) in the same run; checks that both give the same scores; prints
sentences/s and the ratio. Then times a 100,000-sample permutation test on a SEAT-sized case.

    python benchmarks/bias_score.py [--sentences N] [--hidden 2048] [--batch-size 128] [--threads N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from cdaflow.sentence_bias.direction import PAPER_PAIRS, gender_direction
from cdaflow.sentence_bias.embeddings import from_kumo_package, open_vectors
from cdaflow.sentence_bias.infersent import InferSent
from cdaflow.sentence_bias.nli import read_snli
from cdaflow.sentence_bias.score import bias_score_arrays, word_importance
from cdaflow.sentence_bias.seat import p_value

ROOT = Path(__file__).resolve().parents[1]
SNLI = ROOT / "resources/demo/sentence_bias/snli/snli_1.0_train.jsonl"
GENDER_WORDS = {
    "he",
    "she",
    "man",
    "woman",
    "men",
    "women",
    "boy",
    "girl",
    "his",
    "her",
    "him",
    "mother",
    "father",
}


def score(encoder: InferSent, sentences: list[str], vectors, direction) -> np.ndarray:
    _, argmax, tokens = encoder.encode_with_argmax(sentences, batch_size=len(sentences))
    importance = word_importance(torch.from_numpy(argmax), [len(t) for t in tokens])
    return bias_score_arrays(tokens, importance, vectors, direction, GENDER_WORDS).abs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="an InferSent folder written by the workflow")
    parser.add_argument("--vectors", type=Path, help="the workflow's vectors folder (with --model)")
    parser.add_argument("--hidden", type=int, default=2048, help="hidden size of a fresh encoder")
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--baseline-sentences", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    vectors = open_vectors(args.vectors) if args.vectors else from_kumo_package()
    encoder = (
        InferSent.load(args.model, vectors) if args.model else InferSent.build(vectors, args.hidden, seed=0)
    )
    encoder.encoder.zero_pad_in_max = False
    direction = gender_direction(vectors, PAPER_PAIRS, fold_case=True).vector
    pool = list(dict.fromkeys(s for pair in read_snli(SNLI) for s in (pair.premise, pair.hypothesis)))
    sentences = (pool * (args.sentences // len(pool) + 1))[: args.sentences]
    print(f"{len(sentences)} sentences, encoder hidden {encoder.encoder.hidden}, {args.threads} threads")

    start = time.perf_counter()
    batched = np.concatenate(
        [
            score(encoder, sentences[i : i + args.batch_size], vectors, direction)
            for i in range(0, len(sentences), args.batch_size)
        ]
    )
    batched_s = time.perf_counter() - start
    subset = sentences[: args.baseline_sentences]
    start = time.perf_counter()
    single = np.array([score(encoder, [s], vectors, direction)[0] for s in subset])
    single_s = time.perf_counter() - start
    np.testing.assert_allclose(single, batched[: len(subset)], rtol=1e-4, atol=1e-6)
    batched_rate, single_rate = len(sentences) / batched_s, len(subset) / single_s
    print("check: batched and one-at-a-time scores agree")
    print(f"batched (B={args.batch_size}) : {batched_rate:10,.0f} sentences/s")
    print(f"one sentence at a time: {single_rate:10,.0f} sentences/s")
    print(f"speed-up              : {batched_rate / single_rate:10.1f}x")

    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(n, 64)) for n in (64, 64, 64, 64))  # SEAT C6's set sizes
    start = time.perf_counter()
    result = p_value(X, Y, A, B, n_samples=100_000, seed=0)
    seconds = time.perf_counter() - start
    print(f"permutation test, 100,000 samples, |X|=|Y|=64: {seconds:.3f} s (p={result.p:.3f}, {result.method})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
