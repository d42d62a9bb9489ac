"""InferSent v1 (Conneau et al. 2017): a BiLSTM-max sentence encoder over word vectors.

Study D (Dolci et al. 2023, §3.4, §4.3) uses InferSent twice: its max-pooling argmax gives
*word importance* (how many of the 2 × 2048 embedding dimensions each time step wins), and the
encoder is retrained on (de-biased) SNLI. This module holds the encoder and a wrapper that
turns raw sentences into embeddings; `cdaflow.sentence_bias.nli` trains it.

Fidelity notes (what InferSent's public code does, and where this module differs):

* **Tokenisation.** InferSent v1 calls NLTK's ``word_tokenize``; :mod:`cdaflow.sentence_bias.tokenizer`
  reproduces it (NLTK is not a dependency; its docstring says where it differs).
* **Sentence boundaries and OOV words.** Like ``InferSent.prepare_samples`` the token list is
  ``['<s>'] + tokens + ['</s>']`` and every token without a vector is *dropped* (not mapped to an
  UNK vector), so the encoder never sees it and it gets no importance. InferSent's GloVe 840B
  file is expected to hold vectors for ``<s>`` and ``</s>`` (train_nli.py looks them up for every
  sentence). With vectors that lack them, InferSent's ``encode`` would silently drop them too
  (and fail on a sentence with no known word, facebookresearch/InferSent#81); this module uses a
  zero vector for them instead (recorded in the saved config), so boundary tokens are always
  present and ``encode_with_argmax`` tokens always start with ``<s>`` and end with ``</s>``.
* **Max pooling over padding.** The official v1 code (``max_pad=True``) pads a batch with zeros
  after ``pad_packed_sequence`` and takes the max over *all* time steps, so for every sentence
  shorter than the longest one in its batch a dimension whose real hidden states are all negative
  pools to 0 (facebookresearch/InferSent#51; infersent1.pkl was trained that way and v2 fixed
  it). By default this module takes the max over the real time steps only (padding never wins,
  batched == one-by-one, the same as InferSent's single-sentence ``visualize`` that word
  importance follows). ``zero_pad_in_max=True`` reproduces the v1 behaviour exactly (results then
  depend on the batch; an argmax that falls on padding is reported as -1).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.model_card import write_card
from cdaflow.io.models import check_settings
from cdaflow.io.structured import read_mapping
from cdaflow.io.weights import load_torch_file
from cdaflow.sentence_bias.tokenizer import tokenize

log = logging.getLogger(__name__)

BOS, EOS = "<s>", "</s>"
POOLS = ("max", "mean")
LSTM_KEYS = tuple(
    f"enc_lstm.{kind}_{part}_l0{suffix}"
    for suffix in ("", "_reverse")
    for kind, part in (("weight", "ih"), ("weight", "hh"), ("bias", "ih"), ("bias", "hh"))
)
CONFIG_NAME, STATE_NAME = "config.json", "encoder.pt"
FORMAT = "cdaflow-infersent"


@runtime_checkable
class VectorsLike(Protocol):
    """What the encoder needs from a word-vector set (e.g. ``embeddings.WordVectors``).

    Besides these, the word → row mapping is read from a ``vocab`` attribute or, failing that,
    an ``index`` attribute (``embeddings.WordVectors`` names it ``index``); see `row_lookup`.
    """

    matrix: np.ndarray

    @property
    def dim(self) -> int: ...

    def __contains__(self, word: object) -> bool: ...


def row_lookup(vectors: Any) -> Mapping[str, int]:
    """The word → matrix row mapping of `vectors` (its ``vocab``, else its ``index``)."""
    for name in ("vocab", "index"):
        mapping = getattr(vectors, name, None)
        if isinstance(mapping, Mapping):
            return mapping
    raise TypeError(
        f"{type(vectors).__name__}: word vectors need a word -> row mapping named 'vocab' or 'index'"
    )


# ---------------------------------------------------------------------------------------------
# The encoder
# ---------------------------------------------------------------------------------------------
def _lengths_tensor(lengths: Tensor | Sequence[int], batch: int, steps: int) -> Tensor:
    lengths = torch.as_tensor(lengths, dtype=torch.long).detach().to("cpu").reshape(-1)
    if lengths.numel() != batch:
        raise ValueError(f"got {lengths.numel()} lengths for a batch of {batch}")
    if batch and (int(lengths.min()) < 1 or int(lengths.max()) > steps):
        raise ValueError(f"lengths must lie in 1..{steps} (the padded length), got {lengths.tolist()}")
    return lengths


class BiLSTMMaxEncoder(nn.Module):
    """InferSent's ``BLSTMEncoder``: a 1-layer BiLSTM whose outputs are pooled over time.

    The LSTM is an attribute ``enc_lstm`` so that the state dict has InferSent's own key names
    (``enc_lstm.weight_ih_l0``, ...) and ``infersent1.pkl`` loads as is. Sentence embeddings have
    ``2 * hidden`` dimensions (forward then backward direction, as ``nn.LSTM`` concatenates them).
    """

    def __init__(
        self, word_dim: int = 300, hidden: int = 2048, pool: str = "max", *, zero_pad_in_max: bool = False
    ) -> None:
        super().__init__()
        if pool not in POOLS:
            raise ValueError(f"pool must be one of {POOLS}, got {pool!r}")
        if word_dim < 1 or hidden < 1:
            raise ValueError(f"word_dim and hidden must be positive, got {word_dim} and {hidden}")
        self.word_dim, self.hidden, self.pool = int(word_dim), int(hidden), pool
        self.zero_pad_in_max = bool(zero_pad_in_max)
        self.enc_lstm = nn.LSTM(self.word_dim, self.hidden, 1, bidirectional=True)

    @property
    def output_dim(self) -> int:
        return 2 * self.hidden

    def config(self) -> dict[str, Any]:
        return {
            "word_dim": self.word_dim,
            "hidden": self.hidden,
            "pool": self.pool,
            "zero_pad_in_max": self.zero_pad_in_max,
        }

    def hidden_states(self, embedded: Tensor, lengths: Tensor | Sequence[int]) -> tuple[Tensor, Tensor]:
        """BiLSTM outputs [B, T, 2h] (zero after each sequence's end) and the lengths (CPU)."""
        if embedded.dim() != 3 or embedded.size(2) != self.word_dim:
            raise ValueError(
                f"expected embedded inputs [batch, time, {self.word_dim}], got {tuple(embedded.shape)}"
            )
        batch, steps, _ = embedded.shape
        lengths = _lengths_tensor(lengths, batch, steps)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        output, _ = self.enc_lstm(packed)
        padded, _ = pad_packed_sequence(output, batch_first=True, total_length=steps)
        return padded, lengths

    def forward(self, embedded: Tensor, lengths: Tensor | Sequence[int]) -> tuple[Tensor, Tensor]:
        """Pool the BiLSTM outputs of `embedded` [B, T, word_dim] (padded after `lengths`).

        Returns the sentence embeddings [B, 2h] and, for max pooling, the time step that won each
        dimension [B, 2h] (an index into the unpadded sequence; the first one on a tie). With
        mean pooling, or where v1's zero padding won (``zero_pad_in_max``), the index is -1.
        """
        states, lengths = self.hidden_states(embedded, lengths)
        steps = states.size(1)
        real = (torch.arange(steps).unsqueeze(0) < lengths.unsqueeze(1)).to(states.device)  # [B, T]
        if self.pool == "mean":
            summed = states.masked_fill(~real.unsqueeze(2), 0.0).sum(dim=1)
            embedding = summed / lengths.to(states.device, states.dtype).unsqueeze(1)
            return embedding, torch.full_like(embedding, -1, dtype=torch.long)
        if self.zero_pad_in_max:
            # InferSent v1: the batch is padded to its longest sentence with zeros, max over all.
            longest = int(lengths.max())
            embedding, argmax = states[:, :longest].max(dim=1)
            argmax = torch.where(argmax < lengths.to(argmax.device).unsqueeze(1), argmax, -1)
            return embedding, argmax
        masked = states.masked_fill(~real.unsqueeze(2), float("-inf"))
        embedding, argmax = masked.max(dim=1)
        return embedding, argmax

    # -- the official weights ----------------------------------------------------------------
    def load_infersent_state(self, path: str | os.PathLike[str], *, trust_pickle: bool = False) -> None:
        """Load InferSent's ``infersent1.pkl`` (or any state dict with its key names) into this encoder.

        The file must be a state dict saved with ``torch.save``; it is read with
        ``weights_only=True``. Keys may carry an ``encoder.`` or ``module.`` prefix (a saved
        ``NLINet`` or ``DataParallel``); other keys are ignored. Shapes are checked against this
        encoder's ``word_dim`` and ``hidden`` and a mismatch raises ``ValueError`` naming the key.
        """
        state = read_state_dict(path, trust_pickle=trust_pickle)
        self.load_lstm_state(state, source=str(path))

    def load_lstm_state(self, state: Mapping[str, Tensor], *, source: str = "state dict") -> None:
        """Copy the eight ``enc_lstm.*`` tensors of `state` into the LSTM, checking names and shapes."""
        found = _lstm_entries(state)
        missing = [key for key in LSTM_KEYS if key not in found]
        if missing:
            raise ValueError(
                f"{source}: not an InferSent encoder state dict: missing {', '.join(missing)} "
                f"(found keys: {', '.join(sorted(map(str, state))[:12]) or 'none'})"
            )
        own = self.state_dict()
        for key in LSTM_KEYS:
            if tuple(found[key].shape) != tuple(own[key].shape):
                dims = _dims_from_state(found)
                held = f"word_dim={dims[0]}, hidden={dims[1]}" if dims else "an unrecognised layout"
                raise ValueError(
                    f"{source}: {key} has shape {tuple(found[key].shape)}, expected {tuple(own[key].shape)} "
                    f"(the file holds an LSTM with {held}; this encoder has "
                    f"word_dim={self.word_dim}, hidden={self.hidden})"
                )
        with torch.no_grad():
            for key in LSTM_KEYS:
                own[key].copy_(found[key])

    @classmethod
    def from_infersent_state(
        cls,
        path: str | os.PathLike[str],
        *,
        pool: str = "max",
        zero_pad_in_max: bool = False,
        trust_pickle: bool = False,
    ) -> BiLSTMMaxEncoder:
        """An encoder sized after the weights in `path` (infersent1.pkl: word_dim 300, hidden 2048)."""
        state = read_state_dict(path, trust_pickle=trust_pickle)
        dims = _dims_from_state(_lstm_entries(state))
        if dims is None:
            raise ValueError(f"{path}: no InferSent LSTM weights (enc_lstm.weight_ih_l0 [4h, d]) found")
        encoder = cls(dims[0], dims[1], pool, zero_pad_in_max=zero_pad_in_max)
        encoder.load_lstm_state(state, source=str(path))
        return encoder


def _lstm_entries(state: Mapping[str, Any]) -> dict[str, Tensor]:
    found: dict[str, Tensor] = {}
    for key, value in state.items():
        name = str(key)
        for prefix in ("module.", "encoder."):
            if name.startswith(prefix):
                name = name[len(prefix) :]
        if name in LSTM_KEYS and isinstance(value, Tensor):
            found[name] = value
    return found


def _dims_from_state(found: Mapping[str, Tensor]) -> tuple[int, int] | None:
    weight = found.get("enc_lstm.weight_ih_l0")
    if weight is None or weight.dim() != 2 or weight.size(0) % 4:
        return None
    return int(weight.size(1)), int(weight.size(0) // 4)


def read_state_dict(path: str | os.PathLike[str], *, trust_pickle: bool = False) -> dict[str, Tensor]:
    """Read a ``torch.save``-d state dict safely (``weights_only=True``).

    A file that is not a plain state dict (e.g. a whole pickled model, as InferSent's 2017
    ``infersent.allnli.pickle``) cannot be read that way; the error says so. With
    ``trust_pickle=True`` such a file is unpickled in full (this runs code from the file: only for
    files from a trusted source) and, if it is a module, its ``state_dict()`` is used.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file (InferSent weights: infersent1.pkl)")
    try:
        state: Any = load_torch_file(path, what="a plain state dict (torch.load with weights_only=True)")
    except ValueError as exc:  # random bytes, a truncated file, or a whole pickled model
        if not trust_pickle:
            raise ValueError(
                f"{exc}; infersent1.pkl and the workflow's encoder.pt are plain state dicts (a whole pickled "
                "model needs trust_pickle=True, which executes code stored in the file)"
            ) from None
        log.warning("%s: not a plain state dict; unpickling it in full (trust_pickle=True)", path)
        state = torch.load(path, map_location="cpu", weights_only=False)
    if isinstance(state, nn.Module):
        state = state.state_dict()
    if not isinstance(state, Mapping):
        raise ValueError(
            f"{path}: expected a state dict (a mapping of names to tensors), got {type(state).__name__}"
        )
    return dict(state)


# ---------------------------------------------------------------------------------------------
# The wrapper: sentences in, embeddings out
# ---------------------------------------------------------------------------------------------
def _resolve_device(device: torch.device | str | None) -> torch.device | None:
    if device is None:
        return None
    if str(device) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class InferSent:
    """Encoder + word vectors + InferSent's preprocessing.

    ``encode`` sorts sentences by length, pads each batch, runs the encoder and restores the
    input order. Sentences become ``<s> w1 ... wn </s>`` with every word lacking a vector
    dropped (see the module docstring). The encoder lives on ``device`` (``"auto"``: CUDA when
    available); word vectors stay in host memory and only each batch is copied over.
    """

    def __init__(
        self,
        encoder: BiLSTMMaxEncoder,
        vectors: VectorsLike,
        *,
        device: torch.device | str | None = None,
    ) -> None:
        dim = int(vectors.dim)
        if vectors.matrix.ndim != 2 or vectors.matrix.shape[1] != dim:
            raise ValueError(f"word vectors: matrix shape {vectors.matrix.shape} does not match dim {dim}")
        if dim != encoder.word_dim:
            raise ValueError(f"word vectors have {dim} dimensions but the encoder expects {encoder.word_dim}")
        self.encoder = encoder
        self.vectors = vectors
        self._rows = row_lookup(vectors)
        self._special: dict[str, int] = {}  # boundary tokens without a vector: id -1 (BOS), -2 (EOS)
        for code, token in ((-1, BOS), (-2, EOS)):
            if token not in vectors:
                self._special[token] = code
        # An uncased vocabulary (GloVe 6B) has no "She": such vectors get lower-cased words, so
        # capitalised words are not dropped as out-of-vocabulary.
        words = getattr(vectors, "words", None) or list(self._rows)[:1000]
        self.lowercase = not any(word[:1].isupper() for word in list(words)[:1000])
        resolved = _resolve_device(device)
        if resolved is not None:
            self.encoder.to(resolved)

    # -- construction and persistence --------------------------------------------------------
    @classmethod
    def build(
        cls,
        vectors: VectorsLike,
        hidden: int = 2048,
        *,
        pool: str = "max",
        zero_pad_in_max: bool = False,
        seed: int | None = None,
        device: torch.device | str | None = None,
    ) -> InferSent:
        """A freshly initialised encoder over `vectors` (PyTorch's default LSTM init, seeded)."""
        if seed is not None:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                encoder = BiLSTMMaxEncoder(int(vectors.dim), hidden, pool, zero_pad_in_max=zero_pad_in_max)
        else:
            encoder = BiLSTMMaxEncoder(int(vectors.dim), hidden, pool, zero_pad_in_max=zero_pad_in_max)
        return cls(encoder, vectors, device=device)

    @classmethod
    def from_infersent_pkl(
        cls,
        path: str | os.PathLike[str],
        vectors: VectorsLike,
        *,
        zero_pad_in_max: bool = False,
        device: torch.device | str | None = None,
        trust_pickle: bool = False,
    ) -> InferSent:
        """The official model: ``infersent1.pkl`` with GloVe 840B (300d) vectors."""
        encoder = BiLSTMMaxEncoder.from_infersent_state(
            path, zero_pad_in_max=zero_pad_in_max, trust_pickle=trust_pickle
        )
        return cls(encoder, vectors, device=device)

    @property
    def device(self) -> torch.device:
        return next(self.encoder.parameters()).device

    def to(self, device: torch.device | str) -> InferSent:
        resolved = _resolve_device(device)
        assert resolved is not None
        self.encoder.to(resolved)
        return self

    def config(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": 1,
            **self.encoder.config(),
            "boundary_vectors": {
                token: ("zeros" if token in self._special else "vectors") for token in (BOS, EOS)
            },
        }

    def save(
        self, directory: str | os.PathLike[str], extra: dict[str, Any] | None = None,
        card: dict[str, Any] | None = None,
    ) -> None:
        """Write ``config.json`` and ``encoder.pt`` (a state dict with InferSent's key names) atomically,
        and `card` (scale, data, size, held-out accuracy) as ``model_card.json``.

        The word vectors are not saved: `load` takes them again.
        """
        with atomic_directory(directory) as tmp:
            if card is not None:
                write_card(tmp, kind="infersent", lang="en", **card)
            state = {key: value.detach().cpu() for key, value in self.encoder.state_dict().items()}
            torch.save(state, tmp / STATE_NAME)
            (tmp / CONFIG_NAME).write_text(json.dumps(self.config() | (extra or {}), indent=1) + "\n")

    @classmethod
    def load(
        cls,
        directory: str | os.PathLike[str],
        vectors: VectorsLike,
        *,
        device: torch.device | str | None = None,
    ) -> InferSent:
        directory = Path(directory)
        missing = [name for name in (CONFIG_NAME, STATE_NAME) if not (directory / name).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{directory}: not an InferSent model folder (missing {', '.join(missing)})"
            )
        config = read_mapping(directory / CONFIG_NAME, fmt="json")
        if config.get("format") != FORMAT:
            raise ValueError(
                f"{directory / CONFIG_NAME}: format {config.get('format')!r}, expected {FORMAT!r}"
            )
        check_settings(
            config, directory / CONFIG_NAME, {"word_dim": int, "hidden": int, "pool": str, "zero_pad_in_max": bool}
        )
        encoder = BiLSTMMaxEncoder(
            config["word_dim"], config["hidden"], config["pool"], zero_pad_in_max=config["zero_pad_in_max"]
        )
        encoder.load_infersent_state(directory / STATE_NAME)
        model = cls(encoder, vectors, device=device)
        saved = config.get("boundary_vectors", {})
        now = model.config()["boundary_vectors"]
        for token, how in saved.items():
            if now.get(token) != how:
                log.warning(
                    "%s: %s was encoded with %s when saved but now gets %s (different word vectors?)",
                    directory,
                    token,
                    how,
                    now.get(token),
                )
        return model

    @classmethod
    def load_any(
        cls,
        path: str | os.PathLike[str],
        vectors: VectorsLike,
        *,
        pretrained: bool,
        device: torch.device | str | None = None,
    ) -> InferSent:
        """A model folder saved by :meth:`save`, or (``pretrained``) Conneau et al.'s ``infersent1.pkl``."""
        if pretrained:
            return cls.from_infersent_pkl(path, vectors, device=device)
        return cls.load(path, vectors, device=device)

    # -- preprocessing -----------------------------------------------------------------------
    def prepare(self, sentence: str, *, tokenize_input: bool = True) -> list[str]:
        """``['<s>'] + tokens + ['</s>']`` with the tokens that have no vector dropped.

        `tokenize_input=False` splits on whitespace instead (InferSent's ``tokenize=False``; how
        ``train_nli.py`` reads SentEval's pre-tokenised SNLI files).
        """
        words = tokenize(sentence) if tokenize_input else sentence.split()
        if self.lowercase:
            words = [word.lower() for word in words]
        kept = [word for word in words if word in self.vectors and word not in (BOS, EOS)]
        return [BOS, *kept, EOS]

    def token_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Rows of ``vectors.matrix`` for `tokens` (negative: a boundary token given a zero vector)."""
        rows = self._rows
        return np.array([self._special[t] if t in self._special else rows[t] for t in tokens], dtype=np.int64)

    def embed_ids(self, batch: Sequence[np.ndarray]) -> tuple[Tensor, Tensor]:
        """Padded word vectors [B, T, d] (float32, on the encoder's device) and lengths (CPU)."""
        lengths = np.array([len(ids) for ids in batch], dtype=np.int64)
        if not len(batch) or lengths.min() < 1:
            raise ValueError("every sentence needs at least one token")
        steps = int(lengths.max())
        flat = np.concatenate(list(batch))
        rows = np.asarray(self.vectors.matrix[np.maximum(flat, 0)], dtype=np.float32)
        rows[flat < 0] = 0.0  # boundary tokens missing from the vectors
        padded = np.zeros((len(batch), steps, self.encoder.word_dim), dtype=np.float32)
        mask = np.arange(steps)[None, :] < lengths[:, None]
        padded[mask] = rows
        dtype = next(self.encoder.parameters()).dtype
        embedded = torch.from_numpy(padded).to(device=self.device, dtype=dtype)
        return embedded, torch.from_numpy(lengths)

    # -- encoding ----------------------------------------------------------------------------
    def _run(
        self, sentences: Sequence[str], batch_size: int, tokenize_input: bool
    ) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if isinstance(sentences, str):
            raise TypeError("encode takes a sequence of sentences, not one string")
        tokens = [self.prepare(sentence, tokenize_input=tokenize_input) for sentence in sentences]
        out_dim = self.encoder.output_dim
        embeddings = np.zeros((len(tokens), out_dim), dtype=np.float32)
        argmax = np.zeros((len(tokens), out_dim), dtype=np.int64)
        order = sorted(range(len(tokens)), key=lambda i: (-len(tokens[i]), i))
        was_training = self.encoder.training
        self.encoder.eval()
        try:
            with torch.no_grad():
                for start in range(0, len(order), batch_size):
                    chunk = order[start : start + batch_size]
                    embedded, lengths = self.embed_ids([self.token_ids(tokens[i]) for i in chunk])
                    emb, arg = self.encoder(embedded, lengths)
                    embeddings[chunk] = emb.float().cpu().numpy()
                    argmax[chunk] = arg.cpu().numpy()
        finally:
            self.encoder.train(was_training)
        return embeddings, argmax, tokens

    def encode(
        self, sentences: Sequence[str], batch_size: int = 128, *, tokenize_input: bool = True
    ) -> np.ndarray:
        """Sentence embeddings [N, 2h] (float32), in the order of `sentences`."""
        return self._run(sentences, batch_size, tokenize_input)[0]

    def encode_with_argmax(
        self, sentences: Sequence[str], batch_size: int = 128, *, tokenize_input: bool = True
    ) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
        """Embeddings [N, 2h], max-pool argmax [N, 2h] and each sentence's tokens.

        ``argmax[i, k]`` indexes ``tokens[i]`` (which includes ``<s>`` and ``</s>``): the token
        whose hidden state won dimension k. Word importance (Dolci et al. §3.4) is
        ``np.bincount(argmax[i], minlength=len(tokens[i]))``.
        """
        return self._run(sentences, batch_size, tokenize_input)


def senteval_batcher(model: InferSent, batch_size: int = 128) -> Callable[[Sequence[str]], np.ndarray]:
    """`model` as SentEval's batcher runs InferSent (``examples/infersent.py``: ``encode(..., tokenize=False)``).

    SentEval hands over text it has already tokenised, so it is split on whitespace only; tokenising it
    again changes tokens (``#1``, ``S&P``, ```word``) and, through v1's max over padding, the embeddings of
    whole batches.  Raw sentences (SEAT's) go through :meth:`InferSent.encode` with its tokenizer instead.
    """
    return lambda sentences: model.encode(list(sentences), batch_size, tokenize_input=False)
