from __future__ import annotations

import pytest

from cdaflow.gap_subjective.gleu import gleu_tokens, sentence_gleu


def test_hand_computed_pair() -> None:
    # hypothesis: unfortunately , she died in january .  (7 tokens)
    # reference:  she died in january .                  (5 tokens)
    # hypothesis n-grams: 7 + 6 + 5 + 4 = 22; reference: 5 + 4 + 3 + 2 = 14
    # matches: every reference n-gram occurs in the hypothesis: 5 + 4 + 3 + 2 = 14
    # GLEU = 14 / max(22, 14) = 0.636...
    assert sentence_gleu("Unfortunately, she died in January.", "She died in January.") == pytest.approx(14 / 22)


def test_substitution_counts_clipped_matches() -> None:
    # hyp: the brilliant actor won the prize (6): n-grams 6+5+4+3 = 18
    # ref: the actor won the prize (5): 5+4+3+2 = 14
    # unigram matches: the x2, actor, won, prize = 5; bigrams: "actor won", "won the", "the prize" = 3;
    # trigrams: "actor won the", "won the prize" = 2; 4-grams: "actor won the prize" = 1 -> 11
    assert sentence_gleu("the brilliant actor won the prize", "the actor won the prize") == pytest.approx(11 / 18)


def test_bounds() -> None:
    assert sentence_gleu("He won.", "He won.") == 1.0
    assert sentence_gleu("abc", "xyz") == 0.0
    assert sentence_gleu("", "") == 0.0
    assert sentence_gleu("He won.", "he won.") == 1.0
    assert sentence_gleu("He won.", "he won.", lowercase=False) < 1.0
    with pytest.raises(ValueError, match="n-gram orders"):
        sentence_gleu("a", "a", min_order=2, max_order=1)


def test_tokens_split_punctuation() -> None:
    assert gleu_tokens("Griffin's KO (punch) at 1:04.") == [
        "Griffin",
        "'",
        "s",
        "KO",
        "(",
        "punch",
        ")",
        "at",
        "1",
        ":",
        "04",
        ".",
    ]
