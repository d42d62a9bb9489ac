"""UD analyses mapped onto the TreeTagger-style Spanish tags of Jain et al. (2021).

The mapping is data: ``resources/regender/es/tagset_map.tsv`` lists rows of conditions on the
UPOS, the morphological features, the lemma and the word form; the first row whose conditions
all hold gives the tag (the file's header explains the columns). Multiword tokens (stanza splits
``dámelo`` into *da me lo* and ``del`` into *de el*) are tagged as one surface token: a verb
followed by clitic pronouns is ``VCL``; other contractions take the tag of their first row match
on the surface form (``del`` → ``PDEL``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_TAGSET_MAP", "TagMap", "Word", "tag_surface_tokens"]

RESOURCES = Path(__file__).resolve().parents[3] / "resources" / "regender"
DEFAULT_TAGSET_MAP = RESOURCES / "es" / "tagset_map.tsv"
COLUMNS = ("upos", "feats", "lemma", "form", "tag", "comment")
CLITICS = frozenset("me te se nos os lo la le los las les".split())


@dataclass(frozen=True)
class Word:
    """One syntactic word of a UD analysis."""

    form: str
    upos: str
    feats: Mapping[str, str] | None = None
    lemma: str | None = None


@dataclass(frozen=True)
class _Row:
    upos: frozenset[str] | None
    feats: tuple[tuple[str, str], ...]
    lemma: re.Pattern[str] | None
    form: re.Pattern[str] | None
    tag: str


def _feats_key(feats: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((feats or {}).items()))


class TagMap:
    """First-match table from (UPOS, features, lemma, form) to a tag."""

    def __init__(self, rows: Sequence[_Row], source: str = "<rows>") -> None:
        if not rows:
            raise ValueError(f"{source}: no mapping rows")
        self.rows = tuple(rows)
        self.source = source
        self.tags = frozenset(row.tag for row in rows)
        # Keys include the word form, so on a long corpus the cache would take every word type;
        # 16k entries (a few MB) keep the frequent ones, and a miss costs only a few microseconds.
        self._cached = functools.lru_cache(maxsize=16_384)(self._lookup)

    @classmethod
    def load(cls, path: str | Path = DEFAULT_TAGSET_MAP) -> TagMap:
        """Read a tagset map TSV (comment lines start with ``#``); errors name file, line and column."""
        path = Path(path)
        rows: list[_Row] = []
        with open(path, encoding="utf-8") as handle:
            lines = [(n, line.rstrip("\r\n")) for n, line in enumerate(handle, start=1)]
        content = [(n, line) for n, line in lines if line.strip() and not line.startswith("#")]
        if not content:
            raise ValueError(f"{path}: empty tagset map")
        header_line, header = content[0]
        if tuple(header.split("\t")) != COLUMNS:
            raise ValueError(f"{path}:{header_line}: header must be {'<TAB>'.join(COLUMNS)}")
        for number, line in content[1:]:
            fields = line.split("\t")
            if len(fields) != len(COLUMNS):
                raise ValueError(f"{path}:{number}: {len(fields)} columns, expected {len(COLUMNS)}")
            upos, feats, lemma, form, tag, _ = fields
            if not tag.strip():
                raise ValueError(f"{path}:{number}: column tag is empty")
            pairs = []
            if feats != "*":
                for item in feats.split(","):
                    name, sep, value = item.partition("=")
                    if not sep or not name or not value:
                        raise ValueError(f"{path}:{number}: column feats: {item!r} is not Feature=Value")
                    pairs.append((name, value))
            patterns = []
            for column, text in (("lemma", lemma), ("form", form)):
                try:
                    patterns.append(None if text == "*" else re.compile(text, re.IGNORECASE))
                except re.error as exc:
                    raise ValueError(f"{path}:{number}: column {column}: bad regular expression ({exc})") from None
            rows.append(
                _Row(None if upos == "*" else frozenset(upos.split("|")), tuple(pairs), patterns[0], patterns[1], tag)
            )
        return cls(rows, str(path))

    def _lookup(self, upos: str, feats: tuple[tuple[str, str], ...], lemma: str, form: str) -> str:
        have = dict(feats)
        for row in self.rows:
            if row.upos is not None and upos not in row.upos:
                continue
            if any(have.get(name) != value for name, value in row.feats):
                continue
            if row.lemma is not None and not row.lemma.fullmatch(lemma):
                continue
            if row.form is not None and not row.form.fullmatch(form):
                continue
            return row.tag
        raise ValueError(f"{self.source}: no row matches {upos} {dict(feats)} lemma={lemma!r} form={form!r}")

    def tag(self, word: Word) -> str:
        """The tag of one syntactic word."""
        return self._cached(word.upos, _feats_key(word.feats), (word.lemma or "").lower(), word.form.lower())


def tag_surface_tokens(tagmap: TagMap, tokens: Sequence[tuple[str, Sequence[Word]]]) -> list[str]:
    """Tags of surface tokens, each ``(surface form, its syntactic words)``.

    A token of one word takes that word's tag. A multiword token is ``VCL`` when it is a verb
    followed by clitics (``dámelo``), else the tag of its surface form analysed as its first word
    (``del`` → ``PDEL``, ``al`` → ``PAL``).
    """
    tags = []
    for surface, words in tokens:
        if len(words) == 1:
            tags.append(tagmap.tag(words[0]))
        elif words and words[0].upos in ("VERB", "AUX") and all(w.form.lower() in CLITICS for w in words[1:]):
            tags.append("VCL")
        elif words:
            first = words[0]
            tags.append(tagmap.tag(Word(surface, first.upos, first.feats, first.lemma)))
        else:
            raise ValueError(f"token {surface!r} has no syntactic words")
    return tags
