"""The neural rewriter of Jain et al. (2021, §5): SentencePiece BPE + a Sockeye 3 transformer.

Three set-ups share one recipe: ``nmt`` (plain source), ``nmt_t`` (a gold ``<N>``/``<G>`` tag
token in front of every source segment, after Johnson et al. 2017) and ``nmt_at`` (the ``nmt_t``
model, tags from the classifier at test time). Tag tokens are SentencePiece user-defined symbols,
so they stay one piece.

Sockeye runs as its own command-line tools (``sockeye-prepare-data``, ``sockeye-train``,
``sockeye-translate``), as the paper used it: :func:`run_sockeye` finds them next to the Python
interpreter or on PATH, streams their output into the rule's log and raises, naming the command
and quoting the end of its log, when one fails. Weights are tied, so the vocabulary is shared
(``--shared-vocab`` in prepare and train).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cdaflow.runtime import find_console_script

__all__ = [
    "SETUPS",
    "TAGS",
    "SockeyeError",
    "add_tags",
    "apply_bpe",
    "find_tool",
    "remove_bpe",
    "run_sockeye",
    "train_bpe",
    "train_command",
]

log = logging.getLogger(__name__)

SETUPS = ("nmt", "nmt_t", "nmt_at")
TAGS = {"N": "<N>", "G": "<G>"}


class SockeyeError(RuntimeError):
    """A Sockeye tool is missing or failed."""


def find_tool(name: str) -> str:
    """The path of a Sockeye console script: beside this interpreter, else on PATH."""
    found = find_console_script(name)
    if found is None:
        raise SockeyeError(
            f"{name} not found beside {sys.executable} or on PATH; install sockeye 3 "
            "(pip install --no-deps sockeye==3.1.34, as `make setup` does)"
        )
    return found


def run_sockeye(tool: str, arguments: Sequence[str], *, log_path: str | os.PathLike[str] | None = None,
                env: Mapping[str, str] | None = None) -> None:
    """Run one Sockeye tool; its output goes to `log_path` (appended) and, on failure, into the error."""
    command = [find_tool(tool), *map(str, arguments)]
    log.info("running %s", " ".join(command))
    environment = {**os.environ, **(env or {})}
    if log_path is None:
        result = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
        output = result.stdout + result.stderr
    else:
        with open(log_path, "a", encoding="utf-8") as handle:
            result = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, text=True,
                                    env=environment, check=False)
        output = Path(log_path).read_text(encoding="utf-8", errors="replace")
    if result.returncode != 0:
        tail = "\n".join(output.strip().splitlines()[-15:])
        where = f" (full log: {log_path})" if log_path else ""
        raise SockeyeError(f"{tool} failed with exit code {result.returncode}{where}:\n{tail}")


def add_tags(segments: Iterable[str], labels: Iterable[str]) -> list[str]:
    """``<N> segment`` / ``<G> segment`` for NMT-T and NMT-AT sources."""
    out = []
    for segment, label in zip(segments, labels, strict=True):
        if label not in TAGS:
            raise ValueError(f"tag {label!r} is not one of {sorted(TAGS)}")
        out.append(f"{TAGS[label]} {segment}")
    return out


def train_bpe(texts: Iterable[str], model_prefix: str | os.PathLike[str], vocab_size: int, *,
              threads: int = 1) -> Path:
    """A SentencePiece BPE model on `texts` (tags are user-defined symbols); returns the .model path.

    BPE training reads every sentence (no sampling), so it is deterministic. The vocabulary
    shrinks to what the corpus supports (``hard_vocab_limit=False``), so a tiny demo corpus trains.
    """
    import sentencepiece as spm

    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(texts)),
        model_prefix=str(model_prefix),
        model_type="bpe",
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=1.0,
        user_defined_symbols=list(TAGS.values()),
        num_threads=threads,
        minloglevel=2,
    )
    return Path(f"{model_prefix}.model")


def apply_bpe(model: str | os.PathLike[str], texts: Iterable[str]) -> list[str]:
    """Each text as space-separated BPE pieces."""
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(model))
    return [" ".join(processor.encode(text, out_type=str)) for text in texts]


def remove_bpe(model: str | os.PathLike[str], lines: Iterable[str]) -> list[str]:
    """Sockeye output (space-separated pieces) back to text; a leading tag token is dropped."""
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(model))
    out = []
    for line in lines:
        pieces = [piece for piece in line.split() if piece not in TAGS.values()]
        out.append(processor.decode(pieces))
    return out


def train_command(prepared: str | os.PathLike[str], dev_source: str | os.PathLike[str],
                  dev_target: str | os.PathLike[str], output: str | os.PathLike[str], settings: Mapping[str, Any],
                  *, seed: int, use_cpu: bool) -> list[str]:
    """``sockeye-train`` arguments for a transformer with the given settings (config ``sockeye``)."""
    arguments = [
        "--prepared-data", prepared,
        "--validation-source", dev_source,
        "--validation-target", dev_target,
        "--output", output,
        "--shared-vocab",
        "--weight-tying-type", "src_trg_softmax",
        "--num-layers", f"{settings['num_layers']}:{settings['num_layers']}",
        "--transformer-model-size", settings["model_size"],
        "--transformer-attention-heads", settings["attention_heads"],
        "--transformer-feed-forward-num-hidden", settings["ff_size"],
        "--batch-size", settings["batch_size"],
        "--batch-type", settings["batch_type"],
        "--max-updates", settings["max_updates"],
        "--checkpoint-interval", settings["checkpoint_interval"],
        "--max-seq-len", f"{settings['max_seq_len']}:{settings['max_seq_len']}",
        "--initial-learning-rate", settings["learning_rate"],
        "--optimized-metric", "perplexity",
        "--seed", seed,
        "--keep-last-params", 1,
        "--no-logfile",
    ]
    if use_cpu:
        arguments.append("--use-cpu")
    return [str(a) for a in arguments]
