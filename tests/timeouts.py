"""How long a test may let a workflow run (snakemake, or a command on its results) take.

A busy 2-core machine runs the demo several times slower than an idle one, so no test sets a
fixed wall-clock limit of its own: ``CDAFLOW_TEST_TIMEOUT`` gives the seconds (``0`` or ``none``:
no limit); unset, the limit is 6 hours, there only to stop a hung run from holding CI forever.
"""

from __future__ import annotations

import os

ENV = "CDAFLOW_TEST_TIMEOUT"
DEFAULT_SECONDS = 6 * 3600


def workflow_timeout() -> float | None:
    """Seconds for ``subprocess.run(..., timeout=...)`` of a workflow run; None for no limit."""
    text = os.environ.get(ENV, "").strip().lower()
    if not text:
        return DEFAULT_SECONDS
    if text in ("0", "none", "off"):
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"{ENV}={text!r}: expected seconds (a number), 0 or none") from None
    if seconds < 0:
        raise ValueError(f"{ENV}={text!r}: expected seconds >= 0")
    return seconds or None
