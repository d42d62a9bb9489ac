"""UD analyses mapped onto the TreeTagger-style Spanish tags of Jain et al. (2021).

The mapping is data: ``resources/regender/es/tagset_map.tsv`` lists rows of conditions on the
UPOS, the morphological features, the lemma and the word form; the first row whose conditions
all hold gives the tag (the file's header explains the columns). Multiword tokens (stanza splits
``dámelo`` into *da me lo* and ``del`` into *de el*) are tagged as one surface token: a verb
followed by clitic pronouns is ``VCL``; other contractions take the tag of their first row match
on the surface form (``del`` → ``PDEL``).

Contextual corrections (:class:`TagCorrections`, ``tag_corrections.yaml`` beside the map, read by
:meth:`TagMap.load` when it is there) then put back in TreeTagger's class the words whose class
depends on their neighbours: a predicative adjective tagged ADV, NOUN, VERB or PROPN by the corpus
tagger (*¿Estás seguro/ADV?*, *Estoy harta/VERB*, *contentos y agradecidos/NOUN*), and a linking
verb tagged as a noun (*¡Qué guapa estás/NOUN!*).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = ["DEFAULT_TAGSET_MAP", "TagCorrections", "TagMap", "Word", "tag_surface_tokens"]

RESOURCES = Path(__file__).resolve().parents[3] / "resources" / "regender"
DEFAULT_TAGSET_MAP = RESOURCES / "es" / "tagset_map.tsv"
CORRECTIONS_FILE = "tag_corrections.yaml"
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


_PATTERN_KEYS = ("finite_linking_verbs", "predicative_verbs", "bare_noun_verbs", "depictive_verbs",
                 "first_second_person_linking_verbs", "adjective_ending", "participle_ending", "not_adjectives")
_AFTER_CLITIC = frozenset({"ADV", "NEG", "PREP", "CM", "FS"})
_SKIPPED_IN_SLOT = frozenset({"ADV", "NEG"})


@dataclass(frozen=True)
class TagCorrections:
    """Contextual corrections toward TreeTagger's classes; the facts are in ``tag_corrections.yaml``."""

    finite_linking_verbs: re.Pattern[str]
    predicative_verbs: re.Pattern[str]
    bare_noun_verbs: re.Pattern[str]
    depictive_verbs: re.Pattern[str]
    first_second_person_linking_verbs: re.Pattern[str]
    adjective_ending: re.Pattern[str]
    participle_ending: re.Pattern[str]
    not_adjectives: re.Pattern[str]
    correctable: frozenset[str]
    conjunctions: frozenset[str]
    clitic_articles: frozenset[str]

    @classmethod
    def load(cls, path: str | Path) -> TagCorrections:
        """Read a corrections file; a missing key or a bad pattern names the file and the key."""
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not valid YAML ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping at the top level")
        patterns = {}
        for key in _PATTERN_KEYS:
            if not isinstance(data.get(key), str):
                raise ValueError(f"{path}: key {key}: missing, or not a regular expression")
            try:  # whitespace is layout: long alternations are folded over lines
                patterns[key] = re.compile(re.sub(r"\s+", "", data[key]))
            except re.error as exc:
                raise ValueError(f"{path}: key {key}: bad regular expression ({exc})") from None
        lists = {}
        for key in ("correctable", "conjunctions", "clitic_articles"):
            if not isinstance(data.get(key), list):
                raise ValueError(f"{path}: key {key}: missing, or not a list")
            lists[key] = frozenset(str(item) if key == "correctable" else str(item).lower() for item in data[key])
        return cls(**patterns, **lists)

    def _adjective_class(self, word: str) -> str | None:
        """ADJ or Vadj when `word` (lower case) looks like a gendered adjective, else None."""
        if not self.adjective_ending.fullmatch(word) or self.not_adjectives.fullmatch(word):
            return None
        return "Vadj" if self.participle_ending.fullmatch(word) else "ADJ"

    def _clitic_before_verb(self, i: int, forms: Sequence[str], lower: Sequence[str], tags: Sequence[str],
                            feats: Sequence[Mapping[str, str] | None]) -> bool:
        """Whether the "article" at `i` is a clitic and the "noun" after it a verb (No la/DET encuentro)."""
        if tags[i] != "ART" or lower[i] not in self.clitic_articles or i + 1 >= len(tags):
            return False
        nxt = i + 1
        if tags[nxt] in ("Vfin", "VMfin", "VHfin"):
            return True  # an article never comes before a finite verb (Los/DET necesito/VERB)
        if tags[nxt] not in ("NC", "NP") or (nxt + 1 < len(tags) and tags[nxt + 1] not in _AFTER_CLITIC):
            return False
        if (i > 0 and tags[i - 1] == "NEG") or lower[i] == "lo":
            return True
        if tags[nxt] == "NP":
            return forms[nxt] == lower[nxt]  # a "name" in lower case
        mine, theirs = feats[i] or {}, feats[nxt] or {}
        return "Gender" in mine and "Gender" in theirs and mine["Gender"] != theirs["Gender"]

    def apply(self, forms: Sequence[str], tags: Sequence[str],
              feats: Sequence[Mapping[str, str] | None] | None = None) -> list[str]:
        """`tags` of the surface tokens `forms` (with their features, when known), corrected left to right."""
        lower = [form.lower() for form in forms]
        feats = feats if feats is not None else [None] * len(forms)
        out = ["Vfin" if self.finite_linking_verbs.fullmatch(word) else tag for word, tag in zip(lower, tags)]
        for i in range(len(out)):
            if self._clitic_before_verb(i, forms, lower, out, feats):
                out[i] = "PPC"
                if out[i + 1] in ("NC", "NP"):
                    out[i + 1] = "Vfin"
            elif (out[i] == "PPC" and lower[i] in self.clitic_articles and i + 1 < len(out)
                  and (out[i + 1] == "NC" or (out[i + 1] == "NP" and forms[i + 1] == lower[i + 1]))
                  and (i + 2 == len(out) or out[i + 2] in _AFTER_CLITIC)):
                out[i + 1] = "Vfin"  # a clitic comes before a verb (Ya la vi/NOUN, No la quiero/PROPN)
        for i, word in enumerate(lower):
            tag = out[i]
            if tag not in self.correctable or (tag == "NP" and forms[i] != word):
                continue
            new = self._adjective_class(word)
            if new is None:
                continue
            j = i - 1
            while j >= 0 and out[j] in _SKIPPED_IN_SLOT:
                j -= 1
            noun = tag in ("NC", "NP")
            if j < 0 or (tag == "ITJN" and out[j] != "INT"):
                continue
            if out[j].startswith("V") and out[j] != "VCL":
                verb = lower[j]
                if self.predicative_verbs.fullmatch(verb):
                    if not (noun and self.bare_noun_verbs.fullmatch(verb)):
                        out[i] = new
                elif noun and self.depictive_verbs.fullmatch(verb):
                    out[i] = new
            elif noun and out[j] == "CC" and lower[j] in self.conjunctions:
                k = j - 1
                while k >= 0 and out[k] in _SKIPPED_IN_SLOT:
                    k -= 1
                # the first conjunct is an adjective of the same number (contentos y agradecidos)
                if k >= 0 and out[k] in ("ADJ", "Vadj") and lower[k].endswith("s") == word.endswith("s"):
                    out[i] = new
            elif (tag in ("NC", "NP", "Vfin") and out[j] == "INT" and i + 1 < len(out)
                  and self.first_second_person_linking_verbs.fullmatch(lower[i + 1])):
                out[i] = new  # ¡Qué tonto/NOUN soy!, Qué contenta/VERB estoy
            elif tag == "ITJN" and out[j] == "INT" and len(word) > 3:
                out[i] = new  # ¡Qué bonito/INTJ!
        return out


