"""Long-lived helper processes (hunspell, hspell) fed and read through pipes."""

from __future__ import annotations

import subprocess
from typing import IO, Any

__all__ = ["end_process"]


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
