"""Debian's ``hspell`` Hebrew analyzer as a library: each word's readings (whole, or a prefix +
word split) with hspell's analyses, and those analyses as the lexicon check's fields.

``hspell -l`` (``apt-get install hspell``) prints, for each known word, its reading as a whole word
(``מילה חוקית: הלך``) and every legal prefix + word split (``צירוף חוקי: וב+בית``), each with its
analyses (``בית(ע,ז,יחיד)``: noun, masculine, singular). Unknown words print nothing. The segmenter
(:mod:`cdaflow.text.hebrew`) and the clause repairs (:mod:`cdaflow.text.hebrew_clauses`) read them.

**Lexicon check.** :class:`HspellLexicon` gives the generator hspell's analyses as the lexicon check's
fields, with gender, number and a verb's tense, so a generated form must be the right one (*נחמדה*, not
the construct *אדיבת* or the past *נבחרה* for a present *נבחרת*).

**One process.** As for Hunspell (:mod:`cdaflow.morph_cda.hunspell`), one ``stdbuf -oL hspell -l``
process answers every batch: the words go in one a line (ISO-8859-8, hspell's only encoding),
then a sentinel word, and the output is read until the sentinel's block has come back. The output
is decoded line by line, bytes ISO-8859-8 lacks replaced; a word's block is found by its header
(prefix + word spell the word again), not by counting. Analyses are cached.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cdaflow.io.processes import end_process

__all__ = [
    "HSPELL_INSTALL",
    "Hspell",
    "HspellLexicon",
    "Reading",
    "SECOND_PERSON_SUFFIX_PRONOUNS",
    "SUFFIX_PRONOUNS",
    "gender_number",
    "hspell_missing",
    "lexicon_fields",
    "own_features",
    "has_possessive_suffix",
]

HSPELL_INSTALL = "apt-get install hspell"
_ENCODING = "iso-8859-8"
_WHOLE = "מילה חוקית: "
_SPLIT = "צירוף חוקי: "
# Sent after each batch: it starts with no prefix letter, so hspell prints one block for it, the
# same each time; a real word equal to it is never sent (nothing to split; a function word, so no
# tag to check).
_SENTINEL = "עם"
HEBREW_LETTERS = "\u05d0-\u05ea"
HEBREW_WORD = re.compile(rf"[{HEBREW_LETTERS}]+(?:[\"'\u05f3\u05f4][{HEBREW_LETTERS}]+)*[\u05f3']?")
_ANALYSIS = re.compile(r"^\t(?P<lemma>[^(]*)\((?P<features>[^)]*)\)")


def hspell_missing(command: str = "hspell") -> str | None:
    """One line saying what to install when ``hspell`` (or ``stdbuf``) is missing, else None."""
    if shutil.which(command) is None:
        return f"Hebrew raw text is segmented with hspell, which is not installed: {HSPELL_INSTALL}"
    if shutil.which("stdbuf") is None:
        return "Hebrew raw text needs stdbuf (coreutils) to read hspell through a pipe"
    return None


# ---------------------------------------------------------------------------------------------
# hspell


@dataclass(frozen=True)
class Reading:
    """One way hspell reads a word: `prefix` ('' for the whole word) + `stem`, with its analyses
    as (lemma, features) pairs, e.g. ("בית", ("ע", "ז", "יחיד"))."""

    prefix: str
    stem: str
    analyses: tuple[tuple[str, tuple[str, ...]], ...]


class Hspell:
    """Readings of Hebrew words from one long-lived ``hspell -l`` process (cached)."""

    def __init__(self, command: str = "hspell", timeout: float = 30.0, cache_size: int = 200_000):
        problem = hspell_missing(command)
        if problem:
            raise FileNotFoundError(problem)
        self.command = command
        self.timeout = timeout
        self.cache_size = cache_size
        self._cache: dict[str, tuple[Reading, ...]] = {}
        self._process: subprocess.Popen | None = None
        self._sentinel_block: bytes | None = None

    def readings(self, words: Iterable[str]) -> dict[str, tuple[Reading, ...]]:
        """{word: its readings} (empty for a word hspell does not know); one exchange for the
        words not cached."""
        wanted = list(dict.fromkeys(words))
        missing = [w for w in wanted if w not in self._cache and w != _SENTINEL]
        if missing:
            found = _parse_output(self._exchange([_for_hspell(w) for w in missing]))
            for word in missing:
                self._cache[word] = found.get(_for_hspell(word), ())
            if len(self._cache) > self.cache_size:
                self._cache.clear()
                self._cache.update({w: found.get(_for_hspell(w), ()) for w in missing})
        return {w: self._cache.get(w, ()) for w in wanted}

    def _start(self) -> None:
        argv = ["stdbuf", "-oL", self.command, "-l"]
        # The sentinel's block, once, from a process of its own that reads to the end.
        alone = subprocess.run([self.command, "-l"], input=(_SENTINEL + "\n").encode(_ENCODING),
                               capture_output=True, timeout=self.timeout, check=False)
        block = alone.stdout.split(_SPLIT.encode(_ENCODING))[0]  # not its spelling-errors list
        block = block.split("\n\u05e9\u05d2\u05d9\u05d0\u05d5\u05ea".encode(_ENCODING))[0]
        if not block.startswith(_WHOLE.encode(_ENCODING)):
            raise RuntimeError(f"hspell -l gave no reading for {_SENTINEL!r}: {alone.stdout[:200]!r}")
        self._sentinel_block = block if block.endswith(b"\n") else block + b"\n"
        self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, bufsize=0)
        os.set_blocking(self._process.stdin.fileno(), False)
        self._finalizer = weakref.finalize(self, end_process, self._process)

    def _exchange(self, words: Sequence[str]) -> bytes:
        if self._process is None or self._process.poll() is not None:
            self._start()
        assert self._process is not None and self._sentinel_block is not None
        payload = memoryview("".join(w + "\n" for w in [*words, _SENTINEL]).encode(_ENCODING, "replace"))
        stdin, stdout = self._process.stdin.fileno(), self._process.stdout.fileno()
        out = bytearray()
        while True:
            ready, writable, _ = select.select([stdout], [stdin] if payload else [], [], self.timeout)
            if not ready and not writable:
                self.close()
                raise RuntimeError(f"hspell gave no answer for {self.timeout:.0f} s")
            if writable:
                try:
                    payload = payload[os.write(stdin, payload[:65536]):]
                except BlockingIOError:
                    pass
            if ready:
                data = os.read(stdout, 1 << 16)
                if not data:
                    self.close()
                    raise RuntimeError("hspell ended before it answered")
                out += data
                if out.endswith(self._sentinel_block) and (
                    len(out) == len(self._sentinel_block) or out[-len(self._sentinel_block) - 1:][:1] in (b"\n",)
                ):
                    return bytes(out[: -len(self._sentinel_block)])

    def close(self) -> None:
        if self._process is not None:
            self._finalizer()
            self._process = None

    def __getstate__(self) -> dict:  # a copy (a spaCy worker) starts its own process
        state = self.__dict__.copy()
        state.update(_process=None, _finalizer=None)
        return state


def _for_hspell(word: str) -> str:
    # hspell reads ASCII geresh and gershayim only
    return word.replace("\u05f4", '"').replace("\u05f3", "'")


def _parse_output(raw: bytes) -> dict[str, tuple[Reading, ...]]:
    """{word as sent: its readings}: each header line names its word (prefix + stem)."""
    found: dict[str, list[Reading]] = {}
    current: tuple[str, str, list] | None = None

    def close() -> None:
        if current is not None:
            prefix, stem, analyses = current
            found.setdefault(prefix + stem, []).append(Reading(prefix, stem, tuple(analyses)))

    for line_bytes in raw.split(b"\n"):
        line = line_bytes.decode(_ENCODING, "replace")
        if line.startswith(_WHOLE):
            close()
            current = ("", line[len(_WHOLE):].strip(), [])
        elif line.startswith(_SPLIT):
            close()
            prefix, _, stem = line[len(_SPLIT):].strip().partition("+")
            current = (prefix, stem, [])
        elif current is not None and (match := _ANALYSIS.match(line)):
            current[2].append((match["lemma"], tuple(match["features"].split(","))))
    close()
    return {word: tuple(readings) for word, readings in found.items()}


class HspellLexicon:
    """hspell as the lexicon check's dictionary (he.yaml ``lexicon: hspell``): each word's whole-word
    analyses written as :mod:`cdaflow.morph_cda.hunspell`'s fields (``st:`` the lemma, ``po:noun``,
    ``po:adj``, ``po:verb``, and ``po:ppas`` for a present-tense verb, a participle to HTB), so the
    generator checks a generated form against the gender and number it is meant to have (the language
    file's ``hunspell_marks_gender``). A reading carries gender and number (``is:mas``, ``is:fem``,
    ``is:sg``, ``is:pl``) only where a word agreeing with a third person could have it: an adjective
    or a verb of the third person or the present, not in the construct state, with no possessive
    suffix, and no noun (a noun's gender is its own): *נחמדה* is feminine, *אדיבת* (only construct),
    *סקרנת* (only "you wrote") and *מרוץ* (a noun) are no form of an agreeing word."""

    def __init__(self, hspell: Hspell | None = None):
        self.hspell = hspell or Hspell()
        self.unreadable: dict[str, str] = {}  # as Hunspell's: nothing is dropped here

    @classmethod
    def find(cls) -> HspellLexicon | None:
        return None if hspell_missing() else cls()

    def describe(self) -> str:
        return "hspell (whole-word analyses, with gender and number)"

    def report(self) -> str | None:
        return None

    def analyses(self, words: Iterable[str]) -> dict[str, tuple[frozenset[str], ...]]:
        wanted = list(dict.fromkeys(words))
        readings = self.hspell.readings([w for w in wanted if HEBREW_WORD.fullmatch(w)])
        return {w: tuple(dict.fromkeys(lexicon_fields(lemma, features) for r in readings.get(w, ()) if not r.prefix
                                       for lemma, features in r.analyses)) for w in wanted}

    def known(self, words: Iterable[str]) -> set[str]:
        return {w for w, found in self.analyses(words).items() if found}

    def close(self) -> None:
        self.hspell.close()


def lexicon_fields(lemma: str, features: tuple[str, ...]) -> frozenset[str]:
    """One hspell analysis as the lexicon check's fields (see :class:`HspellLexicon`)."""
    fields = {f"st:{lemma}"}
    kind = features[0] if features else ""
    pos = {"ע": "po:noun", "ת": "po:adj", "פ": "po:verb"}.get(kind)
    if pos:
        fields.add(pos)
    if kind == "פ" and "הווה" in features:
        fields.add("po:ppas")
    own = own_features(features)
    agreeing = (
        kind in ("ת", "פ") and own == features and "סמיכות" not in features
        and not {"1", "2", "ציווי", "מקור"} & set(features)
    )
    if agreeing:
        fields.update({"ז": "is:mas", "נ": "is:fem", "יחיד": "is:sg", "רבים": "is:pl"}[f] for f in own
                      if f in ("ז", "נ", "יחיד", "רבים"))
        if kind == "פ" and "עתיד" in own and "רבים" in own and "ז" in own:
            fields.add("is:fem")  # the future plural's masculine is everyone's now (יעסקו; תעסוקנה is literary)
        if kind == "פ":  # a verb's tense: נבחרה is past, נבחרת present (hunspell.agrees)
            fields.add({"עבר": "tn:past", "עתיד": "tn:fut"}.get(next((f for f in features if f in ("עבר", "עתיד")), ""),
                                                                "tn:pres"))
        else:  # an adjective's: מוכשרה (adjective) is no form of the participle מוכשר (מוכשרת)
            fields.add("tn:adj")
    return frozenset(fields)


# ---------------------------------------------------------------------------------------------
# segmentation




# hspell's parts of speech (the first feature): noun, adjective, verb; "x" and others are function words
HSPELL_POS = {"ע": "NOUN", "ת": "ADJ", "פ": "VERB"}
HSPELL_GENDER = {"ז": "Masc", "נ": "Fem"}
HSPELL_NUMBER = {"יחיד": "Sing", "רבים": "Plur"}


def has_possessive_suffix(features: tuple[str, ...]) -> bool:
    return any(feature.startswith("כינוי") for feature in features)


def own_features(features: tuple[str, ...]) -> tuple[str, ...]:
    """An analysis's features up to its possessive suffix (כינוי/נ,3,יחיד: the possessor's)."""
    for i, feature in enumerate(features):
        if feature.startswith("כינוי"):
            return features[:i]
    return features


def gender_number(features: tuple[str, ...]) -> tuple[str | None, str | None]:
    own = own_features(features)
    gender = next((HSPELL_GENDER[f] for f in own if f in HSPELL_GENDER), None)
    number = next((HSPELL_NUMBER[f] for f in own if f in HSPELL_NUMBER), None)
    return gender, number


# the pronoun HTB writes for a possessive suffix of hspell's gender and number (מעמדם = מעמד_ _של_ _הם)
SUFFIX_PRONOUNS = {("ז", "יחיד"): "_הוא", ("נ", "יחיד"): "_היא", ("ז", "רבים"): "_הם", ("נ", "רבים"): "_הן"}
# the second person's, in the plural (למחשבותיכם = ל + מחשבות_ _של_ _אתם); the singular's ך is both genders'
SECOND_PERSON_SUFFIX_PRONOUNS = {("ז", "רבים"): "_אתם", ("נ", "רבים"): "_אתן"}
