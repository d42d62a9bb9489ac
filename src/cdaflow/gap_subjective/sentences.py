"""Sentence splitting that keeps character offsets (GAP contexts, §3.2.2-3.2.5).

Every GAP context is cut into sentences, each sentence is detected, transferred and thresholded
on its own, and the context is rebuilt from the kept sentences; the offsets of the pronoun and
both names must then be found again (§3.2.5). That only works if the cut is lossless: the text is
exactly the concatenation of ``sentence + separator`` over its pieces. pysbd (the "Golden Rules"
segmenter, which knows English abbreviations such as "St." and "Dr.") gives the boundaries; its
spans carry their trailing whitespace, which we keep apart as the separator so a transferred
sentence can be put back with the original spacing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Sentence", "join_sentences", "split_sentences"]


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text: its characters ``[start, end)``, the whitespace after it, and (first
    sentence only) the whitespace before it."""

    text: str
    start: int
    end: int
    separator: str
    lead: str = ""


@lru_cache(maxsize=1)
def _segmenter():  # pragma: no cover - trivial
    import pysbd

    return pysbd.Segmenter(language="en", clean=False, char_span=True)


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text`` with their offsets; ``join_sentences`` of them gives ``text`` back.

    Each sentence's text is stripped; the whitespace up to the next sentence is its separator and
    any whitespace before the first one is that sentence's ``lead``.
    """
    if not text.strip():
        return []
    lead = len(text) - len(text.lstrip())
    spans = [(span.start, span.end) for span in _segmenter().segment(text)]
    # Trust the text, not the segmenter: rebuild contiguous pieces from its start points, so no
    # character can fall between two sentences even if a future pysbd drops one.
    starts = sorted({start for start, _ in spans if lead < start < len(text)} | {lead})
    sentences: list[Sentence] = []
    for start, bound in zip(starts, starts[1:] + [len(text)]):
        piece = text[start:bound]
        body = piece.rstrip()
        indent = len(piece) - len(piece.lstrip())
        if not body:  # whitespace only: it belongs to the previous separator
            last = sentences.pop()
            sentences.append(Sentence(last.text, last.start, last.end, last.separator + piece, last.lead))
            continue
        if indent and sentences:  # whitespace the segmenter put at a piece's start
            last = sentences.pop()
            sentences.append(Sentence(last.text, last.start, last.end, last.separator + piece[:indent], last.lead))
        sentences.append(Sentence(body[indent:], start + indent, start + len(body), piece[len(body) :]))
    first = sentences[0]
    sentences[0] = Sentence(first.text, first.start, first.end, first.separator, text[:lead])
    return sentences


def join_sentences(texts: Sequence[str], sentences: Sequence[Sentence]) -> str:
    """A text rebuilt from (possibly replaced) sentence texts with the original separators."""
    if len(texts) != len(sentences):
        raise ValueError(f"{len(texts)} sentence texts for {len(sentences)} sentences")
    if not sentences:
        return ""
    return sentences[0].lead + "".join(text + sentence.separator for text, sentence in zip(texts, sentences))
