"""Letter case carried from one word to its replacement (both studies rewrite words in place)."""

from __future__ import annotations

__all__ = ["match_case"]


def match_case(original: str, new: str) -> str:
    """`new` in the case pattern of `original`: UPPER (two letters or more), Title, or as it is."""
    if original.isupper() and len(original) > 1:
        return new.upper()
    if original[:1].isupper():
        return new[:1].upper() + new[1:]
    return new
