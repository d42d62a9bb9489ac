"""Peak memory per item of the rules whose memory grows with their data, for their paper-scale `mem_mb`.

Each measurement runs the rule's own code in a fresh child process on synthetic input and reports the
child's peak resident set size (``ru_maxrss``), at two input sizes: the slope between them is the
memory one more item costs, the intercept what the job holds whatever its size. Where the measured run
uses a smaller model than the paper (the LM, InferSent), a second child measures that fixed part at
the paper's settings (``fixed_mb``), which then stands for the intercept. The rows go into
``resources/jobs_memory.tsv`` (and, as comments, rows of ``jobs_measured.tsv`` for a rule that has none:
the larger size's CPU seconds); ``cdaflow.pipeline.cluster`` asks for ``margin_mem × (fixed or intercept + slope ×
the paper's items)`` (resources/jobs.yaml, ``memory``).

- ``morph_cda_lm``, per corpus sentence: ``workflow/scripts/morph_cda/lm.py`` itself up to the start of
  training (reading, SentencePiece at the paper's 16,000 pieces, encoding) on sentences of about 24 words;
  fixed: one epoch of the paper's LM (512 units, two layers) on 64 sentences, scored on 256 dev sentences,
  all of 100 pieces. A training step's peak is set by its batch's longest sentence (the softmax over
  16,003 pieces of 64 x T positions), not by the corpus size, so it is the fixed part, measured on CPU: on
  a GPU those activations are device memory, and the host holds CUDA's libraries instead.
- ``sentence_bias_evaluate``, per embedded sentence: SentEval's SST-2 protocol (``run_senteval``, the
  paper config's PyTorch classifier, one round of epochs) on 4,096-dimensional float32 embeddings of a
  stand-in encoder; fixed: InferSent at the paper's size (2 x 2,048) over a GloVe-840B-sized vocabulary
  (2,196,017 words, the matrix memory-mapped), encoding one batch. Pages of the GloVe matrix that the
  encoder reads are not counted (the SentEval vocabulary's rows: a few hundred MB at most).
- ``regender_parallel``, per decided segment: ``workflow/scripts/regender/parallel.py`` on synthetic rule
  decisions in four shards, 4.7 % re-genderable (1.05M of the paper's 22.5M candidates), the rest neutral.

Stanza tagging is not measured here: stanza cannot fetch its models on this machine.

    python benchmarks/memory_per_item.py                      # rows for resources/jobs_memory.tsv
    python benchmarks/memory_per_item.py --source /tmp/head   # the same on another checkout (before/after)
    python benchmarks/memory_per_item.py --only regender_parallel --sizes 20000 80000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# rule, what an item is, default sizes (small, large), the child measuring the fixed part at paper settings
MEASUREMENTS = {
    "morph_cda_lm": ("corpus_sentences", (20_000, 80_000), "morph_cda_lm_fixed"),
    "sentence_bias_evaluate": ("senteval_sentences", (4_000, 16_000), "sentence_bias_evaluate_fixed"),
    "regender_parallel": ("regender_candidates", (100_000, 400_000), None),
}
SST2_DEV_TEST = (872, 1821)  # SentEval's SST-2 dev and test sentences, embedded with the training ones
G_SHARE = 1_050_000 / 22_458_968  # re-genderable segments among the paper's candidates (Jain et al. 2021)


class Params(SimpleNamespace):
    """A Snakemake params/wildcards object: attributes and ``items()``."""

    def items(self):
        return vars(self).items()


def _paper_config(source: Path) -> dict:
    import yaml

    from cdaflow.config import validate

    return validate(yaml.safe_load((source / "config" / "paper.yaml").read_text()), source="paper")


def _run_script(source: Path, script: str, smk: SimpleNamespace) -> None:
    import logging
    import runpy

    runpy.run_path(str(source / "workflow" / "scripts" / script), init_globals={"snakemake": smk})
    logging.shutdown()


def _smk(rule: str, scratch: Path, **parts) -> SimpleNamespace:
    return SimpleNamespace(rule=rule, threads=1, log=[str(scratch / "rule.log")], config={}, resources=Params(gpu=0),
                           **parts)  # fmt: skip


class DataPhaseDone(Exception):
    """Stops the LM rule where training starts: everything it holds per sentence is built by then."""


def child_morph_cda_lm(n: int, scratch: Path, source: Path) -> None:
    """The rule's data path: reading, the split, SentencePiece at the paper's vocabulary, encoding. Training
    is left out: the peak of a training step is set by the longest batch (a [64, T, 16,003] softmax), not by
    the number of sentences; the fixed child measures it at the paper's model."""
    from synthetic_text import synthetic_lines

    import cdaflow.text.language_model as lm

    lines = list(synthetic_lines(4 * n, seed=3))
    (scratch / "corpus.txt").write_text("".join(" ".join(lines[i : i + 4]) + "\n" for i in range(0, 4 * n, 4)))
    del lines
    extrinsic = _paper_config(source)["studies"]["morph_cda"]["extrinsic"]
    settings = {"dev_fraction": extrinsic["dev_fraction"], "bpe_vocab": extrinsic["bpe_vocab"],
                "lm": {"embedding": 16, "hidden": 16, "layers": 1, "epochs": 1, "batch_size": 64}}  # fmt: skip
    smk = _smk("morph_cda_lm", scratch, input=[str(scratch / "corpus.txt")], output=[str(scratch / "lm")],
               params=Params(settings=settings, seed=1, checkpoints=str(scratch / "checkpoints")),
               wildcards=Params(lang="es", corpus="original"))  # fmt: skip

    def train_lm(train, dev, *args, **kwargs):  # the corpora as the rule holds them when training starts
        raise DataPhaseDone

    lm.train_lm = train_lm
    try:
        _run_script(source, "morph_cda/lm.py", smk)
    except DataPhaseDone:
        pass


