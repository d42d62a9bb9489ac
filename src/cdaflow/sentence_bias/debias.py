"""Hard debiasing of word vectors (Bolukbasi et al. 2016), the baseline of Dolci et al. 2023 §5.4.

Follows ``debiaswe.debias.debias`` (tolga-b/debiaswe) on a plain ``(n_words, dim)`` numpy matrix:

1. (``hard_debias(normalize=True)``) every row is scaled to unit length, as debiaswe does when it loads an
   embedding;
2. :func:`neutralize`: for every word not in the gender-specific set, remove its projection on the gender
   direction ``g`` and rescale it to unit length;
3. :func:`equalize`: for each equalize pair (in lower, title and upper case, when both words are in the
   vocabulary), replace the two vectors by ``y + z g`` and ``y - z g``, where ``y`` is their mean with the
   ``g`` component removed and ``z = sqrt(1 - |y|^2)``, signed so that each word stays on its side of ``g``.
   Both words then have opposite cosines with ``g`` and the same distance to every vector orthogonal to ``g``
   (in particular every neutralised word).

Differences from debiaswe, all no-ops on unit-length input: :func:`neutralize` rescales only the rows it
neutralises (debiaswe renormalises all rows, which only matters for non-unit gender-specific rows);
:func:`equalize` scales the two vectors of a pair to unit length before averaging (debiaswe assumes they are);
pairs are processed in the given order (debiaswe iterates over a set) and a later pair sharing a word wins.
As in debiaswe, only the lower, ``str.title`` and upper case forms of a pair are tried, not its spelling as
given: debiaswe's ``('Catholic_priest', 'nun')`` becomes ``catholic_priest`` / ``Catholic_Priest`` /
``CATHOLIC_PRIEST`` and is skipped when none of these is in the vocabulary.
Words match exactly (case-sensitive), as in debiaswe; ``gender_specific`` words are never changed by
:func:`neutralize`, but a word that is both gender-specific and in an equalize pair is changed by
:func:`equalize`.

Every function returns a new array (the input, which may be a read-only ``numpy.memmap``, is never written).
Float input keeps its dtype (float32 GloVe stays float32); other dtypes become float64. Arithmetic on blocks of
rows is done in float64.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = ["debiased_vectors", "equalize", "hard_debias", "neutralize"]

_BLOCK = 65_536


def _index(vocab: Sequence[str] | Mapping[str, int], n_rows: int) -> dict[str, int]:
    index = dict(vocab) if isinstance(vocab, Mapping) else {word: i for i, word in enumerate(vocab)}
    if not isinstance(vocab, Mapping) and len(vocab) != n_rows:
        raise ValueError(f"vocabulary has {len(vocab)} words but the matrix has {n_rows} rows")
    bad = [w for w, i in index.items() if not 0 <= int(i) < n_rows]
    if bad:
        raise ValueError(f"vocabulary indices out of range for {n_rows} rows: {bad[:5]}")
    return index


def _float_copy(matrix: np.ndarray) -> np.ndarray:
    array = np.asarray(matrix)
    if array.ndim != 2:
        raise ValueError(f"matrix must be 2-D (words x dimensions), got shape {array.shape}")
    dtype = array.dtype if np.issubdtype(array.dtype, np.floating) else np.float64
    return np.array(array, dtype=dtype, copy=True, order="C")


def _unit_direction(direction: np.ndarray, dim: int) -> np.ndarray:
    g = np.asarray(direction, dtype=np.float64).reshape(-1)
    if g.size != dim:
        raise ValueError(f"direction has {g.size} dimensions, the matrix {dim}")
    norm = np.linalg.norm(g)
    if not np.isfinite(norm) or norm == 0:
        raise ValueError("direction must be a finite non-zero vector")
    return g / norm


def _normalize_rows_inplace(matrix: np.ndarray, rows: np.ndarray | slice) -> None:
    block = matrix[rows].astype(np.float64)
    norms = np.linalg.norm(block, axis=1, keepdims=True)
    np.divide(block, norms, out=block, where=norms > 0)
    matrix[rows] = block


def _neutralize_inplace(
    matrix: np.ndarray, index: Mapping[str, int], g: np.ndarray, specific: set[str]
) -> None:
    keep = np.zeros(matrix.shape[0], dtype=bool)
    for word in specific:
        i = index.get(word)
        if i is not None:
            keep[int(i)] = True
    rows = np.flatnonzero(~keep)
    for start in range(0, rows.size, _BLOCK):
        chunk = rows[start : start + _BLOCK]
        block = matrix[chunk].astype(np.float64)
        block -= np.outer(block @ g, g)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        np.divide(block, norms, out=block, where=norms > 0)
        matrix[chunk] = block


def _candidates(pairs: Iterable[Sequence[str]]) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError(f"equalize pairs must have two words, got {pair!r}")
        a, b = pair
        for case in (str.lower, str.title, str.upper):
            seen.setdefault((case(a), case(b)), None)
    return list(seen)


def _equalize_inplace(
    matrix: np.ndarray, index: Mapping[str, int], g: np.ndarray, pairs: Iterable[Sequence[str]]
) -> list[tuple[str, str]]:
    done = []
    for a, b in _candidates(pairs):
        if a not in index or b not in index or a == b:
            continue
        ia, ib = int(index[a]), int(index[b])
        va = matrix[ia].astype(np.float64)
        vb = matrix[ib].astype(np.float64)
        na, nb = np.linalg.norm(va), np.linalg.norm(vb)
        if na == 0 or nb == 0:
            continue
        va, vb = va / na, vb / nb
        mu = (va + vb) / 2
        y = mu - (mu @ g) * g
        z = np.sqrt(max(0.0, 1.0 - float(y @ y)))
        if (va - vb) @ g < 0:
            z = -z
        matrix[ia] = z * g + y
        matrix[ib] = -z * g + y
        done.append((a, b))
    return done


def neutralize(
    matrix: np.ndarray,
    vocab: Sequence[str] | Mapping[str, int],
    direction: np.ndarray,
    gender_specific: Iterable[str],
) -> np.ndarray:
    """New matrix where every word not in ``gender_specific`` has no component on ``direction`` and unit length.

    Rows of ``gender_specific`` words are copied unchanged; rows that become zero stay zero.
    """
    out = _float_copy(matrix)
    index = _index(vocab, out.shape[0])
    _neutralize_inplace(out, index, _unit_direction(direction, out.shape[1]), set(gender_specific))
    return out


def equalize(
    matrix: np.ndarray,
    vocab: Sequence[str] | Mapping[str, int],
    direction: np.ndarray,
    equalize_pairs: Iterable[Sequence[str]],
) -> np.ndarray:
    """New matrix with each equalize pair made symmetric about the space orthogonal to ``direction``.

    For a pair (a, b) present in the vocabulary (also in title and upper case, as debiaswe): a and b become unit
    vectors ``y + z g`` and ``y - z g`` (see the module docstring). Other rows are copied unchanged.
    """
    out = _float_copy(matrix)
    index = _index(vocab, out.shape[0])
    _equalize_inplace(out, index, _unit_direction(direction, out.shape[1]), equalize_pairs)
    return out


def hard_debias(
    matrix: np.ndarray,
    vocab: Sequence[str] | Mapping[str, int],
    direction: np.ndarray,
    gender_specific: Iterable[str],
    equalize_pairs: Iterable[Sequence[str]],
    *,
    normalize: bool = True,
) -> np.ndarray:
    """Hard debiasing: (normalise all rows,) :func:`neutralize`, then :func:`equalize`; one copy of the input."""
    out = _float_copy(matrix)
    index = _index(vocab, out.shape[0])
    g = _unit_direction(direction, out.shape[1])
    if normalize:
        for start in range(0, out.shape[0], _BLOCK):
            _normalize_rows_inplace(out, slice(start, start + _BLOCK))
    _neutralize_inplace(out, index, g, set(gender_specific))
    _equalize_inplace(out, index, g, equalize_pairs)
    return out


def debiased_vectors(vectors, direction: np.ndarray, debiaswe_dir: str | Path):
    """A hard-debiased copy of `vectors` with debiaswe's gender-specific and equalize lists (§5.4)."""
    import json

    from cdaflow.sentence_bias.embeddings import WordVectors

    folder = Path(debiaswe_dir)
    with open(folder / "gender_specific_full.json", encoding="utf-8") as handle:
        specific = json.load(handle)
    with open(folder / "equalize_pairs.json", encoding="utf-8") as handle:
        pairs = json.load(handle)
    matrix = hard_debias(np.asarray(vectors.matrix), vectors.words, direction, specific, pairs)
    return WordVectors(vectors.words, matrix, name=f"{vectors.name}+hard_debias")
