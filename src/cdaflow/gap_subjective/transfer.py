"""Objective → subjective style transfer of Pant & Dadu (2022, §3.2.2): SentencePiece + OpenNMT-py.

The paper trains a SentencePiece model (vocabulary 25,000, "numerical tokens as user-defined
symbols to preserve them during the transfer"), then an OpenNMT-py sequence-to-sequence model on
the SentencePiece-tokenized Wiki Neutrality Corpus, neutralised → biased: a 256-unit BiLSTM
encoder (``encoder_type: brnn``), batch size 16, gradient norm capped at 2, embeddings shared
between encoder and decoder, AdaGrad, MLP global attention and copy attention (Gu et al. 2016).
It reports validation perplexity 3.10 and accuracy 84.52 %, read here from the training log by
:func:`validation_metrics`. Those settings are the defaults of :class:`TransferSettings`; the
ones the paper leaves open (learning rate 0.15, AdaGrad accumulator 0.1, word vectors of 128)
come from OpenNMT-py's own copy-attention recipe (``examples/cnndm.yaml``), which the paper's
list follows option for option, and the rest are OpenNMT-py's defaults.

Training runs OpenNMT-py's own command-line tools (``onmt_build_vocab``, ``onmt_train``) as
subprocesses, like the Sockeye wrapper of :mod:`cdaflow.regender.rewriter`: :func:`run_onmt`
finds them beside the interpreter or on PATH, streams their output into a log and raises,
quoting the end of that log, when one fails.

Translation goes through :class:`Transferer`, a wrapper of ours around onmt's Python API,
because ``onmt_translate`` of OpenNMT-py 3.5.1 cannot translate with a copy-attention model on
torch 2.13. Each failure below was reproduced with ``onmt_translate`` on a tiny trained model:

(a) ``onmt.models.model_saver.load_checkpoint`` calls ``torch.load`` without ``weights_only``;
    torch ≥ 2.6 defaults to ``weights_only=True`` and refuses the checkpoint, which pickles an
    ``argparse.Namespace`` (the options) and the vocabularies ("Unsupported global: GLOBAL
    argparse.Namespace"). Fix: :func:`load_onmt_checkpoint` loads with ``weights_only=False``;
    only do this with checkpoints you trained yourself (unpickling runs code).
(b) ``onmt.models.model.NMTModel.load_state_dict`` (called by
    ``onmt.model_builder.load_test_model``) looks a generator parameter up by its bare name
    (``weight``), but a ``CopyGenerator``'s saved keys are ``linear.weight``,
    ``linear_copy.weight``, ... ("ValueError: Missing key in checkpoint:
    generator.linear.weight"). Fix: the model is built with ``onmt.model_builder.build_base_model``
    and loaded with plain ``torch.nn.Module.load_state_dict`` (strict) from the checkpoint's
    ``model`` entries plus its ``generator`` entries prefixed ``generator.``.
(c) ``onmt.inference_engine.InferenceEngine.infer_file`` / ``infer_list`` build the inference
    iterator without ``copy=True``, so batches lack ``src_map`` and
    ``onmt.translate.translator.Translator._translate_batch_with_strategy`` fails with
    ``KeyError: 'src_map'``. Fix: :class:`Transferer` builds its batches itself
    (``onmt.inputters.text_utils.numericalize`` / ``tensorify``) with ``src_map`` and
    ``src_ex_vocab`` added, and calls ``Translator.translate_batch``.
(d) Found while fixing (c): ``onmt.modules.copy_generator.collapse_copy_scores``, called from
    ``Translator._decode_and_generate``, takes the dynamic (per-source) vocabulary of row ``b`` of
    the *still unfinished* sentences from ``batch["src_ex_vocab"][b]``, an index into the *whole*
    batch (3.5.1 dropped the ``batch_offset`` mapping). Once one sentence of a batch finishes,
    the others merge their copy scores with another sentence's vocabulary, so outputs depend on
    batch composition. Fix: every batch gets one dynamic vocabulary shared by all its sentences
    (the union of their pieces), so any row's lookup is right; a sentence's ``src_map`` still
    points only at its own pieces, so it can copy only from itself.

With these fixes greedy search and beam search both work with copy attention (tested).
SentencePiece decoding (:func:`decode_pieces`) keeps pieces the SentencePiece model does not
know, which copy attention can emit (an unseen name copied from the source).
"""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cdaflow.config import not_positive_integers, settings_from
from cdaflow.io.atomic import atomic_directory, atomic_file
from cdaflow.io.structured import read_mapping
from cdaflow.io.weights import load_torch_file, quiet_libraries
from cdaflow.runtime import find_console_script

