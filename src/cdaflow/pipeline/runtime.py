"""What every workflow script does around its real work: log to the rule's log file, fix seeds."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import threadpoolctl

log = logging.getLogger("cdaflow")


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and (when imported) torch; deterministic torch kernels on CPU."""
    random.seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    try:
        import numpy as np

        np.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover - numpy is a hard dependency
        pass
    torch = sys.modules.get("torch")  # seeded only where the rule uses it; never imported for that alone
    if torch is not None:
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True, warn_only=True)


def setup_logging(log_file: str | Path | None = None, level: int = logging.INFO) -> None:
    """Log to `log_file` (the rule's log) and to stderr."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w", encoding="utf-8"))
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


@contextlib.contextmanager
def rule_context(smk: Any, seed: int | None = None) -> Iterator[tuple[Any, logging.Logger]]:
    """Set up a Snakemake script: logging to its `log:`, threads, seed; log any failure in full.

    Yields the ``snakemake`` object back with the rule's logger, so that a script reads
    ``with rule_context(snakemake) as (smk, log):``.
    """
    setup_logging(smk.log[0] if len(smk.log) else None)
    rule_log = logging.getLogger(f"cdaflow.rule.{smk.rule}")
    wildcards = dict(smk.wildcards.items())
    rule_log.info("rule %s wildcards=%s threads=%d", smk.rule, wildcards, smk.threads)
    if seed is None:
        seed = smk.config.get("seed")
    if seed is not None:
        seed_everything(int(seed))
        rule_log.info("seed %d", seed)
    os.environ["OMP_NUM_THREADS"] = str(smk.threads)
    # Libraries already loaded read that variable too early: cap their BLAS and OpenMP pools
    # (numpy, scikit-learn, spaCy) and torch's to the rule's threads. Two jobs that each spin
    # up a pool per core on a 2-core node slow each other down many times over.
    threadpoolctl.threadpool_limits(limits=smk.threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(smk.threads)
    started = time.perf_counter()
    try:
        yield smk, rule_log
    except SystemExit:  # the script said why, in one line
        raise
    except BaseException:
        rule_log.exception("rule %s failed", smk.rule)
        raise
    rule_log.info("rule %s done in %.1f s", smk.rule, time.perf_counter() - started)


def input_path(inputs: Any, member: str | None = None) -> Path | None:
    """The file a rule reads from a config `file_ref`: its input (a path, or an acquired dataset
    folder) joined with the member inside the folder. None when the reference is absent."""
    paths = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    if not paths:
        return None
    return Path(paths[0]) / member if member else Path(paths[0])


def model_source(ref: dict[str, str], inputs: Any, member: str | None = None) -> str:
    """What a loader takes for a config `model_ref`: an installed package's bundled folder, a Hub
    id (fetched by the loader), or the rule's input path."""
    if "package" in ref:
        from cdaflow.io.models import resolve_model_source

        source = resolve_model_source(ref["package"])
        if source == ref["package"]:
            raise ImportError(f"the model package {ref['package']!r} is not installed")
        return source
    if "hub" in ref:  # the folder fetch_model filled; the id itself where no rule fetched it
        fetched = input_path(inputs)
        return str(fetched) if fetched is not None else ref["hub"]
    path = input_path(inputs, member)
    if path is None:
        raise FileNotFoundError(f"model reference {ref} names no input")
    return str(path)
