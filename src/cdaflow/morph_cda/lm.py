"""Language models for the extrinsic evaluation (§5.2): the BPE-RNNLM baseline of Mielke & Eisner (2018).

SentencePiece BPE pieces, an LSTM language model over them (embedding → LSTM → softmax, input and
output embeddings tied), trained with Adam on whole sentences ``BOS pieces EOS``; validation
perplexity is per piece. :func:`prefix_log_likelihood` scores a phrase as the paper's
``log Σ_x P(BOS phrase x)``: the probability that a sentence *starts* with the phrase, i.e. the
sum of the log conditionals of its pieces after BOS, with no end-of-sentence term.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from cdaflow.config import not_positive_integers
from cdaflow.io.weights import load_state, load_torch_file

__all__ = ["LMSettings", "LSTMLanguageModel", "prefix_log_likelihood", "sentence_perplexity", "train_lm"]

log = logging.getLogger(__name__)

PAD, BOS, EOS = 0, 1, 2  # SentencePiece ids are shifted by 3


@dataclass(frozen=True)
class LMSettings:
    """The LSTM language model and its training; a value out of range is refused by name."""

    embedding: int = 512
    """Piece embedding size; the output layer shares these weights."""
    hidden: int = 512
    """LSTM state size, projected down to `embedding` before the output layer."""
    layers: int = 2
    dropout: float = 0.3
    """Dropout on the embeddings, between LSTM layers and before the output projection."""
    lr: float = 0.001
    """Adam's learning rate."""
    batch_size: int = 64
    epochs: int = 10
    clip: float = 1.0
    """Gradients are clipped to this norm."""
    seed: int = 0

    def __post_init__(self) -> None:
        problems = not_positive_integers(self, ("embedding", "hidden", "layers", "batch_size", "epochs"))
        if not 0 <= self.dropout < 1:
            problems.append(f"dropout={self.dropout!r} must be in [0, 1)")
        for name in ("lr", "clip"):
            if not getattr(self, name) > 0:
                problems.append(f"{name}={getattr(self, name)!r} must be > 0")
        if problems:
            raise ValueError("language model settings: " + "; ".join(problems))


class LSTMLanguageModel(nn.Module):
    """An LSTM LM over ``vocab_size`` BPE pieces plus PAD, BOS, EOS."""

    def __init__(self, vocab_size: int, settings: LMSettings) -> None:
        super().__init__()
        self.settings = settings
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size + 3, settings.embedding, padding_idx=PAD)
        self.lstm = nn.LSTM(settings.embedding, settings.hidden, settings.layers, batch_first=True,
                            dropout=settings.dropout if settings.layers > 1 else 0.0)
        self.project = nn.Linear(settings.hidden, settings.embedding)
        self.out = nn.Linear(settings.embedding, vocab_size + 3)
        self.out.weight = self.embed.weight  # tied input/output embeddings
        self.drop = nn.Dropout(settings.dropout)

    def forward(self, inputs: Tensor) -> Tensor:
        """Log-probabilities of the next piece, ``[B, T, V]``."""
        hidden, _ = self.lstm(self.drop(self.embed(inputs)))
        return torch.log_softmax(self.out(self.drop(self.project(hidden))), dim=-1)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        torch.save({"state": self.state_dict(), "vocab_size": self.vocab_size, "settings": asdict(self.settings)},
                   directory / "lm.pt")

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> LSTMLanguageModel:
        path = directory / "lm.pt"
        if not path.is_file():
            raise FileNotFoundError(f"{directory}: no lm.pt (not a language model folder)")
        saved = load_torch_file(path, what="language model weights", map_location=device)
        if not isinstance(saved, dict) or not {"state", "vocab_size", "settings"} <= set(saved):
            raise ValueError(f"{path}: not a saved LSTM language model (expected state, vocab_size, settings)")
        try:
            model = cls(saved["vocab_size"], LMSettings(**saved["settings"]))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: settings: {error}") from None
        load_state(model, saved["state"], path, what="language model weights")
        return model.to(device).eval()


