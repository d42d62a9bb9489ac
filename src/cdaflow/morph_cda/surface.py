"""Rebuilding the surface string after reinflection: contractions and multiword tokens.

UD splits contractions into syntactic words (es *del* = *de* + *el*, fr *du* = *de* + *le*,
it *della* = *di* + *la*, he *הילדה* = *ה* + *ילדה*). After some words change, a multiword
token is rebuilt from its new parts: by the language's contraction table (a pair that no longer
contracts is written as two words: *del* → *de la*), by plain concatenation where the token is
the concatenation of its parts (Hebrew prefixes), or, for Hebrew possessive suffixes, by
swapping the suffix letters. Adjacent separate words that now form a contraction are joined
(fr *de la* → *de le* → *du*).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from cdaflow.io.conllu import Sentence
from cdaflow.text.case import match_case
from cdaflow.text.language import Language, get
from cdaflow.text.normalization import read_word

__all__ = ["WHOLE_WORD", "contract", "detokenize", "escape_spaces", "match_case", "rebuild_multiword", "spaces_after",
           "surface"]

APOSTROPHES = ("'", "\u2019")
# the end of a split Hebrew noun's new form that is a whole word with its suffix (אם_ -> אביו__)
WHOLE_WORD = "__"


def contract(lang: Language | str, parts: Sequence[str]) -> str | None:
    """The contracted form of `parts` in `lang`, or None when they do not contract."""
    if len(parts) != 2:
        return None
    first, second = (read_word(part) for part in parts)  # an unchanged word may be written in NFD (à)
    joined = get(lang).contract(first, second)
    return match_case(first, joined) if joined else None


def rebuild_multiword(
    language: Language, form: str, old_parts: Sequence[str], new_parts: Sequence[str]
) -> list[str]:
    """New surface token(s) for a multiword token whose parts changed."""
    if list(old_parts) == list(new_parts):
        return [form]
    contracted = contract(language, new_parts)
    if contracted:
        return [contracted]
    multiword = language.multiword
    if multiword.get("concatenate"):  # Hebrew: prefixes and suffixes written together
        stripped_old = [p.strip("_") for p in old_parts]
        stripped_new = [p.strip("_") for p in new_parts]
        if "".join(stripped_old) == form:
            return ["".join(stripped_new)]
        swallowed = (multiword.get("swallowed_article") or {}).get("article")

        # The definite article is swallowed after a prefix: "בבית" = ב + ה + בית.
        def without_article(parts: Sequence[str]) -> list[str]:
            return [p for i, p in enumerate(parts) if not (p == swallowed and i > 0)]

        if swallowed and "".join(without_article(stripped_old)) == form:
            return ["".join(without_article(stripped_new))]
        suffixes = multiword.get("possessive_suffixes") or {}
        # a possessed noun given another noun (אם_ -> אביו__, interventions._possessed_noun): its new
        # form is the whole word with its suffix, after the token's prefixes
        base = next((i for i, p in enumerate(new_parts) if p.endswith(WHOLE_WORD) and old_parts[i] != p), None)
        written = form
        if base is not None:
            written = "".join(without_article(stripped_new[:base])) + new_parts[base].strip("_")
        for old_pronoun, new_pronoun in zip(old_parts, new_parts):
            if old_pronoun != new_pronoun and old_pronoun in suffixes and new_pronoun in suffixes:
                for old_suffix, new_suffix in zip(suffixes[old_pronoun], suffixes[new_pronoun]):
                    if written.endswith(old_suffix):
                        return [written[: -len(old_suffix)] + new_suffix]
        return [written] if base is not None else ["".join(stripped_new)]
    # A contraction that no longer holds is written out (del → de la).
    return [match_case(form, new_parts[0]), *new_parts[1:]]


# UD's escapes in a SpacesAfter value (MISC): the whitespace after a token, where not one space;
# other whitespace as \uXXXX (a no-break space: \u00A0), as UD treebanks write it
_SPACES_ESCAPES = {"\\s": " ", "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\p": "|", "\\\\": "\\"}


def _unescape(match: re.Match[str]) -> str:
    escape = match.group(0)
    return chr(int(escape[2:], 16)) if escape.startswith("\\u") else _SPACES_ESCAPES[escape]


def escape_spaces(gap: str) -> str:
    """Whitespace as a SpacesAfter value (see _SPACES_ESCAPES)."""
    out = []
    for char in gap:
        escaped = next((escape for escape, c in _SPACES_ESCAPES.items() if c == char), None)
        out.append(escaped or (char if char.isascii() and not char.isspace() else f"\\u{ord(char):04X}"))
    return "".join(out)


def spaces_after(token) -> bool | str:
    """The whitespace after a token as written: its SpacesAfter (UD: *\\s\\s* for two spaces)
    where it has one, else whether it is followed by a space (no SpaceAfter=No)."""
    misc = token.get("misc") or {}
    written = misc.get("SpacesAfter")
    if written:
        return re.sub(r"\\(?:[stnrp\\]|u[0-9A-Fa-f]{4})", _unescape, written)
    return misc.get("SpaceAfter") != "No"


def surface(
    sentence: Sentence, forms: Mapping[int, str], lang: Language | str
) -> tuple[list[str], list[bool | str]]:
    """Surface tokens and the whitespace after each (True: a space, False: none, or the string
    a token's SpacesAfter gives) after replacing word forms: each token keeps its own.

    `forms` maps a syntactic word id to its new form; other words keep theirs. A changed word
    that ends in an apostrophe (elided *l'*) joins the next one; one that no longer does is
    followed by a space.
    """
    language = get(lang)
    tokens: list[str] = []
    spaces: list[bool | str] = []
    changed: list[bool] = []
    skip_until = 0
    by_id = {t["id"]: t for t in sentence if isinstance(t["id"], int)}
    for token in sentence:
        token_id = token["id"]
        space = spaces_after(token)
        if isinstance(token_id, tuple):
            if token_id[1] != "-":
                continue  # empty node
            start, end = token_id[0], token_id[2]
            old_parts = [by_id[i]["form"] for i in range(start, end + 1)]
            new_parts = [forms.get(i, by_id[i]["form"]) for i in range(start, end + 1)]
            rebuilt = rebuild_multiword(language, token["form"], old_parts, new_parts)
            tokens.extend(rebuilt)
            spaces.extend([True] * (len(rebuilt) - 1) + [space])
            changed.extend([old_parts != new_parts] * len(rebuilt))
            skip_until = end
            continue
        if token_id <= skip_until:
            continue
        new = forms.get(token_id, token["form"])
        if new != token["form"] and (new.endswith(APOSTROPHES) or token["form"].endswith(APOSTROPHES)):
            space = not new.endswith(APOSTROPHES)
        tokens.append(new)
        spaces.append(space)
        changed.append(new != token["form"])
    # Adjacent words that contract now (fr "de" + "le" → "du") are joined, if one of them changed.
    out_tokens: list[str] = []
    out_spaces: list[bool | str] = []
    i = 0
    while i < len(tokens):
        # (not a preposition whose contraction is optional: it con il stays apart, though col is read)
        if (i + 1 < len(tokens) and (changed[i] or changed[i + 1]) and spaces[i]
                and read_word(tokens[i]).lower() not in language.optional_contractions):
            joined = contract(language, [tokens[i], tokens[i + 1]])
            if joined:
                out_tokens.append(joined)
                out_spaces.append(spaces[i + 1])
                i += 2
                continue
        out_tokens.append(tokens[i])
        out_spaces.append(spaces[i])
        i += 1
    return out_tokens, out_spaces


def detokenize(tokens: Sequence[str], spaces: Sequence[bool | str]) -> str:
    """The text of tokens and the whitespace after each (see :func:`surface`)."""
    gaps = (space if isinstance(space, str) else " " if space else "" for space in spaces)
    return "".join(tok + gap for tok, gap in zip(tokens, gaps)).rstrip()
