"""Fluency thresholding of transferred sentences, Pant & Dadu (2022) §3.2.3 ("Fluency"; Table 2 column).

A language model assigns a perplexity to each original GAP sentence and to its subjective transfer; a
transfer is discarded when its perplexity exceeds the original's by more than 100
(:func:`cdaflow.gap_subjective.threshold.fluency_keep`).

Two scorers share the :class:`PerplexityScorer` protocol:

* :class:`HFCausalLMScorer`, the paper's setting: GPT-2 (or any causal LM) through ``transformers``,
  following the Hugging Face perplexity recipe the paper cites, but one perplexity per sentence:
  the tokenizer's BOS token (GPT-2: ``<|endoftext|>``) is prepended so that the first word is
  predicted too; every text token is scored given BOS and the tokens before it; no end token is
  added (the recipe scores the text only). Perplexity = exp(mean token negative log-likelihood).
  Sentences are batched by length with right padding and an attention mask, which leaves the
  numbers unchanged (causal attention never looks right).
* :class:`LSTMScorer`, the offline stand-in: the project's SentencePiece-BPE + LSTM language model
  (:mod:`cdaflow.text.language_model`), trained on WNC text by :func:`train_lstm_scorer`. It scores a
  sentence as that model was trained and validated: ``BOS pieces EOS``, so the end-of-sentence
  prediction counts as one more token, and perplexity is per BPE piece.

Perplexities from different scorers (or tokenizers) are not comparable with each other; the
threshold of 100 is the paper's value for GPT-2.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.checkpoints import CheckpointStore
from cdaflow.io.models import resolve_model_source
from cdaflow.settings import FRACTION, POSITIVE_INT, check_settings, settings_from
from cdaflow.text.language_model import (
    EOS,
    LMSettings,
    LSTMLanguageModel,
    prefix_log_likelihood,
    sentence_perplexity,
    train_lm,
)

__all__ = [
    "HFCausalLMScorer",
    "LSTMScorer",
    "LSTMScorerSettings",
    "PerplexityScorer",
    "train_lstm_scorer",
]

log = logging.getLogger(__name__)

BPE_MODEL = "bpe.model"  # same layout as the morph_cda LM folders, so those load here too
LM_FILE = "lm.pt"
PIECE_SHIFT = 3  # cdaflow.text.language_model reserves ids 0-2 for PAD, BOS, EOS
PROGRESS_EVERY = 50  # batches between progress log lines


@runtime_checkable
class PerplexityScorer(Protocol):
    def perplexities(self, sentences: Sequence[str]) -> np.ndarray:
        """Perplexity of each sentence (float64, input order)."""
        ...


def _check_sentences(sentences: Sequence[str], name: str = "sentences") -> None:
    for index, sentence in enumerate(sentences):
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError(f"{name}[{index}]: expected a non-empty sentence, got {sentence!r}")


# ---------------------------------------------------------------------------------------------
# Hugging Face causal LMs (paper: GPT-2)
# ---------------------------------------------------------------------------------------------
class HFCausalLMScorer:
    """Per-sentence perplexity under a ``transformers`` causal LM (see the module docstring)."""

    def __init__(self, model: Any, tokenizer: Any, device: str | torch.device = "cpu", batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size} must be positive")
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        # GPT-2 has no separate BOS: its bos and eos are both <|endoftext|>, the document separator.
        candidates = (tokenizer.bos_token_id, tokenizer.eos_token_id, getattr(tokenizer, "cls_token_id", None))
        self.bos_id = next((token for token in candidates if token is not None), None)
        if self.bos_id is None:
            raise ValueError(
                f"tokenizer {type(tokenizer).__name__} has no BOS, EOS or CLS token to start sentences with"
            )
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.bos_id
        self.max_tokens = getattr(model.config, "max_position_embeddings", None)

    @classmethod
    def load(cls, name_or_path: str, device: str | torch.device = "cpu", batch_size: int = 32) -> HFCausalLMScorer:
        """A scorer for a Hub id (``gpt2``), a local folder or a package with ``get_model_path()``."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source = resolve_model_source(name_or_path)
        return cls(
            AutoModelForCausalLM.from_pretrained(source), AutoTokenizer.from_pretrained(source), device, batch_size
        )

    def perplexities(self, sentences: Sequence[str]) -> np.ndarray:
        _check_sentences(sentences)
        if not len(sentences):
            return np.zeros(0, dtype=np.float64)
        encoded = self.tokenizer(list(sentences), add_special_tokens=False)["input_ids"]
        sequences = []
        for index, tokens in enumerate(encoded):
            if not tokens:
                raise ValueError(f"sentences[{index}]: {sentences[index]!r} has no tokens to score")
            if self.max_tokens is not None and len(tokens) + 1 > self.max_tokens:
                raise ValueError(
                    f"sentences[{index}]: {len(tokens)} tokens + BOS exceed the model's context of {self.max_tokens}"
                )
            sequences.append([self.bos_id, *tokens])
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]), reverse=True)
        result = np.empty(len(sequences), dtype=np.float64)
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                index = order[start : start + self.batch_size]
                width = len(sequences[index[0]])
                input_ids = torch.full((len(index), width), self.pad_id, dtype=torch.long)
                attention = torch.zeros((len(index), width), dtype=torch.long)
                for row, i in enumerate(index):
                    input_ids[row, : len(sequences[i])] = torch.as_tensor(sequences[i])
                    attention[row, : len(sequences[i])] = 1
                logits = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device)
                ).logits
                log_probs = torch.log_softmax(logits[:, :-1].double(), dim=-1)
                targets = input_ids[:, 1:].to(self.device)
                scored = attention[:, 1:].to(self.device).double()
                token_nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1) * scored
                mean_nll = token_nll.sum(dim=1) / scored.sum(dim=1)
                result[index] = torch.exp(mean_nll).cpu().numpy()
                batch_number = start // self.batch_size + 1
                if batch_number % PROGRESS_EVERY == 0:
                    log.info("perplexity: %d/%d sentences", start + len(index), len(order))
        return result


