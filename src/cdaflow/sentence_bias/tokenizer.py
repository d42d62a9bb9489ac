"""InferSent v1's tokenisation: NLTK's ``word_tokenize`` (Punkt sentence splitting, then the Treebank-style
``NLTKWordTokenizer``), case kept.

NLTK is not a dependency here, and no kept library tokenises the same way (spaCy's rules and pysbd's
sentence splitter differ), so `tokenize` re-implements the ``NLTKWordTokenizer`` rules (same order, same
substitutions; NLTK, Apache-2.0) and replaces Punkt by a small heuristic: a period followed by whitespace
and a capital letter (or an opening quote/bracket, or a digit) ends a sentence unless the word before it
is a single letter, contains a period itself (``U.S.``) or is a common abbreviation (``Mr``, ``Dr``,
``St``, ``etc``, ...). Punkt's learned abbreviation and collocation lists can split differently on
unusual text; on ordinary one-sentence input (SNLI, SEAT templates) the output is the same as NLTK's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["tokenize"]


def _rules(pairs: Sequence[tuple[str, str]]) -> list[tuple[re.Pattern[str], str]]:
    return [(re.compile(pattern), replacement) for pattern, replacement in pairs]


# The rule lists follow nltk.tokenize.destructive.NLTKWordTokenizer (NLTK 3.9), in order.
_OPENING_QUOTES = _rules(
    [
        (r"([«“‘„]|`+)", r" \1 "),
        (r'^"', r"``"),
        (r"(``)", r" \1 "),
        (r"""([ (\[{<])("|'')""", r"\1 `` "),
        # a quote opening a word, unless it starts a clitic ('re, 've, 'll, 'm, 't, 's, 'd, 'n)
        (r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)", r"\1 "),
    ]
)
_PUNCTUATION = _rules(
    [
        (r"""([^.])(\.)([\])}>"'»”’ ]*)\s*$""", r"\1 \2 \3 "),  # the final period
        (r"([:,])([^\d])", r" \1 \2"),  # commas and colons, but not inside numbers
        (r"([:,])$", r" \1 "),
        (r"\.{2,}", r" \g<0> "),  # ellipses
        (r"[;@#$%&]", r" \g<0> "),
        (r"[\u2012-\u2015]", r" \g<0> "),  # figure, en and em dashes, horizontal bar
        (r"""([^.])(\.)([\])}>"']*)\s*$""", r"\1 \2\3 "),
        (r"[?!]", r" \g<0> "),
        (r"([^'])' ", r"\1 ' "),
        (r"[*]", r" \g<0> "),
    ]
)
_BRACKETS = re.compile(r"[\]\[(){}<>]")
_DOUBLE_DASH = re.compile(r"--")
_CLOSING_QUOTES = _rules(
    [
        (r"([»”’])", r" \1 "),
        (r"''", r" '' "),
        (r'"', r" '' "),
        (r"\s+", r" "),
        (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 "),
        (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1 \2 "),
    ]
)
_SPLIT_WORDS = [
    re.compile(p)
    for p in (
        r"(?i)\b(can)(not)\b",
        r"(?i)\b(d)('ye)\b",
        r"(?i)\b(gim)(me)\b",
        r"(?i)\b(gon)(na)\b",
        r"(?i)\b(got)(ta)\b",
        r"(?i)\b(lem)(me)\b",
        r"(?i)\b(more)('n)\b",
        r"(?i)\b(wan)(na)(?=\s)",
        r"(?i) ('t)(is)\b",
        r"(?i) ('t)(was)\b",
    )
]

# Punkt stand-in: abbreviations after which a period does not end a sentence (lower-cased).
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr mt ft vs etc inc ltd co corp dept univ gen col lt sgt capt cmdr "
    "gov sen rep rev hon no nos vol fig approx est jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_SENTENCE_END = re.compile(r"""(?<=[^.\s]\.)(["')\]’”]*)\s+(?=["'(\[‘“`]*[A-Z0-9])""")


def _split_sentences(text: str) -> list[str]:
    """Split `text` after sentence-final periods (a stand-in for Punkt, see the module doc)."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        before = text[start : match.start()]
        word = before.split()[-1] if before.split() else ""
        word = word.lstrip("\"'([`‘“")[:-1]  # drop the final period
        if len(word) <= 1 or "." in word or word.lower() in _ABBREVIATIONS:
            continue
        pieces.append(text[start : match.start() + len(match.group(1))])
        start = match.end()
    pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()]


def _tokenize_sentence(text: str) -> list[str]:
    for pattern, replacement in _OPENING_QUOTES:
        text = pattern.sub(replacement, text)
    for pattern, replacement in _PUNCTUATION:
        text = pattern.sub(replacement, text)
    text = _BRACKETS.sub(r" \g<0> ", text)
    text = _DOUBLE_DASH.sub(r" -- ", text)
    text = f" {text} "
    for pattern, replacement in _CLOSING_QUOTES:
        text = pattern.sub(replacement, text)
    for pattern in _SPLIT_WORDS:
        text = pattern.sub(r" \1 \2 ", text)
    return text.split()


def tokenize(sentence: str) -> list[str]:
    """InferSent v1's tokenisation (NLTK ``word_tokenize``), case kept.

    Punctuation is split off (except inside numbers such as ``3.88`` or ``1,000`` and
    abbreviations such as ``U.S.``), clitics become tokens (``is n't``, ``John 's``, ``they 'll``,
    ``can not``) and double quotes become `````` / ``''`` as in the Penn Treebank. The only
    difference from NLTK is the sentence splitter (see the module docstring).
    """
    return [token for piece in _split_sentences(sentence) for token in _tokenize_sentence(piece)]
