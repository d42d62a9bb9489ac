"""Hebrew raw text for Study A: prefixes split off words as the UD Hebrew treebank (HTB) splits
them, with Debian's ``hspell`` morphological analyzer, then a spaCy pipeline trained on the
treebank's syntactic words parses the words.

**Why hspell.** HTB writes *ובבית* as the token *ובבית* over the words *ו* + *ב* + *ה_* + *בית*
(the article *ה* that *ב*, *כ*, *ל* swallow is written *ה_*). A spaCy tokenizer cannot learn to
split prefixes, as whether *ב* is a prefix depends on the word (*בית* is not *ב* + *ית*). ``hspell
-l`` (``apt-get install hspell``) prints, for each known word, its reading as a whole word
(``מילה חוקית: הלך``) and every legal prefix + word split (``צירוף חוקי: וב+בית``), each with its
analyses (``בית(ע,ז,יחיד)``: noun, masculine, singular). Unknown words print nothing.

**Which split** (:func:`choose`). The article + a noun or adjective wins (*השכנה* = *ה* + *שכנה*, not
the rare noun *השכנה*; *הזרים* = *ה* + *זרים*, not the verb); else a word hspell knows whole stays
whole (*שמעתי*, *הלך*), unless it knows it only with a possessive suffix (*שהייתה*: HTB splits that
too, so ש + הייתה); else the split with the shortest prefix (*ולכן* = *ו* + *לכן*, not *ול* + *כן*);
an infinitive keeps its *ל* (*ולהיות* = *ו* + *להיות*). The language file lists the words HTB keeps
whole though hspell splits them (*ביותר*, *כאשר*), the inflected prepositions whose pronoun HTB
writes apart (*שלו* = *של_* + *_הוא*) and the prefix units, cut longest first (*וכשה* = *ו* + *כש* +
*ה*). The swallowed article is added after *ב/כ/ל* when the next word is the article + an adjective
or participle (*בבית הגדול* = *ב ה_ בית ה גדול*: Hebrew marks definiteness on the noun and its
adjective alike); alone it cannot be seen (*בבית* is "in a house" or "in the house"). Word-level
agreement with HTB's own segmentation on the UD sample (``python benchmarks/hebrew_segmentation.py``):
dev 91.3 % (the rules were tuned on it), test 91.7 % (no split at all: 70.1 %, 67.7 %). Not done:
possessive suffixes on nouns (*אחיו* = *אח_ _של_ _הוא*) and names hspell does not know (*באיובה*)
stay whole; a pointed word (niqqud) is kept whole.

**Tags.** The parser (rule morph_cda_parser, trained on the sample's 975 sentences: 92.6 % UPOS, 73 %
LAS on its held-out tenth) guesses at words it has not seen; the prefix units take the tags HTB gives
them, and a content word's part of speech, gender and number are checked against hspell's analyses
(:func:`_correct_tags`).

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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cdaflow.io.processes import end_process

__all__ = [
    "HSPELL_INSTALL",
    "HebrewParser",
    "Hspell",
    "Segment",
    "Segmenter",
    "hspell_missing",
    "spell_final_letters",
]

HSPELL_INSTALL = "apt-get install hspell"
_ENCODING = "iso-8859-8"
_WHOLE = "מילה חוקית: "
_SPLIT = "צירוף חוקי: "
# Sent after each batch: it starts with no prefix letter, so hspell prints one block for it, the
# same each time; a real word equal to it is never sent (nothing to split; a function word, so no
# tag to check).
_SENTINEL = "עם"
_LETTER = "\u05d0-\u05ea"
# Surface tokens of a line: a Hebrew word (acronyms ארה"ב, geresh ג'ורג'), prefix letters glued to a
# number (ב50), a number, a Latin word, an ellipsis, else one character.
# niqqud and cantillation marks (not the maqaf ־, paseq, sof pasuq): part of the word they sit on. A
# pointed word is kept whole: hspell reads unpointed text only
_MARKS = "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
_TOKEN = re.compile(
    rf"[{_LETTER}]*\d+(?:[.,:/]\d+)*|[{_LETTER}][{_LETTER}{_MARKS}]*(?:[\"'\u05f3\u05f4][{_LETTER}][{_LETTER}{_MARKS}]*)*[\u05f3']?"
    r"|[A-Za-z]+|\.\.\.|\S"
)
_HEBREW_WORD = re.compile(rf"[{_LETTER}]+(?:[\"'\u05f3\u05f4][{_LETTER}]+)*[\u05f3']?")
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


# ---------------------------------------------------------------------------------------------
# segmentation


@dataclass(frozen=True)
class Segment:
    """One surface token and the syntactic words HTB splits it into (one word: not split)."""

    surface: str
    words: tuple[str, ...]
    space_after: bool = True
    prefixes: int = 0  # how many of the words are prefix units (ו, ב, ה_ ...)
    # hspell's analyses of the last word (the word after the prefixes), as (lemma, features)
    analyses: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class HebrewFacts:
    """What the segmenter needs from the language file (he.yaml's ``multiword``)."""

    prefix_units: tuple[str, ...]  # longest first: כש before כ
    article: str
    article_written: str  # how HTB writes the swallowed article (ה_)
    swallowed_after: frozenset[str]
    final_letters: Mapping[str, str] = field(default_factory=dict)  # non-final -> final
    whole_words: frozenset[str] = frozenset()  # kept whole though hspell splits them (ביותר)
    infinitive_prefix: str = ""  # ל of להיות: an infinitive keeps it
    pronoun_words: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # שלו -> (של_, _הוא)
    prefix_tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # ב -> (ADP,)

    @classmethod
    def of(cls, language: Any) -> HebrewFacts:
        multiword = dict(language.multiword)
        segmentation = multiword.get("segmentation") or {}
        swallowed = multiword.get("swallowed_article") or {}
        if not segmentation.get("prefixes"):
            raise ValueError(f"{language.code}.yaml: multiword.segmentation.prefixes: none listed")
        article = swallowed.get("article", "")
        return cls(
            prefix_units=tuple(sorted(segmentation["prefixes"], key=len, reverse=True)),
            article=article,
            article_written=article + "_" if article else "",
            swallowed_after=frozenset(swallowed.get("after", ())),
            final_letters=dict(multiword.get("final_letters") or {}),
            whole_words=frozenset(segmentation.get("whole_words") or ()),
            infinitive_prefix=segmentation.get("infinitive_prefix") or "",
            prefix_tags={unit: tuple(tags) for unit, tags in (segmentation.get("prefix_tags") or {}).items()},
            pronoun_words={
                word: (first or word, pronoun)
                for first, words in (segmentation.get("pronoun_words") or {}).items()
                for word, pronoun in words.items()
            },
        )


def _verb_only(analyses: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    """Every analysis a verb (פ): a whole-word reading such as הזרים, התיכון (hif'il forms) or שבו,
    beside a prefix + noun split (ה + זרים, ה + תיכון)."""
    return bool(analyses) and all(features[:1] == ("פ",) for _, features in analyses)


def _possessed(features: tuple[str, ...]) -> bool:
    return any(feature.startswith("כינוי") for feature in features)


def _infinitive(analyses: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    return any("מקור" in features for _, features in analyses)


def _noun_or_adjective(analyses: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    return any(features[:1] in (("ע",), ("ת",)) for _, features in analyses)


def choose(readings: Sequence[Reading], infinitive_prefix: str = "", article: str = "") -> Reading | None:
    """The reading the segmenter follows (None: the word stays whole).

    The article + a noun or adjective (הזרים = ה + זרים, השכנה = ה + שכנה); else the whole word when
    hspell knows it; else the split with the shortest prefix. An infinitive keeps
    its ל: the split ל + היות is the word להיות, ול + היות is ו + להיות. Measured on the HTB sample
    (benchmarks/hebrew_segmentation.py): tuned on its dev file, checked on its test file.
    """
    # a whole word read only with a possessive suffix (שהייתה: "her stay") is no word of its own to
    # HTB, which splits the suffix off too: beside a prefix split (ש + הייתה) it does not count
    whole = [r for r in readings if not r.prefix and not all(_possessed(f) for _, f in r.analyses)]
    splits = [r for r in readings if r.prefix and r.stem]
    if infinitive_prefix:
        kept = []
        for r in splits:
            if r.prefix.endswith(infinitive_prefix) and _infinitive(r.analyses):
                shorter = r.prefix[: -len(infinitive_prefix)]
                if not shorter:
                    whole = whole or [Reading("", r.prefix + r.stem, r.analyses)]
                    continue
                r = Reading(shorter, infinitive_prefix + r.stem, r.analyses)
            kept.append(r)
        splits = kept
    if not splits:
        return None
    # the article + a noun or adjective beats a whole word hspell also knows (השכנה = ה + שכנה, not
    # the rare noun "housing"); a bare construct-state reading is not definite
    definite = [r for r in splits if article and r.prefix == article and _noun_or_adjective(r.analyses)
                and not (len(r.analyses) == 1 and r.analyses[0][1][-1:] == ("סמיכות",))]
    if whole and definite:
        return definite[0]
    # a whole word hspell knows only as a verb, beside the article + something else (הזרים, התיכון:
    # hif'il forms); with other prefixes the verb stays (שמעתי is not ש + מעתי)
    if whole and not (all(_verb_only(r.analyses) for r in whole)
                      and any(not _verb_only(r.analyses) and r.prefix == article for r in splits)):
        return None
    return min(splits, key=lambda r: len(r.prefix))


class Segmenter:
    """Raw Hebrew text into surface tokens and their HTB syntactic words (see the module doc)."""

    def __init__(self, facts: HebrewFacts, hspell: Hspell | None = None):
        self.facts = facts
        self.hspell = hspell or Hspell()
        self._prefix_letters = "".join(sorted({c for unit in facts.prefix_units for c in unit}))

    @classmethod
    def for_language(cls, code: str = "he", hspell: Hspell | None = None) -> Segmenter:
        from cdaflow.text import language as languages

        return cls(HebrewFacts.of(languages.load(code)), hspell)

    def tokens(self, text: str) -> list[tuple[str, bool]]:
        """(surface token, followed by whitespace) of a text."""
        return [(m.group(), m.end() < len(text) and text[m.end()].isspace()) for m in _TOKEN.finditer(text)]

    def segment_many(self, texts: Sequence[str]) -> list[list[Segment]]:
        """The segments of each text; one hspell exchange for all their words."""
        tokenized = [self.tokens(text) for text in texts]
        # every Hebrew word: a split's readings choose it, a word's analyses correct the parser's tags
        asked = {t for tokens in tokenized for t, _ in tokens if _HEBREW_WORD.fullmatch(t)}
        readings = self.hspell.readings(sorted(asked)) if asked else {}
        return [self._segments(tokens, readings) for tokens in tokenized]

    def segment(self, text: str) -> list[Segment]:
        return self.segment_many([text])[0]

    def _may_split(self, token: str) -> bool:
        return len(token) > 1 and token[0] in self._prefix_letters and bool(_HEBREW_WORD.fullmatch(token))

    def _segments(self, tokens: list[tuple[str, bool]], readings: Mapping[str, tuple[Reading, ...]]) -> list[Segment]:
        chosen: list[tuple[str, str]] = []  # (prefix, rest) per token
        for token, _ in tokens:
            number = re.fullmatch(rf"([{_LETTER}]+)(\d.*)", token)
            if number and self._units(number[1]) is not None:
                chosen.append((number[1], number[2]))  # ב50: prefix letters on a number
                continue
            reading = None
            if token not in self.facts.whole_words and token not in self.facts.pronoun_words and self._may_split(token):
                reading = choose(readings.get(token, ()), self.facts.infinitive_prefix, self.facts.article)
            if reading is not None and self._units(reading.prefix) is not None:
                chosen.append((reading.prefix, token[len(reading.prefix):]))
            else:
                chosen.append(("", token))
        out = []
        for k, ((token, space), (prefix, rest)) in enumerate(zip(tokens, chosen)):
            units = list(self._units(prefix) or [])
            if units and units[-1] in self.facts.swallowed_after and self.facts.article_written \
                    and _is_hebrew(rest) and self._definite_modifier_follows(k, tokens, chosen, readings):
                units.append(self.facts.article_written)  # בבית הגדול: the article both words share
            pronoun = self.facts.pronoun_words.get(rest)
            analyses = () if pronoun else tuple(
                a for r in readings.get(token, ()) if r.prefix == prefix and r.stem == rest for a in r.analyses
            )
            out.append(Segment(token, (*units, *(pronoun or (rest,))), space, len(units), analyses))
        return out

    def _definite_modifier_follows(self, k: int, tokens, chosen, readings) -> bool:
        """Whether token k + 1 is the article + an adjective or participle: then token k's noun is
        definite too (בבית הגדול), and its swallowed article is a word of its own."""
        if k + 1 >= len(tokens) or chosen[k + 1][0] != self.facts.article:
            return False
        stem = chosen[k + 1][1]
        analyses = [a for r in readings.get(tokens[k + 1][0], ()) if r.prefix == self.facts.article and r.stem == stem
                    for a in r.analyses]
        return any(features[:1] == ("ת",) or "הווה" in features for _, features in analyses)

    def _units(self, prefix: str) -> list[str] | None:
        """A prefix string cut into the language's prefix units, longest first; None when it is not
        made of them."""
        units: list[str] = []
        rest = prefix
        while rest:
            unit = next((u for u in self.facts.prefix_units if rest.startswith(u)), None)
            if unit is None:
                return None
            units.append(unit)
            rest = rest[len(unit):]
        return units

    def close(self) -> None:
        self.hspell.close()


def _is_hebrew(word: str) -> bool:
    return bool(re.match(rf"[{_LETTER}]", word))


def spell_final_letters(word: str, final_letters: Mapping[str, str]) -> str:
    """`word` with each letter that has a final form written final at the end of a Hebrew word and
    plain inside one (עייףה -> עייפה, ילדמ -> ילדם); acronyms (ח"כ) and one-letter words stay."""
    plain = {final: letter for letter, final in final_letters.items()}

    def fix(match: re.Match[str]) -> str:
        run = match.group()
        if len(run) < 2:
            return run
        inside = "".join(plain.get(c, c) for c in run[:-1])
        return inside + final_letters.get(run[-1], run[-1])

    # a run of letters not followed by a geresh or gershayim (an acronym keeps its letters)
    return re.sub(rf"[{_LETTER}]+(?![\"'\u05f3\u05f4{_LETTER}])", fix, word)


# ---------------------------------------------------------------------------------------------
# the parser


def HebrewParser(lang: str, model: str | None = None, **options: Any):  # noqa: N802 (a class factory)
    """A spaCy parser of Hebrew raw text: hspell splits the prefixes, a pipeline trained on HTB's
    syntactic words (rule morph_cda_parser) parses the words; multiword tokens as HTB writes them."""
    from cdaflow.text.parsing import ParserUnavailable

    problem = hspell_missing()
    if problem:
        raise ParserUnavailable(problem)
    return _hebrew_parser_class()(lang, model, **options)


_CLASS: list[type] = []


def _hebrew_parser_class() -> type:
    """The parser class, built on first use so that importing this module loads no spaCy."""
    if _CLASS:
        return _CLASS[0]
    from conllu.models import Metadata, Token, TokenList

    from cdaflow.io.conllu import FIELDS
    from cdaflow.text.parsing import mark_line_end
    from cdaflow.text.spacy_parser import SpacyParser, spacy_span

    class _HebrewParser(SpacyParser):
        name = "spacy"

        def __init__(self, lang: str, model: str | None = None, **options: Any) -> None:
            from cdaflow.text.parsing import ParserUnavailable

            # a folder (the language file's results/morph_cda/he/parser) that is not there yet
            if model is None or (("/" in model or os.sep in model) and not os.path.isdir(model)):
                raise ParserUnavailable(
                    f"Hebrew raw text needs the pipeline the workflow trains on the treebank's words, "
                    f"not found{f' at {model}' if model else ''}: snakemake results/morph_cda/{lang}/parser"
                )
            super().__init__(lang, model, **options)
            self.segmenter = Segmenter.for_language(lang)

        def _doc(self, segments: list[Segment]) -> Any:
            from spacy.tokens import Doc

            words, spaces, may_start = [], [], []
            glued = False  # whether the previous surface token has no space after it
            for segment in segments:
                for k, word in enumerate(segment.words):
                    words.append(word)
                    spaces.append(segment.space_after and k == len(segment.words) - 1)
                    may_start.append(k == 0 and not glued)
                glued = not segment.space_after
            doc = Doc(self._nlp.vocab, words=words, spaces=spaces)
            for token, start in zip(doc, may_start):
                if not start:
                    # a sentence never starts inside a surface token, nor at one glued to the previous
                    # (the final period of הלכה.)
                    token.is_sent_start = False
            return doc

        def parse_lines(self, lines, batch_size, sent_id_prefix, dependencies):
            with_tree = dependencies and self.has_parser
            disable = [] if with_tree or not self.has_parser else ["parser"]
            from cdaflow.io.text import chunks

            # chunks closes a batch early when a live input stalls: a slow pipe's lines are answered as they come
            for group in chunks(lines, batch_size):
                segmented = self.segmenter.segment_many([text for _, text in group])
                # a memory zone a batch: the words a batch added to the vocabulary are dropped with it
                with self._nlp.memory_zone():
                    docs = [self._doc(segments) for segments in segmented]
                    inputs = [(doc, (n, segments)) for doc, (n, _), segments in zip(docs, group, segmented)]
                    yield from self._sentences(inputs, batch_size, disable, with_tree, sent_id_prefix)
                self._forget_cached_words()

        def _sentences(self, inputs, batch_size, disable, with_tree, sent_id_prefix):
            for doc, (n, segments) in self._nlp.pipe(inputs, as_tuples=True, batch_size=batch_size, disable=disable):
                spans = list(doc.sents) if with_tree else ([doc[:]] if len(doc) else [])
                owner = [i for i, segment in enumerate(segments) for _ in segment.words]
                for k, span in enumerate(spans, 1):
                    sentence = _with_multiword(spacy_span(span, {}, with_tree), segments,
                                               owner[span.start:span.end], f"{sent_id_prefix}-{n}-{k}",
                                               self.segmenter.facts.prefix_tags, Token, TokenList, Metadata, FIELDS)
                    if k == len(spans):
                        mark_line_end(sentence)
                    yield sentence

        def reparse(self, sentences, *, batch_size=64):
            raise NotImplementedError("a Hebrew treebank is segmented already: read it with --format conllu")

    _CLASS.append(_HebrewParser)
    return _HebrewParser


# hspell's parts of speech (the first feature): noun, adjective, verb; "x" and others are function words
_HSPELL_POS = {"ע": "NOUN", "ת": "ADJ", "פ": "VERB"}
_HSPELL_GENDER = {"ז": "Masc", "נ": "Fem"}
_HSPELL_NUMBER = {"יחיד": "Sing", "רבים": "Plur"}
# tags a small parser gives a content word it does not know (מלצר PROPN, אח ADV)
_GUESSED_TAGS = frozenset({"PROPN", "ADV", "X", "INTJ", "NUM", "NOUN"})


def _correct_tags(word, analyses: Sequence[tuple[str, tuple[str, ...]]]) -> None:
    """The parser's tag and gender and number, checked against what hspell knows of the word.

    A small parser trained on 900 sentences tags words it has not seen as it can (a person noun
    PROPN or ADV, a predicate adjective NOUN), and Study A then leaves them alone. Where hspell
    knows the word only as content words (no function-word reading), a PROPN with no proper-noun
    reading, an ADV, X, INTJ or NUM, or a NOUN with no noun reading takes hspell's first part of
    speech among noun, adjective, verb; and where all of hspell's analyses with the word's part of
    speech agree on gender (or number), the word takes it (a possessive suffix's person is not
    the word's).
    """
    kinds = [_HSPELL_POS.get(features[0]) for _, features in analyses if features]
    proper = any(features[:2] == ("ע", "פרטי") for _, features in analyses)
    upos = word["upos"]
    if kinds and None not in kinds and upos in _GUESSED_TAGS and not (upos == "PROPN" and proper) \
            and upos not in kinds:
        upos = next(tag for tag in ("NOUN", "ADJ", "VERB") if tag in kinds)
        word["upos"] = upos
        word["xpos"] = None
    if upos not in ("NOUN", "ADJ", "VERB") or proper:
        return
    own = [_own_features(features) for _, features in analyses if features and _HSPELL_POS.get(features[0]) == upos]
    feats = dict(word["feats"] or {})
    for key, table in (("Gender", _HSPELL_GENDER), ("Number", _HSPELL_NUMBER)):
        values = {table[f] for features in own for f in features if f in table}
        if len(values) == 1 and all(any(f in table for f in features) for features in own):
            feats[key] = values.pop()
    word["feats"] = feats or None


def _own_features(features: tuple[str, ...]) -> tuple[str, ...]:
    """An analysis's features up to its possessive suffix (כינוי/נ,3,יחיד: the possessor's)."""
    for i, feature in enumerate(features):
        if feature.startswith("כינוי"):
            return features[:i]
    return features


def _tag_prefix(word, prefix_tags: Mapping[str, tuple[str, ...]]) -> None:
    """A prefix unit as HTB tags it: the parser's tag where the language file allows it, else the
    first listed; no features but the article's (a small parser may give ה a gender and make it a
    pronoun that Study A would then change)."""
    tags = prefix_tags.get(word["form"])
    if not tags:
        return
    upos = word["upos"] if word["upos"] in tags else tags[0]
    word["upos"] = upos
    word["xpos"] = None
    word["lemma"] = word["form"].strip("_")
    word["feats"] = {"PronType": "Art"} if upos == "DET" else None


def _with_multiword(words_sentence, segments, owners, sent_id, prefix_tags,
                    Token, TokenList, Metadata, fields):  # noqa: N803
    """The span's words with a multiword token line over each split surface token, its SpaceAfter
    on that line, and `# text` the surface text; prefix units take their listed tags."""
    out = []
    text = []
    position = 0
    word_tokens = list(words_sentence)
    while position < len(word_tokens):
        segment = segments[owners[position]]
        count = len(segment.words)
        parts = word_tokens[position:position + count]
        # SpaceAfter=No up to the line's end, as spaCy's converter has it: a sentence glued to the next
        # one of its line (הלכה.היא) is joined back without a space
        misc = None if segment.space_after or owners[position] == len(segments) - 1 else {"SpaceAfter": "No"}
        if count > 1:
            first, last = parts[0]["id"], parts[-1]["id"]
            out.append(Token(id=(first, "-", last), form=segment.surface, lemma=None, upos=None, xpos=None,
                             feats=None, head=None, deprel=None, deps=None, misc=misc))
            for k, part in enumerate(parts):
                part["misc"] = None
                if k < segment.prefixes:
                    _tag_prefix(part, prefix_tags)
                out.append(part)
        else:
            parts[0]["misc"] = misc
            out.append(parts[0])
        if segment.analyses and len(parts) == len(segment.words):
            _correct_tags(parts[-1], segment.analyses)
        text.append(segment.surface + (" " if segment.space_after else ""))
        position += count
    return TokenList(out, Metadata({"sent_id": sent_id, "text": "".join(text).strip()}), default_fields=list(fields))