class TagMap:
    """First-match table from (UPOS, features, lemma, form) to a tag, and the contextual corrections."""

    def __init__(self, rows: Sequence[_Row], source: str = "<rows>",
                 corrections: TagCorrections | None = None) -> None:
        if not rows:
            raise ValueError(f"{source}: no mapping rows")
        self.rows = tuple(rows)
        self.source = source
        self.corrections = corrections
        self.tags = frozenset(row.tag for row in rows)
        # Keys include the word form, so on a long corpus the cache would take every word type;
        # 16k entries (a few MB) keep the frequent ones, and a miss costs only a few microseconds.
        self._cached = functools.lru_cache(maxsize=16_384)(self._lookup)

    @classmethod
    def load(cls, path: str | Path = DEFAULT_TAGSET_MAP) -> TagMap:
        """Read a tagset map TSV (comment lines start with ``#``); errors name file, line and column.

        ``tag_corrections.yaml`` in the same folder, when there, gives the contextual corrections.
        """
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
        corrections_path = path.parent / CORRECTIONS_FILE
        corrections = TagCorrections.load(corrections_path) if corrections_path.is_file() else None
        return cls(rows, str(path), corrections)

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

    def correct(self, forms: Sequence[str], tags: Sequence[str],
                feats: Sequence[Mapping[str, str] | None] | None = None) -> list[str]:
        """`tags` after the contextual corrections (unchanged without a corrections file)."""
        return list(tags) if self.corrections is None else self.corrections.apply(forms, tags, feats)


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