# ---------------------------------------------------------------------------------------------
# Offline stand-in: SentencePiece + LSTM LM of cdaflow.text.language_model
# ---------------------------------------------------------------------------------------------
class LSTMScorer:
    """Per-sentence, per-piece perplexity (EOS included) under a BPE + LSTM LM folder."""

    def __init__(self, bpe: Any, model: LSTMLanguageModel, device: str | torch.device = "cpu") -> None:
        self.bpe = bpe
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()

    @classmethod
    def load(cls, model_dir: str | Path, device: str | torch.device = "cpu") -> LSTMScorer:
        """A folder holding ``bpe.model`` and ``lm.pt`` (from :func:`train_lstm_scorer` or the morph_cda LM rule)."""
        import sentencepiece as spm

        model_dir = Path(model_dir)
        if not (model_dir / BPE_MODEL).is_file():
            raise FileNotFoundError(f"{model_dir}: no {BPE_MODEL} (not an LSTM scorer folder)")
        bpe = spm.SentencePieceProcessor(model_file=str(model_dir / BPE_MODEL))
        return cls(bpe, LSTMLanguageModel.load(model_dir, str(device)), device)

    def piece_ids(self, sentences: Sequence[str]) -> list[list[int]]:
        """Shifted BPE piece ids, as :mod:`cdaflow.text.language_model` expects them."""
        return [[piece + PIECE_SHIFT for piece in pieces] for pieces in self.bpe.encode(list(sentences))]

    def perplexities(self, sentences: Sequence[str]) -> np.ndarray:
        _check_sentences(sentences)
        if not len(sentences):
            return np.zeros(0, dtype=np.float64)
        ids = self.piece_ids(sentences)
        for index, pieces in enumerate(ids):
            if not pieces:
                raise ValueError(f"sentences[{index}]: {sentences[index]!r} has no BPE pieces to score")
        # Length-sorted so the LM's fixed-size batches carry little padding.
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        # With EOS appended as the last "phrase" piece, the prefix log-likelihood is the whole
        # sentence's log P(pieces, EOS | BOS), the quantity the LM was trained and validated on.
        totals = prefix_log_likelihood(self.model, [ids[i] + [EOS] for i in order], device=self.device)
        result = np.empty(len(ids), dtype=np.float64)
        for i, total in zip(order, totals, strict=True):
            result[i] = math.exp(-total / (len(ids[i]) + 1))
        return result


