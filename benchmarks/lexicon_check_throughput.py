"""What the lexicon check costs `cdaflow cda` on real sentences, beside `cda` without it and `cdaflow parse`.

Takes ``--lines`` real Spanish sentences (the ``# text`` lines of the UD AnCora samples, then the
GSD ones, in ``../shared/data/ud-treebanks-v2.2``; repeated when there are fewer), writes them to
a file and runs, each in its own process, on that same file:

* ``cdaflow parse --lang es`` (the CLI's parsing path alone, output to /dev/null);
* ``cdaflow cda --lang es --model M --no-lexicon-check``;
* ``cdaflow cda --lang es --model M`` (the lexicon check on: Hunspell's es_ES dictionary).

Each time is taken from start to exit minus the same command's start-up on a one-line file
(imports, model and dictionary loading), in CPU seconds (user + system, the hunspell process
included) and in wall-clock seconds; the best of ``--rounds`` rounds counts. Prints lines/s and the
two ratios the lexicon check is held to: ``cda`` with the check at least 80 % of ``cda`` without
it, and ``cda`` at least 60 % of ``parse``.

    python benchmarks/lexicon_check_throughput.py [--lines 5000]
        [--model results/morph_cda/es/models/lin] [--rounds 1] [--threads 1]

Skips the check's run when Hunspell or its Spanish dictionary is not installed
(``apt-get install hunspell hunspell-es``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from raw_text_throughput import run_measured  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2"
TREEBANKS = (
    "UD_Spanish-AnCora/es_ancora-ud-test.conllu",
    "UD_Spanish-AnCora/es_ancora-ud-dev.conllu",
    "UD_Spanish-GSD/es_gsd-ud-test.conllu",
    "UD_Spanish-GSD/es_gsd-ud-dev.conllu",
)
TARGETS = {"check": 0.80, "parse": 0.60}


def real_sentences(data: Path, count: int) -> list[str]:
    """The first `count` distinct ``# text`` sentences of the treebanks, repeated when fewer."""
    seen: dict[str, None] = {}
    for name in TREEBANKS:
        path = data / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# text = "):
                seen.setdefault(" ".join(line[len("# text = "):].split()), None)
                if len(seen) >= count:
                    return list(seen)
    texts = [t for t in seen if t]
    if not texts:
        raise SystemExit(f"no '# text' lines in {', '.join(TREEBANKS)} under {data}")
    return [texts[i % len(texts)] for i in range(count)]


def main(argv: list[str] | None = None) -> int:
    from cdaflow.morph_cda.hunspell import Hunspell
    from cdaflow.text.language import load

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=5_000)
    parser.add_argument("--model", type=Path, default=ROOT / "results/morph_cda/es/models/lin", help="cda model")
    parser.add_argument("--data", type=Path, default=DATA, help="the UD 2.2 samples (default: ../shared/data/...)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the three runs; the best counts")
    parser.add_argument("--batch-size", type=int, default=256, help="passed to every command")
    parser.add_argument("--threads", type=int, default=1,
                        help="OMP/MKL threads of every command (default 1: CPU seconds then count work, "
                        "not threads waiting on a busy machine; 0: the libraries' default)")
    args = parser.parse_args(argv)
    if args.lines < 1 or args.rounds < 1:
        parser.error("--lines and --rounds must be at least 1")
    if not args.model.is_dir():
        parser.error(f"no model at {args.model} (snakemake --configfile config/validation.yaml -- {args.model})")
    checker = Hunspell.find(load("es").hunspell)
    cli = [sys.executable, "-m", "cdaflow.cli"]
    batch = ["--batch-size", str(args.batch_size)]
    cda = [*cli, "cda", "--lang", "es", "--model", str(args.model), *batch, "--output", os.devnull]
    runs = {
        "parse": [*cli, "parse", "--lang", "es", *batch, "--output", os.devnull],
        "cda (no check)": [*cda, "--no-lexicon-check"],
    }
    if checker is not None:
        runs["cda (check)"] = cda
    else:
        print("cda (check) skipped: hunspell or its es_ES dictionary is not installed")
    if args.threads > 0:
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[name] = str(args.threads)
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as work:
        text, one = Path(work) / "lines.txt", Path(work) / "one.txt"
        text.write_text("".join(s + "\n" for s in real_sentences(args.data, args.lines)), encoding="utf-8")
        one.write_text("La profesora está cansada.\n", encoding="utf-8")
        print(f"{args.lines:,} real Spanish sentences (UD AnCora, then GSD); batch size {args.batch_size}; "
              f"{os.cpu_count()} CPU(s), {args.threads or 'default'} thread(s); best of {args.rounds} round(s), "
              "start-up excluded")
        for round_ in range(args.rounds):
            for name, command in runs.items():
                startup_wall, startup_cpu, _ = run_measured([*command, "--input", str(one)])
                wall, cpu, _ = run_measured([*command, "--input", str(text)])
                seconds = (max(cpu - startup_cpu, 1e-9), max(wall - startup_wall, 1e-9))
                print(f"  round {round_ + 1} {name:15s} {seconds[0]:7.1f} s CPU {seconds[1]:7.1f} s wall "
                      f"(start-up {startup_wall:.1f} s wall)", flush=True)
                if name not in best or seconds[0] < best[name][0]:
                    best[name] = seconds
    rates = {name: (args.lines / cpu, args.lines / wall) for name, (cpu, wall) in best.items()}
    for name, (cpu_rate, wall_rate) in rates.items():
        print(f"{name:15s} {cpu_rate:8,.1f} lines/s (CPU) {wall_rate:8,.1f} lines/s (wall)")
    pairs = [("cda (check)", "cda (no check)", TARGETS["check"]), ("cda (check)", "parse", TARGETS["parse"]),
             ("cda (no check)", "parse", None)]
    for name, base, target in pairs:
        if name in rates and base in rates:
            cpu_ratio, wall_ratio = rates[name][0] / rates[base][0], rates[name][1] / rates[base][1]
            met = "met" if target is not None and cpu_ratio >= target else "NOT met"
            verdict = "" if target is None else f"  target >= {target:.0%}: {met}"
            print(f"{name} / {base}: {cpu_ratio:.0%} (CPU), {wall_ratio:.0%} (wall){verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
