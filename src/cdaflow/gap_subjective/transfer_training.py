"""Training Pant & Dadu's (2022, §3.2.2) transfer model with the OpenNMT-py tools, resumably.

Training runs OpenNMT-py's own command-line tools (``onmt_build_vocab``, ``onmt_train``) as
subprocesses, like the Sockeye wrapper of :mod:`cdaflow.regender.rewriter`: :func:`run_onmt`
finds them beside the interpreter or on PATH, streams their output into a log and raises,
quoting the end of that log, when one fails.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from cdaflow.gap_subjective.transfer import OnmtError, TransferSettings, write_onmt_config
from cdaflow.io.atomic import atomic_directory
from cdaflow.io.processes import find_console_script

__all__ = ["find_tool", "last_checkpoint", "run_onmt", "train_transfer", "validation_metrics"]

log = logging.getLogger(__name__)


def find_tool(name: str) -> str:
    """The path of an OpenNMT-py console script: beside this interpreter, else on PATH."""
    found = find_console_script(name)
    if found is None:
        raise OnmtError(f"{name} not found beside {sys.executable} or on PATH; install OpenNMT-py 3.5.1 "
                        "(pip install --no-deps OpenNMT-py==3.5.1, as `make setup` does)")
    return found


def run_onmt(tool: str, arguments: Sequence[str], *, log_path: str | os.PathLike[str],
             cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> None:
    """Run one OpenNMT-py tool; its output is appended to `log_path` and, on failure, quoted in the error."""
    if tool == "onmt_train":  # our entry point: onmt_train with the copy-attention accuracy fixed
        find_tool(tool)  # the same clear error when OpenNMT-py is missing
        command = [sys.executable, "-m", "cdaflow.gap_subjective.onmt_train", *map(str, arguments)]
    else:
        command = [find_tool(tool), *map(str, arguments)]
    log.info("running %s", " ".join(command))
    environment = {**os.environ, **(env or {})}
    started = time.perf_counter()
    with open(log_path, "a", encoding="utf-8") as handle:
        result = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, text=True, env=environment,
                                cwd=cwd, check=False)
    if result.returncode != 0:
        output = Path(log_path).read_text(encoding="utf-8", errors="replace")
        tail = "\n".join(output.strip().splitlines()[-15:])
        raise OnmtError(f"{tool} failed with exit code {result.returncode} (full log: {log_path}):\n{tail}")
    log.info("%s finished in %.1f s", tool, time.perf_counter() - started)


def last_checkpoint(folder: str | os.PathLike[str], prefix: str = "model") -> Path:
    """The ``<prefix>_step_N.pt`` of `folder` with the largest N."""
    pattern = re.compile(rf"{re.escape(prefix)}_step_(\d+)\.pt")
    steps = {int(match.group(1)): path for path in Path(folder).iterdir()
             if (match := pattern.fullmatch(path.name))}
    if not steps:
        raise OnmtError(f"no {prefix}_step_N.pt checkpoint in {folder}")
    return steps[max(steps)]


def train_transfer(train_src: str | os.PathLike[str], train_tgt: str | os.PathLike[str],
                   valid_src: str | os.PathLike[str], valid_tgt: str | os.PathLike[str],
                   output_dir: str | os.PathLike[str], settings: TransferSettings, *, gpu: bool = False,
                   threads: int | None = None, log_path: str | os.PathLike[str] | None = None,
                   resume_dir: str | os.PathLike[str] | None = None) -> Path:
    """Train the transfer model on SentencePiece-tokenized files; returns the last checkpoint's path.

    Source files hold objective (neutralised) sentences, target files their subjective (biased)
    originals, one space-separated piece sequence a line. `output_dir` appears atomically with
    ``config.yaml``, ``vocab.txt`` and ``model_step_N.pt``; the tools' output goes to `log_path`
    (default ``<output_dir>/train.log``). `threads` caps the tools' CPU threads.

    With `resume_dir` (a folder that outlives a killed job) the tools run there and a rerun goes on
    from its last complete ``model_step_N.pt`` with OpenNMT-py's own ``-train_from`` and
    ``-reset_optim none`` (weights, optimizer, learning-rate schedule and step come back), and our
    entry point brings back the data iterator's position and the random states that OpenNMT-py does
    not save (:mod:`cdaflow.gap_subjective.onmt_train`): the final weights equal an uninterrupted run's
    (bit for bit on the CPU, one thread). A checkpoint written without that state (an older run)
    resumes with the data read from their start again, so its weights differ. A `resume_dir` left by
    other settings or data is emptied first. The caller removes it once the model is kept.
    """
    for name, path in (("train_src", train_src), ("train_tgt", train_tgt), ("valid_src", valid_src),
                       ("valid_tgt", valid_tgt)):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{name} file {path} does not exist")
    env = {"PYTHONHASHSEED": "0"}  # fixed string hashing, so nothing in the tools varies run to run
    if threads is not None:
        env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    output_dir = Path(output_dir)
    data = (train_src, train_tgt, valid_src, valid_tgt)
    if resume_dir is not None:
        work = _resume_folder(Path(resume_dir), settings, gpu, data)
        tool_log = Path(log_path).resolve() if log_path is not None else work / "train.log"
        _run_tools(work, settings, gpu, data, tool_log, env, resumable=True)
        # Copied, not moved: until the caller has kept the model, a retry must still find them.
        with atomic_directory(output_dir) as out:
            _write_config(out, settings, gpu, data)  # paths relative to the output, as without resume_dir
            shutil.copy2(work / "vocab.txt", out / "vocab.txt")
            kept = _checkpoints(work)
            if settings.keep_checkpoint > 0:  # onmt's own count restarts with each run
                kept = kept[-settings.keep_checkpoint :]
            for checkpoint in kept:
                shutil.copy2(checkpoint, out / checkpoint.name)
            checkpoint_name = kept[-1].name
            if log_path is None:
                shutil.copy2(tool_log, out / "train.log")
        return output_dir / checkpoint_name
    with atomic_directory(output_dir) as scratch:
        tool_log = Path(log_path).resolve() if log_path is not None else scratch / "train.log"
        _run_tools(scratch, settings, gpu, data, tool_log, env, resumable=False)
        checkpoint_name = last_checkpoint(scratch).name
    return output_dir / checkpoint_name


def _write_config(folder: Path, settings: TransferSettings, gpu: bool, data: Sequence[str | os.PathLike[str]]) -> Path:
    # The tools run inside the folder and the config names its own files relatively, so the
    # config stays valid once the folder is renamed into place.
    # Data paths relative to the folder: the config and the checkpoints' options then hold no
    # temporary folder name, so identical trainings give identical files.
    def relative(path: str | os.PathLike[str]) -> Path:
        return Path(os.path.relpath(Path(path).resolve(), folder.resolve()))

    train_src, train_tgt, valid_src, valid_tgt = data
    return write_onmt_config(
        folder / "config.yaml", settings,
        train_src=relative(train_src), train_tgt=relative(train_tgt),
        valid_src=relative(valid_src), valid_tgt=relative(valid_tgt),
        save_model="model", vocab="vocab.txt", gpu=gpu)  # fmt: skip


def _run_tools(folder: Path, settings: TransferSettings, gpu: bool, data: Sequence[str | os.PathLike[str]],
               tool_log: Path, env: Mapping[str, str], *, resumable: bool) -> None:
    """Build the vocabulary (unless done) and train in `folder`, from its last checkpoint if any."""
    config = _write_config(folder, settings, gpu, data)
    tool_log.parent.mkdir(parents=True, exist_ok=True)
    done = folder / ".vocab.done"  # onmt_build_vocab writes vocab.txt in place: only a finished one counts
    if not (resumable and done.exists()):
        # -n_sample only on the command line: in the shared YAML it would make onmt_train stop
        # after dumping samples. -1 counts the vocabulary on the whole corpus.
        run_onmt("onmt_build_vocab", ["-config", config.name, "-n_sample", "-1"], log_path=tool_log, cwd=folder,
                 env=env)
        if resumable:
            done.touch()
    latest = _checkpoints(folder)
    if latest and _step(latest[-1]) >= settings.train_steps:
        log.info("%s: training already finished", latest[-1])
        return
    resume = ["-train_from", latest[-1].name, "-reset_optim", "none"] if latest else []
    if latest:
        log.info("resuming OpenNMT-py training from %s", latest[-1])
    run_onmt("onmt_train", ["-config", config.name, *resume], log_path=tool_log, cwd=folder, env=env)


_STEP = re.compile(r"model_step_(\d+)\.pt")


def _step(path: Path) -> int:
    match = _STEP.fullmatch(path.name)
    assert match is not None
    return int(match.group(1))


def _checkpoints(folder: Path) -> list[Path]:
    """The complete ``model_step_N.pt`` of `folder`, oldest first; one cut short by a kill is removed.

    torch.save writes a zip archive whose directory comes last: a file without it was not finished.
    """
    import zipfile

    found = sorted((path for path in folder.glob("model_step_*.pt") if _STEP.fullmatch(path.name)), key=_step)
    complete = []
    for path in found:
        if zipfile.is_zipfile(path):
            complete.append(path)
        else:
            log.warning("%s: incomplete checkpoint (the job was killed while writing it); removed", path)
            path.unlink()
    return complete


def _resume_folder(folder: Path, settings: TransferSettings, gpu: bool,
                   data: Sequence[str | os.PathLike[str]]) -> Path:
    """`folder`, emptied first when it holds a training of other settings or data (content hashes: the
    caller rewrites the tokenised files on each attempt)."""
    import hashlib

    from cdaflow.io.resume import resume_folder

    hashes = []
    for path in data:
        hasher = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                hasher.update(block)
        hashes.append(hasher.hexdigest())
    return resume_folder(folder, {"settings": dataclasses.asdict(settings), "gpu": gpu, "data": hashes})


_VALIDATION = re.compile(r"Validation (perplexity|accuracy):\s*([-+0-9.eEinfa]+)")


def validation_metrics(log_text: str) -> dict[str, float]:
    """``{"perplexity": ..., "accuracy": ...}`` from the last validation lines of an ``onmt_train`` log.

    Accuracy is in percent, as OpenNMT-py logs it (the paper: perplexity 3.10, accuracy 84.52).
    """
    found: dict[str, float] = {}
    for name, value in _VALIDATION.findall(log_text):
        found[name] = float(value)  # later lines overwrite earlier ones
    missing = [name for name in ("perplexity", "accuracy") if name not in found]
    if missing:
        raise OnmtError(f"no 'Validation {missing[0]}' line in the training log; did training reach valid_steps?")
    return {"perplexity": found["perplexity"], "accuracy": found["accuracy"]}
