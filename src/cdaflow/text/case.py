"""Letter case carried from one word or segment to its rewrite (the studies rewrite text in place)."""

from __future__ import annotations

__all__ = ["match_case", "match_initial_case", "with_initial_case"]


def match_case(original: str, new: str) -> str:
    """`new` in the case pattern of `original`: UPPER (two letters or more), Title, or as it is."""
    if original.isupper() and len(original) > 1:
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def with_initial_case(text: str, *, upper: bool) -> str:
    """`text` with its first letter (leading punctuation such as ``¿`` or ``"`` skipped) upper- or lower-cased."""
    for i, char in enumerate(text):
        if char.isalpha():
            return text[:i] + (char.upper() if upper else char.lower()) + text[i + 1 :]
    return text


def match_initial_case(text: str, like: str) -> str:
    """`text` with its first letter upper-cased when the first letter of `like` is (a rewritten segment keeps
    its capital; a lower-case first letter of `like` leaves `text` as it is)."""
    first = next((c for c in like if c.isalpha()), "")
    return with_initial_case(text, upper=True) if first.isupper() else text