__all__ = [
    "DIGITS",
    "MANIFEST",
    "OnmtError",
    "TransferSettings",
    "Transferer",
    "decode_pieces",
    "encode_pieces",
    "find_tool",
    "last_checkpoint",
    "load_onmt_checkpoint",
    "number_symbols",
    "onmt_options",
    "run_onmt",
    "train_sentencepiece",
    "train_transfer",
    "validation_metrics",
    "write_onmt_config",
]

log = logging.getLogger(__name__)

DIGITS = tuple("0123456789")
# A number is a run of ASCII digits; separators ("1,000", "3.5") stay separate pieces, so every
# digit run is still copied whole or digit by digit.
_NUMBER = re.compile(r"[0-9]+")
_SPIECE_SPACE = "\u2581"  # SentencePiece's word-boundary mark "▁"
# SentencePiece reserves <unk>, <s> and </s> in every model.
_SPM_RESERVED_PIECES = 3
MANIFEST = "transfer.json"  # in a trained model folder: checkpoint, SentencePiece model, decoding settings


class OnmtError(RuntimeError):
    """An OpenNMT-py tool is missing or failed, or its output is not what we expect."""


# --------------------------------------------------------------------------------------------
# SentencePiece (§3.2.2, first step)
# --------------------------------------------------------------------------------------------


def number_symbols(texts: Iterable[str], max_symbols: int = 500, *, min_count: int = 2) -> list[str]:
    """The numeric tokens to declare as SentencePiece user-defined symbols (§3.2.2).

    Rule: the ten digits always, then the numbers (runs of two or more ASCII digits) seen at
    least `min_count` times in `texts`, most frequent first, ties in string order, up to
    `max_symbols` symbols in all. SentencePiece cuts user-defined symbols out
    before segmenting, longest first, so a frequent number ("1875") is one piece, any other
    number is split into known symbols down to single digits, and a digit is never merged with
    letters: every number survives the transfer piece by piece and copy attention can copy it.
    """
    if max_symbols < len(DIGITS):
        raise ValueError(f"max_symbols={max_symbols} is below the {len(DIGITS)} digits that are always symbols")
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, not {min_count}")
    counts = Counter(number for text in texts for number in _NUMBER.findall(text) if len(number) > 1)
    frequent = sorted((number for number, count in counts.items() if count >= min_count),
                      key=lambda number: (-counts[number], number))
    return [*DIGITS, *frequent[: max_symbols - len(DIGITS)]]


def train_sentencepiece(texts: Iterable[str], model_prefix: str | os.PathLike[str], vocab_size: int, *,
                        user_defined_symbols: Sequence[str] = DIGITS, model_type: str = "unigram",
                        character_coverage: float = 1.0, threads: int = 1) -> Path:
    """Train a SentencePiece model on `texts`; returns ``<model_prefix>.model`` (and writes ``.vocab``).

    Deterministic without a seed: every sentence is read (no sampling, no shuffling), one thread
    is the default, and the same input gives the same bytes. `vocab_size` is a ceiling
    (``hard_vocab_limit=False``): a corpus too small for it gets the largest vocabulary it
    supports instead of an error, so a demo corpus trains; a ceiling that cannot even hold the
    user-defined symbols is refused. The model type is SentencePiece's default (unigram); the
    paper does not name one. Empty lines are skipped.
    """
    import sentencepiece as spm

    symbols = list(dict.fromkeys(user_defined_symbols))  # SentencePiece rejects duplicates
    if vocab_size <= len(symbols) + _SPM_RESERVED_PIECES:
        raise ValueError(f"vocab_size={vocab_size} leaves no room for pieces beyond the {len(symbols)} "
                         f"user-defined symbols and {_SPM_RESERVED_PIECES} reserved pieces")
    sentences = [text for text in texts if text.strip()]
    if not sentences:
        raise ValueError("no non-empty sentence to train SentencePiece on")
    # The model is serialised into memory rather than to a model_prefix: the proto would record
    # that prefix, and a scratch path in it would make two identical trainings differ in bytes.
    serialised = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=serialised,
        model_type=model_type,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=character_coverage,
        user_defined_symbols=symbols,
        input_sentence_size=0,  # read everything, so no random sampling
        shuffle_input_sentence=False,
        num_threads=threads,
        minloglevel=2,
    )
    processor = spm.SentencePieceProcessor(model_proto=serialised.getvalue())
    with atomic_file(f"{model_prefix}.vocab") as handle:  # the listing SentencePiece itself would write
        handle.writelines(f"{processor.id_to_piece(i)}\t{processor.get_score(i):g}\n"
                          for i in range(processor.get_piece_size()))
    destination = Path(f"{model_prefix}.model")
    with atomic_file(destination, "wb") as handle:
        handle.write(serialised.getvalue())
    log.info("SentencePiece model %s trained on %d sentences", destination, len(sentences))
    return destination