def _pad(sequences: Sequence[Sequence[int]], device: torch.device) -> Tensor:
    width = max(len(s) for s in sequences)
    out = torch.full((len(sequences), width), PAD, dtype=torch.long, device=device)
    for i, s in enumerate(sequences):
        out[i, : len(s)] = torch.as_tensor(s, dtype=torch.long)
    return out


def _log_likelihoods(
    log_probs: Callable[[Tensor], Tensor], sequences: Sequence[Sequence[int]], *, end: bool, device: torch.device,
    batch_size: int = 256,
) -> list[float]:
    """Σ_t log P(piece_t | BOS, pieces_<t) of each sequence (+ log P(EOS | ...) when `end`)."""
    totals: list[float] = []
    for start in range(0, len(sequences), batch_size):
        chunk = [[BOS, *s] + ([EOS] if end else []) for s in sequences[start : start + batch_size]]
        batch = _pad(chunk, device)
        inputs, targets = batch[:, :-1], batch[:, 1:]
        with torch.no_grad():
            scores = log_probs(inputs).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        scores = scores.masked_fill(targets == PAD, 0.0)
        totals += scores.double().sum(dim=1).tolist()
    return totals


def prefix_log_likelihood(
    log_probs: Callable[[Tensor], Tensor], phrases: Sequence[Sequence[int]], *, device: str | torch.device = "cpu"
) -> list[float]:
    """``log Σ_x P(BOS phrase x)`` for each phrase (already shifted piece ids): no EOS term."""
    if any(len(p) == 0 for p in phrases):
        raise ValueError("an empty phrase has no prefix probability to compare")
    return _log_likelihoods(log_probs, phrases, end=False, device=torch.device(device))


def sentence_perplexity(model: LSTMLanguageModel, sequences: Sequence[Sequence[int]], device: str = "cpu") -> float:
    """Per-piece perplexity of whole sentences (EOS predicted too)."""
    model.eval()
    totals = _log_likelihoods(model, sequences, end=True, device=torch.device(device))
    pieces = sum(len(s) + 1 for s in sequences)
    return math.exp(-sum(totals) / pieces) if pieces else float("nan")


def train_lm(
    train: Sequence[Sequence[int]], dev: Sequence[Sequence[int]], vocab_size: int, settings: LMSettings,
    *, device: str = "cpu",
) -> tuple[LSTMLanguageModel, list[dict[str, Any]]]:
    """Train on shifted piece-id sequences; keep the epoch with the best dev perplexity."""
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    model = LSTMLanguageModel(vocab_size, settings).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr)
    loss_fn = nn.NLLLoss(ignore_index=PAD, reduction="sum")
    order = list(range(len(train)))
    best, best_state, history = math.inf, None, []
    for epoch in range(1, settings.epochs + 1):
        model.train()
        rng.shuffle(order)
        total, pieces = 0.0, 0
        for start in range(0, len(order), settings.batch_size):
            batch = _pad([[BOS, *train[i], EOS] for i in order[start : start + settings.batch_size]],
                         torch.device(device))
            inputs, targets = batch[:, :-1], batch[:, 1:]
            count = int((targets != PAD).sum())
            loss = loss_fn(model(inputs).reshape(-1, model.vocab_size + 3), targets.reshape(-1))
            optimizer.zero_grad()
            (loss / count).backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
            optimizer.step()
            total, pieces = total + float(loss.detach()), pieces + count
        dev_ppl = sentence_perplexity(model, dev, device) if dev else float("nan")
        history.append({"epoch": epoch, "train_ppl": math.exp(total / max(pieces, 1)), "dev_ppl": dev_ppl})
        log.info("epoch %d: train ppl %.2f, dev ppl %.2f", epoch, history[-1]["train_ppl"], dev_ppl)
        if not dev or dev_ppl < best:
            best = dev_ppl
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    if best_state is not None:
        model.load_state_dict(best_state)
    return model.eval(), history
