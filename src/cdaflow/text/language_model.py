"""The BPE-RNNLM baseline of Mielke & Eisner (2018), shared by Study A's extrinsic evaluation (§5.2, rules
morph_cda_lm and morph_cda_probes) and Study C's offline fluency scorer (:mod:`cdaflow.gap_subjective.fluency`).

SentencePiece BPE pieces, an LSTM language model over them (embedding → LSTM → softmax, input and
output embeddings tied), trained with Adam on whole sentences ``BOS pieces EOS``; validation
perplexity is per piece. :func:`prefix_log_likelihood` scores a phrase as the paper's
``log Σ_x P(BOS phrase x)``: the probability that a sentence *starts* with the phrase, i.e. the
sum of the log conditionals of its pieces after BOS, with no end-of-sentence term.
"""

from __future__ import annotations

import itertools
import logging
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from cdaflow.io.checkpoints import CheckpointStore, clone_state, digest, restore_rng, rng_state
from cdaflow.io.weights import load_state, load_torch_file
from cdaflow.settings import FRACTION, POSITIVE, POSITIVE_INT, check_settings

__all__ = [
    "EncodedCorpus", "LMSettings", "LSTMLanguageModel", "encode_corpus", "prefix_log_likelihood", "read_sentences",
    "sentence_perplexity", "train_lm",
]

log = logging.getLogger(__name__)

PAD, BOS, EOS = 0, 1, 2  # SentencePiece ids are shifted by 3


@dataclass(frozen=True)
class LMSettings:
    """The LSTM language model and its training; a value out of range is refused by name."""

    embedding: int = field(default=512, metadata=POSITIVE_INT)
    """Piece embedding size; the output layer shares these weights."""
    hidden: int = field(default=512, metadata=POSITIVE_INT)
    """LSTM state size, projected down to `embedding` before the output layer."""
    layers: int = field(default=2, metadata=POSITIVE_INT)
    dropout: float = field(default=0.3, metadata=FRACTION)
    """Dropout on the embeddings, between LSTM layers and before the output projection."""
    lr: float = field(default=0.001, metadata=POSITIVE)
    """Adam's learning rate."""
    batch_size: int = field(default=64, metadata=POSITIVE_INT)
    epochs: int = field(default=10, metadata=POSITIVE_INT)
    clip: float = field(default=1.0, metadata=POSITIVE)
    """Gradients are clipped to this norm."""
    seed: int = 0

    def __post_init__(self) -> None:
        check_settings(self, "language model settings")


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


def _id_dtype(largest: int) -> type[np.integer]:
    """The smallest array type for piece ids up to `largest`: 16,000 BPE pieces fit in uint16."""
    return np.uint16 if largest <= np.iinfo(np.uint16).max else np.int32


class EncodedCorpus(Sequence[np.ndarray]):
    """Sentences of (shifted) piece ids in one flat array: sentence ``i`` is ``ids[offsets[i]:offsets[i + 1]]``.

    Held as Python lists, 2M sentences of about 30 pieces took about 2.7 GB (an int object and a list
    pointer, 36 bytes a piece), and twice while the encoder's lists were shifted; here a piece takes 2
    bytes (uint16; int32 past 65,535 ids) and a sentence 8. Reads as a sequence of id arrays, so that
    :func:`train_lm` and the scorers take it where they take lists; a slice is a view.
    """

    def __init__(self, ids: np.ndarray, offsets: np.ndarray) -> None:
        if ids.ndim != 1 or offsets.ndim != 1 or len(offsets) < 1:
            raise ValueError("an encoded corpus is a flat id array and its offsets")
        self.ids, self.offsets = ids, offsets

    @classmethod
    def from_sequences(cls, sequences: Sequence[Sequence[int]]) -> EncodedCorpus:
        lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
        flat = np.fromiter((i for s in sequences for i in s), dtype=np.int64, count=int(lengths.sum()))
        return cls._join([flat], [lengths])

    @classmethod
    def _join(cls, blocks: list[np.ndarray], lengths: list[np.ndarray], dtype: Any = None) -> EncodedCorpus:
        flat = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int64)
        if dtype is None:
            dtype = _id_dtype(int(flat.max()) if len(flat) else 0)
        offsets = np.zeros(sum(map(len, lengths)) + 1, dtype=np.int64)
        if len(offsets) > 1:
            np.cumsum(np.concatenate(lengths), out=offsets[1:])
        return cls(flat.astype(dtype, copy=False), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return EncodedCorpus(self.ids, self.offsets[start : max(start, stop) + 1])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"sentence {index} of {len(self)}")
        return self.ids[self.offsets[index] : self.offsets[index + 1]]

    @property
    def pieces(self) -> int:
        return int(self.offsets[-1] - self.offsets[0])

    @property
    def nbytes(self) -> int:
        return int(self.ids.nbytes + self.offsets.nbytes)


def read_sentences(path: str | Path) -> list[str]:
    """The non-empty lines of a UTF-8 text file, stripped: ``read_text().splitlines()``'s lines (the same
    separators), read line by line rather than holding the whole text beside them."""
    sentences = []
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            sentences += [line.strip() for line in raw.splitlines() if line.strip()]
    return sentences


def encode_corpus(bpe: Any, texts: Iterable[str], *, chunk: int = 10_000, shift: int = 3) -> EncodedCorpus:
    """`texts` through a SentencePiece processor, ids shifted by `shift` (PAD, BOS, EOS), as an
    :class:`EncodedCorpus`; encoded `chunk` sentences at a time, so that only one chunk's lists exist."""
    dtype = _id_dtype(bpe.get_piece_size() - 1 + shift)
    blocks, lengths = [], []
    stream = iter(texts)
    while batch := list(itertools.islice(stream, chunk)):
        encoded = bpe.encode(batch)
        sizes = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        flat = np.fromiter(itertools.chain.from_iterable(encoded), dtype=np.int64, count=int(sizes.sum()))
        blocks.append((flat + shift).astype(dtype))
        lengths.append(sizes)
    return EncodedCorpus._join(blocks, lengths, dtype)


