"""GAP-Subjective contexts and their new offsets (§3.2.5, Tables 4 and 7).

Each context is rebuilt from its sentences with the kept transferred ones in place of their
originals (:func:`~.sentences.join_sentences` keeps the original spacing). Each mention (pronoun,
A, B) is then found again as the paper does: first the sentence it was in, then an exact match
inside that sentence, then its global offset in the rebuilt text. Two refinements make the match
safe rather than lucky:

* a mention that occurs k times in its original sentence is matched to the same occurrence (by
  rank) in the transferred sentence, and only if the transferred sentence has exactly as many
  occurrences (a model that dropped or added one makes the rank ambiguous);
* occurrences are whole words when the original mention was one ("her" is not found in "there").

A mention in an unchanged sentence moves by the length change of the sentences before it. When
any of the three is not found the original instance is kept ("to maintain the size of the
dataset"), and the miss is counted for Table 7.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from cdaflow.gap_subjective.gap import GapExample
from cdaflow.gap_subjective.sentences import Sentence, join_sentences

__all__ = ["MENTIONS", "Rebuilt", "rebuild_example"]

MENTIONS = ("Pronoun", "A", "B")


@dataclass(frozen=True)
class Rebuilt:
    """One GAP-Subjective instance and how it was made."""

    example: GapExample  # the new instance, or the original one when an offset was not found
    replaced: int  # sentences replaced in the rebuilt context (before the fallback)
    found: dict[str, bool]  # per mention: new offset found (True where nothing changed)

    @property
    def converted(self) -> bool:
        """At least one sentence transferred and kept (Table 4)."""
        return self.replaced > 0

    @property
    def all_found(self) -> bool:
        return all(self.found.values())

    @property
    def changed(self) -> bool:
        """The instance in the released file differs from GAP's."""
        return self.converted and self.all_found

    def record(self) -> dict[str, object]:
        """The row of the per-split offsets table that Tables 4 and 7 are computed from."""
        return {
            "id": self.example.id,
            "replaced": self.replaced,
            **{f"{name.lower()}_found": self.found[name] for name in MENTIONS},
            "all_found": self.all_found,
            "changed": self.changed,
        }


def _is_word_boundary(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def _occurrences(text: str, span: str, whole_word: bool) -> list[int]:
    starts = [m.start() for m in re.finditer(f"(?={re.escape(span)})", text)]
    return [s for s in starts if not whole_word or _is_word_boundary(text, s, s + len(span))]


def _sentence_index(sentences: Sequence[Sentence], offset: int, length: int) -> int | None:
    for index, sentence in enumerate(sentences):
        if sentence.start <= offset and offset + length <= sentence.end:
            return index
    return None


def _new_offset(
    span: str, offset: int, sentences: Sequence[Sentence], texts: Sequence[str], new_starts: Sequence[int]
) -> int | None:
    index = _sentence_index(sentences, offset, len(span))
    if index is None:  # the mention straddles a sentence boundary: movable only if nothing changed
        first = max(i for i, s in enumerate(sentences) if s.start <= offset)
        last = max(i for i, s in enumerate(sentences) if s.start < offset + len(span))
        if any(texts[i] != sentences[i].text for i in range(first, last + 1)):
            return None
        return new_starts[first] + offset - sentences[first].start
    sentence = sentences[index]
    local = offset - sentence.start
    if texts[index] == sentence.text:
        return new_starts[index] + local
    whole_word = _is_word_boundary(sentence.text, local, local + len(span))
    before = _occurrences(sentence.text, span, whole_word)
    after = _occurrences(texts[index], span, whole_word)
    if len(before) != len(after) or local not in before:
        return None
    return new_starts[index] + after[before.index(local)]


def rebuild_example(example: GapExample, sentences: Sequence[Sentence], replacements: Mapping[int, str]) -> Rebuilt:
    """The GAP-Subjective instance of ``example`` whose sentence ``i`` becomes ``replacements[i]``."""
    texts = [replacements.get(i, s.text) for i, s in enumerate(sentences)]
    replaced = sum(texts[i] != s.text for i, s in enumerate(sentences))
    if not replaced:
        return Rebuilt(example, 0, dict.fromkeys(MENTIONS, True))
    new_text = join_sentences(texts, sentences)
    new_starts, position = [], len(sentences[0].lead)
    for text, sentence in zip(texts, sentences):
        new_starts.append(position)
        position += len(text) + len(sentence.separator)
    offsets = {
        name: _new_offset(span, offset, sentences, texts, new_starts)
        for name, (span, offset) in example.spans().items()
    }
    found = {name: offset is not None for name, offset in offsets.items()}
    if not all(found.values()):
        return Rebuilt(example, replaced, found)
    new = replace(
        example, text=new_text, pronoun_offset=offsets["Pronoun"], a_offset=offsets["A"], b_offset=offsets["B"]
    )
    if bad := new.mismatched_spans():  # cannot happen by construction; never release a wrong offset
        raise AssertionError(f"{example.id}: rebuilt offsets of {bad} do not match")
    return Rebuilt(new, replaced, found)
