"""Peak memory and time of the re-genderability classifier (rule regender_classifier) against corpus size.

Fits the rule's pipeline (cdaflow.regender.classifier.build_classifier: TF-IDF char 4-7-grams and word
1-3-grams, the gendered-word flag, a linear SVM) on ``--segments`` synthetic Spanish chat segments of at
most 10 words (``synthetic_text.py``; half labelled G), each size in a fresh child process, and prints
its peak resident set size (VmHWM) and wall time. The paper-scale training split is about 2.2M segments
(Jain et al. 2021, appendix Table 1): the rule's ``mem_mb`` at paper scale comes from these figures
(resources/jobs.yaml). The settings compared: the config's (``max_word_features`` from the schema) and
the uncapped word n-grams of the previous default (``--uncapped``).

    python benchmarks/regender_classifier_memory.py --segments 50000 100000 200000
    python benchmarks/regender_classifier_memory.py --segments 100000 --uncapped
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = """
import json, sys, time, resource
sys.path.insert(0, {here!r})
from synthetic_text import synthetic_lines
from cdaflow.regender.classifier import build_classifier, frame
n, settings = int(sys.argv[1]), json.loads(sys.argv[2])
texts = [" ".join(line.split()[:10]) for line in synthetic_lines(n, seed=7)]
labels = ["G" if i % 2 else "N" for i in range(n)]
gendered = [i % 3 == 0 for i in range(n)]
started = time.perf_counter()
model = build_classifier(**settings, seed=0)
model.fit(frame(texts, gendered), labels)
features = model.named_steps["svm"].coef_.shape[1]
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"seconds": time.perf_counter() - started, "cpu_s": usage.ru_utime + usage.ru_stime,
                  "peak_mb": usage.ru_maxrss / 1024, "features": features}}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, nargs="+", default=[50_000, 100_000, 200_000])
    parser.add_argument("--uncapped", action="store_true", help="word n-grams without max_word_features")
    args = parser.parse_args(argv)
    settings = {"max_word_features": None} if args.uncapped else {}
    code = CHILD.format(here=str(Path(__file__).resolve().parent))
    print("segments\tpeak_mb\tseconds\tcpu_s\tfeatures\tsettings")
    rows = []
    for n in args.segments:
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-c", code, str(n), json.dumps(settings)], capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            print(f"{n}\tfailed after {time.perf_counter() - started:.0f} s: {result.stderr.strip()[-300:]}")
            return 1
        row = json.loads(result.stdout.strip().splitlines()[-1])
        rows.append((n, row["peak_mb"]))
        print(f"{n}\t{row['peak_mb']:.0f}\t{row['seconds']:.1f}\t{row['cpu_s']:.1f}\t{row['features']}\t"
              f"{settings or 'config'}")
    if len(rows) >= 2:
        (n0, m0), (n1, m1) = rows[0], rows[-1]
        slope = (m1 - m0) / (n1 - n0)
        print(f"linear fit: {m0 - slope * n0:.0f} MB + {slope * 1e6:.0f} MB per million segments; "
              f"at 2,193,657 segments: {m0 + slope * (2_193_657 - n0):.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