def _pad(sequences: Sequence[Sequence[int]], device: torch.device, *, bos: bool = False, eos: bool = False) -> Tensor:
    """``[B, T]`` piece ids: each sequence after BOS and before EOS where asked, PAD-filled to the right.

    Built in numpy from lists or from an :class:`EncodedCorpus`'s arrays alike (the ids, hence the
    model's losses, are those of ``[BOS, *s, EOS]`` lists)."""
    lead = int(bos)
    width = max(len(s) for s in sequences) + lead + int(eos)
    out = np.full((len(sequences), width), PAD, dtype=np.int64)
    if bos:
        out[:, 0] = BOS
    for i, s in enumerate(sequences):
        out[i, lead : lead + len(s)] = s
        if eos:
            out[i, lead + len(s)] = EOS
    return torch.from_numpy(out).to(device)


def _log_likelihoods(
    log_probs: Callable[[Tensor], Tensor], sequences: Sequence[Sequence[int]], *, end: bool, device: torch.device,
    batch_size: int = 256,
) -> list[float]:
    """Σ_t log P(piece_t | BOS, pieces_<t) of each sequence (+ log P(EOS | ...) when `end`)."""
    totals: list[float] = []
    for start in range(0, len(sequences), batch_size):
        batch = _pad(sequences[start : start + batch_size], device, bos=True, eos=end)
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
    pieces = (sequences.pieces + len(sequences)) if isinstance(sequences, EncodedCorpus) else sum(
        len(s) + 1 for s in sequences)
    return math.exp(-sum(totals) / pieces) if pieces else float("nan")


def train_lm(
    train: Sequence[Sequence[int]], dev: Sequence[Sequence[int]], vocab_size: int, settings: LMSettings,
    *, device: str = "cpu", checkpoints: CheckpointStore | None = None,
) -> tuple[LSTMLanguageModel, list[dict[str, Any]]]:
    """Train on shifted piece-id sequences; keep the epoch with the best dev perplexity.

    With `checkpoints` the training state (weights, Adam, best model, history, RNG states, the
    shuffled order and the position in it) is saved at each epoch's end and whenever the store says
    it is due; a run that finds a checkpoint of the same training continues from it, to the result
    of an uninterrupted run. The caller removes the store's folder once the model is saved.
    """
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    model = LSTMLanguageModel(vocab_size, settings).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr)
    loss_fn = nn.NLLLoss(ignore_index=PAD, reduction="sum")
    order = list(range(len(train)))
    best, best_state, history = math.inf, None, []
    # `epoch` is under way while `position` < len(order) (the order is shuffled in place each epoch, so
    # it is saved too); epoch, step, position and the sums go into each checkpoint.
    epoch, step, position, total, pieces = 1, 0, len(order), 0.0, 0
    if checkpoints is not None:
        sample = [list(map(int, seq)) for seq in (train[i] for i in range(0, len(train), max(1, len(train) // 1000)))]
        saved = checkpoints.resume({
            "trainer": "train_lm", "settings": asdict(settings), "vocab_size": vocab_size,
            "sizes": [len(train), len(dev)], "sample": digest(sample),
        })  # fmt: skip
        if saved is not None:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            best, best_state, history = saved["best"], saved["best_state"], saved["history"]
            epoch, step, position = saved["epoch"], saved["step"], saved["position"]
            total, pieces, order = saved["total"], saved["pieces"], saved["order"].tolist()
            restore_rng(saved["rng"], rng)

    def checkpoint() -> None:
        assert checkpoints is not None
        checkpoints.save(step, {
            "model": clone_state(model), "optimizer": optimizer.state_dict(), "best": best,
            "best_state": best_state, "history": history, "epoch": epoch, "step": step, "position": position,
            "total": total, "pieces": pieces, "order": torch.tensor(order, dtype=torch.long), "rng": rng_state(rng),
        })  # fmt: skip

    while epoch <= settings.epochs:
        model.train()
        if position >= len(order):  # a new epoch
            rng.shuffle(order)
            position, total, pieces = 0, 0.0, 0
        while position < len(order):
            batch = _pad([train[i] for i in order[position : position + settings.batch_size]], torch.device(device),
                         bos=True, eos=True)
            inputs, targets = batch[:, :-1], batch[:, 1:]
            count = int((targets != PAD).sum())
            loss = loss_fn(model(inputs).reshape(-1, model.vocab_size + 3), targets.reshape(-1))
            optimizer.zero_grad()
            (loss / count).backward()
            nn.utils.clip_grad_norm_(model.parameters(), settings.clip)
            optimizer.step()
            total, pieces = total + float(loss.detach()), pieces + count
            position, step = position + settings.batch_size, step + 1
            if checkpoints is not None and position < len(order) and checkpoints.due(step):
                checkpoint()
        dev_ppl = sentence_perplexity(model, dev, device) if dev else float("nan")
        history.append({"epoch": epoch, "train_ppl": math.exp(total / max(pieces, 1)), "dev_ppl": dev_ppl})
        log.info("epoch %d: train ppl %.2f, dev ppl %.2f", epoch, history[-1]["train_ppl"], dev_ppl)
        if not dev or dev_ppl < best:
            best = dev_ppl
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        epoch, position = epoch + 1, len(order)
        if checkpoints is not None:  # the last epoch's too: a retry then skips training
            checkpoint()
    if best_state is not None:
        model.load_state_dict(best_state)
    return model.eval(), history