def child_morph_cda_lm_fixed(n: int, scratch: Path, source: Path) -> None:
    import numpy as np

    from cdaflow.text.language_model import LMSettings, train_lm

    extrinsic = _paper_config(source)["studies"]["morph_cda"]["extrinsic"]
    rng = np.random.default_rng(0)
    vocab = extrinsic["bpe_vocab"]

    def corpus(count):
        return [list(map(int, rng.integers(3, vocab + 3, 100))) for _ in range(count)]

    lm = {**extrinsic["lm"], "epochs": 1}
    train_lm(corpus(lm["batch_size"]), corpus(256), vocab, LMSettings(**lm))


def child_sentence_bias_evaluate(n: int, scratch: Path, source: Path) -> None:
    import numpy as np
    from synthetic_text import synthetic_lines

    from cdaflow.sentence_bias.senteval import ClassifierSettings, run_senteval

    lines = iter(synthetic_lines(n + sum(SST2_DEV_TEST), seed=5))
    for split, count in (("train", n), ("dev", SST2_DEV_TEST[0]), ("test", SST2_DEV_TEST[1])):
        path = scratch / "SST" / "binary" / f"sentiment-{split}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{next(lines)}\t{i % 2}\n" for i in range(count)))
    senteval = _paper_config(source)["studies"]["sentence_bias"]["senteval"]
    classifier = ClassifierSettings.from_config({**senteval["classifier"], "max_epoch": 1})  # one round: memory only
    rng = np.random.default_rng(0)

    def encode(sentences):  # InferSent's output: float32, 2 x 2,048 max-pooled units
        return rng.standard_normal((len(sentences), 4096), dtype=np.float32)

    run_senteval(encode, scratch, ["SST2"], seed=1111, kfold=senteval["kfold"], classifier=classifier)


def child_sentence_bias_evaluate_fixed(n: int, scratch: Path, source: Path) -> None:
    import numpy as np
    from synthetic_text import synthetic_lines

    from cdaflow.sentence_bias.embeddings import WordVectors
    from cdaflow.sentence_bias.infersent import InferSent

    words = 2_196_017  # GloVe 840B
    matrix = np.memmap(scratch / "vectors.f32", dtype=np.float32, mode="w+", shape=(words, 300))  # sparse: no pages
    sentences = list(synthetic_lines(128, seed=1))
    vocab = sorted({w for s in sentences for w in s.split()})
    names = [f"w{i}" for i in range(words - len(vocab))] + vocab
    encoder = InferSent.build(WordVectors(names, matrix), hidden=2048, seed=0)
    encoder.encode(sentences, 128)


