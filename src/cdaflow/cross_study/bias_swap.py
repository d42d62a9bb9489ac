"""Study D's bias score on other studies' counterfactual English.

(b) **D-swapped English** (:func:`bias_scores_of_swapped`): every sentence with a gender word or
    given name is scored before and after D's own swap (§4.2.2, Appendix A).
(c) **Study C's data** (:func:`gap_subjective_bias`): every GAP context sentence the subjectivizer
    transferred (Pant & Dadu 2022, §3.2) is scored against its GAP-Subjective counterpart.

Scores come from any batched scorer ``sentences -> object with f, m, abs arrays`` (eq. 1-3 of Dolci et
al. 2023); :func:`infersent_scorer` builds the one rule ``sentence_bias_score_snli`` uses from the same
files. The signed score ``net = f + m`` (``m`` is ≤ 0) says which way a sentence leans: > 0 female,
< 0 male. :mod:`cdaflow.cross_study.statistics` summarises the tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from cdaflow.gap_subjective.gap import GapExample

__all__ = [
    "MEASURES",
    "Scorer",
    "ScoresLike",
    "bias_scores_of_swapped",
    "gap_subjective_bias",
    "infersent_scorer",
    "transferred_sentence_pairs",
]

log = logging.getLogger(__name__)

# The scores of each side of a pair: the columns original_<measure>, counterpart_<measure>.
MEASURES: tuple[str, ...] = ("f", "m", "abs", "net")


class ScoresLike(Protocol):
    f: np.ndarray
    m: np.ndarray
    abs: np.ndarray


Scorer = Callable[[Sequence[str]], ScoresLike]


def infersent_scorer(
    vectors: str | Path, encoder: str | Path, direction: str | Path, words: str | Path, *,
    pretrained: bool, device: str = "cpu",
) -> Scorer:
    """Study D's batched bias score from its files: the vectors folder, the InferSent encoder (a
    trained model folder, or the pretrained weights with ``pretrained``), the gender direction
    (``.npy``) and the gender word list, as rule ``sentence_bias_score_snli`` scores."""
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent
    from cdaflow.sentence_bias.score import encoder_bias_scorer
    from cdaflow.sentence_bias.wordlist import GenderWordList

    opened = open_vectors(vectors)
    model = InferSent.load_any(encoder, opened, pretrained=pretrained, device=device)
    return encoder_bias_scorer(model, opened, np.load(direction), GenderWordList.load(words))


def _score_pairs(table: pd.DataFrame, score: Scorer) -> pd.DataFrame:
    """Add original_/counterpart_ f, m, abs, net columns: one batched scorer call for both sides."""
    texts = list(table["original"]) + list(table["counterpart"])
    scores = score(texts)
    n = len(table)
    for name in ("f", "m", "abs"):
        values = np.asarray(getattr(scores, name), dtype=np.float64)
        if values.shape != (2 * n,):
            raise ValueError(f"the scorer returned {values.shape} {name} scores for {2 * n} sentences")
        table[f"original_{name}"], table[f"counterpart_{name}"] = values[:n], values[n:]
    for side in ("original", "counterpart"):
        table[f"{side}_net"] = table[f"{side}_f"] + table[f"{side}_m"]
    return table


def bias_scores_of_swapped(sentences: Iterable[str], swapper: Any, score: Scorer) -> pd.DataFrame:
    """D's bias score of each distinct sentence the swapper changes, before and after the swap.

    `swapper` is a :class:`~cdaflow.sentence_bias.swap.Swapper` (``swap(s) -> (swapped, count)``).
    Columns: original, counterpart, words_swapped, then original_/counterpart_ f, m, abs, net.
    """
    rows = []
    for sentence in dict.fromkeys(sentences):
        swapped, count = swapper.swap(sentence)
        if count:
            rows.append({"original": sentence, "counterpart": swapped, "words_swapped": count})
    table = pd.DataFrame(rows, columns=["original", "counterpart", "words_swapped"])
    log.info("%d sentences with something to swap", len(table))
    return _score_pairs(table, score)


def transferred_sentence_pairs(
    gap: Sequence[GapExample], subjective: Sequence[GapExample], *, source: str = "GAP-Subjective"
) -> pd.DataFrame:
    """(id, original, counterpart) for every GAP sentence the released GAP-Subjective context changed.

    Both contexts are cut with Study C's splitter and their sentences aligned (difflib): unchanged
    sentences match; each changed run becomes one pair, its sentences joined by a space (a transfer
    may come back as two sentences, or be cut differently). Contexts must come in the same order.
    """
    from cdaflow.gap_subjective.sentences import split_sentences

    if [e.id for e in gap] != [e.id for e in subjective]:
        raise ValueError(f"{source}: its examples are not GAP's, in GAP's order")
    rows = []
    for original, released in zip(gap, subjective, strict=True):
        if original.text == released.text:
            continue
        before = [s.text for s in split_sentences(original.text)]
        after = [s.text for s in split_sentences(released.text)]
        matcher = SequenceMatcher(None, before, after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if i1 == i2 or j1 == j2:  # a sentence added or dropped: nothing to pair it with
                log.warning("%s: example %s has a sentence %s", source, original.id, "added" if i1 == i2 else "dropped")
                continue
            rows.append({"id": original.id, "original": " ".join(before[i1:i2]), "counterpart": " ".join(after[j1:j2])})
    return pd.DataFrame(rows, columns=["id", "original", "counterpart"])


def gap_subjective_bias(
    gap: Sequence[GapExample], subjective: Sequence[GapExample], score: Scorer, *, source: str = "GAP-Subjective"
) -> pd.DataFrame:
    """D's bias score of every transferred GAP sentence and of its GAP-Subjective counterpart.

    Columns: id, original, counterpart, then original_/counterpart_ f, m, abs, net.
    """
    table = transferred_sentence_pairs(gap, subjective, source=source)
    log.info("%d transferred sentences in %d contexts", len(table), table["id"].nunique())
    return _score_pairs(table, score)
