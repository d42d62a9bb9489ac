"""Benchmark corpus-scale CDA (Study A §5.2): MRF + reinflection on parsed sentences.

Reads a CoNLL-U file, keeps the sentences with an animate noun of the model's gazetteer, and
times ``augment_corpus`` (every gender combination, MRF and naive swap, ``--batch-size``
sentences per batched MAP and reinflection call) against the same work one sentence at a time
(batch size 1). Both must give the same counterfactuals; prints sentences/s and the ratio.

    python benchmarks/cda_corpus.py [--model results/morph_cda/es/models/lin] [--conllu PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from cdaflow.io.conllu import read_conllu, words
from cdaflow.morph_cda.augment import augment_corpus
from cdaflow.morph_cda.model_folder import load_model

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONLLU = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2/UD_Spanish-GSD/es_gsd-ud-dev.conllu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "results/morph_cda/es/models/lin")
    parser.add_argument("--conllu", type=Path, default=DEFAULT_CONLLU)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the figure is per core)")
    parser.add_argument("--baseline-sentences", type=int, default=200, help="timed one at a time, then scaled")
    args = parser.parse_args(argv)
    for path, hint in ((args.model, "train one: snakemake --configfile config/validation.yaml"), (args.conllu, "")):
        if not path.exists():
            print(f"skipped: {path} not found {hint}")
            return 0
    torch.set_num_threads(args.threads)
    generator, gazetteer = load_model(args.model, threads=args.threads)
    sentences = list(read_conllu(args.conllu))
    animate = [s for s in sentences if any(gazetteer.counterpart(w) for w in words(s))]
    print(f"{args.conllu.name}: {len(sentences)} sentences, {len(animate)} with an animate noun; "
          f"{args.model}; {torch.get_num_threads()} torch thread(s)")

    list(augment_corpus(animate[:32], generator, gazetteer, batch_size=32))  # warm-up
    start = time.perf_counter()
    batched = list(augment_corpus(animate, generator, gazetteer, batch_size=args.batch_size))
    t_batched = time.perf_counter() - start
    sample = animate[: args.baseline_sentences]
    start = time.perf_counter()
    single = list(augment_corpus(sample, generator, gazetteer, batch_size=1))
    t_single = (time.perf_counter() - start) * len(animate) / max(len(sample), 1)
    assert single == batched[: len(sample)], "batched and one-at-a-time counterfactuals differ"
    copies = sum(len(mrf) for _, mrf, _ in batched)
    print(f"check: the first {len(sample)} sentences give identical counterfactuals either way")
    print(f"batched (B={args.batch_size}) : {len(animate) / t_batched:9.0f} animate sentences/s "
          f"({copies} MRF + {copies} swap copies in {t_batched:.2f} s)")
    print(f"one at a time      : {len(animate) / t_single:9.0f} animate sentences/s (timed on {len(sample)})")
    print(f"speed-up           : {t_single / t_batched:6.1f}x")
    print(f"all sentences      : {len(sentences) / t_batched:9.0f} sentences/s of the whole corpus "
          "(sentences without an animate noun cost only the gazetteer look-up)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
