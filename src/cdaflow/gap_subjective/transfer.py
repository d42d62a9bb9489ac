"""Objective → subjective style transfer of Pant & Dadu (2022, §3.2.2): SentencePiece + OpenNMT-py.

The paper trains a SentencePiece model (vocabulary 25,000, "numerical tokens as user-defined
symbols to preserve them during the transfer"), then an OpenNMT-py sequence-to-sequence model on
the SentencePiece-tokenized Wiki Neutrality Corpus, neutralised → biased: a 256-unit BiLSTM
encoder (``encoder_type: brnn``), batch size 16, gradient norm capped at 2, embeddings shared
between encoder and decoder, AdaGrad, MLP global attention and copy attention (Gu et al. 2016).
It reports validation perplexity 3.10 and accuracy 84.52 %, read here from the training log by
:func:`~cdaflow.gap_subjective.transfer_training.validation_metrics`. Those settings are the
defaults of :class:`TransferSettings`; the ones the paper leaves open (learning rate 0.15, AdaGrad
accumulator 0.1, word vectors of 128) come from OpenNMT-py's own copy-attention recipe
(``examples/cnndm.yaml``), which the paper's list follows option for option, and the rest are
OpenNMT-py's defaults.

The model's pieces are SentencePiece's (:mod:`cdaflow.gap_subjective.pieces`); the OpenNMT-py
tools train it (:mod:`cdaflow.gap_subjective.transfer_training`) and
:class:`~cdaflow.gap_subjective.transferer.Transferer` translates with it. This module holds what
they share: the settings, their OpenNMT-py configuration and the model folder's manifest.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cdaflow.io.atomic import atomic_file
from cdaflow.settings import (
    FRACTION,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    allowed,
    check_settings,
    settings_from,
)

__all__ = ["MANIFEST", "OnmtError", "TransferSettings", "onmt_options", "write_onmt_config"]

MANIFEST = "transfer.json"  # in a trained model folder: checkpoint, SentencePiece model, decoding settings


class OnmtError(RuntimeError):
    """An OpenNMT-py tool is missing or failed, or its output is not what we expect."""


# OpenNMT-py keeps this many checkpoints; a negative number keeps them all.
_NOT_ZERO = allowed(lambda count: count != 0, "non-zero (a negative number keeps every checkpoint)")


@dataclasses.dataclass(frozen=True)
class TransferSettings:
    """The transfer model's settings; defaults are the paper's (§3.2.2), gaps filled as noted."""

    # Paper: "256-sized BiLSTM layered architecture" (OpenNMT's brnn splits it 128 + 128).
    encoder_type: str = "brnn"
    hidden_size: int = dataclasses.field(default=256, metadata=POSITIVE_INT)
    # The paper says "layered"; OpenNMT-py's default depth
    layers: int = dataclasses.field(default=2, metadata=POSITIVE_INT)
    # OpenNMT-py's copy-attention recipe (cnndm.yaml)
    word_vec_size: int = dataclasses.field(default=128, metadata=POSITIVE_INT)
    rnn_type: str = "LSTM"
    global_attention: str = "mlp"  # paper: "multi-layer perceptron for global attention"
    copy_attn: bool = True  # paper: copy mechanism (Gu et al. 2016)
    reuse_copy_attn: bool = False  # not in the paper; OpenNMT-py's default
    copy_loss_by_seqlength: bool = False  # not in the paper; OpenNMT-py's default
    bridge: bool = False  # not in the paper; OpenNMT-py's default
    share_embeddings: bool = True  # paper: shared word embeddings (needs a shared vocabulary)
    optim: str = "adagrad"
    # OpenNMT-py's AdaGrad recipe; the paper gives none
    learning_rate: float = dataclasses.field(default=0.15, metadata=POSITIVE)
    adagrad_accumulator_init: float = 0.1  # same recipe
    max_grad_norm: float = dataclasses.field(default=2.0, metadata=NON_NEGATIVE)
    batch_size: int = dataclasses.field(default=16, metadata=POSITIVE_INT)
    valid_batch_size: int = dataclasses.field(default=16, metadata=POSITIVE_INT)
    dropout: float = dataclasses.field(default=0.3, metadata=FRACTION)  # OpenNMT-py's default; the paper gives none
    # OpenNMT-py's default; the paper gives none
    train_steps: int = dataclasses.field(default=100_000, metadata=POSITIVE_INT)
    valid_steps: int = dataclasses.field(default=10_000, metadata=POSITIVE_INT)
    save_checkpoint_steps: int = dataclasses.field(default=10_000, metadata=POSITIVE_INT)
    # Only the last checkpoint is used downstream
    keep_checkpoint: int = dataclasses.field(default=1, metadata=_NOT_ZERO)
    report_every: int = dataclasses.field(default=50, metadata=POSITIVE_INT)
    # OpenNMT-py's default; make it small for a tiny corpus
    bucket_size: int = dataclasses.field(default=262_144, metadata=POSITIVE_INT)
    # OpenNMT vocabulary ceiling; above the 25,000 SentencePiece pieces
    vocab_size: int = dataclasses.field(default=50_000, metadata=POSITIVE_INT)
    # Drop training pairs longer than this many pieces (0: keep all)
    max_train_length: int = dataclasses.field(default=0, metadata=NON_NEGATIVE_INT)
    # Data loading in the training process keeps the batch order seeded
    num_workers: int = dataclasses.field(default=0, metadata=NON_NEGATIVE_INT)
    seed: int = 1234
    # Translation; OpenNMT-py's default, the paper gives none
    beam_size: int = dataclasses.field(default=5, metadata=POSITIVE_INT)
    max_length: int = dataclasses.field(default=250, metadata=POSITIVE_INT)  # translation; OpenNMT-py's default

    def __post_init__(self) -> None:
        check_settings(self, "transfer settings")
        if self.encoder_type == "brnn" and self.hidden_size % 2:
            raise ValueError(f"transfer setting hidden_size={self.hidden_size} must be even for a brnn encoder "
                             "(OpenNMT-py gives each direction half)")

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
