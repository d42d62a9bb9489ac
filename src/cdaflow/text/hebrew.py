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
dev 92.3 % (the rules were tuned on it), test 92.6 % (no split at all: 70.1 %, 67.7 %). A noun that
hspell reads only with a third-person possessive suffix is split as HTB splits it (*מעמדם* = *מעמד_ _של_
_הם*; :func:`_possessor`), so that the suffix's pronoun changes with its antecedent and the suffix is
rebuilt (*במעמדן*). Not done: names hspell does not know (*באיובה*) stay whole; a pointed word (niqqud)
is kept whole.

**Tags.** The parser (rule morph_cda_parser, trained on the sample's 975 sentences: 92.6 % UPOS, 73 %
LAS on its held-out tenth) guesses at words it has not seen; the prefix units take the tags HTB gives
them, and a content word's part of speech, gender and number are checked against hspell's analyses
(:func:`_correct_tags`). A clause's subject, adjectives, copula and predicate, and a relative clause
right after a noun, are found again by the article and hspell's readings where the parser lost them
(:func:`cdaflow.text.hebrew_clauses.repair_clauses`).

**Modules.** hspell itself (one long-lived process, its analyses, the lexicon check's fields) is
:mod:`cdaflow.text.hspell`; the clause repairs are :mod:`cdaflow.text.hebrew_clauses`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cdaflow.text.hebrew_clauses import repair_clauses
from cdaflow.text.hspell import (
    HEBREW_LETTERS,
    HEBREW_WORD,
    HSPELL_GENDER,
    HSPELL_NUMBER,
    HSPELL_POS,
    SECOND_PERSON_SUFFIX_PRONOUNS,
    SUFFIX_PRONOUNS,
    Hspell,
    Reading,
    gender_number,
    has_possessive_suffix,
    hspell_missing,
    own_features,
)

__all__ = [
    "HebrewParser",
    "Segment",
    "Segmenter",
]

# Surface tokens of a line: a Hebrew word (acronyms ארה"ב, geresh ג'ורג'), prefix letters glued to a
# number (ב50), a number, a Latin word, an ellipsis, else one character.
# niqqud and cantillation marks (not the maqaf ־, paseq, sof pasuq): part of the word they sit on. A
# pointed word is kept whole: hspell reads unpointed text only
_MARKS = "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7"
_TOKEN = re.compile(
    rf"[{HEBREW_LETTERS}]*\d+(?:[.,:/]\d+)*|[{HEBREW_LETTERS}][{HEBREW_LETTERS}{_MARKS}]*(?:[\"'\u05f3\u05f4][{HEBREW_LETTERS}][{HEBREW_LETTERS}{_MARKS}]*)*[\u05f3']?"
    r"|[A-Za-z]+|\.\.\.|\S"
)
_OF = "של"  # the possessive preposition, which doubles a possessive suffix before it
_QUOTES = frozenset('"\u05f4\u201c\u201d\u201e')  # quotation marks, around a name or a title ("הארץ")

@dataclass(frozen=True)
class Segment:
    """One surface token and the syntactic words HTB splits it into (one word: not split)."""

    surface: str
    words: tuple[str, ...]
    space_after: bool = True
    prefixes: int = 0  # how many of the words are prefix units (ו, ב, ה_ ...)
    # hspell's analyses of the content word (the word after the prefixes), as (lemma, features)
    analyses: tuple[tuple[str, tuple[str, ...]], ...] = ()
    suffixes: int = 0  # words after the content word: a possessive suffix's _של_ and pronoun (מעמדם)


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
    possessors: frozenset[str] = frozenset()  # multiword.possessive_suffixes' pronouns (_הוא, _הם ...)
    closed_class: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # paradigms: אינם -> (Masc, Plur)
    prefix_tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # ב -> (ADP,)
    verb_cues: frozenset[str] = frozenset()  # words a verb follows (לא, הם): a verb-only word stays whole
    linking_verbs: frozenset[str] = frozenset()  # the language file's (נראה): an adjective after one agrees
    noun_openers: frozenset[str] = frozenset()  # words a noun follows (כל): prefix + one before a noun is split
    name_articles: frozenset[str] = frozenset()  # an article of foreign names (Arabic אל-ואד): names around it

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
            verb_cues=frozenset(segmentation.get("verb_cues") or ()),
            noun_openers=frozenset(segmentation.get("noun_openers") or ()),
            name_articles=frozenset(segmentation.get("name_articles") or ()),
            linking_verbs=frozenset(language.linking_verbs),
            prefix_tags={unit: tuple(tags) for unit, tags in (segmentation.get("prefix_tags") or {}).items()},
            possessors=frozenset(multiword.get("possessive_suffixes") or ()),
            closed_class={form: tag for paradigm in language.paradigms for form in paradigm.values()
                          if (tag := language.paradigm_tag(form))},
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


def _infinitive(analyses: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    return any("מקור" in features for _, features in analyses)


def _noun_or_adjective(analyses: Sequence[tuple[str, tuple[str, ...]]]) -> bool:
    return any(features[:1] in (("ע",), ("ת",)) for _, features in analyses)


def choose(readings: Sequence[Reading], infinitive_prefix: str = "", article: str = "",
           relativizers: frozenset[str] = frozenset(), noun: frozenset = frozenset(),
           verb_expected: bool = False) -> Reading | None:
    """The reading the segmenter follows (None: the word stays whole).

    After a comma (`relativizers`: the subordinating prefixes, ש and כש, there), the relativizer + a
    verb of the third person or the present opens a relative clause on the noun before it (השחקן, שחזר
    = ש + חזר, not the verb "restored"): it beats a whole word that hspell reads only as a verb. Right
    after a noun (`noun`: its (gender, number) readings) it does where the verb agrees with the noun
    and no verb or adjective reading of the whole word does (השכן שגר = ש + גר; הילדה שמחה stays).

    The article + a noun or adjective (הזרים = ה + זרים, השכנה = ה + שכנה); else the whole word when
    hspell knows it; else the split with the shortest prefix; where a verb is expected (`verb_expected`:
    after a negation or a subject pronoun, שהם לא הבינו) a whole word read only as a verb stays whole
    beside the article + something else (ה + בינו). An infinitive keeps
    its ל: the split ל + היות is the word להיות, ול + היות is ו + להיות. Measured on the HTB sample
    (benchmarks/hebrew_segmentation.py): tuned on its dev file, checked on its test file.
    """
    # a whole word read only with a possessive suffix (שהייתה: "her stay") is no word of its own to
    # HTB, which splits the suffix off too: beside a prefix split (ש + הייתה) it does not count
    whole = [r for r in readings if not r.prefix and not all(has_possessive_suffix(f) for _, f in r.analyses)]
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
    # ... but beside a split whose stem is only a function word it does (לבם: "their heart", not ל + בם)
    if any(not r.prefix and r.analyses and all(f[:1] == ("ע",) and has_possessive_suffix(f) for _, f in r.analyses)
           for r in readings) and all(
            all(f[:1] == ("x",) for _, f in r.analyses) for r in splits):
        return None
    relative = [r for r in splits if r.prefix in relativizers and any(
        f[:1] == ("פ",) and ("הווה" in f or ("3" in f and {"עבר", "עתיד"} & set(f))) for _, f in r.analyses)]
    if noun:
        def agreeing(r):
            return any(gender_number(f) in noun for _, f in r.analyses if f[:1] == ("ת",) or (f[:1] == ("פ",) and (
                "הווה" in f or ("3" in f and {"עבר", "עתיד"} & set(f)))) and "סמיכות" not in f)
        relative = [r for r in relative if agreeing(r)] if not any(agreeing(r) for r in whole) else []
    elif any(_noun_or_adjective(r.analyses) for r in whole):  # after a comma: שחורים, שמחה stay whole
        relative = []
    if relative:
        return min(relative, key=lambda r: len(r.prefix))
    # the article + a noun or adjective beats a whole word hspell also knows (השכנה = ה + שכנה, not
    # the rare noun "housing"); a bare construct-state reading is not definite
    definite = [r for r in splits if article and r.prefix == article and _noun_or_adjective(r.analyses)
                and not (len(r.analyses) == 1 and r.analyses[0][1][-1:] == ("סמיכות",))]
    if whole and definite:
        return definite[0]
    # the same after ו, ש, כש where the word without the article is only an imperative: והשקט = ו + ה +
    # שקט, not ו + השקט ("calm!"); a past verb stays (והזמין)
    for r in splits:
        base = r.prefix[: -len(article)] if article and r.prefix.endswith(article) else None
        if base and _noun_or_adjective(r.analyses) and not all(f[-1:] == ("סמיכות",) for _, f in r.analyses):
            shorter = [o for o in splits if o.prefix == base]
            if shorter and all(_verb_only(o.analyses) and all("ציווי" in f for _, f in o.analyses) for o in shorter):
                return r
            # and where the word without the article is a noun as well, as for a whole word (והמלכה = ו + ה +
            # מלכה, not ו + "the coronation"; השכנה above)
            if shorter and all(_noun_or_adjective(o.analyses) for o in shorter):
                return r
    # a whole word hspell knows only as a verb, beside the article + something else (הזרים, התיכון:
    # hif'il forms); with other prefixes the verb stays (שמעתי is not ש + מעתי)
    if whole and not (all(_verb_only(r.analyses) for r in whole) and not verb_expected
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
        asked = {t for tokens in tokenized for t, _ in tokens if HEBREW_WORD.fullmatch(t)}
        readings = self.hspell.readings(sorted(asked)) if asked else {}
        return [self._segments(tokens, readings) for tokens in tokenized]

    def segment(self, text: str) -> list[Segment]:
        return self.segment_many([text])[0]

    def _may_split(self, token: str) -> bool:
        return len(token) > 1 and token[0] in self._prefix_letters and bool(HEBREW_WORD.fullmatch(token))

    def _segments(self, tokens: list[tuple[str, bool]], readings: Mapping[str, tuple[Reading, ...]]) -> list[Segment]:
        chosen: list[tuple[str, str]] = []  # (prefix, rest) per token
        quoted: set[int] = set()  # the tokens alone between quotation marks
        # the prefix units HTB tags as subordinating conjunctions only (ש, כש): a relative after a comma
        relativizers = frozenset(u for u, tags in self.facts.prefix_tags.items() if tags == ("SCONJ",))
        for k, (token, token_space) in enumerate(tokens):
            number = re.fullmatch(rf"([{HEBREW_LETTERS}]+)(\d.*)", token)
            if number and self._units(number[1]) is not None:
                chosen.append((number[1], number[2]))  # ב50: prefix letters on a number
                continue
            named = k > 1 and tokens[k - 2][0] in self.facts.name_articles and tokens[k - 1][0] == "-" and not (
                tokens[k - 2][1] or tokens[k - 1][1])  # אל-ואד: a name after the hyphen, whole
            # a word alone between quotation marks glued to it is a name or a title: only the article is split
            # off ("בצלם", the organisation: not ב + צלם, nor בצל + their; "הארץ", the paper: ה + ארץ, as HTB),
            # unless a relativizer opens a quoted clause ("משראה": from when he sees)
            if 0 < k < len(tokens) - 1 and tokens[k - 1][0] in _QUOTES and tokens[k + 1][0] in _QUOTES and not (
                    tokens[k - 1][1] or token_space) and not any(
                    set(self._units(r.prefix) or ()) & relativizers for r in readings.get(token, ())):
                quoted.add(k)
                article = [r for r in readings.get(token, ()) if r.prefix == self.facts.article and r.stem]
                chosen.append((article[0].prefix, article[0].stem) if article else ("", token))
                continue
            reading = None if named else self._noun_opener(k, tokens, readings)
            if reading is None and not named and token not in self.facts.whole_words \
                    and token not in self.facts.pronoun_words and self._may_split(token):
                comma = k > 0 and tokens[k - 1][0] == ","
                noun = frozenset() if comma or not k else frozenset(
                    gender_number(f) for r in readings.get(tokens[k - 1][0], ()) for _, f in r.analyses
                    if f[:1] == ("ע",) and "סמיכות" not in f and not has_possessive_suffix(f))
                reading = choose(readings.get(token, ()), self.facts.infinitive_prefix, self.facts.article,
                                 relativizers if comma or noun else frozenset(), noun,
                                 k > 0 and tokens[k - 1][0] in self.facts.verb_cues)
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
            infinitive = self.facts.infinitive_prefix
            if infinitive and rest.startswith(infinitive) and not pronoun:  # לחשוש: a noun, and ל + the infinitive
                analyses += tuple(a for r in readings.get(token, ()) if r.prefix == prefix + infinitive
                                  and r.stem == rest[len(infinitive):] and _infinitive(r.analyses)
                                  for a in r.analyses if "מקור" in a[1])
            doubled = k + 1 < len(tokens) and tokens[k + 1][0] == _OF  # הזמנתם של העובדים: the noun
            possessor = None if pronoun or k in quoted else _possessor(analyses, self.facts.possessors, doubled)
            if possessor is not None:  # מעמדם = מעמד_ + _של_ + _הם, as HTB writes it
                base = next(lemma for lemma, f in analyses if f[:1] == ("ע",)) + "_"  # the noun's, not a verb's
                out.append(Segment(token, (*units, base, "_של_", possessor), space, len(units), analyses, 2))
                continue
            out.append(Segment(token, (*units, *(pronoun or (rest,))), space, len(units), analyses))
        return out

    def _noun_opener(self, k: int, tokens, readings) -> Reading | None:
        """The split of token k into a prefix and a word the language file's ``noun_openers`` lists, where
        the next token is a word hspell knows and no adjective (שכל עובד, שכל אחד = ש + כל, not the noun
        "intellect" or the verb "bereaved"; שכל ישר, common sense, stays); else None."""
        if k + 1 >= len(tokens) or not self._may_split(tokens[k][0]):
            return None
        after = [(r.prefix, f) for r in readings.get(tokens[k + 1][0], ()) for _, f in r.analyses]
        if not after or any(f[:1] == ("ת",) and not prefix for prefix, f in after):
            return None
        return next((r for r in readings.get(tokens[k][0], ()) if r.prefix and r.stem in self.facts.noun_openers), None)

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




def _possessor(analyses, possessors: frozenset[str], doubled: bool = False) -> str | None:
    """The pronoun of a noun's third-person or second-person plural possessive suffix (מעמדם: _הם;
    מחשבותיכם: _אתם), where every analysis hspell gives the word is a noun with that suffix and the
    language file lists the pronoun; else None.
    `doubled`: של follows, which doubles a possessive suffix (הזמנתם של העובדים), so a verb reading
    (הזמנתם, "you invited") does not count."""
    found = set()
    for _, features in analyses:
        if features[:1] == ("פ",) and (doubled or has_possessive_suffix(features)):
            continue  # a verb with an object suffix (פתרונו: "they solved us"), a rare reading
        if features[:1] != ("ע",) or not has_possessive_suffix(features):
            return None
        suffix = features[len(own_features(features)):]
        first = suffix[0].split("/", 1)[1] if "/" in suffix[0] else ""
        rest = (first, *suffix[1:])
        pronouns = SUFFIX_PRONOUNS if "3" in rest else SECOND_PERSON_SUFFIX_PRONOUNS if "2" in rest else None
        if pronouns is None:
            return None
        gender = next((f for f in rest if f in ("ז", "נ")), None)
        number = next((f for f in rest if f in ("יחיד", "רבים")), None)
        found.add(pronouns.get((gender, number)))
    pronoun = found.pop() if len(found) == 1 else None
    return pronoun if pronoun in possessors else None


def _is_hebrew(word: str) -> bool:
    return bool(re.match(rf"[{HEBREW_LETTERS}]", word))


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
                                               self.segmenter.facts.prefix_tags, Token, TokenList, Metadata, FIELDS,
                                               self.segmenter.facts.closed_class, self.segmenter.facts.linking_verbs,
                                               self.segmenter.facts.name_articles)
                    if k == len(spans):
                        mark_line_end(sentence)
                    yield sentence

        def reparse(self, sentences, *, batch_size=64):
            raise NotImplementedError("a Hebrew treebank is segmented already: read it with --format conllu")

    _CLASS.append(_HebrewParser)
    return _HebrewParser


# tags a small parser gives a content word it does not know (מלצר PROPN, אח ADV, לכיתה VERB: a noun
# hspell knows only as a noun is no participle)
_GUESSED_TAGS = frozenset({"PROPN", "ADV", "X", "INTJ", "NUM", "NOUN", "VERB"})


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
    if word["upos"] == "ADJ" and analyses and all(f[:1] == ("x",) for _, f in analyses):
        # an "adjective" hspell knows only as a function word (הביתה, homeward): an adverb, of no gender
        word["upos"], word["xpos"], word["feats"] = "ADV", None, None
        return
    if word["upos"] in ("NOUN", "ADJ") and word.get("deprel") == "xcomp" and _infinitive(analyses):
        # a complement that hspell reads as ל + an infinitive (צריכים לחשוש; the parser: a noun): the
        # infinitive, which has no gender
        word["upos"], word["xpos"], word["feats"] = "VERB", None, {"VerbForm": "Inf"}
        return
    finite = [f for _, f in analyses if f[:1] == ("פ",) and {"עבר", "עתיד"} & set(f)]
    if finite and len(finite) == len(analyses):
        if word["upos"] in ("ADJ", "NOUN"):
            word["upos"], word["xpos"] = "VERB", None  # a past or future verb only (ניגשו): no adjective
        shown = {gender_number(own_features(f)) for f in finite}
        if {g for g, _ in shown} == {"Masc", "Fem"} and {n for _, n in shown} == {"Plur"} and all(
                "3" in f for f in finite):
            # the third person plural of the past, one form for both genders (נפצעו): it shows no gender
            feats = {k: v for k, v in (word["feats"] or {}).items() if k not in ("Gender", "VerbForm")}
            word["feats"] = {**feats, "Number": "Plur", "Tense": "Past" if any("עבר" in f for f in finite) else "Fut"}
            return
    kinds = [HSPELL_POS.get(features[0]) for _, features in analyses if features]
    proper = any(features[:2] == ("ע", "פרטי") for _, features in analyses)
    upos = word["upos"]
    if kinds and None not in kinds and upos in _GUESSED_TAGS and not (upos == "PROPN" and proper) \
            and upos not in kinds:
        upos = next(tag for tag in ("NOUN", "ADJ", "VERB") if tag in kinds)
        word["upos"] = upos
        word["xpos"] = None
    if upos not in ("NOUN", "ADJ", "VERB") or proper:
        return
    readings = [features for _, features in analyses if features and HSPELL_POS.get(features[0]) == upos]
    # a reading with an object or possessive suffix is the rarer one beside a plain one (ביקרה: "she
    # visited", not "he visited her")
    readings = [f for f in readings if not has_possessive_suffix(f)] or readings
    own = [own_features(features) for features in readings]
    feats = dict(word["feats"] or {})
    persons = {f for features in own for f in features if f in ("1", "2", "3")}
    if upos == "VERB" and own and persons <= {"1", "2"} and all(set(f) & {"1", "2"} for f in own):
        # a verb of the first or second person only (הכנתי): the speaker's or addressee's, no gender shown
        feats.pop("Gender", None)
        feats["Person"] = persons.pop() if len(persons) == 1 else feats.get("Person", "1")
        word["feats"] = feats
        return
    for key, table in (("Gender", HSPELL_GENDER), ("Number", HSPELL_NUMBER)):
        values = {table[f] for features in own for f in features if f in table}
        if len(values) == 1 and all(any(f in table for f in features) for features in own):
            feats[key] = values.pop()
    # a "participle" hspell knows only as a past or future verb (ושמחו): the finite verb, whose form the
    # lexicon check then reads with its tense (שמחו: both genders' past plural, it stays)
    finite = [f for f in own if {"עבר", "עתיד"} & set(f)]
    tenses = {"Past" if "עבר" in f else "Fut" for f in finite}
    if upos == "VERB" and feats.get("VerbForm") == "Part" and tenses and not any("הווה" in f for f in own):
        feats.pop("VerbForm")  # (יצא: past or future, no participle; the lexicon check tells the forms apart)
        if len(tenses) == 1:
            feats["Tense"] = tenses.pop()
        persons = {f for features in finite for f in features if f in ("1", "2", "3")}
        if len(persons) == 1:
            feats["Person"] = persons.pop()
    word["feats"] = feats or None


def _possessive_parts(parts, content: int) -> None:
    """The _של_ and pronoun of a split possessive suffix as HTB has them: של a case:gen of the pronoun,
    the pronoun an nmod:poss of the noun (whatever the parser made of them)."""
    noun, of, pronoun = parts[content], parts[content + 1], parts[content + 2]
    gender = {"_הוא": "Masc", "_הם": "Masc", "_היא": "Fem", "_הן": "Fem"}.get(pronoun["form"])
    number = "Plur" if pronoun["form"] in ("_הם", "_הן") else "Sing"
    of.update(upos="ADP", xpos=None, lemma="של", feats=None, head=pronoun["id"], deprel="case:gen")
    pronoun.update(upos="PRON", xpos=None, lemma="הוא", head=noun["id"], deprel="nmod:poss",
                   feats={"Case": "Gen", "Gender": gender, "Number": number, "Person": "3", "PronType": "Prs"})
    if noun["upos"] not in ("NOUN", "PROPN"):
        noun["upos"], noun["xpos"] = "NOUN", None


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
                    Token, TokenList, Metadata, fields, closed_class=None, linking_verbs=frozenset(),
                    name_articles=frozenset()):  # noqa: N803
    """The span's words with a multiword token line over each split surface token, its SpaceAfter
    on that line, and `# text` the surface text; prefix units take their listed tags."""
    out = []
    text = []
    info = []  # each syntactic word: (word, is a prefix unit, its prefix units, hspell's analyses)
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
        whole = len(parts) == len(segment.words)
        content = count - 1 - segment.suffixes
        if segment.analyses and whole:
            _correct_tags(parts[content], segment.analyses)
        if segment.suffixes and whole:
            _possessive_parts(parts, content)
        for k, part in enumerate(parts):
            prefix = k < segment.prefixes
            units = () if prefix else tuple(p["form"] for p in parts[:segment.prefixes])
            info.append((part, prefix or k > content, units, segment.analyses if whole and k == content else ()))
        text.append(segment.surface + (" " if segment.space_after else ""))
        position += count
    repair_clauses(info, closed_class, linking_verbs, name_articles)
    return TokenList(out, Metadata({"sent_id": sent_id, "text": "".join(text).strip()}), default_fields=list(fields))
