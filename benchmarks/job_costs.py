"""Cost per item of the heavy steps whose demo and validation runs are too small to time.

Each measurement runs in a fresh child process on synthetic input of a given size and reports its CPU
seconds and peak memory as rows of ``resources/jobs_measured.tsv`` (``run``: this script): the
GloVe text conversion of ``sentence_bias_vectors`` (the demo and validation configs read a packaged
matrix instead), SentencePiece training of ``regender_bpe`` and ``gap_subjective_transfer_spm`` (on
synthetic chat lines), and the TF-IDF + linear SVM fit of ``regender_classifier``. Paste the rows
into the TSV; ``cdaflow.pipeline.cluster`` then sizes those rules' paper-scale jobs.

    python benchmarks/job_costs.py [--words 50000] [--lines 100000] [--segments 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import json, resource, sys, tempfile
from pathlib import Path
sys.path.insert(0, {here!r})
from synthetic_text import synthetic_lines
kind, n = sys.argv[1], int(sys.argv[2])
with tempfile.TemporaryDirectory() as scratch:
    scratch = Path(scratch)
    if kind == "glove":
        import numpy as np
        from cdaflow.sentence_bias.embeddings import convert_glove_text
        rng = np.random.default_rng(0)
        with open(scratch / "glove.txt", "w", encoding="utf-8") as handle:
            for i in range(n):
                handle.write(f"w{{i}} " + " ".join(f"{{x:.5f}}" for x in rng.normal(0, 0.3, 300)) + "\\n")
        before = resource.getrusage(resource.RUSAGE_SELF)
        convert_glove_text(scratch / "glove.txt", scratch / "vectors")
    elif kind in ("bpe", "spm"):
        lines = list(synthetic_lines(n, seed=3))
        before = resource.getrusage(resource.RUSAGE_SELF)
        if kind == "bpe":  # both sides of the gender-parallel corpus
            from cdaflow.regender.rewriter import train_bpe
            train_bpe(lines + lines[::-1], scratch / "bpe", 8000)
        else:  # both sides of the WNC pairs
            from cdaflow.gap_subjective.pieces import train_sentencepiece
            train_sentencepiece(lines + lines[::-1], scratch / "spm", 8000)
    elif kind == "classifier":
        from cdaflow.regender.classifier import build_classifier, frame
        texts = [" ".join(line.split()[:10]) for line in synthetic_lines(n, seed=7)]
        before = resource.getrusage(resource.RUSAGE_SELF)
        build_classifier(seed=0).fit(frame(texts, [i % 3 == 0 for i in range(n)]),
                                     ["G" if i % 2 else "N" for i in range(n)])
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    print(json.dumps({{"cpu_s": cpu, "peak_mb": after.ru_maxrss / 1024}}))
"""

# rule, its item key, the measurement, what n counts
MEASUREMENTS = (
    ("sentence_bias_vectors", "glove_words", "glove", "words"),
    ("regender_bpe", "regender_train_pairs", "bpe", "lines"),
    ("gap_subjective_transfer_spm", "wnc_pairs", "spm", "lines"),
    ("regender_classifier", "regender_train_pairs", "classifier", "segments"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=50_000, help="GloVe words to convert")
    parser.add_argument("--lines", type=int, default=100_000, help="segment pairs for SentencePiece")
    parser.add_argument("--segments", type=int, default=100_000, help="segments for the classifier")
    args = parser.parse_args(argv)
    code = CHILD.format(here=str(HERE))
    print("rule\trun\titems\titems_measured\tjobs_measured\tcpu_s\tpeak_mb")
    for rule, items, kind, counted in MEASUREMENTS:
        n = getattr(args, counted)
        result = subprocess.run([sys.executable, "-c", code, kind, str(n)], capture_output=True, text=True,
                                check=False)  # fmt: skip
        if result.returncode != 0:
            print(f"# {rule}: failed: {result.stderr.strip()[-300:]}", file=sys.stderr)
            return 1
        row = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"{rule}\tbenchmarks/job_costs.py\t{items}\t{n}\t1\t{row['cpu_s']:.2f}\t{row['peak_mb']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
