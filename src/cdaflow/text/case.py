"""Letter case carried from one word to its replacement (both studies rewrite words in place)."""

from __future__ import annotations

__all__ = ["match_case"]


def match_case(original: str, new: str) -> str:
    """`new` in the case pattern of `original`: ALL CAPS, Capitalised or as it is.

    Only letters count: *L'* and *¡Él* are capitalised, not all caps, and a single capital letter
    (*A*) is far more often sentence-initial than an acronym. A capitalised `new` gets its first
    letter upper-cased, after any leading punctuation (*¡las* → *¡Las*).
    """
    cased = [char for char in original if char.isupper() or char.islower()]
    if not cased:
        return new
    if len(cased) > 1 and all(char.isupper() for char in cased):
        return new.upper()
    if cased[0].isupper():
        for index, char in enumerate(new):
            if char.isupper() or char.islower():
                return new[:index] + char.upper() + new[index + 1 :]
    return new