def _processor(model: str | os.PathLike[str]) -> Any:
    import sentencepiece as spm

    if not Path(model).is_file():
        raise FileNotFoundError(f"SentencePiece model {model} does not exist")
    return spm.SentencePieceProcessor(model_file=str(model))


def encode_pieces(model: str | os.PathLike[str], sentences: Iterable[str]) -> list[str]:
    """Each sentence as its SentencePiece pieces joined by single spaces (OpenNMT-py's input)."""
    processor = _processor(model)
    return [" ".join(pieces) for pieces in processor.encode(list(sentences), out_type=str)]


def decode_pieces(model: str | os.PathLike[str], lines: Iterable[str]) -> list[str]:
    """Space-separated pieces back to text.

    SentencePiece keeps a piece it does not know (copy attention can emit one, e.g. an unseen
    name copied from the source) verbatim, word mark included, so remaining marks become spaces
    and whitespace is normalised as SentencePiece's own normaliser does.
    """
    processor = _processor(model)
    texts = processor.decode([line.split() for line in lines])
    return [" ".join(text.replace(_SPIECE_SPACE, " ").split()) for text in texts]


# --------------------------------------------------------------------------------------------
# Settings and the OpenNMT-py configuration (§3.2.2, second step)
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TransferSettings:
    """The transfer model's settings; defaults are the paper's (§3.2.2), gaps filled as noted."""

    # Paper: "256-sized BiLSTM layered architecture" (OpenNMT's brnn splits it 128 + 128).
    encoder_type: str = "brnn"
    hidden_size: int = 256
    layers: int = 2  # the paper says "layered"; OpenNMT-py's default depth
    word_vec_size: int = 128  # OpenNMT-py's copy-attention recipe (cnndm.yaml)
    rnn_type: str = "LSTM"
    global_attention: str = "mlp"  # paper: "multi-layer perceptron for global attention"
    copy_attn: bool = True  # paper: copy mechanism (Gu et al. 2016)
    reuse_copy_attn: bool = False  # not in the paper; OpenNMT-py's default
    copy_loss_by_seqlength: bool = False  # not in the paper; OpenNMT-py's default
    bridge: bool = False  # not in the paper; OpenNMT-py's default
    share_embeddings: bool = True  # paper: shared word embeddings (needs a shared vocabulary)
    optim: str = "adagrad"
    learning_rate: float = 0.15  # OpenNMT-py's AdaGrad recipe; the paper gives none
    adagrad_accumulator_init: float = 0.1  # same recipe
    max_grad_norm: float = 2.0
    batch_size: int = 16
    valid_batch_size: int = 16
    dropout: float = 0.3  # OpenNMT-py's default; the paper gives none
    train_steps: int = 100_000  # OpenNMT-py's default; the paper gives none
    valid_steps: int = 10_000
    save_checkpoint_steps: int = 10_000
    keep_checkpoint: int = 1  # only the last checkpoint is used downstream
    report_every: int = 50
    bucket_size: int = 262_144  # OpenNMT-py's default; make it small for a tiny corpus
    vocab_size: int = 50_000  # OpenNMT vocabulary ceiling; above the 25,000 SentencePiece pieces
    max_train_length: int = 0  # drop training pairs longer than this many pieces (0: keep all)
    num_workers: int = 0  # data loading in the training process keeps the batch order seeded
    seed: int = 1234
    beam_size: int = 5  # translation; OpenNMT-py's default, the paper gives none
    max_length: int = 250  # translation; OpenNMT-py's default

    def __post_init__(self) -> None:
        # Config values arrive from YAML, where "1e-3" is a string: check types before ranges.
        accepted = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            numeric = field.type in ("int", "float")
            if not isinstance(value, accepted[field.type]) or (numeric and isinstance(value, bool)):
                raise ValueError(f"transfer setting {field.name} must be a {field.type}, not {value!r}")
        positive = ("hidden_size", "layers", "word_vec_size", "batch_size", "valid_batch_size", "train_steps",
                    "valid_steps", "save_checkpoint_steps", "report_every", "bucket_size", "vocab_size",
                    "beam_size", "max_length")
        if problems := not_positive_integers(self, positive):
            raise ValueError("transfer settings: " + "; ".join(problems))
        if self.encoder_type == "brnn" and self.hidden_size % 2:
            raise ValueError(f"transfer setting hidden_size={self.hidden_size} must be even for a brnn encoder "
                             "(OpenNMT-py gives each direction half)")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"transfer setting dropout must be in [0, 1), not {self.dropout!r}")
        if self.learning_rate <= 0 or self.max_grad_norm < 0:
            raise ValueError("transfer settings learning_rate must be positive and max_grad_norm non-negative")
        if self.max_train_length < 0 or self.num_workers < 0 or self.keep_checkpoint == 0:
            raise ValueError("transfer settings max_train_length and num_workers must be >= 0, keep_checkpoint != 0")

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain mapping (for manifests); :meth:`from_config` reads it back."""
        return dataclasses.asdict(self)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TransferSettings:
        """Settings from a config mapping; an unknown key is refused by name."""
        return settings_from(cls, config, "transfer settings")


def onmt_options(settings: TransferSettings) -> dict[str, Any]:
    """The model and training options of `settings` under their OpenNMT-py 3.5.1 names."""
    return {
        "encoder_type": settings.encoder_type,
        "decoder_type": "rnn",
        "rnn_type": settings.rnn_type,
        "layers": settings.layers,
        "hidden_size": settings.hidden_size,
        "word_vec_size": settings.word_vec_size,
        "global_attention": settings.global_attention,
        "copy_attn": settings.copy_attn,
        "reuse_copy_attn": settings.reuse_copy_attn,
        "copy_loss_by_seqlength": settings.copy_loss_by_seqlength,
        "bridge": settings.bridge,
        "share_embeddings": settings.share_embeddings,
        "optim": settings.optim,
        "learning_rate": settings.learning_rate,
        "adagrad_accumulator_init": settings.adagrad_accumulator_init,
        "max_grad_norm": settings.max_grad_norm,
        "batch_size": settings.batch_size,
        "batch_type": "sents",
        "valid_batch_size": settings.valid_batch_size,
        "dropout": [settings.dropout],
        "train_steps": settings.train_steps,
        "valid_steps": settings.valid_steps,
        "save_checkpoint_steps": settings.save_checkpoint_steps,
        "keep_checkpoint": settings.keep_checkpoint,
        "report_every": settings.report_every,
        "bucket_size": settings.bucket_size,
        "num_workers": settings.num_workers,
        "seed": settings.seed,
    }


def write_onmt_config(path: str | os.PathLike[str], settings: TransferSettings, *,
                      train_src: str | os.PathLike[str], train_tgt: str | os.PathLike[str],
                      valid_src: str | os.PathLike[str], valid_tgt: str | os.PathLike[str],
                      save_model: str | os.PathLike[str], vocab: str | os.PathLike[str], gpu: bool) -> Path:
    """Write the YAML that both ``onmt_build_vocab`` and ``onmt_train`` read; returns its path.

    One vocabulary serves source and target (``share_vocab``), as ``share_embeddings`` requires.
    Relative paths are kept as given: they resolve against the tools' working folder.
    """
    config: dict[str, Any] = {
        "save_data": str(Path(save_model).parent / "samples"),
        "src_vocab": str(vocab),
        "share_vocab": True,
        "src_vocab_size": settings.vocab_size,
        "tgt_vocab_size": settings.vocab_size,
        "overwrite": True,
        "data": {
            "corpus_1": {"path_src": str(train_src), "path_tgt": str(train_tgt)},
            "valid": {"path_src": str(valid_src), "path_tgt": str(valid_tgt)},
        },
        "save_model": str(save_model),
        **onmt_options(settings),
    }
    if settings.max_train_length:
        config["data"]["corpus_1"]["transforms"] = ["filtertoolong"]
        config["src_seq_length"] = config["tgt_seq_length"] = settings.max_train_length
    if gpu:
        config["world_size"] = 1
        config["gpu_ranks"] = [0]
    import yaml

    with atomic_file(path) as handle:
        yaml.safe_dump(config, handle, sort_keys=False)
    return Path(path)


# --------------------------------------------------------------------------------------------
# Running the OpenNMT-py tools
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Translation
# --------------------------------------------------------------------------------------------


def load_onmt_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """An OpenNMT-py checkpoint of ours, unpickled in full (fix (a) of the module docstring).

    ``weights_only=False`` runs pickled code: use it only on checkpoints this workflow trained.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"OpenNMT-py checkpoint {path} does not exist")
    checkpoint = load_torch_file(path, what="OpenNMT-py checkpoint", weights_only=False)
    missing = [key for key in ("model", "generator", "vocab", "opt") if not isinstance(checkpoint, dict)
               or key not in checkpoint]
    if missing:
        raise OnmtError(f"{path} is not an OpenNMT-py checkpoint with weights: no {', '.join(missing)} entry")
    return checkpoint


