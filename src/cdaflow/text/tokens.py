"""Word tokens shared by the studies' text metrics.

Two tokenizations of plain text, both on Unicode ``\\w`` (letters, digits and underscore of any
script, as Python's ``re`` defines it for ``str`` patterns):

* :func:`words`: the ``\\w+`` runs only; punctuation marks and spaces are not tokens. Study B's
  error rates count words this way (a dropped period costs nothing).
* :func:`words_and_punctuation`: the ``\\w+`` runs and every other non-space character on its own
  (``"it's"`` → ``it``, ``'``, ``s``). Study C's GLEU compares sentences this way, so an added
  comma is an edit like an added word.

Neither lower-cases nor normalises; callers that want either do it first.
"""

from __future__ import annotations

import re

__all__ = ["WORD", "WORD_OR_PUNCTUATION", "words", "words_and_punctuation"]

WORD = re.compile(r"\w+")
WORD_OR_PUNCTUATION = re.compile(r"\w+|[^\w\s]")


def words(text: str) -> list[str]:
    """The ``\\w+`` runs of `text`, in order; punctuation marks are dropped."""
    return WORD.findall(text)


def words_and_punctuation(text: str) -> list[str]:
    """The ``\\w+`` runs of `text` and each other non-space character as a token of its own, in order."""
    return WORD_OR_PUNCTUATION.findall(text)
