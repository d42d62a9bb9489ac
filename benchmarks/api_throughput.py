"""Throughput of the Python API (`cdaflow.CDA`) beside the `cdaflow cda` command on the same sentences.

The sentences are real Spanish: the ``# text`` lines of the UD Spanish GSD and AnCora dev and
test files in ``../shared/data/ud-treebanks-v2.2`` (5,201 there), else, when that folder is
absent, varied synthetic lines (``synthetic_text.py``; said in the output). Each side runs in
its own process, alternately ``--repeat`` times, and the best run of each counts:

* the API: ``CDA.load`` and one warm-up sentence (not timed), then ``list(cda.stream(lines))``;
* the command: ``cdaflow cda --input FILE --output /dev/null``, timed from start to exit, minus
  the same command's run on a one-line file (imports, model loading, warm-up).

Rates come from CPU seconds (user + system; other helpers' load on the machine does not skew
them), wall-clock ones beside them. The goal: the API at least 90 % of the command's rate (the
command does the API's work plus JSON and writing, so the API is expected at about 100 %).

    python benchmarks/api_throughput.py [--lines 5000] [--repeat 2] [--model results/morph_cda/es/models/lin]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_text_throughput import run_measured  # noqa: E402
from synthetic_text import synthetic_lines  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT.parent / "shared/data/ud-treebanks-v2.2"
TREEBANK_FILES = ("UD_Spanish-GSD/es_gsd-ud-dev.conllu", "UD_Spanish-GSD/es_gsd-ud-test.conllu",
                  "UD_Spanish-AnCora/es_ancora-ud-dev.conllu", "UD_Spanish-AnCora/es_ancora-ud-test.conllu")


def spanish_sentences(count: int, seed: int) -> tuple[list[str], str]:
    """`count` real sentences (UD Spanish) when the shared data is here, else synthetic ones."""
    sentences = []
    for name in TREEBANK_FILES:
        path = UD / name
        if path.is_file():
            with path.open(encoding="utf-8") as handle:
                sentences += [line[len("# text = "):].strip() for line in handle if line.startswith("# text = ")]
    if len(sentences) >= count:
        return sentences[:count], f"UD Spanish GSD + AnCora dev/test ({UD})"
    return synthetic_lines(count, seed), "synthetic Spanish (benchmarks/synthetic_text.py; no shared UD data here)"


def api_child(model: Path, text: Path) -> int:
    """Child mode: the API on the file's lines; one JSON line of seconds and counts."""
    from cdaflow import CDA

    lines = text.read_text(encoding="utf-8").splitlines()
    cda = CDA.load(model)
    cda(["La profesora está cansada."])  # the parser's and the models' first call: start-up, as the command's
    wall0, cpu0 = time.perf_counter(), os.times()
    records = list(cda.stream(lines))
    wall, cpu1 = time.perf_counter() - wall0, os.times()
    cda.close()
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    changed = sum(record["counterfactual"] is not None for record in records)
    print(json.dumps({"lines": len(records), "changed": changed, "wall": wall, "cpu": cpu}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each side, alternately (best counts)")
    parser.add_argument("--model", type=Path, default=ROOT / "results/morph_cda/es/models/lin")
    parser.add_argument("--seed", type=int, default=13, help="synthetic lines only")
    parser.add_argument("--api-child", type=Path, help=argparse.SUPPRESS)  # child mode: a text file
    args = parser.parse_args(argv)
    if args.api_child:
        return api_child(args.model, args.api_child)
    if args.lines < 1 or args.repeat < 1:
        parser.error("--lines and --repeat must be at least 1")
    if not (args.model / "cda.json").is_file():
        print(f"skipped: no CDA model at {args.model} (snakemake results/morph_cda/es/models/lin)")
        return 0
    sentences, where = spanish_sentences(args.lines, args.seed)
    with tempfile.TemporaryDirectory() as work:
        text, one = Path(work) / "lines.txt", Path(work) / "one.txt"
        text.write_text("".join(line + "\n" for line in sentences), encoding="utf-8")
        one.write_text("La profesora está cansada.\n", encoding="utf-8")
        cli = [sys.executable, "-m", "cdaflow.cli", "cda", "--lang", "es", "--model", str(args.model),
               "--output", os.devnull]
        api_runs, cli_runs = [], []
        for _ in range(args.repeat):
            _, _, out = run_measured([sys.executable, __file__, "--model", str(args.model), "--api-child", str(text)])
            api_runs.append(json.loads(out.strip().splitlines()[-1]))
            start_wall, start_cpu, _ = run_measured([*cli, "--input", str(one)])
            wall, cpu, _ = run_measured([*cli, "--input", str(text)])
            cli_runs.append({"wall": wall - start_wall, "cpu": cpu - start_cpu})
    api = min(api_runs, key=lambda run: run["cpu"])
    command = min(cli_runs, key=lambda run: run["cpu"])
    n = len(sentences)
    print(f"{n:,} sentences: {where}; {api['changed']:,} given a counterfactual; best of {args.repeat} runs each")
    for name, run in (("API  CDA.stream", api), ("CLI  cdaflow cda", command)):
        print(f"{name}: {n / run['cpu']:7,.0f} sentences/CPU s  {n / run['wall']:7,.0f} sentences/wall s")
    print(f"API / CLI: {command['cpu'] / api['cpu']:.0%} (CPU)  {command['wall'] / api['wall']:.0%} (wall); "
          "goal >= 90 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