class Transferer:
    """Objective → subjective transfer with a trained checkpoint, batched, order preserved.

    Build it with :meth:`from_files`; :meth:`transfer` takes raw sentences and returns
    detokenized ones. Decoding is deterministic (no sampling), so CPU runs repeat exactly.
    """

    def __init__(self, model: Any, vocabs: dict[str, Any], translator: Any, spm_model: Path, *,
                 batch_size: int, device: Any, copy_attn: bool) -> None:
        self.model = model
        self.vocabs = vocabs
        self.translator = translator
        self.spm_model = spm_model
        self.batch_size = batch_size
        self.device = device
        self.copy_attn = copy_attn

    @classmethod
    def from_files(cls, checkpoint: str | os.PathLike[str], spm_model: str | os.PathLike[str], *,
                   beam_size: int = 5, max_length: int = 250, batch_size: int = 32,
                   device: str = "cpu") -> Transferer:
        """Load `checkpoint` (trained by :func:`train_transfer`) and the SentencePiece model."""
        import torch

        with quiet_libraries():  # OpenNMT-py's modules use torch.cuda.amp decorators torch deprecates
            from onmt.inputters.inputter import dict_to_vocabs
            from onmt.model_builder import build_base_model
            from onmt.opts import translate_opts
            from onmt.translate import GNMTGlobalScorer
            from onmt.translate.translator import Translator
            from onmt.utils.parse import ArgumentParser

            from cdaflow.gap_subjective.onmt_train import patch

            patch()  # copy-score merging that also runs on a GPU
        if beam_size < 1 or max_length < 1 or batch_size < 1:
            raise ValueError(f"beam_size, max_length and batch_size must be positive, not "
                             f"{beam_size}, {max_length}, {batch_size}")
        spm_model = Path(spm_model)
        if not spm_model.is_file():
            raise FileNotFoundError(f"SentencePiece model {spm_model} does not exist")
        torch_device = torch.device(device)
        state = load_onmt_checkpoint(checkpoint)

        # What onmt.model_builder.load_test_model does, minus its state-dict loader (fix (b)).
        model_opt = ArgumentParser.ckpt_model_opts(state["opt"])
        ArgumentParser.update_model_opts(model_opt)
        ArgumentParser.validate_model_opts(model_opt)
        model_opt.update_vocab = False
        model_opt.attention_dropout = 0.0
        vocabs = dict_to_vocabs(state["vocab"])
        with quiet_libraries():  # torch's note on dropout with one LSTM layer: the settings are the user's
            model = build_base_model(model_opt, vocabs)
        weights = dict(state["model"])
        weights.update({f"generator.{name}": tensor for name, tensor in state["generator"].items()})
        try:
            torch.nn.Module.load_state_dict(model, weights, strict=True)
        except RuntimeError as error:
            raise OnmtError(f"{checkpoint}: weights do not fit the model its options describe: {error}") from error
        model.to(torch_device)
        model.eval()

        gpu = (torch_device.index or 0) if torch_device.type == "cuda" else -1
        parser = ArgumentParser(description="cdaflow transfer")
        translate_opts(parser)
        opt = parser.parse_args(["-model", str(checkpoint), "-src", "-", "-beam_size", str(beam_size),
                                 "-max_length", str(max_length), "-gpu", str(gpu)])
        translator = Translator.from_opt(model, vocabs, opt, model_opt, global_scorer=GNMTGlobalScorer.from_opt(opt),
                                         out_file=None, report_score=False, logger=log)
        return cls(model, vocabs, translator, spm_model, batch_size=batch_size, device=torch_device,
                   copy_attn=bool(model_opt.copy_attn))

    @classmethod
    def from_model_dir(cls, model_dir: str | os.PathLike[str], *, batch_size: int = 32,
                       device: str = "cpu") -> Transferer:
        """Load the model folder the training rule writes: ``transfer.json`` names the checkpoint and
        SentencePiece model (relative to the folder) and the decoding settings."""

        manifest_path = Path(model_dir) / MANIFEST
        if not manifest_path.is_file():
            raise FileNotFoundError(
                f"{manifest_path}: no transfer manifest (rule gap_subjective_transfer_train writes it)"
            )
        manifest = read_mapping(manifest_path, fmt="json")
        missing = [key for key in ("checkpoint", "spm_model") if not isinstance(manifest.get(key), str)]
        if missing:
            raise OnmtError(f"{manifest_path}: field(s) {', '.join(missing)} missing")
        defaults = TransferSettings()
        return cls.from_files(Path(model_dir) / manifest["checkpoint"], Path(model_dir) / manifest["spm_model"],
                              beam_size=int(manifest.get("beam_size", defaults.beam_size)),
                              max_length=int(manifest.get("max_length", defaults.max_length)),
                              batch_size=batch_size, device=device)

    def _batch(self, lines: Sequence[str]) -> dict[str, Any]:
        """A tensor batch of piece lines with the copy-attention keys (fixes (c) and (d))."""
        from onmt.constants import DefaultTokens
        from onmt.inputters.text_utils import numericalize, tensorify

        examples = []
        for index, line in enumerate(lines):
            example = {"src": {"src": line}, "tgt": None, "srclen": len(line.split(" ")), "cid": "transfer",
                       "cid_line_number": index, "align": None}
            examples.append((numericalize(self.vocabs, example), index))
        if self.copy_attn:
            import pyonmttok

            # One dynamic vocabulary for the whole batch (fix (d)); built from a sorted counter,
            # so it does not depend on sentence order.
            pieces = Counter(piece for line in lines for piece in line.split(" "))
            shared = pyonmttok.build_vocab_from_tokens(
                Counter(dict(sorted(pieces.items()))), maximum_size=0, minimum_frequency=1,
                special_tokens=[DefaultTokens.UNK, DefaultTokens.PAD, DefaultTokens.BOS, DefaultTokens.EOS])
            shared.default_id = shared[DefaultTokens.UNK]
            for example, _ in examples:
                example["src_map"] = shared(example["src"]["src"].split(" "))
                example["src_ex_vocab"] = shared
        return tensorify(self.vocabs, examples, self.device)

    def transfer_pieces(self, lines: Sequence[str]) -> list[str]:
        """Translate space-separated piece lines; returns space-separated piece lines."""
        import torch
        from onmt.translate import TranslationBuilder

        lines = [" ".join(line.split()) for line in lines]
        outputs: list[str] = [""] * len(lines)  # empty lines stay empty
        builder = TranslationBuilder(self.vocabs, n_best=1)
        chunks = self._chunks(lines)
        started, done = time.perf_counter(), 0
        for number, chunk in enumerate(chunks, start=1):
            batch = self._batch([lines[i] for i in chunk])
            with torch.inference_mode():
                results = self.translator.translate_batch(batch, attn_debug=False)
            for translation in builder.from_batch(results):
                outputs[chunk[translation.ind_in_bucket]] = " ".join(translation.pred_sents[0])
            done += len(chunk)
            if number % 50 == 0 or number == len(chunks):
                log.info("transferred %d/%d sentences (%.1f sentences/s)", done, sum(map(len, chunks)),
                         done / max(time.perf_counter() - started, 1e-9))
        return outputs

    def _chunks(self, lines: Sequence[str]) -> list[list[int]]:
        """Indices of non-empty `lines` in batches of at most `batch_size` sentences of one length.

        onmt caps a batch's output length at 1.25 × its padded source length + 5
        (``max_length_ratio``); batches of equal-length sources make that cap each sentence's own,
        so an output does not depend on which sentences share its batch.
        """
        by_length: dict[int, list[int]] = {}
        for index, line in enumerate(lines):
            if line:
                by_length.setdefault(len(line.split(" ")), []).append(index)
        return [indices[start:start + self.batch_size] for _, indices in sorted(by_length.items(), reverse=True)
                for start in range(0, len(indices), self.batch_size)]

    def transfer(self, sentences: Sequence[str]) -> list[str]:
        """Objective sentences in, subjective sentences out, one for one and in order."""
        pieces = self.transfer_pieces(encode_pieces(self.spm_model, sentences))
        return decode_pieces(self.spm_model, pieces)

