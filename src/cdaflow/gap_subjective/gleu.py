"""Sentence-level GLEU, the content-preservation score of §3.2.3.

The paper cites Mutton et al. (2007) but uses GLEU as style-transfer work does (Li et al. 2018;
Sudhakar et al. 2019): the sentence GLEU of Wu et al. (2016), as NLTK's ``sentence_gleu``
computes it. All n-grams of orders ``min_order..max_order`` (1-4) of hypothesis and reference are
collected; with ``matches`` the clipped overlap of the two multisets,
``GLEU = matches / max(hypothesis n-grams, reference n-grams)``, i.e. the minimum of n-gram
precision and recall. Identical sentences score 1.0; nothing in common scores 0.0.

Tokens are words and punctuation marks (``\\w+`` runs and single other characters,
:func:`cdaflow.text.tokens.words_and_punctuation`), so a comma added by the transfer
("Unfortunately, she ...") counts as an edit like a word does. They are lower-cased by default:
the capital a sentence's first word loses when an adverb is put before it is not a change of
content.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from cdaflow.text.tokens import words_and_punctuation

__all__ = ["gleu_tokens", "ngram_counts", "sentence_gleu"]

# Words and punctuation marks (cdaflow.text.tokens), before any lower-casing.
gleu_tokens = words_and_punctuation


def ngram_counts(tokens: Sequence[str], min_order: int = 1, max_order: int = 4) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for n in range(min_order, max_order + 1):
        for i in range(len(tokens) - n + 1):
            counts[tuple(tokens[i : i + n])] += 1
    return counts


def sentence_gleu(
    hypothesis: str, reference: str, *, min_order: int = 1, max_order: int = 4, lowercase: bool = True
) -> float:
    """GLEU of ``hypothesis`` (the transferred sentence) against ``reference`` (the original)."""
    if not 1 <= min_order <= max_order:
        raise ValueError(f"n-gram orders must satisfy 1 <= min_order ({min_order}) <= max_order ({max_order})")
    if lowercase:
        hypothesis, reference = hypothesis.lower(), reference.lower()
    hyp = ngram_counts(gleu_tokens(hypothesis), min_order, max_order)
    ref = ngram_counts(gleu_tokens(reference), min_order, max_order)
    total = max(sum(hyp.values()), sum(ref.values()))
    if total == 0:
        return 0.0
    return sum((hyp & ref).values()) / total
