"""External tools: finding an installed console script, and ending long-lived helper processes
(hunspell, hspell) fed and read through pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

__all__ = ["end_process", "find_console_script"]


def end_process(process: subprocess.Popen, *others: IO[Any]) -> None:
    """Close the pipes (and `others`, e.g. a stderr log) and end the process: such a tool holds
    nothing worth waiting for, so it is terminated, then killed if it lingers."""
    for stream in (process.stdin, process.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in others:
        stream.close()


def find_console_script(name: str) -> str | None:
    """A console script installed beside this interpreter (the venv's bin/), else on PATH; None if neither."""
    import shutil

    beside = Path(sys.executable).with_name(name)
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)
