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

A trained model folder is the same on identical runs (:func:`settle_model_folder`): the wall
times Sockeye writes into ``metrics`` are taken out (the rule's log keeps them), ``args.yaml`` names
the final folder instead of the temporary one training wrote into, and the state for resuming a
training (``training_state/``: wall-clock times, RNG state) is dropped from the kept model.

Training survives a wall-time kill (:func:`train_rewriter`): ``sockeye-train`` writes into a folder
that is not a rule output (Snakemake deletes those when a job fails) and, run again with the same
arguments on a folder holding ``training_state/``, Sockeye continues from its last checkpoint with
weights, optimizer, learning-rate schedule, data iterator and RNG states restored.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from cdaflow.io.processes import find_console_script

__all__ = [
    "RESUME_STATE",
    "SETUPS",
    "TAGS",
    "WALL_TIME_METRICS",
    "SockeyeError",
    "add_tags",
    "apply_bpe",
    "find_tool",
    "remove_bpe",
    "run_sockeye",
    "settle_model_folder",
    "train_bpe",
    "train_command",
    "train_rewriter",
]

log = logging.getLogger(__name__)

SETUPS = ("nmt", "nmt_t", "nmt_at")
TAGS = {"N": "<N>", "G": "<G>"}
# Fields of Sockeye's `metrics` file that measure wall time, so differ between identical runs.
WALL_TIME_METRICS = ("time-elapsed", "avg-sec-per-sent-val", "decode-walltime-val")
# Sockeye's folder for continuing a training (it pickles wall-clock times and RNG state).
RESUME_STATE = "training_state"


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
    """Run one Sockeye tool; its output goes to `log_path` (appended) and, on failure, into the error.

    ``sockeye-train`` runs as :mod:`cdaflow.regender.sockeye_train` (its resumed data order fixed) when
    this interpreter has Sockeye, else as the console script found.
    """
    command = [find_tool(tool), *map(str, arguments)]
    if tool == "sockeye-train" and importlib.util.find_spec("sockeye") is not None:
        command = [sys.executable, "-m", "cdaflow.regender.sockeye_train", *map(str, arguments)]
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


TRAINED = "trained"  # written beside the model once sockeye-train has finished


def train_rewriter(prepared: str | os.PathLike[str], dev_source: str | os.PathLike[str],
                   dev_target: str | os.PathLike[str], resume_dir: str | os.PathLike[str],
                   settings: Mapping[str, Any], *, seed: int, use_cpu: bool,
                   log_path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``sockeye-train`` into ``<resume_dir>/model``, resuming a killed training; returns that folder.

    `resume_dir` must outlive a failed job. Run again with the same arguments, Sockeye continues from
    the last checkpoint of the ``training_state/`` it left there (see the module docstring); a finished
    training is not rerun. A folder left by other settings or inputs is emptied first (Sockeye would
    refuse it). Sockeye keeps ``training_state/`` at the end: :func:`settle_model_folder` on a copy
    drops it, and the caller removes `resume_dir` once the model is kept.
    """
    from cdaflow.io.resume import inputs_key, resume_folder

    resume_dir = Path(resume_dir)
    model = resume_dir / "model"
    arguments = train_command(prepared, dev_source, dev_target, model, settings, seed=seed, use_cpu=use_cpu)
    resume_folder(resume_dir, {"arguments": arguments, "inputs": inputs_key([prepared, dev_source, dev_target])})
    if (resume_dir / TRAINED).exists():
        log.info("%s: training already finished", model)
        return model
    _repair_state(model)
    if (model / RESUME_STATE).is_dir():
        log.info("%s: resuming the training from its last checkpoint", model)
    run_sockeye("sockeye-train", arguments, log_path=log_path, env=env)
    (resume_dir / TRAINED).touch()
    return model


def _repair_state(model: Path) -> None:
    """The folder of a killed ``sockeye-train`` made resumable, or removed where it cannot be.

    Killed between Sockeye's two renames of a checkpoint, the previous complete state is left as
    ``delete.training_state``: it is put back. A state whose ``params`` link does not reach a complete
    parameter file (a kill while Sockeye 3.1.34 itself wrote them; :mod:`cdaflow.regender.sockeye_train`
    writes them first), or a folder Sockeye would refuse (parameters, no state), is removed: training
    starts over.
    """
    import zipfile

    state, deleted = model / RESUME_STATE, model / f"delete.{RESUME_STATE}"
    if not state.exists() and deleted.is_dir():
        os.replace(deleted, state)
    if state.is_dir():
        params = state / "params"
        if params.exists() and zipfile.is_zipfile(params):  # torch.save's archive ends with its directory
            return
        log.warning("%s: the training state links to no complete parameters; training from the start", model)
        shutil.rmtree(model)
    elif (model / "params.best").exists():
        log.warning("%s: parameters without a training state; training from the start", model)
        shutil.rmtree(model)


def _strip_wall_times(metrics: Path) -> dict[int, dict[str, str]]:
    """Remove the wall-time fields from Sockeye's ``metrics`` (``<checkpoint>\t<key>=<value>\t...``)."""
    removed: dict[int, dict[str, str]] = {}
    kept_lines = []
    for number, line in enumerate(metrics.read_text(encoding="utf-8").splitlines(), start=1):
        checkpoint, *fields = line.split("\t")
        if not checkpoint.isdigit() or any("=" not in field for field in fields):
            raise SockeyeError(f"{metrics}:{number}: not a Sockeye metrics line: {line!r}")
        wall = {key: value for key, _, value in (f.partition("=") for f in fields) if key in WALL_TIME_METRICS}
        removed[int(checkpoint)] = wall
        kept_lines.append("\t".join([checkpoint, *(f for f in fields if f.partition("=")[0] not in wall)]) + "\n")
    metrics.write_text("".join(kept_lines), encoding="utf-8")
    return removed


class _ArgsLoader(yaml.SafeLoader):
    """Reads Sockeye's ``args.yaml``, whose settings include ``!!python/tuple`` values."""


_ArgsLoader.add_constructor(
    "tag:yaml.org,2002:python/tuple", lambda loader, node: tuple(loader.construct_sequence(node))
)


def _output_of(text: str) -> object:
    return (yaml.load(text, Loader=_ArgsLoader) or {}).get("output")  # noqa: S506 (a SafeLoader)


def _rename_output(args_file: Path, temporary: str, final: str) -> None:
    """Point ``output:`` of Sockeye's ``args.yaml`` at the final folder (other lines kept as written)."""
    text = args_file.read_text(encoding="utf-8")
    if _output_of(text) != temporary:
        raise SockeyeError(f"{args_file}: field output is not the training folder {temporary}")
    lines = text.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.rstrip("\n") == f"output: {temporary}"]
    if len(found) != 1:
        raise SockeyeError(f"{args_file}: expected one line `output: {temporary}`, found {len(found)}")
    lines[found[0]] = f"output: {final}\n"
    renamed = "".join(lines)
    if _output_of(renamed) != final:
        raise SockeyeError(f"{args_file}: field output: {final!r} does not read back as YAML")
    args_file.write_text(renamed, encoding="utf-8")


def settle_model_folder(folder: str | os.PathLike[str], final: str | os.PathLike[str], *,
                        trained_in: str | os.PathLike[str] | None = None) -> dict[int, dict[str, str]]:
    """Make a model folder `sockeye-train` wrote into `folder` the same on identical runs.

    `final` is the path the folder is moved to afterwards (as the workflow names it, relative to
    its working directory); `trained_in` the folder Sockeye wrote into when `folder` is a copy of it
    (its ``args.yaml`` names that one). Returns the wall-time fields taken out of ``metrics`` per
    checkpoint, for the log.
    """
    folder = Path(folder)
    for name in ("metrics", "args.yaml"):
        if not (folder / name).is_file():
            raise SockeyeError(f"{folder}: no {name}; not a model folder sockeye-train finished")
    removed = _strip_wall_times(folder / "metrics")
    _rename_output(folder / "args.yaml", str(trained_in if trained_in is not None else folder), str(final))
    shutil.rmtree(folder / RESUME_STATE, ignore_errors=True)
    return removed


def rewriter_card(model_dir: str | os.PathLike[str], prepared: str | os.PathLike[str],
                  dev_source: str | os.PathLike[str]) -> dict[str, object]:
    """What a trained rewriter's model card says (:mod:`cdaflow.io.model_card`): the training and dev
    pairs, and the dev BLEU and perplexity of the checkpoint Sockeye kept (the lowest dev perplexity)."""
    rows = [dict(field.split("=", 1) for field in line.split("\t")[1:])
            for line in Path(model_dir, "metrics").read_text(encoding="utf-8").splitlines() if line.strip()]
    best = min(rows, key=lambda row: float(row["perplexity-val"]))
    found = re.search(r"^\s*num_sents:\s*(\d+)", Path(prepared, "data.config").read_text(encoding="utf-8"), re.M)
    pairs = int(found.group(1)) if found else None
    with open(dev_source, encoding="utf-8") as handle:
        dev_pairs = sum(1 for _ in handle)
    return {
        "data": [f"gender-parallel pairs: {pairs} for training, {dev_pairs} for development"],
        "size": {"train_pairs": pairs, "checkpoints": len(rows)},
        "heldout": {"metric": "dev BLEU", "value": round(float(best["bleu-val"]), 4), "on": f"{dev_pairs} dev pairs",
                    "perplexity": round(float(best["perplexity-val"]), 3)},
    }
