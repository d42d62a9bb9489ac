"""Memory of `cdaflow regender --method rules` (or `cdaflow cda`) on a long stream of raw text.

Runs the CLI as a child process, writes ``--lines`` varied synthetic Spanish lines
(``synthetic_text.py``: many distinct names, numbers and codes, so the parser keeps meeting new
words as in real text) to its standard input and reads its JSON lines back. Each time the output
reaches a checkpoint it prints the child's peak resident set size (VmHWM) and current RSS, so a
flat run prints about the same peak at 100k and at 1M lines. Linux only (reads /proc).

    python benchmarks/regender_memory.py [--lines 1000000] [--every 100000]
    python benchmarks/regender_memory.py --command cda --model results/morph_cda/es/models/lin
    python benchmarks/regender_memory.py --lines 20000 --every 5000      # a quick check
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_text import synthetic_lines  # noqa: E402


def memory_mb(pid: int) -> tuple[float, float]:
    """(peak RSS, current RSS) of process `pid` in MB, from /proc/<pid>/status."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            fields[name] = int(value.split()[0]) / 1024  # kB
    return fields["VmHWM"], fields["VmRSS"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="input lines (default: 1,000,000)")
    parser.add_argument("--every", type=int, default=100_000, help="print memory every this many lines")
    parser.add_argument("--command", choices=("regender", "cda"), default="regender")
    parser.add_argument("--model", type=Path, help="cda: a model folder (results/morph_cda/es/models/lin)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    if args.lines < 1 or args.every < 1:
        parser.error("--lines and --every must be at least 1")
    if not Path("/proc/self/status").exists():
        print("skipped: needs Linux /proc to read a process's memory")
        return 0
    command = [sys.executable, "-m", "cdaflow.cli", args.command, "--lang", "es"]
    if args.command == "cda":
        if args.model is None or not args.model.is_dir():
            print(f"skipped: cda needs --model (a trained folder), got {args.model}")
            return 0
        command += ["--model", str(args.model)]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
                             stderr=subprocess.DEVNULL)

    def feed() -> None:
        try:
            for line in synthetic_lines(args.lines, args.seed):
                child.stdin.write(line + "\n")
        except BrokenPipeError:
            pass
        finally:
            try:
                child.stdin.close()
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=feed, daemon=True)
    start = time.perf_counter()
    writer.start()
    print(f"{' '.join(command[1:])}: {args.lines:,} synthetic lines on standard input")
    print(f"{'lines':>10} {'peak RSS MB':>12} {'RSS MB':>8} {'lines/s':>8}")
    seen = 0
    checkpoints = set(range(args.every, args.lines + 1, args.every)) | {args.lines}
    for _ in child.stdout:
        seen += 1
        if seen in checkpoints:
            peak, rss = memory_mb(child.pid)
            print(f"{seen:>10,} {peak:>12.1f} {rss:>8.1f} {seen / (time.perf_counter() - start):>8.0f}", flush=True)
    writer.join()
    code = child.wait()
    if code != 0 or seen != args.lines:
        print(f"error: the command exited with {code} after {seen:,} output lines of {args.lines:,}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
