"""Letter case carried from one word or segment to its rewrite (the studies rewrite text in place)."""

from __future__ import annotations

__all__ = ["match_case", "match_initial_case", "name_cased", "with_initial_case"]


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


def name_cased(form: str) -> bool:
    """Whether `form` is written as a name may be: capitalised, or in a script without letter case
    (Hebrew), where only the parser's tag tells a name from a word (*דני כהן*)."""
    first = form[:1]
    return first.isupper() or (first.isalpha() and not first.islower())


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