@dataclass(frozen=True)
class LSTMScorerSettings:
    """BPE vocabulary size, held-out fraction for model selection, and the LSTM LM settings.

    `lm.seed` is ignored: :func:`train_lstm_scorer` takes the seed as a parameter.
    """

    bpe_vocab: int = field(default=8000, metadata=POSITIVE_INT)
    dev_fraction: float = field(default=0.05, metadata=FRACTION)
    lm: LMSettings = field(default_factory=LMSettings)

    def __post_init__(self) -> None:
        check_settings(self, "LSTM scorer settings")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LSTMScorerSettings:
        """From a mapping whose ``lm`` entry is a mapping of :class:`LMSettings` fields; unknown keys are rejected."""
        values = dict(config)
        if "lm" in values and not isinstance(values["lm"], LMSettings):
            lm = settings_from(LMSettings, values["lm"], "LSTM scorer settings: lm")
            if "seed" in values["lm"]:
                raise ValueError("LSTM scorer settings: lm: seed is not a setting here (the seed is the rule's)")
            values["lm"] = lm
        return settings_from(cls, values, "LSTM scorer settings")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def train_lstm_scorer(
    texts: Sequence[str],
    out_dir: str | Path,
    settings: LSTMScorerSettings,
    seed: int = 0,
    device: str | torch.device = "cpu",
    checkpoints: CheckpointStore | None = None,
) -> LSTMScorer:
    """Train SentencePiece BPE and the LSTM LM on `texts`; write ``bpe.model``, ``lm.pt``, ``metrics.json``.

    A seeded ``dev_fraction`` of the texts (at least one when the fraction is positive) is held out
    to pick the best epoch and is not seen by BPE or the LM. The folder appears atomically.
    With `checkpoints` the LM training resumes from the store's last checkpoint (BPE is retrained:
    it is deterministic) and the store is emptied once the folder is written.
    """
    import sentencepiece as spm

    _check_sentences(texts, "texts")
    lines = [text.strip() for text in texts]
    order = list(range(len(lines)))
    random.Random(seed).shuffle(order)
    n_dev = max(1, int(len(lines) * settings.dev_fraction)) if settings.dev_fraction > 0 else 0
    if len(lines) - n_dev < 1:
        raise ValueError(f"{len(lines)} texts leave nothing to train on after holding out {n_dev}")
    dev_lines = [lines[i] for i in order[:n_dev]]
    train_lines = [lines[i] for i in order[n_dev:]]
    lm_settings = dataclasses.replace(settings.lm, seed=seed)
    with atomic_directory(out_dir) as tmp:
        # BPE reads every sentence (no sampling) and runs on one thread, so it is deterministic.
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train_lines),
            model_prefix=str(tmp / Path(BPE_MODEL).stem),
            model_type="bpe",
            vocab_size=settings.bpe_vocab,
            hard_vocab_limit=False,
            character_coverage=1.0,
            num_threads=1,
            minloglevel=2,
        )
        bpe = spm.SentencePieceProcessor(model_file=str(tmp / BPE_MODEL))

        def ids(batch: Sequence[str]) -> list[list[int]]:
            return [[piece + PIECE_SHIFT for piece in pieces] for pieces in bpe.encode(list(batch))]

        train_ids, dev_ids = ids(train_lines), ids(dev_lines)
        log.info(
            "LSTM LM: %d train / %d dev sentences, %d BPE pieces", len(train_ids), len(dev_ids), bpe.get_piece_size()
        )
        model, history = train_lm(
            train_ids, dev_ids, bpe.get_piece_size(), lm_settings, device=str(device), checkpoints=checkpoints
        )
        model.save(tmp)
        dev_ppl = sentence_perplexity(model, dev_ids, str(device)) if dev_ids else float("nan")
        metrics = {
            "train_sentences": len(train_ids),
            "dev_sentences": len(dev_ids),
            "bpe_pieces": bpe.get_piece_size(),
            "dev_perplexity": dev_ppl if math.isfinite(dev_ppl) else None,
            "seed": seed,
            "settings": {**settings.to_dict(), "lm": asdict(lm_settings)},
            "history": history,
        }
        (tmp / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n", encoding="utf-8")
    if checkpoints is not None:
        checkpoints.finish()
    return LSTMScorer.load(out_dir, device)


# ---------------------------------------------------------------------------------------------
# Threshold
# ---------------------------------------------------------------------------------------------
