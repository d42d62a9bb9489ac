"""Fairer SNLI corpora by data subtraction and data augmentation (Dolci et al. 2023, §4.2).

* :func:`pair_scores`: one score per sentence pair, the larger of the premise's and the hypothesis's absolute
  *bias score* (Eq. 3), "in order to discard entries for which at least one of the two scores is too large".
* :func:`thresholds`: the 97th, 95th, 93rd and 90th percentiles of those scores (Sub97 ... Sub90, Aug97 ... Aug90).
* :func:`subtract`: drop the pairs scoring above a threshold. :func:`augment`: duplicate them once, gender-swapped
  in both sentences, unless neither sentence has a gender word (§4.2.2).
* :func:`resplit`: shuffle and split into train / dev / test with 10k dev and 10k test pairs in the paper.
* :func:`derived_corpora`: SubNN and AugNN for every percentile, re-split, with their sizes (Table 5).
* :func:`score_histogram`: Fig. 5 (the score distribution with the percentile thresholds as red lines).

Pairs are any objects with ``premise``, ``hypothesis`` and ``label`` attributes; :class:`Pair` is the one defined
here. Augmented duplicates are made with :func:`dataclasses.replace` when the input pair is a dataclass (so other
fields are kept), else as :class:`Pair`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

import numpy as np

from cdaflow.io.atomic import atomic_file

__all__ = [
    "PAPER_PERCENTILES",
    "AugmentCounts",
    "Pair",
    "Split",
    "augment",
    "derived_corpora",
    "pair_scores",
    "resplit",
    "resplit_by_premise",
    "score_histogram",
    "subtract",
    "thresholds",
]

#: The four thresholds of the paper (Sub97/Aug97 ... Sub90/Aug90).
PAPER_PERCENTILES: tuple[int, ...] = (97, 95, 93, 90)


@dataclass(frozen=True)
class Pair:
    """One NLI entry: premise, hypothesis and gold label."""

    premise: str
    hypothesis: str
    label: str


class _PairLike(Protocol):
    premise: str
    hypothesis: str
    label: str


class _SwapperLike(Protocol):
    def swap(self, sentence: str) -> tuple[str, int]: ...


P = TypeVar("P", bound=_PairLike)


def _scores_1d(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if np.isnan(array).any():
        raise ValueError(f"{name} contains NaN (score every sentence, e.g. 0 for a sentence with no known word)")
    return array


def pair_scores(premise_scores: Any, hypothesis_scores: Any) -> np.ndarray:
    """Per pair, ``max(premise score, hypothesis score)`` of the absolute bias scores (Eq. 3, non-negative).

    Raises ``ValueError`` on different lengths, NaN, or negative values (a negative score means the signed
    Eq. 2 score was passed: its absolute value is not the Eq. 3 score).
    """
    premise = _scores_1d(premise_scores, "premise_scores")
    hypothesis = _scores_1d(hypothesis_scores, "hypothesis_scores")
    if premise.shape != hypothesis.shape:
        raise ValueError(f"{premise.size} premise scores but {hypothesis.size} hypothesis scores")
    if (premise < 0).any() or (hypothesis < 0).any():
        raise ValueError("bias scores must be the absolute scores of Eq. 3 (non-negative)")
    return np.maximum(premise, hypothesis)


def thresholds(scores: Any, percentiles: Sequence[float] = PAPER_PERCENTILES) -> dict[float, float]:
    """``{percentile: score at that percentile}``.

    Computed with :func:`numpy.percentile` and ``method="linear"`` (numpy's default; Hyndman & Fan type 7):
    the value at fractional rank ``p/100 * (n-1)`` of the sorted scores, interpolated linearly between the two
    nearest scores. With the rule "drop scores above the threshold", about ``100-p`` % of the pairs are dropped
    (exactly, up to ties, when ``p/100 * (n-1)`` is an integer).
    """
    array = _scores_1d(scores, "scores")
    if array.size == 0:
        raise ValueError("no scores")
    qs = list(percentiles)
    for q in qs:
        if not 0 <= q <= 100:
            raise ValueError(f"percentile {q} is outside [0, 100]")
    values = np.percentile(array, qs, method="linear")
    return {q: float(v) for q, v in zip(qs, values)}


def _check_lengths(pairs: Sequence[Any], scores: Any) -> np.ndarray:
    array = _scores_1d(scores, "scores")
    if len(pairs) != array.size:
        raise ValueError(f"{len(pairs)} pairs but {array.size} scores")
    return array


def subtract(pairs: Sequence[P], scores: Any, threshold: float) -> list[P]:
    """The pairs whose score is not above ``threshold`` (``score <= threshold``), in their original order."""
    array = _check_lengths(pairs, scores)
    return [pair for pair, score in zip(pairs, array) if not score > threshold]


@dataclass(frozen=True)
class AugmentCounts:
    """What :func:`augment` did.

    ``n_input``: pairs in; ``n_above``: pairs scoring above the threshold; ``n_duplicated``: those duplicated
    (``n_above - n_no_gender``); ``n_no_gender``: pairs above the threshold with no gender word in either sentence
    (not duplicated); ``n_output``: pairs out (``n_input + n_duplicated``); ``n_words_swapped``: tokens replaced
    in all duplicates.
    """

    n_input: int
    n_above: int
    n_duplicated: int
    n_no_gender: int
    n_output: int
    n_words_swapped: int


def _with_sentences(pair: Any, premise: str, hypothesis: str) -> Any:
    if dataclasses.is_dataclass(pair) and not isinstance(pair, type):
        return dataclasses.replace(pair, premise=premise, hypothesis=hypothesis)
    return Pair(premise, hypothesis, pair.label)


def augment(
    pairs: Sequence[P], scores: Any, threshold: float, swapper: _SwapperLike
) -> tuple[list[Any], AugmentCounts]:
    """Gender-swapping augmentation (§4.2.2): ``(new corpus, counts)``.

    Every pair scoring above ``threshold`` (``score > threshold``) is followed, in the output, by one
    duplicate in which both premise and hypothesis are gender-swapped with ``swapper`` (a
    :class:`~cdaflow.sentence_bias.swap.Swapper`); the label is kept. A pair where neither sentence has a
    gender word (the swapper replaces nothing) is not duplicated. Each pair is duplicated at most once.
    """
    array = _check_lengths(pairs, scores)
    out: list[Any] = []
    n_above = n_dup = n_words = 0
    for pair, score in zip(pairs, array):
        out.append(pair)
        if not score > threshold:
            continue
        n_above += 1
        premise, n_p = swapper.swap(pair.premise)
        hypothesis, n_h = swapper.swap(pair.hypothesis)
        if n_p + n_h == 0:
            continue
        out.append(_with_sentences(pair, premise, hypothesis))
        n_dup += 1
        n_words += n_p + n_h
    counts = AugmentCounts(
        n_input=len(pairs),
        n_above=n_above,
        n_duplicated=n_dup,
        n_no_gender=n_above - n_dup,
        n_output=len(out),
        n_words_swapped=n_words,
    )
    return out, counts


class Split(NamedTuple):
    """A train / dev / test split."""

    train: list[Any]
    dev: list[Any]
    test: list[Any]


def resplit(pairs: Sequence[P], dev_size: int = 10_000, test_size: int = 10_000, seed: int = 0) -> Split:
    """Shuffle ``pairs`` with a fixed seed and split them: ``dev_size`` dev, ``test_size`` test, the rest train.

    The permutation is ``numpy.random.default_rng(seed).permutation(len(pairs))``; its first ``dev_size``
    indices are the dev set, the next ``test_size`` the test set, the remaining ones the training set (each set
    in permutation order). Raises ``ValueError`` when fewer than ``dev_size + test_size + 1`` pairs are given
    (no training pair would be left).
    """
    for name, size in (("dev_size", dev_size), ("test_size", test_size)):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"{name} must be a non-negative integer, not {size!r}")
    n = len(pairs)
    if n < dev_size + test_size + 1:
        raise ValueError(
            f"corpus too small to resplit: {n} pairs, but dev_size + test_size = {dev_size + test_size} "
            "leaves no training pair"
        )
    order = np.random.default_rng(seed).permutation(n)
    dev = [pairs[i] for i in order[:dev_size]]
    test = [pairs[i] for i in order[dev_size : dev_size + test_size]]
    train = [pairs[i] for i in order[dev_size + test_size :]]
    return Split(train=train, dev=dev, test=test)


def resplit_by_premise(pairs: Sequence[P], dev_size: int, test_size: int, seed: int = 0) -> Split:
    """As :func:`resplit`, but every pair of a premise goes to the same part, so that no premise is in two
    (SNLI has about three hypotheses per premise: a pair-level split puts nearly every dev/test premise in
    train too).

    Premises (whitespace-normalised text) are shuffled with ``default_rng(seed)``; whole premises go to dev
    until it holds at least ``dev_size`` pairs, then to test until ``test_size``, the rest to train (so dev
    and test can exceed their size by less than one premise's pairs). Raises ``ValueError`` when no premise
    would be left for training.
    """
    resplit(pairs, dev_size, test_size, seed)  # the same checks of sizes
    groups: dict[str, list[Any]] = {}
    for pair in pairs:
        groups.setdefault(" ".join(pair.premise.split()), []).append(pair)
    shuffled = [list(groups.values())[i] for i in np.random.default_rng(seed).permutation(len(groups))]
    parts: list[list[Any]] = [[], [], []]  # dev, test, train
    targets = (dev_size, test_size)
    part = 0
    for group in shuffled:
        while part < 2 and len(parts[part]) >= targets[part]:
            part += 1
        parts[part].extend(group)
    if not parts[2]:
        raise ValueError(
            f"corpus too small to resplit by premise: {len(pairs)} pairs in {len(groups)} premises leave no "
            f"training premise after dev_size={dev_size} and test_size={test_size}"
        )
    return Split(train=parts[2], dev=parts[0], test=parts[1])


def derived_corpora(
    pairs: Sequence[P],
    scores: Any,
    percentiles: Sequence[float],
    swapper: _SwapperLike,
    *,
    dev_size: int,
    test_size: int,
    seed: int,
) -> Iterator[tuple[str, Split, dict[str, Any]]]:
    """(name, re-split corpus, its row of sizes) of SubNN then AugNN for each percentile NN, in order.

    A row holds the corpus, percentile, threshold and pair counts; AugNN's also how many pairs were
    duplicated and how many above the threshold had no gender word to swap.
    """
    for percentile, threshold in thresholds(scores, percentiles).items():
        tag = int(percentile) if float(percentile).is_integer() else percentile
        kept = subtract(pairs, scores, threshold)
        augmented, counts = augment(pairs, scores, threshold, swapper)
        extra_aug = {"duplicated": counts.n_duplicated, "above_threshold_without_gender_words": counts.n_no_gender}
        for name, corpus, extra in ((f"sub{tag}", kept, {}), (f"aug{tag}", augmented, extra_aug)):
            split = resplit(corpus, dev_size, test_size, seed=seed)
            row = {"corpus": name, "percentile": percentile, "threshold": threshold, "pairs": len(corpus)}
            yield name, split, row | {"train": len(split.train), "dev": len(split.dev), "test": len(split.test)} | extra


def score_histogram(
    scores: Any,
    threshold_values: Mapping[float, float] | Sequence[float],
    path: str | os.PathLike[str],
    *,
    bins: int = 100,
    log: bool = False,
    title: str | None = "Bias score distribution",
) -> Path:
    """Write Fig. 5 as a PNG: histogram of ``scores`` and a red vertical line at each threshold.

    ``threshold_values`` is the dict of :func:`thresholds` (lines labelled with the percentile) or plain values.
    Renders with matplotlib's Agg canvas (no pyplot, no global backend change) into a temporary file in the
    target folder, then renames it into place, so readers never see a partial PNG. Returns the path.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    array = _scores_1d(scores, "scores")
    if isinstance(threshold_values, Mapping):
        lines = [(float(v), f"{_ordinal(q)} percentile") for q, v in threshold_values.items()]
    else:
        lines = [(float(v), None) for v in threshold_values]

    figure = Figure(figsize=(7, 4))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.hist(array, bins=bins, color="tab:blue", log=log)
    for value, label in lines:
        axes.axvline(value, color="red", linewidth=1)
        if label:
            axes.annotate(
                label,
                xy=(value, 1.0),
                xycoords=("data", "axes fraction"),
                rotation=90,
                ha="right",
                va="top",
                fontsize=7,
                color="red",
            )
    axes.set_xlabel("bias score (max of premise and hypothesis)")
    axes.set_ylabel("sentence pairs")
    if title:
        axes.set_title(title)
    figure.tight_layout()

    target = Path(path)
    with atomic_file(target, "wb") as stream:
        figure.savefig(stream, format="png", dpi=150)
    return target


def _ordinal(q: float) -> str:
    number = int(q) if float(q).is_integer() else q
    if isinstance(number, int):
        suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
        return f"{number}{suffix}"
    return f"{number}th"
