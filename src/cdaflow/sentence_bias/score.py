"""The bias score of Dolci et al. (2023, §3.1, eq. 1-3) and max-pooling word importance (§3.4).

For a sentence s with words w, importance I_w and gender direction g:

    BiasScore_F(s)   = Σ_{w ∉ L, cos(vec_w, g) > 0} cos(vec_w, g) · I_w      (eq. 1, female, ≥ 0)
    BiasScore_M(s)   = Σ_{w ∉ L, cos(vec_w, g) < 0} cos(vec_w, g) · I_w      (eq. 2, male, ≤ 0)
    Abs-BiasScore(s) = Σ_{w ∉ L} |cos(vec_w, g) · I_w|                       (eq. 3)

Word-level bias (:func:`word_bias`) is the cosine of the word's static vector (GloVe, the vectors
the encoder reads) with g, and 0 for words of the gender list L (their gender is definitional) and
for words missing from the vectors: an out-of-vocabulary word has no GloVe vector, so the encoder
sees it as its unknown/zero input and it carries no GloVe bias. This also zeroes the sentence
boundary tokens ``<s>`` / ``</s>`` that InferSent adds, which do take part in max-pooling.

Word importance (:func:`word_importance`): a max-pooling encoder builds dimension d of the
sentence embedding from the hidden state of one time step, argmax[b, d]; the importance of a
token is the share of the D dimensions it wins (the paper's "percentage importance",
e.g. 1106 / 4096 ≈ 0.27 for *saxophone*), so it sums to 1 over the sentence, boundary tokens
included. That is why the word rows of the paper's Table 2 sum to 80 %, not 100 %.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from cdaflow.sentence_bias.direction import Direction
from cdaflow.sentence_bias.embeddings import WordVectors

__all__ = [
    "BiasScore",
    "ScoreArrays",
    "WordRow",
    "SentenceScores",
    "bias_score_arrays",
    "encoder_bias_scorer",
    "encoder_bias_scores",
    "combine_scores",
    "score_rows",
    "word_bias",
    "word_importance",
]


log = logging.getLogger(__name__)


def word_importance(
    argmax: torch.Tensor, lengths: torch.Tensor | Sequence[int] | None = None, *, absolute: bool = False
) -> torch.Tensor:
    """Share of the max-pooled dimensions won by each time step: FloatTensor [B, T].

    `argmax[b, d]` is the time step whose hidden state gave dimension d of sentence b (the indices
    of ``torch.max(hidden, dim=time)``), `lengths[b]` the true length of sentence b (T = the
    longest; default: one more than the largest index). Steps at or beyond a sentence's length
    get 0 and must not be argmax values (a ValueError otherwise: padding won a dimension). Each row
    sums to 1; with `absolute` the raw counts (summing to D) are returned instead.
    """
    if argmax.dim() != 2:
        raise ValueError(f"argmax must be [B, D], got shape {tuple(argmax.shape)}")
    argmax = argmax.long()
    batch, dims = argmax.shape
    if dims == 0:
        raise ValueError("argmax has no dimensions (D = 0)")
    if lengths is None:
        steps = int(argmax.max()) + 1 if argmax.numel() else 0
        lengths_t = torch.full((batch,), steps, dtype=torch.long)
    else:
        lengths_t = torch.as_tensor(lengths, dtype=torch.long).reshape(-1)
        if lengths_t.numel() != batch:
            raise ValueError(f"{lengths_t.numel()} lengths for a batch of {batch}")
        steps = int(lengths_t.max()) if batch else 0
    if argmax.numel():
        if int(argmax.min()) < 0:
            raise ValueError("argmax has negative time steps")
        beyond = argmax >= lengths_t.unsqueeze(1)
        if bool(beyond.any()):
            bad = int(beyond.any(dim=1).nonzero()[0, 0])
            raise ValueError(
                f"sentence {bad}: argmax points at a step >= its length {int(lengths_t[bad])} (padding won a dimension)"
            )
    counts = torch.zeros(batch, steps, dtype=torch.float32)
    counts.scatter_add_(1, argmax, torch.ones_like(argmax, dtype=torch.float32))
    return counts if absolute else counts / dims


def _unit_direction(direction: Direction | np.ndarray) -> np.ndarray:
    g = np.asarray(direction.vector if isinstance(direction, Direction) else direction, dtype=np.float64).reshape(-1)
    norm = np.linalg.norm(g)
    if norm == 0:
        raise ValueError("the gender direction is the zero vector")
    return g / norm


def word_bias(
    words: Sequence[str],
    vectors: WordVectors,
    direction: Direction | np.ndarray,
    gender_words: Container[str],
    *,
    case_fallback: bool = False,
) -> np.ndarray:
    """cos(vec_w, g) for each word (float64), 0 for words in L and words missing from `vectors`.

    Look-up is exact. With `case_fallback`, a word missing as written is looked up lower-cased
    (for uncased vectors such as GloVe 6B) and then also counts as a gender word when its
    lower-cased form is in L ("SHE" → "she").
    """
    g = _unit_direction(direction)
    if g.shape[0] != vectors.dim:
        raise ValueError(f"direction has {g.shape[0]} dimensions, the vectors {vectors.dim}")
    unique = list(dict.fromkeys(words))
    lookup: list[str | None] = []
    for word in unique:
        if word in gender_words:
            lookup.append(None)
        elif word in vectors:
            lookup.append(word)
        elif case_fallback and word.lower() in vectors and word.lower() not in gender_words:
            lookup.append(word.lower())
        else:
            lookup.append(None)
    values = np.zeros(len(unique), dtype=np.float64)
    present = [i for i, w in enumerate(lookup) if w is not None]
    if present:
        matrix = vectors.vectors([lookup[i] for i in present]).astype(np.float64)  # type: ignore[misc]
        norms = np.linalg.norm(matrix, axis=1)
        dots = matrix @ g
        values[present] = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    position = {w: i for i, w in enumerate(unique)}
    return values[np.fromiter((position[w] for w in words), dtype=np.int64, count=len(words))]


@dataclass(frozen=True)
class WordRow:
    """One row of the paper's Table 2."""

    word: str
    importance: float
    bias: float
    weighted: float


