"""One place per language for Study A: ``resources/morph_cda/languages/<code>.yaml``.

Everything the code knows of a language is in its file: the definite articles and contractions,
the forms a word takes before the next word (French elision and *cet/bel/mon*, Spanish *el* before
stressed *a-*, Italian *lo/l'/gli*), the copulas and auxiliaries that decide agreement, the
pronouns that are interventions, the paper's hard-coded baseline, regular plurals, agent-noun
suffixes, how a multiword token is rebuilt, the parser pipeline, the Hunspell dictionaries and
the default gazetteer. Adding a language is adding its file (and its data: treebanks, a
gazetteer).

A file is validated against ``language.schema.yaml`` (beside the files) when it is first read;
the workflow's config check reads the file of every configured language, so a missing or broken
one stops the run at start-up with one line naming the file and the key.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from cdaflow.io.structured import read_mapping

__all__ = [
    "LANGUAGES_DIR",
    "Alternation",
    "Language",
    "LanguageError",
    "Pronoun",
    "available",
    "fused_forms",
    "get",
    "load",
]

PROJECT_ROOT = Path(__file__).resolve().parents[3]
LANGUAGES_DIR = PROJECT_ROOT / "resources" / "morph_cda" / "languages"
SCHEMA_PATH = LANGUAGES_DIR / "language.schema.yaml"
GENDERS = ("Masc", "Fem")
_CODE = re.compile(r"^[a-z]{2,3}$")


class LanguageError(ValueError):
    """A missing or invalid language file; the message names the file and the key."""


@dataclass(frozen=True)
class Alternation:
    """A form a word takes before certain next words (*le* → *l'* before *acteur*)."""

    name: str
    next: re.Pattern[str]
    exceptions: frozenset[str]
    only_before: frozenset[str] | None  # the next word's parts of speech; None: any
    forms: Mapping[str, Mapping[str, str]]  # gender -> {full form: alternate form}

    def applies(self, next_form: str, next_upos: str | None = None) -> bool:
        """Whether the next word calls for the alternate forms."""
        lowered = next_form.lower()
        if self.only_before is not None and next_upos not in self.only_before:
            return False
        return bool(self.next.search(lowered)) and lowered not in self.exceptions

    def form_before(self, form: str, gender: str | None, next_form: str, next_upos: str | None = None) -> str:
        """`form` (lower case) as written before `next_form`: the alternate, the full form back, or as is."""
        genders = [gender] if gender in GENDERS else list(GENDERS)
        if self.applies(next_form, next_upos):
            for g in genders:
                if form in self.forms.get(g, {}):
                    return self.forms[g][form]
            return form
        for g in genders:  # an alternate form before a word that does not call for it: the full form
            for full, alternate in self.forms.get(g, {}).items():
                if alternate == form and alternate != full:
                    return full
        return form


@dataclass(frozen=True)
class Pronoun:
    """A pronoun that is an intervention: its form per gender (one form if common)."""

    forms: Mapping[str, str]  # "Masc"/"Fem" -> form
    number: str
    role: str  # subject, other or any
    not_relations: frozenset[str]
    # with no antecedent in the sentence: a person ("person") or only with a person cue ("cues"; it
    # esso, essa: as often a thing); None: the language file's pronoun_referents.bare decides
    bare: str | None = None

    @property
    def common(self) -> bool:
        return self.forms["Masc"] == self.forms["Fem"]

    def fits(self, deprel: str) -> bool:
        """Whether a word in relation `deprel` can be this pronoun."""
        relation = deprel or "dep"
        if relation in self.not_relations or relation.split(":")[0] in self.not_relations:
            return False
        # spaCy's French pipelines label many a personal il "expl:subj": the impersonal ones are
        # told apart by their verbs (the language file's impersonal)
        subject = relation.split(":")[0] == "nsubj" or relation == "expl:subj"
        return self.role == "any" or (self.role == "subject") == subject


@dataclass(frozen=True)
class Language:
    """One language's file, read and checked (see the module docstring)."""

    code: str
    name: str
    source: Path
    spacy_pipelines: tuple[str, ...]
    hunspell: tuple[str, ...]
    hunspell_marks_gender: bool
    gazetteer: str | None
    probes: str | None  # the probe phrases of §5.2 (cdaflow.morph_cda.probes)
    articles: Mapping[str, tuple[tuple[str, str], ...]]  # form -> ((gender, number), ...)
    contractions: Mapping[tuple[str, str], str]  # (preposition, article) -> contracted
    alternations: tuple[Alternation, ...]
    be_lemmas: frozenset[str]
    linking_verbs: frozenset[str]  # verbs whose adjective describes the subject (rester, devenir)
    reflexive_linking_verbs: frozenset[str]  # the same, with a reflexive pronoun only (se sentir)
    perfect_auxiliaries: frozenset[str]
    invariant_participle_of_aux: bool
    baseline: tuple[frozenset[str], frozenset[str]]  # (controllers, targets)
    pronouns: tuple[Pronoun, ...]
    impersonal_verbs: frozenset[str]
    impersonal_clitics: Mapping[str, str]  # verb lemma -> clitic (avoir: y)
    impersonal_clauses: frozenset[str]
    impersonal_words: Mapping[str, frozenset[str]]  # verb or copula lemma -> words (faire: beau; être: temps)
    plurals: tuple[tuple[re.Pattern[str], str, str | None], ...]
    agent_suffixes: tuple[tuple[str, str], ...]
    agent_endings: tuple[str, ...]
    multiword: Mapping[str, Any] = field(default_factory=dict)
    paradigms: tuple[Mapping[tuple[str, str], str], ...] = ()  # each: (gender, number) -> form
    invariable: frozenset[str] = frozenset()  # adjectives with one form for both genders (mejor)
    adverbial_adjectives: frozenset[str] = frozenset()  # used as adverbs, invariable (sentir bon)
    name_titles: frozenset[str] = frozenset()  # words that make a proper name with the name after them (Santa)
    gender_endings: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # number -> pairs
    gender_prefixes: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # tense -> pairs
    # a noun whose counterpart depends on its sense: feminine -> (masculine with a possessor, without
    # one): femme -> (mari, homme), fille -> (fils, garçon)
    sense_counterparts: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # feminine -> adjective lemma before it -> the masculine without a possessor: fille -> petit -> garçon
    sense_adjectives: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # a third-person pronoun with no antecedent in the sentence: "person" or "cues" (see the schema)
    bare_pronouns: str = "person"
    person_predicates: frozenset[str] = frozenset()  # lemmas only a person is the subject of
    possessors_name_persons: bool = False  # he: a possessive suffix's antecedent is a person noun
    objects_skip_their_subject: bool = False  # he: an object pronoun never names its own verb's subject
    never_antecedents: frozenset[str] = frozenset()  # he משהו: an indefinite no pronoun refers back to
    person_prepositions: frozenset[str] = frozenset()  # chez lui: a person
    predicate_markers: frozenset[str] = frozenset()  # travaille comme serveur
    # copula lemma -> predicates impersonal with a clause (être: important: il est important de partir)
    impersonal_with_clause: Mapping[str, frozenset[str]] = field(default_factory=dict)
    no_person_after: frozenset[str] = frozenset()  # fr en: rédacteur en chef, en breton
    prefix_words: frozenset[str] = frozenset()  # ex: a word before a noun that a parser may make its head
    feminine_singular_things: frozenset[str] = frozenset()  # la policía: the force, not a person
    no_one: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # he איש with לא: no one
    # he: a noun's construct state: {relation, forms: {free: construct}, endings: [(regex, replacement)]}
    construct_state: Mapping[str, Any] | None = None
    thing_forms: frozenset[str] = frozenset()  # it conti: accounts (conto) far more often than counts (conte)
    # es como un solo hombre: fixed expressions (lower-case word sequences) whose words never change
    fixed_phrases: tuple[tuple[str, ...], ...] = ()
    another_words: frozenset[str] = frozenset()  # es otro: un virus o cualquier otro invasor (a thing)
    age_nouns: frozenset[str] = frozenset()  # he בן, בת before a number (בת 21): an age, its holder's
    age_units: frozenset[str] = frozenset()  # he חודש, שנה: after an age noun, as a number is (בת חודש)
    definite_things: frozenset[str] = frozenset()  # he החברה (no possessor): the company, not the friend
    body_nouns: frozenset[str] = frozenset()  # it la Camera dei rappresentanti: a body, not its members
    body_preposition: str | None = None  # the preposition of a body's complement (it di)
    optional_contractions: frozenset[str] = frozenset()  # it con: col is read, con il is not joined
    # third-person object clitics, (gender, number) -> form (it lo, la, li, le): a perfect's participle
    # agrees with one before it (l'ho vista), and both change with the clitic's antecedent
    object_clitics: Mapping[tuple[str, str], str] = field(default_factory=dict)
    team_complements: frozenset[str] = frozenset()  # el campeón de Liga: a team, not a person
    impersonal_through: frozenset[str] = frozenset()  # verbs whose infinitive decides (il devrait y avoir)
    complete_agreement: bool = False  # after the MRF, plain agreement rules change what it left (cda.py)
    relative_object_agreement: bool = False  # fr la cliente que j'ai servie: a perfect's participle agrees
    finite_verbs_agree: bool = False  # a finite verb shows its subject's gender (he כתב, כתבה)
    numerals_agree: bool = False  # a cardinal with a gender agrees with its noun (he שלושה או ארבעה)
    lexicon: str = "hunspell"  # the lexicon check's dictionaries: hunspell, or hspell (he)
    gender_endings_first: bool = False  # the lexicon check tries gender_endings' swaps before the reinflector's
    # a small parser's person nouns by the gazetteer: a listed word tagged otherwise after a determiner is
    # a noun, and its noun phrase is gathered under it (interventions.py, parse_repairs.gather_noun_phrase)
    nouns_by_gazetteer: bool = False
    # endings of an adjective's four forms, each (gender, number) -> ending: it o/a/i/e, co/ca/chi/che
    ending_paradigms: tuple[Mapping[tuple[str, str], str], ...] = ()

    @property
    def spacy(self) -> str | None:
        """The spaCy pipeline for raw text: the first of the file's that is installed, a package or a
        folder relative to the project (one the workflow trains: results/morph_cda/it/parser); else
        the first named."""
        for name in self.spacy_pipelines:
            if "/" in name:
                if (PROJECT_ROOT / name / "config.cfg").is_file():
                    return str(PROJECT_ROOT / name)
            elif importlib.util.find_spec(name) is not None:
                return name
        return self.spacy_pipelines[0] if self.spacy_pipelines else None

    # -- articles and contractions -------------------------------------------------------
    def article(self, gender: str, number: str) -> str | None:
        """The definite article written for a gender and number (the first form listed)."""
        for form, tags in self.articles.items():
            if (gender, number) in tags:
                return form
        return None

    def article_tag(self, form: str) -> tuple[str, ...] | None:
        """Agreement subtags of a definite article form (None when unknown or ambiguous in gender)."""
        tags = self.articles.get(form.lower(), ())
        if len(tags) != 1:
            return None
        gender, number = tags[0]
        return (f"Gender={gender}", f"Number={number}")

    def contract(self, preposition: str, article: str) -> str | None:
        return self.contractions.get((preposition.lower(), article.lower()))

    @functools.cached_property
    def fused(self) -> Mapping[str, tuple[str, str]]:
        """Contracted form -> (preposition, article): *del* -> (de, el)."""
        return {joined: pair for pair, joined in self.contractions.items()}

    # -- words ----------------------------------------------------------------------------
    def plural(self, singular: str, gender: str) -> str:
        """The regular plural of a person noun (irregular ones are written in the gazetteer)."""
        for pattern, replacement, only in self.plurals:
            if (only is None or only == gender) and pattern.search(singular):
                return pattern.sub(replacement, singular, count=1)
        return singular

    def pronoun(self, form: str, deprel: str) -> tuple[Pronoun, str | None] | None:
        """(the pronoun, its gender; None for a common one) of a word, or None if it is none."""
        lowered = form.lower()
        for pronoun in self.pronouns:
            if not pronoun.fits(deprel):
                continue
            for gender in GENDERS:
                if pronoun.forms[gender] == lowered:
                    return pronoun, None if pronoun.common else gender
        return None

    @functools.cached_property
    def _paradigm_of(self) -> Mapping[str, Mapping[tuple[str, str], str]]:
        return {form: paradigm for paradigm in self.paradigms for form in paradigm.values()}

    def clitic_tag(self, form: str) -> tuple[str | None, str] | None:
        """(gender, number) of an object clitic of the language file's ``object_clitics``, its elided
        form (it l') with no gender and the singular; None for another word."""
        form = form.lower()
        cells = [cell for cell, f in self.object_clitics.items() if f == form]
        if len(cells) == 1:
            return cells[0]
        if self.object_clitics and any(self.alternate(f, g, "a") == form for (g, n), f in self.object_clitics.items()
                                       if n == "Sing" and f != form):
            return None, "Sing"  # l': lo or la before a vowel
        return None

    def paradigm_tag(self, form: str) -> tuple[str, str] | None:
        """(gender, number) of a closed-class form its paradigm gives one cell (*mon*: Masc Sing)."""
        paradigm = self._paradigm_of.get(form.lower())
        cells = [cell for cell, f in (paradigm or {}).items() if f == form.lower()]
        return cells[0] if len(cells) == 1 else None

    def paradigm_form(self, form: str, gender: str, number: str) -> str | None:
        """The form of `form`'s paradigm for a gender and number (*aquél*, Fem Sing: *aquélla*)."""
        return (self._paradigm_of.get(form.lower()) or {}).get((gender, number))

    def full_form(self, form: str, gender: str | None) -> str:
        """The full form of an alternate one whatever follows (*cet* -> *ce*, *l'* -> *le*/*la*)."""
        genders = [gender] if gender in GENDERS else list(GENDERS)
        for alternation in self.alternations:
            for g in genders:
                for full, alternate in alternation.forms.get(g, {}).items():
                    if alternate == form and alternate != full:
                        return full
        return form

    def gender_candidates(self, form: str, old_gender: str, new_gender: str, number: str | None,
                          tense: str | None = None) -> list[str]:
        """`form` (lower case) with its gender ending swapped, every way ``gender_endings`` allows,
        longest ending first (*inquiet* -> *inquiète*, *inquiette*): candidates for the lexicon check.
        For a verb of a `tense` that marks gender by a prefix (``gender_prefixes``: he future ישוב ->
        תשוב), the form with that prefix swapped comes first (ישובה is another word)."""
        if old_gender == new_gender or {old_gender, new_gender} != set(GENDERS):
            return []
        pairs = self.gender_endings.get(number or "Sing", ())
        out: list[str] = []
        for masc, fem in self.gender_prefixes.get(tense or "", ()) if (number or "Sing") == "Sing" else ():
            old, new = (masc, fem) if old_gender == "Masc" else (fem, masc)
            if form.startswith(old) and len(form) > len(old):
                out.append(new + form[len(old):])
        for masc, fem in sorted(pairs, key=lambda pair: -len(pair[0] if old_gender == "Masc" else pair[1])):
            old, new = (masc, fem) if old_gender == "Masc" else (fem, masc)
            if form.endswith(old) and len(form) > len(old):
                candidate = form[: len(form) - len(old)] + new
                finals = self.multiword.get("final_letters")
                if finals:  # letters written otherwise at a word's end (he עייפה -> עייף, not עייפ)
                    candidate = spell_final_letters(candidate, finals)
                if candidate not in out and candidate != form:
                    out.append(candidate)
        return out

    def readings_by_ending(self, form: str) -> list[tuple[tuple[str, str], list[str]]]:
        """Each (gender, number) the ``ending_paradigms`` give `form` (lower case), with the forms that
        must be words for it to hold: the paradigm's three others (*stanche*: Fem Plur if *stanco*,
        *stanca* and *stanchi* are words; *felice*, *giovane* have none: *felico*, *giovana* are not)."""
        out = []
        for paradigm in self.ending_paradigms:
            for cell, ending in paradigm.items():
                if not form.endswith(ending) or len(form) < len(ending) + 2:
                    continue  # a stem of one letter is no adjective's (di, da, de, do are all words)
                stem = form[: len(form) - len(ending)]
                out.append((cell, [stem + other for c, other in paradigm.items() if c != cell]))
        return out

    def alternate(self, form: str, gender: str | None, next_form: str, next_upos: str | None = None) -> str:
        """`form` as written before `next_form` after every alternation (lower case in, lower case out).
        The form an alternation that applies gives is final: a later one that does not apply keeps it
        (it *gli uomini*: *gli* before a vowel, though also an alternate before *s* + consonant)."""
        genders = [gender] if gender in GENDERS else list(GENDERS)
        for alternation in self.alternations:
            settled = alternation.applies(next_form, next_upos) and any(
                form in forms or form in forms.values() for forms in (alternation.forms.get(g, {}) for g in genders)
            )
            form = alternation.form_before(form, gender, next_form, next_upos)
            if settled:
                return form
        return form


# -- reading ----------------------------------------------------------------------------------
def available(directory: Path | None = None) -> tuple[str, ...]:
    """The codes of the language files in `directory` (default LANGUAGES_DIR), sorted."""
    folder = Path(directory or LANGUAGES_DIR)
    return tuple(sorted(p.stem for p in folder.glob("*.yaml") if _CODE.match(p.stem)))


def get(language: Language | str) -> Language:
    """A Language as is, or the one a code names."""
    return language if isinstance(language, Language) else load(language)


def load(code: str, directory: Path | None = None) -> Language:
    """The language file of `code` in `directory` (default LANGUAGES_DIR), validated; cached."""
    return _load(code, Path(directory or LANGUAGES_DIR).resolve())


@functools.cache
def _load(code: str, directory: Path) -> Language:
    path = directory / f"{code}.yaml"
    if not _CODE.match(code) or not path.is_file():
        known = ", ".join(available(directory)) or "none"
        raise LanguageError(f"{path}: no Study A language file for {code!r} (available: {known})")
    data = read_mapping(path, LanguageError)
    _validate(data, path, SCHEMA_PATH)
    if data["code"] != code:
        raise LanguageError(f"{path}: code: {data['code']!r} differs from the file's name ({code!r})")
    return _build(data, path)


@functools.lru_cache(maxsize=4)
def _schema(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _validate(data: dict[str, Any], path: Path, schema_path: Path) -> None:
    validator = jsonschema.Draft202012Validator(_schema(schema_path))
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        first = errors[0]
        where = ".".join(str(p) for p in first.absolute_path) or "<top level>"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise LanguageError(f"{path}: {where}: {_message(first)}{more}")


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if extra and allowed:
            return f"unknown key {', '.join(map(repr, extra))} (allowed: {', '.join(allowed)})"
    return error.message.splitlines()[0]


def _regex(pattern: str, path: Path, key: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise LanguageError(f"{path}: {key}: not a regular expression ({exc})") from None


def _build(data: dict[str, Any], path: Path) -> Language:
    def tags(value: str | Sequence[str]) -> tuple[tuple[str, str], ...]:
        values = [value] if isinstance(value, str) else value
        return tuple(tuple(v.split()) for v in values)  # type: ignore[misc]

    alternations = tuple(
        Alternation(
            name=spec["name"],
            next=_regex(spec["next"], path, f"alternations.{i}.next"),
            exceptions=frozenset(w.lower() for w in spec.get("except", [])),
            only_before=frozenset(spec["only_before"]) if "only_before" in spec else None,
            forms={gender: dict(forms) for gender, forms in spec["forms"].items()},
        )
        for i, spec in enumerate(data.get("alternations", []))
    )
    pronouns = tuple(
        Pronoun(
            forms={"Masc": spec.get("Masc", spec.get("common")), "Fem": spec.get("Fem", spec.get("common"))},
            number=spec["number"],
            role=spec.get("role", "any"),
            not_relations=frozenset(spec.get("not_relations", [])),
            bare=spec.get("bare"),
        )
        for spec in data.get("pronouns", [])
    )
    plurals = tuple(
        (_regex(rule[0], path, f"plurals.{i}"), rule[1], rule[2] if len(rule) > 2 else None)
        for i, rule in enumerate(data["plurals"])
    )
    impersonal = data.get("impersonal", {})
    referents = data.get("pronoun_referents") or {}
    return Language(
        code=data["code"],
        name=data["name"],
        source=path,
        spacy_pipelines=_names((data.get("parser") or {}).get("spacy")),
        hunspell=tuple(data.get("hunspell", [])),
        hunspell_marks_gender=bool(data.get("hunspell_marks_gender", False)),
        gazetteer=data.get("gazetteer"),
        probes=data.get("probes"),
        articles={form.lower(): tags(value) for form, value in (data.get("articles") or {}).items()},
        contractions={
            (preposition, article): joined
            for preposition, table in (data.get("contractions") or {}).items()
            for article, joined in table.items()
        },
        alternations=alternations,
        be_lemmas=frozenset(data["be_lemmas"]),
        linking_verbs=frozenset(data.get("linking_verbs", [])),
        reflexive_linking_verbs=frozenset(data.get("reflexive_linking_verbs", [])),
        perfect_auxiliaries=frozenset(data.get("perfect_auxiliaries", [])),
        invariant_participle_of_aux=bool(data.get("invariant_participle_of_aux", True)),
        relative_object_agreement=bool(data.get("relative_object_agreement", False)),
        complete_agreement=bool(data.get("complete_agreement", False)),
        finite_verbs_agree=bool(data.get("finite_verbs_agree", False)),
        numerals_agree=bool(data.get("numerals_agree", False)),
        lexicon=str(data.get("lexicon", "hunspell")),
        gender_endings_first=bool(data.get("gender_endings_first", False)),
        nouns_by_gazetteer=bool(data.get("nouns_by_gazetteer", False)),
        ending_paradigms=tuple(
            {tags(cell)[0]: ending for cell, ending in paradigm.items()}
            for paradigm in data.get("ending_paradigms", [])
        ),
        baseline=(frozenset(data["baseline"]["controllers"]), frozenset(data["baseline"]["targets"])),
        pronouns=pronouns,
        impersonal_verbs=frozenset(impersonal.get("verbs", [])),
        impersonal_clitics=dict(impersonal.get("with_clitic", {})),
        impersonal_clauses=frozenset(impersonal.get("clause_relations", [])),
        impersonal_words={verb: frozenset(words) for verb, words in impersonal.get("with_words", {}).items()},
        impersonal_with_clause={verb: frozenset(w.lower() for w in words)
                                for verb, words in impersonal.get("with_clause", {}).items()},
        impersonal_through=frozenset(impersonal.get("through", [])),
        plurals=plurals,
        agent_suffixes=tuple((m, f) for m, f in data.get("agent_suffixes", [])),
        agent_endings=tuple(data.get("agent_endings", [])),
        multiword=dict(data.get("multiword", {})),
        invariable=frozenset(w.lower() for w in data.get("invariable", [])),
        adverbial_adjectives=frozenset(w.lower() for w in data.get("adverbial_adjectives", [])),
        name_titles=frozenset(w.lower() for w in data.get("name_titles", [])),
        paradigms=tuple(
            {tags(cell)[0]: form.lower() for cell, form in paradigm.items()} for paradigm in data.get("paradigms", [])
        ),
        gender_prefixes={
            tense: tuple((m, f) for m, f in pairs) for tense, pairs in (data.get("gender_prefixes") or {}).items()
        },
        gender_endings={
            number: tuple((m, f) for m, f in pairs) for number, pairs in (data.get("gender_endings") or {}).items()
        },
        no_person_after=frozenset(w.lower() for w in data.get("no_person_after", [])),
        prefix_words=frozenset(w.lower() for w in data.get("prefix_words", [])),
        feminine_singular_things=frozenset(w.lower() for w in data.get("feminine_singular_things", [])),
        thing_forms=frozenset(w.lower() for w in data.get("thing_forms", [])),
        fixed_phrases=tuple(tuple(str(p).lower().split()) for p in data.get("fixed_phrases", []) if str(p).split()),
        another_words=frozenset(w.lower() for w in data.get("another_words", [])),
        age_nouns=frozenset(w.lower() for w in data.get("age_nouns", [])),
        age_units=frozenset(w.lower() for w in data.get("age_units", [])),
        definite_things=frozenset(w.lower() for w in data.get("definite_things", [])),
        construct_state={"relation": data["construct_state"]["relation"],
                         "forms": dict(data["construct_state"].get("forms") or {}),
                         "endings": [tuple(pair) for pair in data["construct_state"].get("endings", [])]}
        if data.get("construct_state") else None,
        no_one=(frozenset(w.lower() for w in (data.get("no_one") or {}).get("words", [])),
                frozenset(w.lower() for w in (data.get("no_one") or {}).get("negations", []))),
        body_nouns=frozenset(w.lower() for w in data.get("body_nouns", [])),
        body_preposition=data.get("body_preposition"),
        optional_contractions=frozenset(w.lower() for w in data.get("optional_contractions", [])),
        object_clitics={tags(cell)[0]: form.lower() for cell, form in (data.get("object_clitics") or {}).items()},
        team_complements=frozenset(w.lower() for w in data.get("team_complements", [])),
        bare_pronouns=referents.get("bare", "person"),
        person_predicates=frozenset(w.lower() for w in referents.get("person_predicates", [])),
        possessors_name_persons=bool(referents.get("possessors_name_persons", False)),
        objects_skip_their_subject=bool(referents.get("objects_skip_their_subject", False)),
        never_antecedents=frozenset(referents.get("never_antecedents") or ()),
        person_prepositions=frozenset(w.lower() for w in referents.get("person_prepositions", [])),
        predicate_markers=frozenset(w.lower() for w in referents.get("predicate_markers", [])),
        sense_counterparts={
            str(f).lower(): (str(m["possessed"]).lower(), str(m["otherwise"]).lower())
            for f, m in (data.get("sense_counterparts") or {}).items()
        },
        sense_adjectives={
            str(f).lower(): {str(a).lower(): str(m).lower() for a, m in (s.get("after_adjectives") or {}).items()}
            for f, s in (data.get("sense_counterparts") or {}).items() if s.get("after_adjectives")
        },
    )


def _names(value: str | Sequence[str] | None) -> tuple[str, ...]:
    return () if value is None else (value,) if isinstance(value, str) else tuple(value)


@functools.cache
def determiner_forms(directory: Path | None = None) -> frozenset[str]:
    """Every language's articles and closed-class paradigm forms (es *el*, *dicho*, fr *ledit*, *nul*):
    the words before which a participle-shaped word is a noun (*dicho empleado*, *nul employé*)."""
    forms: set[str] = set()
    for code in available(directory):
        language = load(code, directory)
        forms.update(language.articles)
        for paradigm in language.paradigms:
            forms.update(paradigm.values())
    return frozenset(forms)


def fused_forms(directory: Path | None = None) -> frozenset[str]:
    """Every language's contracted preposition + article forms (es *al*, fr *du*, it *della*)."""
    return frozenset(joined for code in available(directory) for joined in load(code, directory).fused)


def be_lemmas_of_all(directory: Path | None = None) -> frozenset[str]:
    """The copulas of every language: the frames of a tree read without saying its language."""
    return frozenset(lemma for code in available(directory) for lemma in load(code, directory).be_lemmas)


def spell_final_letters(word: str, final_letters: Mapping[str, str]) -> str:
    """`word` with each letter that has a final form (the language file's ``multiword.final_letters``)
    written final at the end of a word and plain inside one (he עייףה -> עייפה, ילדמ -> ילדם);
    acronyms (ח"כ) and one-letter words stay."""
    plain = {final: letter for letter, final in final_letters.items()}

    def fix(match: re.Match[str]) -> str:
        run = match.group()
        if len(run) < 2:
            return run
        inside = "".join(plain.get(c, c) for c in run[:-1])
        return inside + final_letters.get(run[-1], run[-1])

    # a run of letters not followed by a geresh or gershayim (an acronym keeps its letters)
    return re.sub(r"[^\W\d_]+(?![\"'\u05f3\u05f4]|[^\W\d_])", fix, word)
