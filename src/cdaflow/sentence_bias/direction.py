"""The gender direction g of Dolci et al. (2023, §3.2): top principal component of gender pairs.

Following Bolukbasi et al. (2016, ``debiaswe.we.doPCA``), every pair (f, m) contributes two rows,
its two vectors *centred on the pair's own mean*: ``f - (f + m)/2`` and ``m - (f + m)/2`` (that is
``±(f - m)/2``). Centring per pair removes what the two words share (topic, frequency) and keeps
only the contrast between them; the rows then already have zero mean, so an SVD of the stacked
rows is exactly the PCA of debiaswe (sklearn re-centres, a no-op here). As in debiaswe, word
vectors are normalised to unit length first (``normalize=True``; GloVe norms grow with frequency,
and without it frequent pairs would dominate).

The explained-variance ratios cover *all* components (each component's squared singular value over
the total), like sklearn's ``explained_variance_ratio_``; n pairs give at most n non-zero
components. The paper reports 58 % for its 10 pairs and 41 % for the ~50 pairs of
``equalize_pairs.json`` on GloVe 840B 300d, and a cosine above 0.93 between the two directions.
On the offline GloVe 6B 50d (lower-cased, so ``fold_case=True``): 49.4 % for the 10 pairs, 41.8 %
for the 43 usable equalize pairs, cosine 0.951 (without normalisation: 54.3 %, 45.2 %, 0.969).
The four equalize pairs with a word2vec phrase (``Catholic_priest``, ``prostate_cancer``,
``ex_girlfriend``, ``twin_brother``, ...) are absent from any GloVe vocabulary, so a cased GloVe
keeps 48 of the 52 pairs, not quite the paper's 50.

The sign of a principal component is arbitrary; it is fixed so that the female word of each pair
projects above its male partner on average (sum over pairs of ``(f - m)·g > 0``), i.e. the female
(centred) vectors have a positive cosine with g: female words positive, male words negative.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cdaflow.sentence_bias.embeddings import WordVectors

__all__ = [
    "KNOWN_FEMALE",
    "KNOWN_MALE",
    "PAPER_PAIRS",
    "Direction",
    "cosine",
    "gender_direction",
    "load_pairs_json",
    "orient_pair",
    "pca_direction",
    "present_pairs",
]

Pair = tuple[str, str]

# §3.2, female word first.
PAPER_PAIRS: tuple[Pair, ...] = (
    ("woman", "man"),
    ("girl", "boy"),
    ("she", "he"),
    ("mother", "father"),
    ("daughter", "son"),
    ("gal", "guy"),
    ("female", "male"),
    ("her", "his"),
    ("herself", "himself"),
    ("Mary", "John"),
)

# Enough to orient every pair of debiaswe's definitional_pairs.json and equalize_pairs.json
# (compared lower-cased; underscores join phrase parts, each part is looked up too).
KNOWN_FEMALE: frozenset[str] = frozenset(
    """
    she her hers herself woman women girl girls gal gals lady ladies female females feminine mother mothers
    mom moms mommy mum mama ma daughter daughters sister sisters aunt aunts niece nieces grandma granny
    grandmother grandmothers granddaughter granddaughters wife wives bride brides queen queens princess
    princesses duchess empress actress waitress hostess heroine madam mrs ms miss girlfriend girlfriends
    fiancee widow nun nuns convent sorority sisterhood motherhood maternal maternity estrogen ovarian
    filly fillies mare mares cow hen doe spokeswoman councilwoman congresswoman chairwoman businesswoman
    schoolgirl stepmother stepdaughter mary
    """.split()
)
KNOWN_MALE: frozenset[str] = frozenset(
    """
    he him his himself man men boy boys guy guys dude dudes fella gentleman gentlemen male males masculine
    father fathers dad dads daddy papa pa son sons brother brothers uncle uncles nephew nephews grandpa
    grandfather grandfathers grandson grandsons husband husbands groom king kings prince princes duke
    emperor actor waiter host hero sir mr boyfriend boyfriends fiance widower monk monks monastery priest
    fraternity brotherhood fatherhood paternal paternity testosterone prostate colt colts stallion gelding
    bull rooster spokesman councilman congressman chairman businessman schoolboy stepfather stepson john
    """.split()
)


@dataclass(frozen=True)
class Direction:
    """A unit gender direction and how it was obtained."""

    vector: np.ndarray
    explained_variance_ratio: np.ndarray
    pairs_used: tuple[Pair, ...]
    pairs_missing: tuple[Pair, ...]

    @property
    def top_share(self) -> float:
        """Share of the variance explained by the top component (the paper's 58 % / 41 %)."""
        return float(self.explained_variance_ratio[0])

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.vector if dtype is None else self.vector.astype(dtype)


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray | float:
    """Cosine similarity along the last axis, broadcasting (rows of `a` against a vector `b`, ...).

    A zero vector has cosine 0 with everything. Returns a float for two 1-D inputs.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dot = np.sum(a * b, axis=-1)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(norms > 0, dot / np.where(norms > 0, norms, 1.0), 0.0)
    return float(out) if out.ndim == 0 else out


def present_pairs(
    vectors: WordVectors, pairs: Iterable[Pair], *, fold_case: bool = False
) -> tuple[tuple[Pair, ...], tuple[Pair, ...]]:
    """Split `pairs` into (both words in the vectors, at least one missing), dropping duplicates.

    Look-up is exact; with `fold_case` a word missing as written is looked up lower-cased (for
    uncased vectors such as GloVe 6B: "Mary" → "mary"), and the used pair holds the forms found,
    so "She"/"He" and "she"/"he" count once.
    """
    used: dict[Pair, None] = {}
    missing: dict[Pair, None] = {}

    def find(word: str) -> str | None:
        if word in vectors:
            return word
        if fold_case and word.lower() in vectors:
            return word.lower()
        return None

    for a, b in pairs:
        fa, fb = find(str(a)), find(str(b))
        if fa is not None and fb is not None:
            used[(fa, fb)] = None
        else:
            missing[(str(a), str(b))] = None
    return tuple(used), tuple(missing)


def gender_direction(
    vectors: WordVectors,
    pairs: Iterable[Pair] = PAPER_PAIRS,
    *,
    normalize: bool = True,
    fold_case: bool = False,
    min_pairs: int = 2,
) -> Direction:
    """Top principal component of the pair-centred vectors of (female, male) `pairs`.

    Pairs with a word missing from `vectors` are skipped and listed in ``pairs_missing``
    (duplicates are dropped; `fold_case` as in :func:`present_pairs`); fewer than `min_pairs`
    usable pairs is an error.
    """
    used, missing = present_pairs(vectors, pairs, fold_case=fold_case)
    if len(used) < min_pairs:
        raise ValueError(f"only {len(used)} usable gender pair(s) (need {min_pairs}); missing: {list(missing)}")
    female = vectors.vectors([a for a, _ in used]).astype(np.float64)
    male = vectors.vectors([b for _, b in used]).astype(np.float64)
    g, ratios = pca_direction(female, male, normalize=normalize)
    return Direction(vector=g, explained_variance_ratio=ratios, pairs_used=used, pairs_missing=missing)


def pca_direction(
    female: np.ndarray, male: np.ndarray, *, normalize: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """(unit g, explained-variance ratios) of the pair-centred rows of matched ``[n, D]`` arrays.

    Row i of `female` and of `male` form one pair: two words (§3.2) or a sentence and its
    gender-swapped counterpart (§6). g is oriented so that female rows project above their
    male partners on average.
    """
    female = np.array(female, dtype=np.float64)
    male = np.array(male, dtype=np.float64)
    if female.shape != male.shape or female.ndim != 2:
        raise ValueError(f"female {female.shape} and male {male.shape} must be matching [n, D] arrays")
    if normalize:
        female /= np.maximum(np.linalg.norm(female, axis=1, keepdims=True), 1e-12)
        male /= np.maximum(np.linalg.norm(male, axis=1, keepdims=True), 1e-12)
    centre = (female + male) / 2.0
    rows = np.concatenate([female - centre, male - centre], axis=0)
    rows -= rows.mean(axis=0)  # exactly zero already; kept so this is PCA for any input
    _, singular, vt = np.linalg.svd(rows, full_matrices=False)
    variance = singular**2
    total = variance.sum()
    if total <= 0:
        raise ValueError("the gender pairs have identical vectors; no direction to find")
    g = vt[0] / np.linalg.norm(vt[0])
    if float(np.sum((female - male) @ g)) < 0:
        g = -g
    return g, variance / total


def _cue(word: str) -> int:
    """+1 for a known female word, -1 for a known male word, 0 when unknown (lower-cased)."""
    parts = [word.lower()] + word.lower().replace("-", "_").split("_")
    for part in parts:
        if part in KNOWN_FEMALE:
            return 1
        if part in KNOWN_MALE:
            return -1
    return 0


def orient_pair(
    a: str, b: str, *, vectors: WordVectors | None = None, reference: np.ndarray | None = None
) -> Pair | None:
    """(female, male) order of the pair {a, b}, or None when it cannot be decided.

    Uses the known-gender word sets first (:data:`KNOWN_FEMALE`, :data:`KNOWN_MALE`), then, when
    `vectors` and a `reference` direction (female-positive) are given and both words are present,
    the sign of ``(a - b)·reference``.
    """
    score = _cue(a) - _cue(b)
    if score > 0:
        return (a, b)
    if score < 0:
        return (b, a)
    if vectors is not None and reference is not None and a in vectors and b in vectors:
        diff = vectors.vector(a).astype(np.float64) - vectors.vector(b)
        return (a, b) if float(diff @ np.asarray(reference, dtype=np.float64)) >= 0 else (b, a)
    return None


def load_pairs_json(
    path: str | os.PathLike[str],
    *,
    vectors: WordVectors | None = None,
    reference: np.ndarray | Direction | None = None,
) -> list[Pair]:
    """debiaswe's definitional/equalize pairs (a JSON list of [a, b]) as (female, male) tuples.

    The files are not consistent (definitional_pairs.json is female-first, equalize_pairs.json is
    mostly male-first but has ["wives", "husbands"] and ["ex_girlfriend", "ex_boyfriend"]), so each
    pair is oriented on its own by :func:`orient_pair`. A pair that neither the known-word sets nor
    the `reference` direction can orient is a ValueError naming it. All pairs are returned; filter
    with :func:`present_pairs` (the paper's "50 pairs" are those present in GloVe).
    """
    path = Path(path)
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of [word, word] pairs")
    ref = reference.vector if isinstance(reference, Direction) else reference
    out: list[Pair] = []
    for number, item in enumerate(data):
        if not (isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2):
            raise ValueError(f"{path}: item {number} is not a pair: {item!r}")
        a, b = str(item[0]), str(item[1])
        oriented = orient_pair(a, b, vectors=vectors, reference=ref)
        if oriented is None:
            raise ValueError(f"{path}: cannot tell which of {a!r} / {b!r} is female; pass vectors= and reference=")
        out.append(oriented)
    return out