@dataclass(frozen=True)
class BiasScore:
    """Eq. 1 (f, ≥ 0), eq. 2 (m, ≤ 0), eq. 3 (abs) of one sentence and its word rows."""

    f: float
    m: float
    abs: float
    words: tuple[WordRow, ...] = ()

    def table(self) -> list[dict[str, float | str]]:
        """The word rows as dicts (word, importance, bias, weighted), e.g. for a DataFrame."""
        return [
            {"word": r.word, "importance": r.importance, "bias": r.bias, "weighted": r.weighted} for r in self.words
        ]


@dataclass(frozen=True)
class ScoreArrays:
    """Batch results: f, m, abs of shape [B]; importance, bias, weighted of shape [B, T] (0 past
    each sentence's length); lengths [B]."""

    f: np.ndarray
    m: np.ndarray
    abs: np.ndarray
    importance: np.ndarray
    bias: np.ndarray
    weighted: np.ndarray
    lengths: np.ndarray


def bias_score_arrays(
    tokens: Sequence[Sequence[str]],
    importance: torch.Tensor | np.ndarray,
    vectors: WordVectors,
    direction: Direction | np.ndarray,
    gender_words: Container[str],
    *,
    case_fallback: bool = False,
    atol: float = 1e-6,
) -> ScoreArrays:
    """Eq. 1-3 for a batch, vectorised; `importance[b, t]` belongs to `tokens[b][t]`.

    The tokens must be the encoder's time steps (boundary tokens such as ``<s>`` included when the
    encoder adds them); importance past a sentence's tokens must be 0 (else a ValueError: the
    tokens and the importance are misaligned).
    """
    if isinstance(importance, torch.Tensor):
        imp = importance.detach().to(torch.float64).cpu().numpy()
    else:
        imp = np.asarray(importance, dtype=np.float64)
    if imp.ndim != 2 or imp.shape[0] != len(tokens):
        raise ValueError(f"importance must be [B={len(tokens)}, T], got shape {imp.shape}")
    batch, steps = imp.shape
    lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=batch)
    if batch and int(lengths.max(initial=0)) > steps:
        bad = int(np.argmax(lengths > steps))
        raise ValueError(f"sentence {bad} has {lengths[bad]} tokens but importance has only {steps} steps")
    mask = np.arange(steps)[None, :] < lengths[:, None]
    if np.any(np.abs(imp[~mask]) > atol):
        bad = int(np.argmax(np.any((np.abs(imp) > atol) & ~mask, axis=1)))
        raise ValueError(f"sentence {bad}: importance beyond its {lengths[bad]} tokens (tokens misaligned?)")
    if np.any(imp < -atol):
        raise ValueError("importance must be non-negative")
    flat = [w for sentence in tokens for w in sentence]
    bias = np.zeros((batch, steps), dtype=np.float64)
    bias[mask] = word_bias(flat, vectors, direction, gender_words, case_fallback=case_fallback)
    return combine_scores(bias, imp, lengths)


