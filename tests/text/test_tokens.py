"""The two shared tokenizations: words only, and words with punctuation marks."""

from __future__ import annotations

import re

import pytest

from cdaflow.gap_subjective.gleu import gleu_tokens
from cdaflow.regender.errors import tokens as error_rate_tokens
from cdaflow.text.tokens import words, words_and_punctuation

SENTENCES = [
    "Griffin's KO (punch) at 1:04.",
    "¿Estás lista? Mándamelo, ¡ya!",
    "Unfortunately, she won — 3–2, again…",
    "שלום, עולם! naïve café_au_lait\tend\n",
    "",
    "   ",
    "¡¿...?!",
]


def test_words_drop_punctuation_and_keep_unicode_letters() -> None:
    assert words("¿Estás lista? Mándamelo, ¡ya!") == ["Estás", "lista", "Mándamelo", "ya"]
    assert words("Griffin's KO at 1:04.") == ["Griffin", "s", "KO", "at", "1", "04"]
    assert words("café_au_lait שלום") == ["café_au_lait", "שלום"]
    assert words("¡¿...?!") == [] and words("") == []


def test_words_and_punctuation_keep_each_mark_as_a_token() -> None:
    assert words_and_punctuation("Griffin's KO (punch) at 1:04.") == [
        "Griffin", "'", "s", "KO", "(", "punch", ")", "at", "1", ":", "04", ".",
    ]  # fmt: skip
    assert words_and_punctuation("¡¿...?!") == ["¡", "¿", ".", ".", ".", "?", "!"]
    assert words_and_punctuation("a  —\tb") == ["a", "—", "b"]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_studies_tokenize_as_their_former_patterns(sentence: str) -> None:
    # Study B's error rates counted r"\w+" runs; Study C's GLEU r"\w+|[^\w\s]" (re.UNICODE).
    assert error_rate_tokens(sentence) == re.findall(r"\w+", sentence)
    assert gleu_tokens(sentence) == re.findall(r"\w+|[^\w\s]", sentence, re.UNICODE)
    assert words(sentence) == [t for t in words_and_punctuation(sentence) if re.fullmatch(r"\w+", t)]