def child_regender_parallel(n: int, scratch: Path, source: Path) -> None:
    from synthetic_text import synthetic_lines

    rng = random.Random(0)
    shards = [scratch / f"shard{k}.tsv" for k in range(4)]
    handles = [path.open("w", encoding="utf-8") for path in shards]
    for handle in handles:
        handle.write("segment\tlabel\tvariant\tgendered\n")
    for i, line in enumerate(synthetic_lines(n, seed=9)):
        segment = f"{line} {i}"  # distinct, as the shards' segments are
        if rng.random() < G_SHARE:
            row = (segment, "G", f"{line} {i}a", "1")
        else:
            row = (segment, "N", segment, str(int(rng.random() < 0.3)))
        handles[i % 4].write("\t".join(row) + "\n")
    for handle in handles:
        handle.close()
    test_set = scratch / "test_set.tsv"
    test_set.write_text("id\tlabel\tsegment\tvariant\nt1\tG\tEstoy cansado.\tEstoy cansada.\n", encoding="utf-8")
    out = scratch / "parallel"
    out.mkdir()
    regender = _paper_config(source)["studies"]["regender"]
    smk = _smk("regender_parallel", scratch, input=Params(decided=[str(p) for p in shards], test_sets=[str(test_set)]),
               output=Params(test_set=str(out / "test.tsv"), stats=str(scratch / "stats.tsv")),
               params=Params(neutral_ratio=regender["neutral_ratio"], split=regender["split"], seed=1, scale="paper"),
               wildcards=Params())  # fmt: skip
    _run_script(source, "regender/parallel.py", smk)


def run_child(kind: str, n: int, source: Path) -> None:
    sys.path[:0] = [str(source / "src"), str(HERE)]
    with tempfile.TemporaryDirectory(prefix="memory_per_item.") as scratch:
        before = resource.getrusage(resource.RUSAGE_SELF)
        globals()[f"child_{kind}"](n, Path(scratch), source)
        after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    print(json.dumps({"cpu_s": round(cpu, 2), "peak_mb": round(after.ru_maxrss / 1024, 1)}))


def measure(kind: str, n: int, source: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(source / "src"), "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    result = subprocess.run([sys.executable, __file__, "--child", kind, str(n), "--source", str(source)],
                            capture_output=True, text=True, check=False, env=env)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"{kind} {n}: {result.stderr.strip()[-800:]}")
    row = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"# {kind} n={n}: peak {row['peak_mb']:.1f} MB, {row['cpu_s']:.1f} CPU s, "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=sorted(MEASUREMENTS), action="append", help="measure these rules only")
    parser.add_argument("--sizes", type=int, nargs=2, metavar=("SMALL", "LARGE"), help="instead of each default")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout whose code runs (default: this one)")
    parser.add_argument("--run", default="benchmarks/memory_per_item.py", help="the run column")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_child(args.child[0], int(args.child[1]), args.source.resolve())
        return 0
    source = args.source.resolve()
    print("rule\trun\titems\titems_small\tpeak_small_mb\titems_large\tpeak_large_mb\tfixed_mb")
    costs = []
    for rule in args.only or MEASUREMENTS:
        items, sizes, fixed_kind = MEASUREMENTS[rule]
        small, large = args.sizes or sizes
        extra = sum(SST2_DEV_TEST) if rule == "sentence_bias_evaluate" else 0  # dev and test are embedded too
        low, high = measure(rule, small, source), measure(rule, large, source)
        fixed = measure(fixed_kind, 0, source)["peak_mb"] if fixed_kind else ""
        slope = (high["peak_mb"] - low["peak_mb"]) / (large - small)
        print(f"# {rule}: {1024 * slope:.3f} kB an item", file=sys.stderr)
        print(f"{rule}\t{args.run}\t{items}\t{small + extra}\t{low['peak_mb']}\t{large + extra}\t{high['peak_mb']}"
              f"\t{fixed}", flush=True)
        costs.append(f"{rule}\t{args.run}\t{items}\t{large}\t1\t{high['cpu_s']}\t{high['peak_mb']}")
    # A rule without a measured run (regender_parallel) takes its CPU cost from the larger size.
    print("# as rows of resources/jobs_measured.tsv (the larger size):")
    for row in costs:
        print(f"# {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