def combine_scores(bias: np.ndarray, importance: np.ndarray, lengths: np.ndarray) -> ScoreArrays:
    """Eq. 1-3 from per-token bias and importance ``[B, T]`` (entries past ``lengths`` ignored).

    Shared by static-vector encoders (bias from :func:`word_bias`) and contextual ones, whose
    token bias is the cosine of each token's own contextual vector with g
    (:mod:`cdaflow.sentence_bias.transformer`).
    """
    bias = np.asarray(bias, dtype=np.float64)
    importance = np.asarray(importance, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.int64)
    if bias.shape != importance.shape or bias.ndim != 2 or lengths.shape != (bias.shape[0],):
        raise ValueError(
            f"bias {bias.shape}, importance {importance.shape} and lengths {lengths.shape} do not match"
        )
    mask = np.arange(bias.shape[1])[None, :] < lengths[:, None]
    bias = np.where(mask, bias, 0.0)
    weighted = np.where(mask, bias * importance, 0.0)
    return ScoreArrays(
        f=np.where(weighted > 0, weighted, 0.0).sum(axis=1),
        m=np.where(weighted < 0, weighted, 0.0).sum(axis=1),
        abs=np.abs(weighted).sum(axis=1),
        importance=np.where(mask, importance, 0.0),
        bias=bias,
        weighted=weighted,
        lengths=lengths,
    )


def score_rows(tokens: Sequence[Sequence[str]], arrays: ScoreArrays, *, rows: bool = True) -> list[BiasScore]:
    """One :class:`BiasScore` per sentence of ``arrays`` (`rows=False` skips the per-token rows)."""
    out = []
    for b, sentence in enumerate(tokens):
        word_rows: tuple[WordRow, ...] = ()
        if rows:
            word_rows = tuple(
                WordRow(w, float(arrays.importance[b, t]), float(arrays.bias[b, t]), float(arrays.weighted[b, t]))
                for t, w in enumerate(sentence)
            )
        out.append(BiasScore(float(arrays.f[b]), float(arrays.m[b]), float(arrays.abs[b]), word_rows))
    return out


def encoder_bias_scores(
    encoder, sentences: Sequence[str], vectors: WordVectors, direction: Direction, gender_words: Container[str]
) -> list[BiasScore]:
    """The bias scores of `sentences` under an InferSent-style encoder, with their word rows (Table 2)."""
    _, argmax, tokens = encoder.encode_with_argmax(list(sentences))
    importance = word_importance(torch.from_numpy(argmax), [len(t) for t in tokens])
    return score_rows(tokens, bias_score_arrays(tokens, importance, vectors, direction, gender_words))


@dataclass(frozen=True)
class SentenceScores:
    """Overall female, male and absolute bias of each sentence, shape [N]."""

    f: np.ndarray
    m: np.ndarray
    abs: np.ndarray


def encoder_bias_scorer(
    encoder, vectors: WordVectors, direction: Direction, gender_words: Container[str], *,
    chunk: int = 4096, batch_size: int = 128,
) -> Callable[[Sequence[str]], SentenceScores]:
    """The bias score of any number of sentences under an InferSent-style encoder (§3.4), batched.

    Sentences are encoded ``chunk`` at a time (bounded memory at SNLI's 600k sentences); word
    importance is the single-sentence max-pool argmax, so padding never wins a dimension
    (``zero_pad_in_max`` is switched off on the encoder, as InferSent's visualize does).
    """
    encoder.encoder.zero_pad_in_max = False

    def score(sentences: Sequence[str]) -> SentenceScores:
        parts = []
        for start in range(0, len(sentences), chunk):
            _, argmax, tokens = encoder.encode_with_argmax(list(sentences[start : start + chunk]), batch_size)
            importance = word_importance(torch.from_numpy(argmax), [len(t) for t in tokens])
            parts.append(bias_score_arrays(tokens, importance, vectors, direction, gender_words))
            log.info("scored %d / %d sentences", min(start + chunk, len(sentences)), len(sentences))
        if not parts:
            return SentenceScores(np.zeros(0), np.zeros(0), np.zeros(0))
        return SentenceScores(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("f", "m", "abs")))

    return score
