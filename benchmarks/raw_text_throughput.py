"""Throughput of `cdaflow cda` and `cdaflow regender` on raw text beside spaCy's own ``nlp.pipe``.

Writes ``--lines`` varied synthetic Spanish lines (``synthetic_text.py``) to a file, then runs,
each in its own process:

* the parser alone: ``spacy.load`` without the components the CLI excludes, then only
  ``nlp.pipe(texts, batch_size, n_process)`` is timed, with the components the task does not read
  disabled as the CLI disables them (cda: named entities; regender: named entities and the
  dependency parser);
* the CLI on the same file (output to /dev/null), timed from start to exit, minus the same
  CLI's start-up on a one-line file (imports, model loading).

Prints lines/s of both and the CLI's share of the parser's rate (the goal: at least 80 %).
Rates come from CPU seconds (user + system) with ``--processes 1``, so other load on the
machine does not skew them; with more processes, from wall-clock seconds.

    python benchmarks/raw_text_throughput.py [--lines 20000] [--command all]
        [--model results/morph_cda/es/models/lin] [--processes 1]

`cdaflow cda` does more than parse (the MRF and the reinflection model run on every sentence
with an animate noun), so its share also measures that work; `parse` shows the parsing path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_text import synthetic_lines  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# What each command reads of spaCy's analysis decides what the parser alone runs.
DISABLED = {"cda": [], "regender": ["parser"], "parse": []}
PARSE_BATCH = 256  # the CLI's batch for cda and regender; parse is given it with --batch-size


def run_measured(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and the children it waited for, stdout)."""
    before, start = os.times(), time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True)
    wall, after = time.perf_counter() - start, os.times()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}):\n{process.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, process.stdout


def reference(args: argparse.Namespace) -> int:
    """Child mode: time spaCy's nlp.pipe alone and print a JSON line."""
    import warnings

    import spacy

    from cdaflow.text.spacy_parser import SpacyParser, spacy_pipeline

    warnings.filterwarnings("ignore", message=".*W095.*")
    texts = [" ".join(line.split()) for line in Path(args.reference).read_text(encoding="utf-8").splitlines()]
    nlp = spacy.load(spacy_pipeline("es"), exclude=list(SpacyParser.UNUSED_COMPONENTS))
    disable = DISABLED[args.command]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    count = sum(1 for _ in nlp.pipe(texts, batch_size=PARSE_BATCH, n_process=args.processes,
                                     disable=disable))
    print(json.dumps({"texts": count, "wall": time.perf_counter() - wall0, "cpu": time.process_time() - cpu0,
                      "components": [n for n in nlp.pipe_names if n not in disable]}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--command", choices=("cda", "regender", "parse", "all"), default="all",
                        help="parse: `cdaflow parse`, the CLI's parsing path without any task (default: all)")
    parser.add_argument("--model", type=Path, default=ROOT / "results/morph_cda/es/models/lin", help="cda model")
    parser.add_argument("--processes", type=int, default=1, help="parser worker processes (both sides)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--reference", help=argparse.SUPPRESS)  # child mode: a text file to parse
    args = parser.parse_args(argv)
    if args.reference:
        return reference(args)
    if args.lines < 1 or args.processes < 1:
        parser.error("--lines and --processes must be at least 1")
    commands = ["parse", "cda", "regender"] if args.command == "all" else [args.command]
    if "cda" in commands and not args.model.is_dir():
        print(f"cda skipped: no model at {args.model} (snakemake results/morph_cda/es/models/lin)")
        commands.remove("cda")
    use_cpu = args.processes == 1
    unit = "CPU" if use_cpu else "wall-clock"
    with tempfile.TemporaryDirectory() as work:
        text, one = Path(work) / "lines.txt", Path(work) / "one.txt"
        text.write_text("".join(line + "\n" for line in synthetic_lines(args.lines, args.seed)), encoding="utf-8")
        one.write_text("Estoy cansada.\n", encoding="utf-8")
        print(f"{args.lines:,} synthetic lines, {args.processes} parser process(es); rates from {unit} seconds")
        for name in commands:
            wall, cpu, out = run_measured([sys.executable, __file__, "--reference", str(text), "--command", name,
                                            "--processes", str(args.processes)])
            ref = json.loads(out.strip().splitlines()[-1])
            ref_rate = ref["texts"] / (ref["cpu"] if use_cpu else ref["wall"])
            cli = [sys.executable, "-m", "cdaflow.cli", name, "--lang", "es", "--processes", str(args.processes)]
            if name == "cda":
                cli += ["--model", str(args.model)]
            if name == "parse":
                cli += ["--batch-size", str(PARSE_BATCH), "--output", os.devnull]
            startup_wall, startup_cpu, _ = run_measured([*cli, "--input", str(one)])
            wall, cpu, _ = run_measured([*cli, "--input", str(text)])
            seconds = (cpu - startup_cpu) if use_cpu else (wall - startup_wall)
            cli_rate = args.lines / seconds
            print(f"{name:9s} spaCy nlp.pipe ({'+'.join(ref['components'])}): {ref_rate:8,.0f} lines/s")
            print(f"{name:9s} cdaflow {name} CLI: {cli_rate:8,.0f} lines/s "
                  f"({cli_rate / ref_rate:.0%} of the parser alone; start-up {startup_wall:.1f} s wall excluded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
