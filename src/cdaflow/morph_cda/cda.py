"""Counterfactual sentences (§4): intervene on animate nouns, infer tags, reinflect, rebuild.

`CounterfactualGenerator` runs the whole pipeline on a batch of parsed sentences at once:
one batched MAP inference for all of them, then one batched reinflection of every changed
word, then the surface rebuild (contractions, multiword tokens).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.conllu import Sentence, words
from cdaflow.io.model_card import write_card
from cdaflow.io.models import check_settings
from cdaflow.io.structured import read_mapping
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.hunspell import Hunspell, agrees, features_of, genderless
from cdaflow.morph_cda.model import (
    POS_INDEX,
    REL_INDEX,
    AgreementMRF,
    Batch,
    EncodedSentence,
    encode_words,
    relation,
)
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.surface import detokenize, surface
from cdaflow.morph_cda.tags import GENDER_SWAP, Tag, feats_with_tag, gender_of, tag_from_feats
from cdaflow.text import language as languages
from cdaflow.text.case import match_case
from cdaflow.text.normalization import in_form_of, in_style_of, read_sentence

DIRECTIONS = ("flip", "to-fem", "to-masc")
# Parts of speech whose gender is their own, not agreement: only an intervention changes it. In
# the annotated sentences of Table 3 no Spanish noun but the intervened one changes (1 of 280
# changes); letting them flip only adds whole noun phrases changed by weak arcs.
INHERENT_GENDER = ("NOUN", "PROPN")

@dataclass
class Intervention:
    """Fix word `index` (0-based) to `tag`; its new form is `form`, or reinflected from `lemma`."""

    index: int
    tag: Tag
    form: str | None = None
    lemma: str | None = None
    upos: str | None = None  # the part of speech the MRF reads for the word, when not the parser's


@dataclass(frozen=True)
class _Query:
    """One changed word to reinflect: its lemma, part of speech, new features and tags."""

    lemma: str
    upos: str
    features: dict[str, str]
    tag: Tag
    old_features: dict[str, str] | None  # the word's own, for by_analogy (None: a new lemma)
    old_tag: Tag


@dataclass
class Counterfactual:
    original: str
    counterfactual: str
    forms: list[str]  # every syntactic word's new form
    tags: list[Tag]  # every syntactic word's new tag
    changed: list[int]  # 0-based indices of words whose tag or form changed (nouns included)
    intervened: list[int] = dataclasses.field(default_factory=list)  # 0-based indices of the interventions
    # word index -> the `cdaflow cda` option that made the change ("animals", "persons"); the
    # default run's changes have none
    by: dict[int, str] = dataclasses.field(default_factory=dict)


class CounterfactualGenerator:
    """The MRF + reinflector pipeline for one language."""

    def __init__(
        self,
        mrf: AgreementMRF,
        reinflector: Reinflector | None,
        lang: str,
        log_alpha: float,
        *,
        carry_gender: bool = False,
        inherent_gender: Sequence[str] = INHERENT_GENDER,
        lexicon_check: bool = False,
    ) -> None:
        self.mrf = mrf
        self.reinflector = reinflector
        self._adjectives: frozenset[str] | None = None  # lemmas the reinflection lexicon has as ADJ
        self._adjective_forms: tuple[dict, dict] | None = None  # its ADJ forms' readings, its lemmas' forms
        self.lang = lang
        self.language = languages.load(lang)  # the language file: fails here, not midway, if absent
        self.log_alpha = log_alpha
        self.carry_gender = carry_gender  # see AgreementMRF.intervene
        self.inherent_gender = tuple(inherent_gender)  # parts of speech that keep their gender
        self.inventory = mrf.inventory
        self.device = next(iter(mrf.buffers())).device
        # The lexicon check (hunspell.py): the language's Hunspell dictionaries rank and veto
        # reinflection candidates and fill features a parser left out. Off unless asked for, and
        # off where the dictionaries are not installed, so the workflow's tables never depend on
        # the machine; `cdaflow cda` asks for it.
        self.hunspell = Hunspell.find(self.language.hunspell) if lexicon_check else None
        self.lexicon_stats: Counter[str] = Counter()
        self.unknown_forms: Counter[str] = Counter()  # generated forms no dictionary knows
        self.vetoed_forms: Counter[tuple[str, str]] = Counter()  # (the reinflector's, the one chosen)

    def word_tag(self, word: dict) -> Tag:
        tag = tag_from_feats(word["feats"], self.inventory.features)
        fused = self.language.fused.get(word["form"].lower())
        if fused and word["upos"] == "ADP" and not gender_of(tag):
            tag = self.language.article_tag(fused[1]) or tag
        return tag

    # -- analysis ---------------------------------------------------------------------------
    def analyse(self, sentence: Sentence, nouns: Collection[int] = ()) -> list[dict]:
        """The sentence's syntactic words as agreement needs them, where a parser got them wrong
        (copies; the sentence itself is not changed). `nouns`: 0-based indices of the person nouns
        the gazetteer found in it (the interventions' words).

        The tree: a person noun heads its noun phrase (spaCy: *La diosa griega* with *diosa* an
        amod of *griega*; *Cette nouvelle voisine* with *voisine* an amod of *nouvelle*), is the
        subject or object of the verb it was made an amod of (*La vecina parecía*), and takes the
        determiner before it; a long possessive after a noun modifies it (*un primo suyo*); the
        article of a headless relative goes with the noun across the copula (*es el que vive
        arriba*); a conjunct of an adjectival modifier modifies the same noun (*alto y moreno*).

        The features: a determiner or pronoun whose form its paradigm (language file) tags gets
        that gender and number (French *mon*, Spanish *Aquél* tagged a name); a possessive has no
        person of its own (the possessor's); a predicate under a copula tagged a verb, a lower-case
        "name" or a verb, preposition or noun coordinated with an adjective is an adjective
        (*estaba enfermo*, *niño travieso*, *sano y salvo*), with the gender and number the
        reinflection lexicon attests for its form, or the dictionary gives it (lexicon check), or
        its controller's; a word with a gender but no number takes its controller's number; an
        invariant participle (:meth:`frozen`) carries no agreement.
        """
        ws = [dict(w, feats=dict(w["feats"] or {})) for w in words(sentence)]
        for index in nouns:
            if ws[index]["upos"] != "PRON":
                ws[index]["upos"] = "NOUN"
            if ws[index]["deprel"] == "expl:subj":  # spaCy's French personal il: a subject
                ws[index]["deprel"] = "nsubj"
        nouns = set(nouns)
        for w in ws:  # an adjective is no object: a predicative (spaCy: continúan conmocionados/obj)
            if w["upos"] == "ADJ" and w["deprel"] == "obj":
                w["deprel"] = "xcomp"
        _attach_detached_predicate(ws)
        _unhang_from_prefixes(ws, nouns, self.language.prefix_words)
        _uninvert_noun_phrases(ws, nouns)
        _attach_nouns_and_determiners(ws, nouns)
        self._attach_prenominal_closed_class(ws, nouns)
        self._attach_postnominal_possessives(ws)
        self._attach_headless_articles(ws)
        children: dict[int, list[dict]] = {}
        for w in ws:
            children.setdefault(int(w["head"] or 0), []).append(w)
        by_id = {int(w["id"]): w for w in ws}
        features = set(self.inventory.features)
        for index, w in enumerate(ws):
            feats = w["feats"]
            # an alternate form by its full one (it nessun -> nessuno, quell' -> quello)
            known = self.language.paradigm_tag(w["form"]) or self.language.paradigm_tag(
                self.language.full_form(w["form"].lower(), feats.get("Gender")))
            if known and w["upos"] == "PROPN":  # spaCy: a capitalised Aquél as a name
                w["upos"] = "PRON"
            if known and w["upos"] in ("DET", "PRON", "ADJ") and "Gender" not in feats:
                feats["Gender"], feats["Number"] = known
            if (
                w["upos"] == "DET" and "Gender" not in feats and relation(w["deprel"]) == "det"
                and self.language.full_form(w["form"].lower(), None) in self.language.articles
            ):
                # an article that shows no gender (elided l': spaCy gives it none) has its noun's,
                # so that it changes with it and is rebuilt (l'homme -> la femme, not le femme)
                noun = by_id.get(int(w["head"] or 0))
                if noun is not None and (noun["feats"] or {}).get("Gender") in GENDER_SWAP:
                    feats["Gender"] = noun["feats"]["Gender"]
            if feats.get("Poss") == "Yes":
                feats.pop("Person", None)
            relations = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            head = by_id.get(int(w["head"] or 0))
            slip = (
                (w["upos"] in ("VERB", "AUX") and "cop" in relations and feats.get("VerbForm") != "Part")
                or (w["upos"] == "PROPN" and w["form"].islower() and relation(w["deprel"]) in ("amod", "xcomp"))
                # a modifier of a noun tagged a verb that is no participle: an adjective whose ending
                # looks like a gerund (spaCy: un chico estupendo/VERB Ger), so that it changes with its noun
                # or a past participle tagged an adverb (spaCy: un homme vêtu/ADV de noir)
                or (w["upos"] in ("VERB", "ADV") and relation(w["deprel"]) == "amod" and feats.get("VerbForm") != "Part"
                    and head is not None and head["upos"] in ("NOUN", "PROPN"))
                or self._predicative_slip(w, head, relations)
            )
            if slip and index not in nouns:
                self._as_adjective(w, head if relation(w["deprel"]) == "amod" else None)
        for w in ws:  # a bare noun right after a person noun modifies it: el abuelo enfermo
            head = by_id.get(int(w["head"] or 0))
            if (
                w["upos"] == "NOUN"
                and ws.index(w) not in nouns
                and relation(w["deprel"]) in ("appos", "amod")
                and head is not None
                and ws.index(head) in nouns
                and not {relation(c["deprel"]) for c in children.get(int(w["id"]), [])} & {"det", "case"}
                and (
                    self._attested_adjective(w["form"].lower()) or self._gender_by_ending(w["form"].lower(), w["feats"])
                )
            ):
                self._as_adjective(w, head)
                w["deprel"] = "amod"
        for index, w in enumerate(ws):  # a bare predicate noun or adverb that is an adjective: es bajita
            own = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            # or a passive's participle tagged a noun (it: è stato rieletto/NOUN)
            passive = any(c["deprel"] == "aux:pass" for c in children.get(int(w["id"]), []))
            if w["upos"] in ("NOUN", "ADV") and index not in nouns and ("cop" in own or passive) and "det" not in own:
                coordinated = any(
                    relation(c["deprel"]) == "conj" and c["upos"] == "ADJ" for c in children.get(int(w["id"]), [])
                )
                if coordinated or self._gender_by_ending(w["form"].lower(), w["feats"]):
                    self._as_adjective(w, None)
        self._repair_conjuncts(ws, children)
        for w in ws:
            if (w["upos"] == "ADJ" or w["feats"].get("VerbForm") == "Part") and "Gender" not in w["feats"]:
                form = w["form"].lower()
                attested = self._attested_adjective(form)
                gender = attested[1].get("Gender") if attested else self._gender_by_ending(form, w["feats"])
                if gender:
                    w["feats"]["Gender"] = gender
        if self.hunspell is not None:
            self._features_from_lexicon(ws, features)
            if self.language.ending_paradigms:
                self._adjectives_by_ending(ws, nouns, children)
                self._features_from_endings(ws)
        if "Number" in features:
            for w in ws:
                if "Gender" in w["feats"] and "Number" not in w["feats"]:
                    number = _controller_number(w, ws, children)
                    if number:
                        w["feats"]["Number"] = number
        for w, frozen in zip(ws, self.frozen(ws)):
            if frozen:  # an invariant participle carries no agreement: what agrees passes it by
                w["feats"].pop("Gender", None)
                w["feats"].pop("Number", None)
        _conjuncts_of_modifiers(ws)
        return ws

    def _predicative_slip(self, w: dict, head: dict | None, relations: set[str]) -> bool:
        """A predicate of a linking verb (xcomp: semblait inquiète, semblait fatiguée) that the
        parser took for a finite verb or a bare noun, and whose form is an adjective's: the lexicon
        attests it, or its ending shows a gender (a finite verb in xcomp is a slip in UD anyway)."""
        if relation(w["deprel"]) != "xcomp" or head is None or head["upos"] not in ("VERB", "AUX"):
            return False
        finite_verb = w["upos"] == "VERB" and w["feats"].get("VerbForm") == "Fin"
        bare_noun = w["upos"] == "NOUN" and not relations & {"det", "case", "nmod"}
        form = w["form"].lower()
        return (finite_verb or bare_noun) and bool(
            self._attested_adjective(form) or self._gender_by_ending(form, w["feats"]))

    def _as_adjective(self, w: dict, source: dict | None) -> None:
        """Read a mis-tagged word as an adjective: the lemma, gender and number the reinflection
        lexicon attests for its form, else `source`'s gender and number (the word it agrees with)."""
        w["upos"] = "ADJ"
        for name in ("Person", "Mood", "Tense", "VerbForm"):
            w["feats"].pop(name, None)
        attested = self._attested_adjective(w["form"].lower())
        if attested is not None:
            w["lemma"] = attested[0]
            for name in ("Gender", "Number"):
                w["feats"].pop(name, None)
            w["feats"].update(attested[1])
        elif source is not None:
            for name in ("Gender", "Number"):
                if name in (source["feats"] or {}):
                    w["feats"][name] = source["feats"][name]

    def _attach_prenominal_closed_class(self, ws: list[dict], nouns: Collection[int]) -> None:
        """A possessive or demonstrative of the paradigms right before a person noun is its determiner,
        whatever a parser made of it; where the noun hangs under it (a small parser: *Mio*/PRON the
        subject, *fratello* its dependent) the noun takes its place in the tree."""
        for index in nouns:
            if index == 0:
                continue
            before, noun = ws[index - 1], ws[index]
            if not self.language.paradigm_tag(before["form"] or ""):
                continue
            if before["upos"] not in ("PRON", "DET", "PROPN", "NOUN", "ADJ"):
                continue
            if before["head"] == noun["id"] or noun["head"] == before["id"]:
                # its own dependents (Il under nostro/NOUN dentista) go with it to the noun
                for other in ws:
                    if other is not noun and other["head"] == before["id"]:
                        other["head"] = noun["id"]
            if noun["head"] == before["id"]:
                noun["head"], noun["deprel"] = before["head"], before["deprel"]
            elif before["head"] != noun["id"] and any(w["head"] == before["id"] for w in ws):
                continue  # it heads a phrase of its own (quello che ...)
            before["head"], before["deprel"], before["upos"] = noun["id"], "det", "DET"

    def _attach_postnominal_possessives(self, ws: list[dict]) -> None:
        """A possessive of the language's paradigms right after a noun modifies it (spaCy: *Un
        primo suyo vive* with *suyo* as the subject, it *Un amico mio lavora* with *mio* a det of the verb)."""
        by_id = {int(w["id"]): w for w in ws}
        for before, w in zip(ws, ws[1:]):
            head = by_id.get(int(w["head"] or 0))
            of_a_verb = relation(w["deprel"]) == "det" and head is not None and head["upos"] in ("VERB", "AUX")
            if (
                before["upos"] in ("NOUN", "PROPN")
                and self.language.paradigm_tag(w["form"])
                and (relation(w["deprel"]) not in ("det", "root") or of_a_verb)
                and not _below(before, w, ws)
            ):
                # a determiner of the noun (spaCy: "tuya" as a preposition, "tuyo" as an adjective)
                w["head"], w["deprel"], w["upos"] = before["id"], "det", "DET"

    def _attach_headless_articles(self, ws: list[dict]) -> None:
        """The article of a headless relative agrees with the noun across the copula: *Mi vecino
        es el que vive arriba* (spaCy: *el* a det of *vive*). It becomes a det of that noun."""
        by_id = {int(w["id"]): w for w in ws}
        for w in ws:
            verb = by_id.get(int(w["head"] or 0))
            if (
                w["upos"] not in ("DET", "PRON")
                or self.language.article_tag(w["form"]) is None
                or relation(w["deprel"]) != "det"
                or verb is None
                or verb["upos"] not in ("VERB", "AUX")
                or not any(c["head"] == verb["id"] and _is_relative_word(c) for c in ws)
            ):
                continue
            head = by_id.get(int(verb["head"] or 0))
            referent = None
            if head is not None and head["upos"] in ("NOUN", "PROPN", "PRON"):
                referent = head  # the relative is a subject of a predicate noun: *el que estudia es mi hijo*
            elif head is not None:
                referent = next(
                    (
                        c
                        for c in ws
                        if c["head"] == head["id"] and relation(c["deprel"]) == "nsubj" and c is not verb
                        and c["upos"] in ("NOUN", "PROPN", "PRON")
                    ),
                    None,
                )
            if referent is not None:
                w["head"], w["deprel"] = referent["id"], "det"

    def _repair_conjuncts(self, ws: list[dict], children: dict[int, list[dict]]) -> None:
        """A conjunct of an adjective that a parser tagged as something else (spaCy: *sano y salvo*
        with *salvo* a preposition, *agotado y dolorido* with *dolorido* a finite verb, *sucias y
        cansadas* with *cansadas* a noun) is an adjective, agreeing as its first conjunct does."""
        by_id = {int(w["id"]): w for w in ws}
        for w in ws:
            head = by_id.get(int(w["head"] or 0))
            if relation(w["deprel"]) != "conj" or head is None or not _agreeing(head) or w["upos"] == "ADJ":
                continue
            own = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            if own & {"det", "case", "nsubj", "cop", "obj"}:
                continue
            if w["upos"] == "VERB" and w["feats"].get("VerbForm") == "Part":
                continue
            self._as_adjective(w, head)

    def _gender_by_ending(self, form: str, feats: dict) -> str | None:
        """The gender a form's ending shows, when the form with the other gender's ending is a word
        the dictionaries know (*contentas*: feminine, as *contentos* exists); None without the
        lexicon check."""
        if self.hunspell is None or form in self.language.invariable:
            return None
        if self.language.ending_paradigms:
            reading = self._reading_by_ending(form)
            return reading[0] if reading else None
        number = feats.get("Number", "Plur" if form.endswith("s") else "Sing")
        found = []
        for gender, other in (("Masc", "Fem"), ("Fem", "Masc")):
            swapped = self.language.gender_candidates(form, gender, other, number)
            if swapped and self.hunspell.known(swapped):
                found.append(gender)
        return found[0] if len(found) == 1 else None

    def _reading_by_ending(self, form: str) -> tuple[str, str] | None:
        """(gender, number) of an adjective or participle form by the language file's
        ``ending_paradigms``, where the dictionaries know the forms that reading needs and it is the
        only one; else None."""
        readings = self.language.readings_by_ending(form)
        known = self.hunspell.known({w for _, needed in readings for w in needed}) if readings else set()
        cells = {cell for cell, needed in readings if all(w in known for w in needed)}
        return next(iter(cells)) if len(cells) == 1 else None

    def _adjectives_by_ending(self, ws: list[dict], nouns: Collection[int], children: dict[int, list[dict]]) -> None:
        """A word in an adjective's place that a small parser tagged a noun, a finite verb or an adverb
        is an adjective where its ending and the dictionary say so (:meth:`_reading_by_ending`): a
        determiner (*Poche*/ADV *atlete*), a predicate with a copula or auxiliary and a subject (*era
        stanca*/VERB), a conjunct of an adjective (*stanca ma contenta*/NOUN)."""
        by_id = {int(w["id"]): w for w in ws}
        for index, w in enumerate(ws):
            if index + 1 in nouns and index not in nouns and w["upos"] in ("NOUN", "ADP", "ADV"):
                # right before a person noun: an adjective in its alternate form (bei/NOUN, bell'/ADP bambini)
                reading = self._reading_by_ending(self.language.full_form((w["form"] or "").lower(), None))
                if reading:
                    self._as_adjective(w, None)
                    w["feats"]["Gender"], w["feats"]["Number"] = reading
                    w["head"], w["deprel"] = ws[index + 1]["id"], "amod"
                    continue
            if index in nouns or w["upos"] not in ("NOUN", "VERB", "ADV") or w["feats"].get("VerbForm") == "Part":
                continue
            rel = relation(w["deprel"])
            own = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            head = by_id.get(int(w["head"] or 0))
            finite_with_auxiliary = w["upos"] == "VERB" and "aux" in own  # è vissuta/VERB Fin: a participle
            placed = (
                rel == "det"
                or ({"cop", "aux"} & own and ("nsubj" in own or finite_with_auxiliary) and "det" not in own)
                or (rel == "conj" and head is not None and _agreeing(head))
            )
            if not placed:
                continue
            reading = self._reading_by_ending((w["form"] or "").lower())
            if reading:
                self._as_adjective(w, None)
                w["feats"]["Gender"], w["feats"]["Number"] = reading

    def _features_from_endings(self, ws: list[dict]) -> None:
        """Gender and number of adjectives, participles and determiners by their endings
        (:meth:`_reading_by_ending`) over a parser's guess (a small treebank's parser: *curioso*
        feminine, *stanco* plural); articles and the paradigms' closed-class words keep theirs."""
        for w in ws:
            form = self.language.full_form((w["form"] or "").lower(), w["feats"].get("Gender"))  # bell' -> bello
            determiner = relation(w["deprel"]) == "det"  # whatever the tag: Tanti/PROPN attori
            if not (w["upos"] in ("ADJ", "DET") or determiner or (w["feats"] or {}).get("VerbForm") == "Part"):
                continue
            if form in self.language.invariable or self.language.article_tag(form) or self.language.paradigm_tag(form):
                continue
            reading = self._reading_by_ending(form)
            if reading:
                w["feats"]["Gender"], w["feats"]["Number"] = reading
                if determiner and w["upos"] == "PROPN":
                    w["upos"] = "DET"  # a determiner is no name (names agree with nothing)

    def _attested_adjective(self, form: str) -> tuple[str, dict[str, str]] | None:
        """(lemma, gender and number) of an adjective form the reinflection lexicon attests with one
        analysis, whose lemma it also attests with another form for the other gender (so an
        invariable *general*, which the treebanks annotate with the gender of its noun, gets
        none); else None."""
        lexicon = getattr(self.reinflector, "lexicon", None)
        if lexicon is None:
            return None
        if self._adjective_forms is None:
            readings: dict[str, set[tuple]] = {}
            forms: dict[tuple, set[str]] = {}  # (lemma, gender, number) -> its forms
            for lemma, upos, feats, written, _count in lexicon.entries():
                if upos == "ADJ":
                    agreement = dict(f.split("=", 1) for f in feats if f.split("=")[0] in ("Gender", "Number"))
                    readings.setdefault(written, set()).add((lemma, tuple(sorted(agreement.items()))))
                    forms.setdefault((lemma, agreement.get("Gender"), agreement.get("Number")), set()).add(written)
            self._adjective_forms = (readings, forms)
        readings, forms = self._adjective_forms
        found = readings.get(form)
        if not found or len({agreement for _, agreement in found}) != 1:
            return None
        lemma, agreement = min(found)
        features = dict(agreement)
        other = GENDER_SWAP.get(features.get("Gender", ""))
        if other is None:
            return lemma, features  # attested without a gender: invariable
        if not forms.get((lemma, other, features.get("Number")), set()) - {form}:
            return None  # the other gender's form is unknown or the same: nothing tells this one's gender
        return lemma, features

    def _features_from_lexicon(self, ws: list[dict], features: set[str]) -> None:
        """Gender and number of adjectives, participles and predicates as the dictionary gives
        them where it gives one reading (spaCy: *gentil* as a plural verb, *drôle* as a pronoun);
        none where every reading fits both genders (*jeune*); a "participle" the dictionary knows
        only as another verb form is none (*habite*)."""
        predicates = {int(w["head"] or 0) for w in ws if relation(w["deprel"]) == "cop"}
        targets = [
            w for w in ws if w["upos"] == "ADJ" or w["feats"].get("VerbForm") == "Part" or int(w["id"]) in predicates
        ]
        if not targets:
            return
        analyses = self.hunspell.analyses(w["form"].lower() for w in targets)
        for w in targets:
            found = analyses[w["form"].lower()]
            marks = self.language.hunspell_marks_gender  # only such a dictionary tells participles apart
            if marks and w["upos"] == "VERB" and found and not any(a & {"po:ppas", "po:adj"} for a in found):
                w["feats"].pop("Gender", None)
                w["feats"].pop("Number", None)
                continue
            if genderless(found):
                w["feats"].pop("Gender", None)
            for name, value in features_of(found).items():
                if name in features:
                    w["feats"][name] = value

    def frozen(self, ws: Sequence[dict]) -> list[bool]:
        """Participles that never agree: a perfect's (*ha elegido*: its auxiliary is one of the
        language's ``perfect_auxiliaries`` and no copula or passive auxiliary goes with it), and a
        participle that is itself an auxiliary (*ha sido*, *a été*), a present participle but after a
        copula (*jouissant de*: a verb form with no gender; *est souriante*: an adjective), and a
        pronoun that is a copula's predicate (*como lo fue*, *elle l'est*: neuter)."""
        children: dict[int, list[dict]] = {}
        for w in ws:
            children.setdefault(int(w["head"] or 0), []).append(w)
        out = []
        for w in ws:
            if (w["upos"] == "PRON" and any(relation(c["deprel"]) == "cop" for c in children.get(int(w["id"]), []))
                    and not self.language.paradigm_tag(w["form"] or "")):  # a demonstrative agrees: è quella che
                out.append(True)  # a predicative clitic is neuter: tan brillante como lo fue, elle l'est
                continue
            participle = (w["feats"] or {}).get("VerbForm") == "Part"
            if not participle:
                out.append(False)
                continue
            if self.language.invariant_participle_of_aux and relation(w["deprel"]) == "aux":
                out.append(True)
                continue
            auxiliaries = [c for c in children.get(int(w["id"]), []) if relation(c["deprel"]) in ("aux", "cop")]
            if (w["feats"] or {}).get("Tense") == "Pres":
                # a present participle (jouissant de) has no gender; after a copula it is an
                # adjective (est souriante)
                out.append(not any(relation(c["deprel"]) == "cop" for c in auxiliaries))
                continue
            perfect = any((c["lemma"] or "").lower() in self.language.perfect_auxiliaries for c in auxiliaries)
            be = any(
                relation(c["deprel"]) == "cop"
                or (c["deprel"] or "").endswith(":pass")
                or (c["lemma"] or "").lower() in self.language.be_lemmas
                for c in auxiliaries
            )
            out.append(perfect and not be)
        return out

    def _encode(self, sentence: Sentence, ws: list[dict] | None = None) -> EncodedSentence:
        """The MRF's arrays of a sentence, from its analysed words (:meth:`analyse`)."""
        ws = self.analyse(sentence) if ws is None else ws
        encoded = encode_words(ws, self.inventory, self.language.be_lemmas)
        encoded.tags[:] = [self.inventory.index(self.word_tag(w)) for w in ws]
        encoded.frozen |= np.array(self.frozen(ws), dtype=bool)
        encoded.frozen |= np.array(name_parts(ws, self.language), dtype=bool)  # names agree with nothing
        for index in self._predicate_adjectives(ws):
            encoded.pos[index] = POS_INDEX["ADJ"]
        fused = self.language.fused
        for index, w in enumerate(ws):
            if w["upos"] == "ADP" and w["form"].lower() in fused and gender_of(self.word_tag(w)):
                # a fused preposition + article (*del*, *al*) is read as the treebanks split it:
                # its article, a det of the noun
                encoded.pos[index], encoded.rel[index] = POS_INDEX["DET"], REL_INDEX["det"]
        return encoded

    def _predicate_adjectives(self, ws: list[dict]) -> list[int]:
        """Predicates the MRF reads as adjectives (0-based indices).

        A parser may tag a predicate adjective NOUN (spaCy: *El abuelo estaba enfermo*). In the
        training treebanks a predicate NOUN agrees with its subject about half the time, an ADJ
        nearly always, so the tag decides. A NOUN with a copula and no determiner whose lemma
        the reinflection lexicon (the same treebanks) attests as an adjective is read as one;
        so is a participle under a copula (no treebank puts a verb there: *est fatigué*).
        """
        children: dict[int, set[str]] = {}
        for w in ws:
            children.setdefault(int(w["head"] or 0), set()).add(relation(w["deprel"]))
        lexicon = getattr(self.reinflector, "lexicon", None)
        adjectives = self._adjective_lemmas(lexicon) if lexicon is not None else frozenset()
        passive = {int(w["head"] or 0) for w in ws if (w["deprel"] or "") == "aux:pass"}
        nouns = [w["form"].lower() for w in ws if w["upos"] == "NOUN"]
        readings = self.hunspell.analyses(nouns) if self.hunspell is not None and nouns else {}
        out = []
        for index, w in enumerate(ws):
            own = children.get(int(w["id"]), set())
            if "cop" not in own and int(w["id"]) not in passive:
                continue
            if w["upos"] == "NOUN" and "det" not in own:
                # the dictionary reads the form as an adjective or participle (*sont partis*)
                adjective = any(a & {"po:adj", "po:ppas"} for a in readings.get(w["form"].lower(), ()))
                if adjective or ("cop" in own and (w["lemma"] or w["form"]).lower() in adjectives):
                    out.append(index)
            elif "cop" in own and w["upos"] in ("VERB", "AUX") and (w["feats"] or {}).get("VerbForm") == "Part":
                out.append(index)
        return out

    def _adjective_lemmas(self, lexicon) -> frozenset[str]:
        if self._adjectives is None:
            self._adjectives = frozenset(lemma for lemma, upos, *_ in lexicon.entries() if upos == "ADJ")
        return self._adjectives

    # -- generation -------------------------------------------------------------------------
    def generate(
        self,
        sentences: Sequence[Sentence],
        interventions: Sequence[Sequence[Intervention]],
        *,
        propagate: bool = True,
    ) -> list[Counterfactual]:
        """Counterfactuals of a batch. With ``propagate=False`` only the intervened nouns change:
        the naive swap baseline of §5.2 (the MRF is not consulted)."""
        if len(sentences) != len(interventions):
            raise ValueError("one list of interventions per sentence")
        # Corpus augmentation sends one sentence several times (one copy per gender
        # combination): encode each distinct sentence once.
        cache: dict[int, Any] = {}
        nouns: dict[int, set[int]] = {}  # the person nouns of each distinct sentence
        for sentence, group in zip(sentences, interventions):
            nouns.setdefault(id(sentence), set()).update(i.index for i in group)
        encoded, analysed = [], []
        for sentence, group in zip(sentences, interventions):
            if id(sentence) not in cache:
                # analysis reads NFC, sentence case (text.normalization); the surface is rebuilt from `sentence`
                ws = self.analyse(read_sentence(sentence), nouns[id(sentence)])
                cache[id(sentence)] = (self._encode(sentence, ws), ws)
            one, ws = cache[id(sentence)]
            encoded.append(_with_parts_of_speech(one, group))
            analysed.append(ws)
        batch = Batch.build(encoded, self.device)
        fixed = [[(i.index, self.inventory.index(i.tag)) for i in group] for group in interventions]
        if propagate:
            predicted = self.mrf.intervene(
                batch, fixed, self.log_alpha, carry_gender=self.carry_gender, inherent_gender=self.inherent_gender
            ).cpu()
            # MAP re-reads the whole sentence: a word no intervened one reaches keeps its tag
            for b, (ws, group) in enumerate(zip(analysed, interventions)):
                reached = agreement_reach(ws, [i.index for i in group])
                given = {i.index for i in group}
                for index in range(len(ws)):
                    # a personal pronoun's gender is its referent's: only an intervention changes it,
                    # never agreement (an impersonal il reached from a changed noun is no "ile")
                    if index not in reached or (index not in given and self._personal_pronoun(ws[index])):
                        predicted[b, index] = int(encoded[b].tags[index])
                if self.language.complete_agreement:
                    self._complete_agreement(ws, group, encoded[b], predicted[b])
        else:
            predicted = batch.tags.clone().cpu()
            for b, pairs in enumerate(fixed):
                for position, tag in pairs:
                    predicted[b, position] = tag
        # Every word whose tag changed is reinflected; collect them all first: one batched call.
        queries, slots = [], []
        results = []
        for b, (ws, group) in enumerate(zip(analysed, interventions)):
            given = {i.index: i for i in group}
            tags = [self.inventory.tags[int(t)] for t in predicted[b, : len(ws)]]
            forms = [w["form"] for w in ws]
            changed = []
            for index, (word, tag) in enumerate(zip(ws, tags)):
                old_tag = self.inventory.tags[int(encoded[b].tags[index])]
                if index in given and given[index].form is not None:
                    forms[index] = given[index].form
                    changed.append(index)
                elif tag != old_tag or index in given:
                    lemma = given[index].lemma if index in given and given[index].lemma else word["lemma"]
                    features = feats_with_tag(word["feats"], tag, self.inventory.features)
                    # The word's own features, for by_analogy, unless the intervention gave it a new lemma.
                    own = None if index in given and given[index].lemma else (word["feats"] or {})
                    queries.append(_Query(lemma or word["form"], word["upos"], features, tag, own, old_tag))
                    slots.append((b, index, word["form"]))
                    changed.append(index)
            results.append((forms, tags, changed))
        new_forms = self._reinflect(queries, slots) if queries else {}
        out = []
        for b, (sentence, (forms, tags, changed)) in enumerate(zip(sentences, results)):
            for index in changed:
                if (b, index) in new_forms:
                    forms[index] = new_forms[(b, index)]
            ws = analysed[b]
            changed = self._alternate(ws, forms, tags, changed)
            # every word as the user wrote it (NFD, capitals, ’); a changed one in the same normal
            # form, case and apostrophe (a line in capitals all in capitals: *L'* -> *LA*, *DEL* -> *DE LA*)
            written = words(sentence)
            text = sentence.metadata.get("text") or " ".join(w["form"] for w in written)
            replaced = {}
            for i, word in enumerate(written):
                if forms[i] == ws[i]["form"]:
                    forms[i] = word["form"]
                    continue
                new = in_style_of(text, match_case(word["form"], forms[i]))
                forms[i] = replaced[int(word["id"])] = in_form_of(word["form"], new)
            tokens, spaces = surface(sentence, replaced, self.language)
            tokens = [in_style_of(text, token) for token in tokens]
            out.append(
                Counterfactual(
                    original=sentence.metadata.get("text") or detokenize(*surface(sentence, {}, self.language)),
                    counterfactual=detokenize(tokens, spaces),
                    forms=forms,
                    tags=tags,
                    changed=changed,
                    intervened=sorted(i.index for i in interventions[b]),
                )
            )
        return out

    def _complete_agreement(self, ws: list[dict], group: Sequence[Intervention], encoded, predicted) -> None:
        """The language file's ``complete_agreement``: every word that agrees with an intervened word
        by plain rules (:func:`agreeing_words`) and that the MAP left with the word's old gender and
        its number takes the new gender (a small treebank's MRF misses many: *La giocatrice è stato
        espulsa*). `predicted` (the sentence's MAP tags) is changed in place."""
        frozen = encoded.frozen
        for intervention in group:
            new = dict(sub.split("=", 1) for sub in intervention.tag)
            if new.get("Gender") not in GENDER_SWAP:
                continue
            old = {"Gender": GENDER_SWAP[new["Gender"]]}  # a common noun's parser gender may be either
            for j in agreeing_words(ws, intervention.index, self.language):
                if frozen[j] or not self._gendered_form(ws[j]):
                    continue
                tag = self.inventory.tags[int(predicted[j])]
                feats = dict(sub.split("=", 1) for sub in tag)
                if feats.get("Gender") != old["Gender"] or feats.get("Number", new.get("Number")) != new.get("Number"):
                    continue
                swapped = tuple(f"{k}={v}" for k, v in sorted({**feats, "Gender": new["Gender"]}.items()))
                index = self.inventory.index(swapped)
                if self.inventory.tags[index] == swapped:
                    predicted[j] = index

    def _gendered_form(self, word: dict) -> bool:
        """Whether a word's form shows a gender: an article or closed-class word of the language file,
        or, with the lexicon check and ``ending_paradigms``, a form the dictionary confirms (not a
        finite verb the parser tagged an adjective: *sembra*, *teneva*)."""
        form = self.language.full_form((word["form"] or "").lower(), (word["feats"] or {}).get("Gender"))
        if self.language.article_tag(form) or self.language.paradigm_tag(form):
            return True
        if self.hunspell is None or not self.language.ending_paradigms:
            return True
        return self._reading_by_ending(form) is not None

    def _personal_pronoun(self, word: dict) -> bool:
        """Whether a word is one of the language file's personal pronouns, in any relation."""
        form = (word["form"] or "").lower()
        return word["upos"] == "PRON" and any(form in pronoun.forms.values() for pronoun in self.language.pronouns)

    def _alternate(self, ws: list[dict], forms: list[str], tags: list[Tag], changed: list[int]) -> list[int]:
        """The forms words take before the next word (*le acteur* -> *l'acteur*, *la amie* ->
        *l'amie*, *ma amie* -> *mon amie*, *ce acteur* -> *cet acteur*, *la ama* -> *el ama*, and
        back where the next word changed), for words that changed or precede one that did;
        returns the changed indices, these included."""
        if not self.language.alternations:
            return changed
        touched = set(changed)
        for index in range(len(ws) - 1):
            if index not in touched and index + 1 not in touched:
                continue
            form = forms[index]
            pieces = form.split(" ")  # a fused preposition written out: "de la"
            if len(pieces) == 1 and form.lower() in self.language.fused and ws[index]["upos"] == "ADP":
                # a fused one's article alternates inside it: it del -> dell'uomo, dello studente
                pieces = [match_case(form, part) for part in self.language.fused[form.lower()]]
            gender = next(iter(gender_of(tags[index])), None)
            last = self.language.alternate(pieces[-1].lower(), gender, forms[index + 1], ws[index + 1]["upos"])
            if last == pieces[-1].lower():
                continue
            pieces[-1] = match_case(pieces[-1], last)
            new = " ".join(pieces)
            if len(pieces) == 2:  # de + el -> del again
                new = match_case(pieces[0], self.language.contract(*pieces) or new)
            forms[index] = new
            touched.add(index)
        return sorted(touched)

    def _reinflect(self, queries: Sequence[_Query], slots) -> dict[tuple[int, int], str]:
        """New forms of the changed words: the reinflector's (see by_analogy), or with the
        lexicon check the first of its candidates the language's dictionaries know with the new
        gender and number (:meth:`_choose`)."""
        forms: dict[tuple[int, int], str] = {}
        fused = self.language.fused
        neural_queries, neural_slots, originals, kept = [], [], [], []
        old_queries, rebuilt_of = [], {}  # rebuilt_of: neural query -> its old-features query
        for query, (b, index, original) in zip(queries, slots):
            pair = fused.get(original.lower())
            if pair and query.upos == "ADP":
                article = self._article(pair[1], query.tag)
                contracted = self.language.contract(pair[0], article)
                forms[(b, index)] = match_case(original, contracted or f"{pair[0]} {article}")
                continue
            # an alternate form is reinflected from its full form (cet -> ce -> cette)
            full = self.language.full_form(original.lower(), next(iter(gender_of(query.old_tag)), None))
            if query.upos == "DET" and full in self.language.articles:
                # an article is the language file's (its elided or pre-vocalic form: _alternate)
                forms[(b, index)] = match_case(original, self._article(full, query.tag))
                continue
            neural_queries.append((query.lemma.lower(), query.upos, query.features))
            neural_slots.append((b, index, original))
            originals.append(full)
            kept.append(query)
            if query.old_features is not None:
                old_queries.append((query.lemma.lower(), query.upos, query.old_features))
                rebuilt_of[len(neural_queries) - 1] = len(old_queries) - 1
        if not neural_queries:
            return forms
        if self.reinflector is None:
            raise RuntimeError("a reinflector is needed to reinflect changed words")
        # One batched call for the new forms and for the words as they stand (see by_analogy).
        inflected = self.reinflector.inflect(neural_queries + old_queries)
        new, rebuilt = inflected[: len(neural_queries)], inflected[len(neural_queries) :]
        lists = []
        for k, (form, full, query) in enumerate(zip(new, originals, kept)):
            old = rebuilt[rebuilt_of[k]] if k in rebuilt_of else None
            primary = by_analogy(full, old, form) if old is not None else form
            gender, number = next(iter(gender_of(query.tag)), ""), "Plur" if "Number=Plur" in query.tag else "Sing"
            listed = self.language.paradigm_form(full, gender, number)  # éste -> ésta, as written
            if listed or full in self.language.invariable:
                lists.append([listed or full])
                continue
            if self.hunspell is None:
                lists.append([primary])
                continue
            swapped = self.language.gender_candidates(full, next(iter(gender_of(query.old_tag)), ""), gender, number)
            # where the lemma does not rebuild the word (a parser's wrong lemma: *content* as
            # *conter*), the word's own form with its ending swapped goes before the lemma's
            lemma_rebuilds = old is None or old == full
            # a form whose ending the language file's ending_paradigms read (the dictionary knowing its
            # other forms) swaps its ending first: it partite -> partiti (the reinflector: parti)
            by_ending = bool(self.language.ending_paradigms) and self._reading_by_ending(full) is not None
            ordered = [primary, form, *swapped] if lemma_rebuilds and not by_ending else [*swapped, primary, form]
            lists.append(list(dict.fromkeys(c for c in ordered if c)))
        chosen = self._choose(lists, [q.features for q in kept])
        for (b, index, original), form in zip(neural_slots, chosen):
            forms[(b, index)] = match_case(original, form)
        return forms

    def _choose(self, lists: list[list[str]], features: list[dict]) -> list[str]:
        """The first candidate of each list the dictionaries know with its gender and number; the
        first of the list where none is (counted in ``lexicon_stats``, kept in ``unknown_forms``).

        Where the dictionaries do not mark gender (Spanish, Italian, Hebrew), a candidate that
        looks like the other gender's form is passed over: it ends in the other gender's ending
        and swapping that ending gives a word the dictionaries know (*cansadas* for a masculine,
        when *cansados* exists)."""
        if self.hunspell is None:
            return [candidates[0] for candidates in lists]
        marks = self.language.hunspell_marks_gender
        other = {"Masc": "Fem", "Fem": "Masc"}
        swaps: dict[tuple[str, str, str], list[str]] = {}
        if not marks:
            for candidates, feats in zip(lists, features):
                gender, number = feats.get("Gender"), feats.get("Number", "Sing")
                if gender in other:
                    for c in candidates:
                        swaps[(c, gender, number)] = self.language.gender_candidates(c, other[gender], gender, number)
        words_to_check = [c for candidates in lists for c in candidates]
        words_to_check += [w for swapped in swaps.values() for w in swapped]
        analyses = self.hunspell.analyses(words_to_check)

        def fits(candidate: str, feats: dict) -> bool:
            if not agrees(analyses.get(candidate, ()), feats, marks_gender=marks):
                return False
            swapped = swaps.get((candidate, feats.get("Gender"), feats.get("Number", "Sing")), ())
            return not any(analyses.get(w) for w in swapped)

        chosen = []
        for candidates, feats in zip(lists, features):
            fit = next((c for c in candidates if fits(c, feats)), None)
            self.lexicon_stats["checked"] += 1
            if fit is None:
                self.lexicon_stats["unknown"] += 1
                self.unknown_forms[candidates[0]] += 1
                fit = candidates[0]
            elif fit != candidates[0]:
                self.lexicon_stats["vetoed"] += 1
                self.vetoed_forms[(candidates[0], fit)] += 1
            chosen.append(fit)
        return chosen

    def _article(self, article: str, tag: Tag) -> str:
        gender = "Fem" if "Gender=Fem" in tag else "Masc"
        number = "Plur" if "Number=Plur" in tag else "Sing"
        return self.language.article(gender, number) or article


def _attach_detached_predicate(ws: list[dict]) -> None:
    """A participle or adjective opening the sentence, with no subject or auxiliary of its own and
    set off by a comma, is said of the next clause's subject (*Annoncé comme favori, il souligne*:
    spaCy makes *Annoncé* the root and *souligne* its parataxis): it becomes an adverbial clause of that
    clause's verb, so that it agrees with the subject."""
    first = next((i for i, w in enumerate(ws) if w["upos"] not in ("PUNCT", "SYM")), None)
    if first is None:
        return
    opener = ws[first]
    if not (opener["upos"] == "ADJ" or (opener["feats"] or {}).get("VerbForm") == "Part"):
        return
    if any(w["head"] == opener["id"] and relation(w["deprel"]) in ("nsubj", "aux", "cop", "det") for w in ws):
        return
    comma = next((i for i in range(first + 1, len(ws)) if ws[i]["form"] == ","), None)
    if comma is None:
        return
    subject = next((i for i in range(comma + 1, len(ws)) if relation(ws[i]["deprel"]) == "nsubj"
                    and ws[i]["upos"] in ("NOUN", "PROPN", "PRON") and not _is_relative_word(ws[i])), None)
    if subject is None:
        return
    verb = next((w for w in ws if w["id"] == ws[subject]["head"]), None)
    if verb is None or verb is opener or ws.index(verb) < comma or _below(opener, verb, ws):
        return
    if _below(verb, opener, ws):  # the clause hangs under the opener: it takes the opener's place
        verb["head"], verb["deprel"] = opener["head"], opener["deprel"]
    opener["head"], opener["deprel"] = verb["id"], "advcl"


def _unhang_from_prefixes(ws: list[dict], nouns: Collection[int], prefixes: Collection[str]) -> None:
    """A person noun hung under a prefix word before it (the language file's ``prefix_words``;
    spaCy: *del ex ministro* with *ex* the noun and *ministro* its compound) heads the phrase, with
    the prefix's place in the tree and its dependents (*del*), so that they change with it (*de la ex
    ministra*); the prefix becomes its modifier."""
    for index in nouns:
        if index == 0 or (ws[index - 1]["form"] or "").lower() not in prefixes:
            continue
        w, prefix = ws[index], ws[index - 1]
        if w["head"] != prefix["id"]:
            continue
        w["head"], w["deprel"] = prefix["head"], prefix["deprel"]
        prefix["head"], prefix["deprel"], prefix["upos"] = w["id"], "amod", "ADJ"
        for other in ws:
            if other is not w and other is not prefix and other["head"] == prefix["id"]:
                other["head"] = w["id"]


def _uninvert_noun_phrases(ws: list[dict], nouns: Collection[int] = ()) -> None:
    """A noun attached as ``amod`` of an adjective, or a person noun attached as ``amod`` of
    another word of its phrase, heads it instead, with its place in the tree and its determiners
    (a parser's inversion: *Cette nouvelle voisine*, *La diosa griega*); the demoted word is an
    adjective."""
    by_id = {int(w["id"]): w for w in ws}
    for index, w in enumerate(ws):
        head = by_id.get(int(w["head"] or 0))
        if relation(w["deprel"]) != "amod" or head is None:
            continue
        inverted = w["upos"] in ("NOUN", "PROPN") and head["upos"] == "ADJ"
        person = index in nouns and head["upos"] in ("NOUN", "PROPN", "ADJ") and ws.index(head) not in nouns
        if not (inverted or person):
            continue
        w["head"], w["deprel"] = head["head"], head["deprel"]
        head["head"], head["deprel"] = w["id"], "amod"
        if head["upos"] != "ADJ":
            head["upos"] = "ADJ"
        for other in ws:
            if other is not w and other["head"] == head["id"] and relation(other["deprel"]) in ("det", "amod"):
                other["head"] = w["id"]


def _attach_nouns_and_determiners(ws: list[dict], nouns: Collection[int]) -> None:
    """A person noun made an amod of a verb (spaCy: *La vecina parecía* with *vecina* an adjective
    on *parecía*) is its subject, or its object after it; a determiner right before a person noun
    is the noun's."""
    for index in nouns:
        w = ws[index]
        head = next((h for h in ws if h["id"] == w["head"]), None)
        if relation(w["deprel"]) == "amod" and head is not None and head["upos"] in ("VERB", "AUX"):
            w["deprel"] = "nsubj" if index < ws.index(head) else "obj"
        # a person noun before its verb taken for a clause of it (spaCy: *Dicho empleado fue
        # despedido* with *empleado* a ccomp of *despedido*) is its subject
        elif (relation(w["deprel"]) in ("ccomp", "csubj", "dep") and head is not None
              and head["upos"] in ("VERB", "AUX") and index < ws.index(head)
              and not any(relation(c["deprel"]) in ("nsubj", "cop", "aux") for c in ws if c["head"] == w["id"])):
            w["deprel"] = "nsubj"
        if index > 0 and ws[index - 1]["upos"] == "DET" and ws[index - 1]["head"] != w["id"]:
            before = ws[index - 1]
            if not any(c["head"] == before["id"] for c in ws):
                before["head"], before["deprel"] = w["id"], "det"
        # the determiners and adjectives right before it are its own: one hung on another
        # (spaCy: *Nuestros propios vecinos* with *propios* under *Nuestros*) modifies the noun
        # and a numeral among them (spaCy: *los 16.000 socios* with *los* under the number)
        start = index
        while start > 0 and ws[start - 1]["upos"] in ("DET", "ADJ", "NUM"):
            start -= 1
        run = {ws[k]["id"] for k in range(start, index)}
        for k in range(start, index):
            if ws[k]["head"] in run:
                ws[k]["head"] = w["id"]
                ws[k]["deprel"] = {"DET": "det", "NUM": "nummod"}.get(ws[k]["upos"], "amod")


def _below(node: dict, ancestor: dict, ws: list[dict]) -> bool:
    """Whether `node` is `ancestor` or under it in the tree."""
    by_id = {int(w["id"]): w for w in ws}
    steps = 0
    while node is not None and steps <= len(ws):
        if node is ancestor:
            return True
        node, steps = by_id.get(int(node["head"] or 0)), steps + 1
    return False


def _is_relative_word(word: dict) -> bool:
    return "Rel" in ((word["feats"] or {}).get("PronType") or "")


def _agreeing(word: dict) -> bool:
    """An adjective or participle (what a coordinated adjective agrees along with)."""
    return word["upos"] == "ADJ" or (word["feats"] or {}).get("VerbForm") == "Part"


def _conjuncts_of_modifiers(ws: list[dict]) -> None:
    """A conjunct of an adjectival modifier modifies the same noun (*un hombre alto y moreno*), as
    enhanced UD has it: it becomes an amod of that noun."""
    by_id = {int(w["id"]): w for w in ws}
    for w in ws:
        head = by_id.get(int(w["head"] or 0))
        if relation(w["deprel"]) == "conj" and w["upos"] == "ADJ" and head and relation(head["deprel"]) == "amod":
            w["head"], w["deprel"] = head["head"], "amod"


def _controller_number(word: dict, ws: list[dict], children: dict[int, list[dict]]) -> str | None:
    """The Number of the word `word` agrees with: its head noun (amod, det), else its subject, else
    its copula or auxiliary, else its head (a verb or a conjoined predicate)."""
    by_id = {int(w["id"]): w for w in ws}
    head = by_id.get(int(word["head"] or 0))
    own = children.get(int(word["id"]), [])
    order = []
    if relation(word["deprel"]) in ("amod", "det", "acl") and head is not None:
        order.append(head)
    order += [c for c in own if relation(c["deprel"]) == "nsubj"]
    order += [c for c in own if relation(c["deprel"]) in ("cop", "aux")]
    if head is not None:
        order.append(head)
    for candidate in order:
        number = (candidate["feats"] or {}).get("Number")
        if number in ("Sing", "Plur"):
            return number
    return None


def _with_parts_of_speech(encoded: EncodedSentence, group: Sequence[Intervention]) -> EncodedSentence:
    """`encoded` with the parts of speech the interventions give their words (a copy if any)."""
    override = {i.index: POS_INDEX[i.upos] for i in group if i.upos and POS_INDEX.get(i.upos) != encoded.pos[i.index]}
    if not override:
        return encoded
    pos = encoded.pos.copy()
    for index, value in override.items():
        pos[index] = value
    return dataclasses.replace(encoded, pos=pos)


def by_analogy(original: str, rebuilt: str, new: str) -> str:
    """The new form of an irregular word, from its own form rather than its lemma.

    `rebuilt` is what the reinflector makes of the word's lemma and *current* features, `new` what it
    makes of the lemma and the new ones. Where `rebuilt` is the word as written, `new` stands. Where
    it is not (an irregular stem: *descubrir* → *descubiertos*, rebuilt as *descubridos*), the edit
    the reinflector makes between the two (*-os* → *-as*) is applied to the word itself
    (*descubiertas*), provided the word ends the way the edit expects.
    """
    if rebuilt == original or rebuilt == new:
        return new
    prefix = len(os.path.commonprefix([rebuilt, new]))
    old_ending, new_ending = rebuilt[prefix:], new[prefix:]
    if not old_ending or not original.endswith(old_ending) or len(original) == len(old_ending):
        return new
    return original[: len(original) - len(old_ending)] + new_ending


def interventions_for(
    sentence: Sentence, gazetteer: Gazetteer, generator: CounterfactualGenerator, direction: str
) -> list[Intervention]:
    """Interventions on every animate noun of a sentence, and on every third-person or plural
    personal pronoun of the language file (*él*, *nosotros*, *elles*, *loro*), in the given
    direction. First- and second-person singular pronouns (*yo*, *tú*, *je*) name no one whose
    gender the sentence shows: they are left as they are. The words are read in NFC (a sentence
    written in NFD has the same words, their indices the same)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}; use one of {DIRECTIONS}")
    sentence = read_sentence(sentence)
    out = []
    ws = words(sentence)
    in_names = name_parts(ws, generator.language)
    named = named_by_a_full_name(ws) | predicates_of_a_fixed_subject(ws, gazetteer, generator.language, sentence)
    named |= _apposed(ws, named | names_with_an_article(ws, gazetteer, generator.language))
    named |= _before_a_comma(ws, named, gazetteer)
    named |= predicates_of_an_object_pronoun(ws, generator.language)
    pronouns: list[Intervention] = []  # kept where they name a person (pronoun_referents), once the nouns are known
    for index, word in enumerate(ws):
        if in_names[index] or index in named:
            continue
        noun = _as_noun_if_coordinated(word, ws)
        found = gazetteer.lookup(noun, sentence)
        if not found:
            pronoun = pronoun_intervention(index, word, sentence, generator, direction)
            if pronoun is not None:
                pronouns.append(pronoun)
            continue
        if (_modifies_a_thing(index, ws, gazetteer, generator) or _apposed_to_a_thing(index, ws, gazetteer)
                or _in_a_compound(index, ws, gazetteer) or _bare_after(index, ws, generator.language.no_person_after)):
            continue
        found = _by_sense(found, noun, ws, gazetteer, generator.language)
        if (found.kind == "common" and found.gender == "Masc" and found.number == "Sing"
                and found.lemma in generator.language.feminine_singular_things):
            continue  # la policía: the force, not a policewoman (the language file's feminine_singular_things)
        new_lemma, new_gender = found.lemma, found.gender
        if (direction == "to-fem" and new_gender != "Fem") or (
            direction == "to-masc" and new_gender != "Masc"
        ):
            continue
        # The gazetteer's form (its plural columns for plurals); else reinflected from the lemma.
        form = match_case(word["form"], found.form) if found.form else None
        plurals = {gazetteer.plurals.get((found.lemma, g)) for g in ("Masc", "Fem")}
        gendered_plural = found.number == "Plur" and len(plurals) == 2 and None not in plurals
        written = (word["form"] or "").lower()
        older_feminine = written in gazetteer.to_masc and written != found.lemma
        if found.kind == "common" and not gendered_plural and not older_feminine:
            form = word["form"]  # one form for both genders: the one written (israelís, not the list's israelíes)
        # (the list's form where the plural shows the gender, it colleghi -> colleghe, or the written
        # form is an older feminine: la presidentessa -> il presidente)
        intervention = gender_intervention(index, noun, generator, new_gender, form=form, lemma=new_lemma)
        if word["upos"] != "NOUN":
            # a lower-case PROPN, a title before a name, an ADJ used as a noun or a mis-tagged
            # coordinated noun that the list knows is a tagging slip for a person noun (spaCy:
            # "los reyes" PROPN without features, French "l'étudiant" ADJ, "tíos y primos" with
            # "primos" a verb): the MRF reads a NOUN with the list's number
            intervention.upos = "NOUN"
            if not any(sub.startswith("Number=") for sub in intervention.tag):
                intervention.tag = tuple(sorted((*intervention.tag, f"Number={found.number}")))
        out.append(intervention)
    if pronouns:
        people = pronoun_referents(ws, [p.index for p in pronouns], {i.index for i in out}, gazetteer, generator)
        people -= _said_by_a_name(ws)
        out += [p for p in pronouns if p.index in people]
        out.sort(key=lambda i: i.index)
    # a role (le titre de grand maître, el cargo de director) changes only with its holder
    changing = {i.index for i in out}
    return [i for i in out if not _kind_of_a_thing(i.index, ws, gazetteer)
            or _clause_subject(i.index, ws) in changing]


def _clause_subject(index: int, ws: Sequence[dict]) -> int | None:
    """The subject (0-based) of the nearest clause above word `index`, or None."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    k = position.get(int(ws[index]["head"] or 0))
    while k is not None:
        subject = next((c for c, w in enumerate(ws) if w["head"] == ws[k]["id"]
                        and relation(w["deprel"]) == "nsubj"), None)
        if subject is not None:
            return subject
        k = position.get(int(ws[k]["head"] or 0))
    return None


def _said_by_a_name(ws: Sequence[dict]) -> set[int]:
    """First-person pronouns (0-based) inside a quotation that a name outside it says (*« nous en
    sommes reconnaissants », a affirmé M. Benjamin*): they include that person, whose gender is kept."""
    spans = _quotations(ws)
    inside = {k for start, end in spans for k in range(start + 1, end)}
    def named(w: dict) -> bool:  # a name, or a title before one (M. Benjamin)
        return w["upos"] == "PROPN" or any(c["head"] == w["id"] and relation(c["deprel"]) == "flat"
                                           and c["upos"] == "PROPN" for c in ws)

    speaker = any(relation(w["deprel"]) == "nsubj" and k not in inside and named(w) for k, w in enumerate(ws))
    if not speaker:
        return set()
    return {k for k in inside if ws[k]["upos"] == "PRON" and (ws[k]["feats"] or {}).get("Person") == "1"}


def _by_sense(found, noun: dict, ws: Sequence[dict], gazetteer: Gazetteer, language):
    """The counterpart of a noun whose counterpart depends on its sense (the language file's
    ``sense_counterparts``): with a possessor (a possessive determiner, or an nmod that is a name
    other than a place's, a pronoun or a person noun) fr *femme* is a wife (*sa femme* -> *son mari*,
    *la femme de Paul* -> *le mari de Paul*), without one a woman (*cette femme* -> *cet homme*, *la
    femme de Saint Michel* -> *l'homme*), whatever the gazetteer pairs it with."""
    if found.gender != "Masc":
        return found
    senses = language.sense_counterparts.get(gazetteer.to_fem.get(found.lemma, ""))
    if senses is None:
        return found
    possessed = False
    place = name_parts(ws, language)  # a name with a title (Saint Michel) is a place's, not a person's
    for k, child in enumerate(ws):
        if child["head"] != noun["id"]:
            continue
        rel = relation(child["deprel"])
        if rel == "det" and (child["feats"] or {}).get("Poss") == "Yes":
            possessed = True
        elif rel == "nmod" and not place[k] and (
                child["upos"] in ("PROPN", "PRON") or gazetteer.lookup(child) is not None
                or gazetteer.is_epicene(child)):
            possessed = True
    masculine = senses[0] if possessed else senses[1]
    if masculine == found.lemma:
        return found
    form = masculine if found.number == "Sing" else gazetteer.plurals.get((masculine, "Masc"))
    return dataclasses.replace(found, lemma=masculine, form=form)


def pronoun_intervention(
    index: int, word: dict, sentence: Sentence, generator: CounterfactualGenerator, direction: str
) -> Intervention | None:
    """The intervention on a personal pronoun of the language file, or None (not one, an
    impersonal subject such as French *il pleut*, or already of the direction's gender).

    A gendered pronoun takes the other form (*ellos* -> *ellas*, *elle* in *avec elle* -> *lui*); a
    common one (*loro*, *nous*, *usted*) keeps its form and takes the other gender, read off what
    agrees with it (*nous sommes contentes*: feminine), so that its agreement changes.
    """
    if word["upos"] not in ("PRON", "PROPN", "DET", "NOUN"):  # spaCy: "Vosotros" as a noun
        return None
    language = generator.language
    match = language.pronoun(word["form"], word["deprel"] or "")
    if match is None or _impersonal(word, words(sentence), language, generator):
        return None
    pronoun, gender = match
    ws = words(sentence)
    if relation(word["deprel"]) in ("obl", "iobj") and not any(
        w["head"] == word["id"] and relation(w["deprel"]) == "case" for w in ws
    ):
        return None  # a clitic (je lui parle: both genders'), not the stressed form (chez lui)
    if gender is None:  # common: the gender of what agrees with it
        gender = Gazetteer._context_gender(word, sentence) or "Masc"
    new_gender = GENDER_SWAP[gender]
    if (direction == "to-fem" and new_gender != "Fem") or (direction == "to-masc" and new_gender != "Masc"):
        return None
    form = word["form"] if pronoun.common else match_case(word["form"], pronoun.forms[new_gender])
    intervention = gender_intervention(index, word, generator, new_gender, form=form)
    intervention.upos = "PRON" if word["upos"] == "PRON" else "NOUN"
    if not any(sub.startswith("Number=") for sub in intervention.tag):
        intervention.tag = tuple(sorted((*intervention.tag, f"Number={pronoun.number}")))
    return intervention


SUBJECT = ("nsubj", "expl")
# The relations a subject pronoun's antecedent is looked for in, in turn: a subject goes on with the
# subject before it (*Le 6 mai, il démissionne* is not the month), else with an object or apposition,
# else with a person noun anywhere before it (*Commentaire du président : il n'accepte pas*; None: any
# relation, person nouns only).
ANTECEDENT_PASSES = (("nsubj", "expl"), ("obj", "iobj", "appos", "xcomp"), None)
# What shares a predicate's subject when it has none of its own (*Annoncé comme favori, il souligne*).
SHARED_SUBJECT = ("xcomp", "advcl", "conj", "acl")


def pronoun_referents(
    ws: Sequence[dict], pronouns: Sequence[int], intervened: Collection[int], gazetteer: Gazetteer, generator
) -> set[int]:
    """The pronouns (0-based indices of personal pronouns of the language file) that name a person
    whose gender the counterfactual changes: the paper intervenes on animate nouns, and a
    pronoun is one only through what it refers to.

    A first- or second-person pronoun (*nous*, *nosotras*) names the speaker or addressee: a person.
    A third-person one follows its antecedent, the nearest noun before it with its gender and number:
    it changes with an intervened noun (*Un homme est entré et il m'a demandé*), not with a thing
    (*Ce village ... dans lequel il jouxte*), an epicene or a person whose gender is kept. For a
    subject pronoun the nearest subject is taken first, then the nearest object or apposition; for
    another pronoun, the nearest noun (*cousues entre elles*: the pieces). An earlier pronoun of the
    same gender and number on the way is the same referent (a chain). A name is never changed, nor
    what agrees with it or is predicated of it (:func:`predicates_of_a_fixed_subject`), so a
    pronoun whose antecedent is a name keeps its gender too (*Paul Pelliot (né ...) est un
    linguiste ..., il*; *M. Karoubi, bloqué chez lui*), as does one whose antecedent is a name with
    an article, a thing's (*La DeLorean ... elle sert*).

    A chain with no antecedent in the sentence (*Il démissionna*, *Elle a le statut de ville*) is
    decided by the language file's ``pronoun_referents.bare``: "person" (Spanish, Italian: an overt
    pronoun names a person; a thing's subject goes unsaid), or "cues" (French, where *il* and *elle*
    are as often a town, a bridge or a company as a person): a person only where the sentence says so
    of one of its pronouns (:func:`person_cue`).
    """
    language = generator.language
    features: dict[int, tuple[str | None, str]] = {}
    for p in pronouns:
        match = language.pronoun(ws[p]["form"], ws[p]["deprel"] or "")
        features[p] = (match[1], match[0].number) if match else (None, "")
    people: set[int] = set()
    chain_of: dict[int, int] = {}  # a pronoun with no antecedent noun -> the first pronoun of its chain
    for p in pronouns:
        gender, number = features[p]
        if gender is None or (ws[p]["feats"] or {}).get("Person") in ("1", "2"):
            people.add(p)  # nous, vous, nosotras: the speaker's or addressee's gender, shown only by agreement
            continue
        antecedent = _antecedent(p, ws, gender, number, features, gazetteer, language.bare_pronouns == "person")
        if antecedent is None:
            chain_of[p] = p
        elif antecedent in features:  # an earlier pronoun: its referent
            if antecedent in chain_of:
                chain_of[p] = chain_of[antecedent]
            elif antecedent in people:
                people.add(p)
        elif antecedent in intervened:
            people.add(p)
    chains: dict[int, list[int]] = {}
    for p, first in chain_of.items():
        chains.setdefault(first, []).append(p)
    for members in chains.values():
        if language.bare_pronouns == "person" or any(person_cue(p, ws, gazetteer, generator) for p in members):
            people.update(members)
    return people


def _antecedent(
    p: int, ws: Sequence[dict], gender: str, number: str, pronouns: dict[int, tuple], gazetteer: Gazetteer,
    persons_only: bool = False,
) -> int | None:
    """The antecedent of pronoun `p` (see :func:`pronoun_referents`): a noun's or an earlier
    pronoun's or a name's index, or None (none in the sentence). `persons_only`: a subject pronoun
    names a person (Spanish: a thing's subject goes unsaid), so only a person noun is its antecedent
    (*el desencanto ... aunque él afirma*: the minister before it)."""
    subject = relation(ws[p]["deprel"]) in SUBJECT
    passes = ANTECEDENT_PASSES if subject else (None,)
    for relations in passes:
        for j in range(p - 1, -1, -1):
            w = ws[j]
            if relations is not None and relation(w["deprel"]) not in relations:
                continue
            if subject and (relations is None or persons_only) and w["upos"] == "NOUN" and not (
                    gazetteer.lookup(w) is not None or gazetteer.is_epicene(w)):
                continue
            if subject and relations is None and w["upos"] != "NOUN" and j not in pronouns:
                continue
            if j in pronouns:
                if pronouns[j][0] is not None and pronouns[j] == (gender, number):
                    return j
                continue
            if w["upos"] not in ("NOUN", "PROPN") or not _may_be(w, gender, number, gazetteer):
                continue
            if w["upos"] == "PROPN" and not (w["form"] or "").islower():
                if relations == ANTECEDENT_PASSES[1]:
                    continue  # a name as an object (*rejoindre Clermont*) is a place as often as a person
                return _named_by(j, ws, gazetteer)
            return j
    return None


def _named_by(j: int, ws: Sequence[dict], gazetteer: Gazetteer) -> int:
    """The person noun a name stands beside, when one does (in apposition, as its predicate, or as a
    second subject of the same verb: spaCy's *Le président du club, Angel Torres, a déclaré*); else
    the name itself. A pronoun whose antecedent is that name follows the noun."""
    name = ws[j]
    copulas = {c["head"] for c in ws if relation(c["deprel"]) == "cop"}
    for k, w in enumerate(ws):
        if k == j or w["upos"] != "NOUN" or (gazetteer.lookup(w) is None and not gazetteer.is_epicene(w)):
            continue
        apposed = (relation(w["deprel"]) == "appos" and w["head"] == name["id"]) or (
            relation(name["deprel"]) in ("appos", "flat") and name["head"] == w["id"])
        predicate = relation(name["deprel"]) == "nsubj" and name["head"] == w["id"] and w["id"] in copulas
        cosubject = relation(name["deprel"]) == relation(w["deprel"]) == "nsubj" and name["head"] == w["head"]
        if apposed or predicate or cosubject:
            return k
    return j


def _may_be(word: dict, gender: str, number: str, gazetteer: Gazetteer) -> bool:
    """Whether a noun may be what a pronoun of that gender and number refers to: its features do not
    say otherwise (a common-gender person noun without a gender may be either)."""
    feats = word["feats"] or {}
    if feats.get("Number") not in (None, number):
        return False
    if feats.get("Gender") in GENDER_SWAP:
        return feats["Gender"] == gender
    return word["upos"] == "PROPN" or gazetteer.lookup(word) is not None


def person_cue(p: int, ws: Sequence[dict], gazetteer: Gazetteer, generator) -> bool:
    """Whether the sentence says that pronoun `p` names a person: a preposition of the language
    file's ``person_prepositions`` before it (*chez lui*, *selon elle*); it is the subject of a
    person noun (*il est l'auteur*, *il était membre*); its predicate, or one sharing its subject, is
    one of the language file's ``person_predicates`` (*il démissionna*, *elle est fatiguée*, *dîner avec
    elle*) or has a person noun as its predicate (*élu maire*, *travaille comme serveur*)."""
    language = generator.language
    position = {int(w["id"]): i for i, w in enumerate(ws)}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)

    def person(i: int) -> bool:
        w = ws[i]
        return w["upos"] in ("NOUN", "PROPN") and (gazetteer.lookup(w) is not None or gazetteer.is_epicene(w))

    if any(relation(ws[c]["deprel"]) == "case" and ws[c]["form"].lower() in language.person_prepositions
           for c in children.get(p, [])):
        return True
    head = position.get(int(ws[p]["head"] or 0))
    if head is None:
        return False
    if relation(ws[p]["deprel"]) in SUBJECT and person(head):
        return True
    predicates, k = [head], 0
    while k < len(predicates):  # the head and what shares its subject
        for c in children.get(predicates[k], []):
            if relation(ws[c]["deprel"]) in SHARED_SUBJECT and ws[c]["upos"] in ("VERB", "AUX", "ADJ") and not any(
                    relation(ws[g]["deprel"]) in SUBJECT for g in children.get(c, [])):
                predicates.append(c)
        k += 1
    for q in predicates:
        # a participle beside the head says nothing of the subject by its lemma (autrement dit)
        participle = q != head and (ws[q]["feats"] or {}).get("VerbForm") == "Part"
        if not participle and _lemmas(ws[q], generator) & language.person_predicates:
            return True
        passive = any(ws[g]["deprel"] == "aux:pass" for g in children.get(q, []))
        for c in children.get(q, []):
            marked = any(ws[g]["form"].lower() in language.predicate_markers for g in children.get(c, []))
            # a passive verb's "object" is its predicative (spaCy: est désignée meilleure joueuse/obj)
            predicative = relation(ws[c]["deprel"]) == "xcomp" or (passive and relation(ws[c]["deprel"]) == "obj")
            if (predicative or marked) and person(c):
                return True
    return False


def _lemmas(word: dict, generator) -> set[str]:
    """A word's lemma and form, the masculine singular of an inflected adjective or participle (the
    language file lists those: *elle est fatiguée* is *fatigué*'s, which spaCy lemmatises *fatiguer*),
    and with the lexicon check the stems the dictionary gives its form (spaCy lemmatises *manque* as a
    noun)."""
    form = (word["form"] or "").lower()
    out = {form, (word["lemma"] or "").lower()}
    feats = word["feats"] or {}
    if (word["upos"] in ("ADJ", "VERB") and generator.reinflector is not None and word["lemma"]
            and (feats.get("Gender") == "Fem" or feats.get("Number") == "Plur")):
        base = {**feats, "Gender": "Masc", "Number": "Sing"}
        out.add(generator.reinflector.inflect_one(word["lemma"], word["upos"], base).lower())
    if generator.hunspell is not None and form:
        for analysis in generator.hunspell.analyses([form]).get(form, ()):
            out.update(field[3:] for field in analysis if field.startswith("st:"))
    return out


# Clauses of their own: a word under one of these with a subject of its own agrees with that subject.
CLAUSE_RELATIONS = frozenset({"ccomp", "advcl", "csubj", "parataxis", "acl", "conj", "xcomp"})
NOMINALS = frozenset({"NOUN", "PROPN", "PRON", "NUM"})


def agreement_reach(ws: Sequence[dict], interventions: Sequence[int]) -> set[int]:
    """The words (0-based) whose agreement an intervention can change: those joined to an
    intervened word by tree arcs that pass through no other noun or pronoun (which has a gender
    of its own: *la decisión … expresada* agrees with *decisión*, not with a person noun elsewhere
    in the sentence) and enter no clause with a subject of its own (*dijo que el pueblo estaba
    cansado*); a relative pronoun as subject leaves its clause open (*la mujer que está cansada*).
    A determiner or adjective right beside an intervened word is reached however it is attached
    (spaCy: *Un vecino nuestro trabaja* with *nuestro* a det of *trabaja*, taken for a noun). A
    participle or adjective complementing a verb that has an object agrees with the object, not the
    subject (*El abuelo tiene guardado un secreto*, *La jefa dejó cerrada la puerta*, *La tengo
    guardada*): it is reached only when that object is intervened (*Tengo a mi hijo enfermo*)."""
    position = {int(w["id"]): i for i, w in enumerate(ws)}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)

    def objects(i: int, *, of_verb: bool) -> list[int]:
        """Direct objects under `i` with a gender of their own: not a reflexive pronoun (*se vio
        obligado*, *se sintió cansada*: it is the subject), and, hung under a participle by the parser,
        not a phrase with a preposition (*conmocionados por la noticia*: an oblique); the verb's own
        object may carry one (Spanish personal *a*: *tiene a su tío enfermo*)."""
        found = []
        for c in children.get(i, []):
            if relation(ws[c]["deprel"]) != "obj" or ws[c]["upos"] not in NOMINALS:
                continue
            if (ws[c]["feats"] or {}).get("Reflex") == "Yes":
                continue
            if not of_verb and (any(relation(ws[g]["deprel"]) == "case" for g in children.get(c, []))
                                or any(ws[k]["upos"] == "ADP" for k in range(min(i, c) + 1, max(i, c)))):
                continue  # a preposition between them, wherever the parser hung it (por el extraño suceso)
            found.append(c)
        return found

    def agrees_with_an_object(verb: int, c: int) -> bool:
        """`c`, a predicative under `verb`, agrees with an object (of `verb`, or hung under `c` by
        the parser) that is not intervened."""
        w = ws[c]
        if not (w["upos"] == "ADJ" or (w["feats"] or {}).get("VerbForm") == "Part"):
            return False
        if relation(w["deprel"]) not in ("obj", "xcomp", "advcl", "acl", "ccomp"):
            return False
        if ws[verb]["upos"] not in ("VERB", "AUX"):
            return False
        found = [o for o in objects(verb, of_verb=True) + objects(c, of_verb=False) if o != c]
        return bool(found) and not any(o in interventions for o in found)

    def own_subject(i: int) -> bool:
        # an expletive subject closes its clause too (spaCy's French *il* of *il fallait* is expl:subj)
        return any(
            (relation(ws[c]["deprel"]) in ("nsubj", "csubj") or ws[c]["deprel"] == "expl:subj")
            and ws[c]["upos"] in NOMINALS and not _is_relative_word(ws[c])
            for c in children.get(i, [])
        )

    reached = set(interventions)
    stack = list(interventions)
    for i in interventions:  # a determiner or adjective next to the word, whatever a parser hung it on
        beside = (n for n in (i - 1, i + 1) if 0 <= n < len(ws) and n not in reached)
        stack += [n for n in beside if ws[n]["upos"] in ("DET", "ADJ")]
        reached.update(stack)
    while stack:
        i = stack.pop()
        if ws[i]["upos"] in NOMINALS and i not in interventions:
            continue  # reached, but what agrees beyond it agrees with it
        head = position.get(int(ws[i]["head"] or 0))
        neighbours = [c for c in children.get(i, []) if not (
            relation(ws[c]["deprel"]) in CLAUSE_RELATIONS and own_subject(c)) and not agrees_with_an_object(i, c)]
        rel = relation(ws[i]["deprel"])
        # up to the head unless leaving a clause with its own subject, or reaching a predicate
        # whose subject is another word (*el niño está cansado de la mujer*); an object reaches
        # its predicative (*Juan encontró a la niña cansada*)
        # nor from a comparison (que, como: a mark) to the adjective or pronoun compared (*uno menos
        # que el líder*, *plus grand que son père*): that one agrees elsewhere; a partitive de
        # (*uno de los fundadores*) is a case and agrees
        complement = (
            rel in ("nmod", "obl") and head is not None and ws[head]["upos"] in ("ADJ", "PRON", "NUM", "DET")
            and any(relation(ws[c]["deprel"]) == "mark" for c in children.get(i, []))
        )
        if (
            head is not None
            and not complement
            and not (rel in CLAUSE_RELATIONS and own_subject(i))
            and (rel in ("nsubj", "csubj", "obj") or not own_subject(head))
        ):
            neighbours.append(head)
        for n in neighbours:
            if n not in reached:
                reached.add(n)
                stack.append(n)
    return reached


# after these a sentence or a quotation may begin, capitalised
SENTENCE_OPENERS = frozenset(".:;!?¿¡«»\"“”„'‘’()[]—–-…")


# Relations along which a word agrees with the noun it modifies or is said of.
_MODIFIERS = ("det", "amod", "acl", "nummod")
_PREDICATE_PARTS = ("cop", "aux", "det")  # è stato eletto, è stata la migliore


def agreeing_words(ws: Sequence[dict], index: int, language) -> list[int]:
    """The words (0-based) that agree with word `index` by plain rules: its determiners and adjectives
    (an adjectival clause's participle too: *un vicino nostro*, *la ragazza seduta*), and, when it is a
    subject, its predicate adjective or participle or demonstrative (*è stanca*, *sembrava preoccupata*,
    *è quella che*), with the predicate's copula participle and determiners (*è stata eletta*, *è la
    migliore*), the adjectives and participles coordinated with it (*stanca e annoiata*) and its
    predicative complement (*sembrava preoccupata*); a noun is never among them."""
    position = {int(w["id"]): i for i, w in enumerate(ws)}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)

    def agreeing(i: int) -> bool:
        w = ws[i]
        # a pronoun agrees as a determiner (a parser's Molti/PRON infermieri) or a demonstrative (è quella)
        closed = language.paradigm_tag(language.full_form((w["form"] or "").lower(), None)) is not None
        return w["upos"] in ("ADJ", "DET") or (w["feats"] or {}).get("VerbForm") == "Part" or (
            w["upos"] == "PRON" and closed) or (w["upos"] in ("PRON", "PROPN") and relation(w["deprel"]) == "det")

    out: list[int] = []

    def add_with_conjuncts(i: int) -> None:
        if i in out or not agreeing(i):
            return
        out.append(i)
        for c in children.get(i, []):
            if relation(ws[c]["deprel"]) == "conj" and not any(
                    relation(ws[g]["deprel"]) in ("nsubj", "nsubj:pass") for g in children.get(c, [])):
                add_with_conjuncts(c)

    def own_subject(i: int) -> bool:  # a clause with a subject of its own: la ragazza con cui lui è uscito
        return any(relation(ws[c]["deprel"]) == "nsubj" and not _is_relative_word(ws[c]) for c in children.get(i, []))

    def has_object(i: int) -> bool:  # a predicative of the object: tiene nascosto un segreto
        return any(relation(ws[c]["deprel"]) == "obj" and (ws[c]["feats"] or {}).get("Reflex") != "Yes"
                   for c in children.get(i, []))

    for c in children.get(index, []):
        if relation(ws[c]["deprel"]) in _MODIFIERS and not own_subject(c):
            add_with_conjuncts(c)
    # an adjective right after the noun that a parser hung on the verb (La bambina piccola/amod of piangeva)
    after = index + 1
    if after < len(ws) and ws[after]["upos"] == "ADJ" and position.get(int(ws[after]["head"] or 0)) != index:
        head_of_after = position.get(int(ws[after]["head"] or 0))
        if head_of_after is None or ws[head_of_after]["upos"] not in ("NOUN", "PROPN"):
            add_with_conjuncts(after)
    # a relative clause right after the noun that a parser hung elsewhere (Il cuoco, che era famoso/advcl)
    relative = next((k for k in (index + 1, index + 2) if k < len(ws) and _is_relative_word(ws[k])
                     and relation(ws[k]["deprel"]) == "nsubj"
                     and all(ws[m]["upos"] == "PUNCT" for m in range(index + 1, k))), None)
    if relative is not None:
        predicate = position.get(int(ws[relative]["head"] or 0))
        if predicate is not None:
            add_with_conjuncts(predicate)
            if predicate in out:
                for c in children.get(predicate, []):
                    if relation(ws[c]["deprel"]) in ("cop", "aux"):
                        add_with_conjuncts(c)
    head = position.get(int(ws[index]["head"] or 0))
    # a subject a small parser attached otherwise (Quello studente/obl è molto bravo): a bare noun
    # before a head that has no subject
    misattached = (
        relation(ws[index]["deprel"]) in ("obl", "advmod", "obj", "dep") and head is not None and index < head
        and not any(relation(ws[c]["deprel"]) in ("case", "mark") for c in children.get(index, []))
        and not any(relation(ws[c]["deprel"]) == "nsubj" for c in children.get(head, []))
    )
    if relation(ws[index]["deprel"]) == "nsubj" or misattached:
        if head is not None:
            predicates = [head] + [c for c in children.get(head, []) if relation(ws[c]["deprel"]) == "xcomp"
                                   and not has_object(head) and not has_object(c) and not own_subject(c)]
            for p in predicates:
                if any(relation(ws[c]["deprel"]) in ("aux", "cop")
                       and (ws[c]["feats"] or {}).get("Person") in ("1", "2") for c in children.get(p, [])):
                    continue  # a first- or second-person verb's (Ho chiamato il direttore): not the noun's
                add_with_conjuncts(p)
                if p in out or (ws[p]["form"] or "").lower() in language.invariable:  # è la migliore
                    for c in children.get(p, []):
                        if relation(ws[c]["deprel"]) in _PREDICATE_PARTS:
                            add_with_conjuncts(c)
                            # and a participle's own passive auxiliary (stata ritrovata/cop sana)
                            for g in children.get(c, []):
                                if relation(ws[g]["deprel"]) == "aux" and c in out:
                                    add_with_conjuncts(g)
    return [i for i in out if ws[i]["upos"] not in ("NOUN", "PROPN") and i != index]


def name_parts(ws: Sequence[dict], language) -> list[bool]:
    """The words that are part of a proper name: never intervened on, never changed by agreement.

    A capitalised title of the language file's ``name_titles`` before a capitalised name, which
    the name's gender fixes (*Santa Bárbara*, *San Pedro*, *el Niño Jesús*, *Saint Michel*: a place
    or a saint, never *Santo Bárbara*); a title before a surname is a person noun (*el Doctor
    Pérez*). And capitalised words inside a sentence that run on into a capitalised word that is
    not a name (*los Reyes Católicos*, *la Madre Superiora*): a name written in capitals, both. A
    capitalised noun inside a sentence with a *de* complement is a name (a work, a newspaper, a
    competition, a body: *les Hommes du jour*, *la Ligue des champions*, *el Colegio de Abogados*),
    and so are the words of that complement. A lower-case title before a name and *de* with a name
    names a place (*à saint Jean de Maurienne*). A capitalised article inside a sentence (after a
    comma or a word, not after a colon or an opening quote) opens a title: its noun phrase is a name
    (*películas: Suspiros de Triana, La hija de Juan Simón*); so is the expansion of an acronym, in
    brackets after it (*designado MVP (jugador más valioso)*), and a quoted noun phrase with a
    capital and no verb: a nickname or a title (*on l'appelait « Le roi de la comédie »*)."""
    capitalised = [(w["form"] or "")[:1].isupper() for w in ws]
    first = next((i for i, w in enumerate(ws) if any(ch.isalnum() for ch in w["form"] or "")), 0)
    out = [False] * len(ws)
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)

    def subtree(i: int) -> list[int]:
        found = [i]
        for c in children.get(i, []):
            if relation(ws[c]["deprel"]) != "conj":
                found += subtree(c)
        return found

    for start, end in _quotations(ws):
        inside = range(start + 1, end)
        first_word = next((k for k in inside if any(ch.isalnum() for ch in ws[k]["form"] or "")), None)
        if first_word is not None and capitalised[first_word] and not any(
                ws[k]["upos"] in ("VERB", "AUX") for k in inside):
            for k in inside:  # a quoted noun phrase: a nickname or a title (« Le roi de la comédie »)
                out[k] = True
    for index, w in enumerate(ws):
        opening = index <= first or ws[index - 1]["upos"] == "PUNCT"
        title_start = (
            w["upos"] == "DET" and capitalised[index] and index > first
            and (ws[index - 1]["form"] or "") not in SENTENCE_OPENERS
            and position.get(int(w["head"] or 0)) is not None
        )
        if title_start:  # a work's title in a sentence (películas: ..., La hija de Juan Simón, ...)
            for k in subtree(position[int(w["head"])]):
                out[k] = True
        acronym = index > 0 and sum(ch.isalpha() for ch in ws[index - 1]["form"] or "") >= 2 and (
            ws[index - 1]["form"] or "").isupper()
        if w["form"] == "(" and acronym:  # an acronym's expansion names what it names: MVP (jugador más valioso)
            k = index + 1
            while k < len(ws) and ws[k]["form"] != ")":
                out[k] = True
                k += 1
        if not capitalised[index]:
            place = (
                (w["form"] or "").lower() in language.name_titles and index + 3 < len(ws)
                and capitalised[index + 1] and ws[index + 1]["upos"] == "PROPN"
                and (ws[index + 2]["form"] or "").lower() == "de" and capitalised[index + 3]
            )
            if place:
                out[index] = True
            continue
        if not opening and w["upos"] in ("NOUN", "PROPN"):
            # a name's de complement: its words are the name's (des champions, du jour)
            # (a common noun's: de + a name makes a person's title, *l'Empereur de Sainte-Hélène*)
            complements = [c for c in children.get(index, []) if c > index and relation(ws[c]["deprel"]) == "nmod"
                           and ws[c]["upos"] == "NOUN"
                           and any(relation(ws[k]["deprel"]) == "case" and (ws[k]["lemma"] or "").lower() == "de"
                                   for k in children.get(c, []))]
            if complements:
                out[index] = True
                for c in complements:
                    for k in subtree(c):
                        out[k] = True
        after = ws[index + 1] if index + 1 < len(ws) else None
        before_name = after is not None and capitalised[index + 1] and after["upos"] == "PROPN"
        title = (w["form"] or "").lower() in language.name_titles and (before_name or any(
            c["head"] == w["id"] and relation(c["deprel"]) == "flat" and (c["form"] or "")[:1].isupper() for c in ws
        ))
        # the first word is capitalised anyway (*La profesora*), and so may be one after punctuation
        phrase = (
            not opening and after is not None and capitalised[index + 1]
            and after["upos"] in ("ADJ", "NOUN") and w["upos"] in ("NOUN", "PROPN", "ADJ")
        )
        if title:
            out[index] = True
        if phrase:
            out[index] = out[index + 1] = True
    return out


QUOTES = {"«": "»", "“": "”", "„": "“", '"': '"', "‘": "’"}


def _quotations(ws: Sequence[dict]) -> list[tuple[int, int]]:
    """(opening, closing) indices of the quotation marks that pair up in a sentence."""
    out, k = [], 0
    while k < len(ws):
        closing = QUOTES.get(ws[k]["form"] or "")
        end = next((e for e in range(k + 1, len(ws)) if ws[e]["form"] == closing), None) if closing else None
        if end is None:
            k += 1
            continue
        out.append((k, end))
        k = end + 1
    return out


def named_by_a_full_name(ws: Sequence[dict]) -> set[int]:
    """Words a full name names (0-based): a given name and a surname, two or more capitalised
    names in a row, fix the person's gender, so that a noun tied to one is no intervention (*el
    presidente Alberto Fujimori*, *Claudio Aranzadi, predecesor de*, *Juan Pérez es ministro*;
    never *la presidenta Alberto Fujimori*). Tied: the name follows it, a comma alone parts them,
    or one arc joins them (apposition, flat name, or subject and predicate of a copula). A title before one name (*el
    Doctor Pérez*) is not tied to a full name and changes."""
    capitalised = [(w["form"] or "")[:1].isupper() for w in ws]
    position = {int(w["id"]): i for i, w in enumerate(ws)}
    in_name = [w["upos"] == "PROPN" and capitalised[i] for i, w in enumerate(ws)]
    for i, w in enumerate(ws):  # a capitalised given name tagged a noun, in a flat name (spaCy: Hosni Moubarak)
        head = position.get(int(w["head"] or 0))
        if relation(w["deprel"]) == "flat" and head is not None and capitalised[head] and in_name[i]:
            in_name[head] = in_name[head] or (head > 0 and ws[head]["upos"] in ("NOUN", "X"))
    n = len(ws)
    full = {i for i in range(n) if in_name[i] and (i + 1 < n and in_name[i + 1] or i > 0 and in_name[i - 1])}
    if not full:
        return set()
    copulas = {int(w["head"] or 0) for w in ws if relation(w["deprel"]) == "cop"}
    out = set()
    for index, w in enumerate(ws):
        # right before a full name; a capitalised title, before two names (el Rey Juan Carlos)
        nominal = w["upos"] in ("NOUN", "PROPN", "ADJ", "X")
        if nominal and index + 1 in full and (not in_name[index] or index + 2 < n and in_name[index + 2]):
            out.add(index)
        # set off by a comma, however a parser attached it: *son frère, Jean Dupont,*
        comma = [index + 2 if index + 1 < n and ws[index + 1]["form"] == "," else None,
                 index - 2 if index > 0 and ws[index - 1]["form"] == "," else None]
        if not in_name[index] and w["upos"] == "NOUN" and any(c in full for c in comma if c is not None):
            out.add(index)
        head = position.get(int(w["head"] or 0))
        rel = relation(w["deprel"])
        if head is None or not (rel in ("appos", "flat") or rel == "nsubj" and int(ws[head]["id"]) in copulas):
            continue
        if index in full and not in_name[head]:
            out.add(head)
        if head in full and not in_name[index]:
            out.add(index)
    # and its conjuncts: *Théodore Herzl, journaliste, écrivain et fondateur*
    return _with_conjuncts(out, ws, position)



def _with_conjuncts(found: set[int], ws: Sequence[dict], position: Mapping[int, int]) -> set[int]:
    """`found` with the conjuncts of its words, and theirs, added (in place; returned)."""
    stack = list(found)
    while stack:
        i = stack.pop()
        for c, w in enumerate(ws):
            if c not in found and relation(w["deprel"]) == "conj" and position.get(int(w["head"] or 0)) == i:
                found.add(c)
                stack.append(c)
    return found

def _modifies_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer, generator) -> bool:
    """A person noun used as an adjective of a thing noun before it (*el grupo inversor*, *le pays
    producteur*): it names no person. The noun before is a thing's: no person noun, and no
    adjective the reinflection lexicon attests (*Cette nouvelle voisine*: a parser's inversion)."""
    word = ws[index]
    head = next((k for k, w in enumerate(ws) if w["id"] == word["head"]), None)
    if head is None or head > index or ws[head]["upos"] != "NOUN":
        return False
    # an amod, or an apposition right after the noun with no determiner of its own (spaCy: grupo
    # inversor/appos); la madre, la directora after a comma is a real apposition
    bare = head == index - 1 and not any(w["head"] == word["id"] and relation(w["deprel"]) == "det" for w in ws)
    if not (relation(word["deprel"]) == "amod" or (relation(word["deprel"]) == "appos" and bare)):
        return False
    thing = ws[head]
    if gazetteer.lookup(thing) is not None or gazetteer.is_epicene(thing):
        return False
    return generator._attested_adjective((thing["form"] or "").lower()) is None


def _in_a_compound(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
    """A word joined by a hyphen, with no space, to a word that is no person noun: part of a compound
    the parser split (*le chef-lieu*: a town, not a chef); two person nouns so joined are two
    persons' names of one (*auteur-compositeur*), and a compound the gazetteer lists whole
    (*grand-mère*) is one word."""
    def glued(left: int) -> bool:  # no space between words left and left + 1
        return 0 <= left < len(ws) - 1 and (ws[left].get("misc") or {}).get("SpaceAfter") == "No"

    def thing(k: int) -> bool:
        return 0 <= k < len(ws) and gazetteer.lookup(ws[k]) is None and not gazetteer.is_epicene(ws[k])

    after = index + 2 < len(ws) and ws[index + 1]["form"] == "-" and glued(index) and glued(index + 1)
    before = index > 1 and ws[index - 1]["form"] == "-" and glued(index - 2) and glued(index - 1)
    return (after and thing(index + 2)) or (before and thing(index - 2))


def _bare_after(index: int, ws: Sequence[dict], words_before: Collection[str]) -> bool:
    """A person noun right after one of the language file's ``no_person_after`` with no determiner
    (fr *rédacteur en chef*, *en breton*: a rank, a language), naming no one."""
    return (index > 0 and (ws[index - 1]["form"] or "").lower() in words_before
            and not any(w["head"] == ws[index]["id"] and relation(w["deprel"]) == "det" for w in ws))


def _kind_of_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
    """A singular person noun with no determiner after a bare *de* under a thing's noun: a kind or
    a role, not a person of its own (*un prototype de chasseur*, *le titre de grand maître*, *el
    cargo de director técnico*), which changes only with its clause's subject, the holder
    (:func:`interventions_for`); under a possessed noun it is the possessor's role (*en su etapa de
    jugador*), and a plural is a number of persons (*millones de dominicanos*)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    while relation(ws[index]["deprel"]) == "conj" and position.get(int(ws[index]["head"] or 0)) is not None:
        index = position[int(ws[index]["head"])]  # de técnicos y jugadores: the first conjunct decides
    word = ws[index]
    head = position.get(int(word["head"] or 0))
    if (head is None or relation(word["deprel"]) != "nmod" or ws[head]["upos"] != "NOUN"
            or (word["feats"] or {}).get("Number") == "Plur"):
        return False
    own = [w for w in ws if w["head"] == word["id"]]
    bare_de = any(relation(w["deprel"]) == "case" and (w["form"] or "").lower() in ("de", "d'", "d’")
                  for w in own)
    if not bare_de or any(relation(w["deprel"]) == "det" for w in own):
        return False
    thing = ws[head]
    possessed = any(w["head"] == thing["id"] and (w["feats"] or {}).get("Poss") == "Yes" for w in ws)
    return not possessed and gazetteer.lookup(thing) is None and not gazetteer.is_epicene(thing)


def _apposed_to_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
    """A person noun in apposition with a thing's noun phrase (after a comma, a common noun with an
    article, no person noun): both name that thing (*los actuales dueños, el grupo japonés Sogo*: a company)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    for i, w in enumerate(ws):
        if relation(w["deprel"]) != "appos" or int(w["head"] or 0) not in position:
            continue
        head = position[int(w["head"])]
        other = head if i == index else i if head == index else None
        if other is None or ws[other]["upos"] != "NOUN":
            continue
        # an apposition set off by a comma, with an article: a parser's slip (*Un vecino nuestro
        # trabaja* with *trabaja* a noun) is neither
        comma = any(ws[k]["form"] == "," for k in range(min(index, other) + 1, max(index, other)))
        article = any(c["head"] == ws[other]["id"] and relation(c["deprel"]) == "det"
                      and (c["feats"] or {}).get("PronType") == "Art" for c in ws)
        if comma and article and gazetteer.lookup(ws[other]) is None and not gazetteer.is_epicene(ws[other]):
            return True
    return False


def _apposed(ws: Sequence[dict], fixed: set[int]) -> set[int]:
    """Nouns (0-based) in apposition with a noun whose gender is kept, along apposition arcs either
    way: they name the same person (*un bienfaiteur de la fabrique, l'abbé Épiphane Lapointe*; *el primer
    ministro francés, el socialista Lionel Jospin*)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    arcs = [(i, position[int(w["head"])]) for i, w in enumerate(ws)
            if relation(w["deprel"]) == "appos" and int(w["head"] or 0) in position]
    out, stack = set(), list(fixed)
    while stack:
        i = stack.pop()
        for a, b in arcs:
            for this, other in ((a, b), (b, a)):
                if this == i and other not in fixed and other not in out and ws[other]["upos"] in ("NOUN", "ADJ"):
                    out.add(other)
                    stack.append(other)
    return out


def names_with_an_article(ws: Sequence[dict], gazetteer: Gazetteer, language) -> set[int]:
    """Proper nouns (0-based) with a definite article: a team, a company, a country or a place,
    not a person, whose name takes none (*L'Inter, champion d'Europe*, *el Barcelona*, *la France*):
    a noun apposed to one names that institution. A person noun the parser took for a name (*el
    Rey*) and a title (*el San Pedro*) are no such name."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    out = set()
    for w in ws:
        head = position.get(int(w["head"] or 0))
        if (head is None or relation(w["deprel"]) != "det" or (w["feats"] or {}).get("PronType") != "Art"
                or (w["feats"] or {}).get("Definite") != "Def"):
            continue
        name = ws[head]
        if (name["upos"] == "PROPN" and (name["form"] or "")[:1].isupper()
                and gazetteer.lookup(name) is None and not gazetteer.is_epicene(name)
                and (name["form"] or "").lower() not in language.name_titles):
            out.add(head)
    return out


def predicates_of_an_object_pronoun(ws: Sequence[dict], language) -> set[int]:
    """Nouns (0-based) after one of the language file's ``predicate_markers`` said of a verb's
    object pronoun (*lo propuso como su compañero*, *il l'a choisi comme adjoint*): they name that
    object's person, whom a clitic (*lo*, *l'*) names without the counterfactual changing it."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)
    out = set()
    for i, w in enumerate(ws):
        verb = position.get(int(w["head"] or 0))
        marked = any(relation(ws[c]["deprel"]) in ("mark", "case") and (ws[c]["form"] or "").lower()
                     in language.predicate_markers for c in children.get(i, []))
        if verb is None or w["upos"] != "NOUN" or not marked:
            continue
        if any(relation(ws[o]["deprel"]) == "obj" and ws[o]["upos"] == "PRON"
               and (ws[o]["feats"] or {}).get("Person") == "3" and (ws[o]["feats"] or {}).get("Reflex") != "Yes"
               for o in children.get(verb, [])):
            out.add(i)
    return out


def _before_a_comma(ws: Sequence[dict], fixed: set[int], gazetteer: Gazetteer) -> set[int]:
    """Person nouns (0-based) of the noun phrase right before a comma that opens a phrase naming a
    person whose gender is kept, however a parser attached the two: an apposition (*l'apport d'un
    bienfaiteur de la fabrique, l'abbé Épiphane Lapointe*). From the word before the comma up its
    heads along de complements, each person noun met is kept (which one the apposition names is
    not known: keeping both changes no one wrongly)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    out: set[int] = set()
    for i in fixed:
        start = i
        while start > 0 and ws[start - 1]["upos"] != "PUNCT" and position.get(int(ws[start - 1]["head"] or 0)) == i:
            start -= 1  # the phrase's determiners and adjectives before its noun
        if start < 2 or ws[start - 1]["form"] != ",":
            continue
        k = start - 2
        while k is not None and k < start - 1:
            if ws[k]["upos"] == "NOUN" and gazetteer.lookup(ws[k]) is not None:
                out.add(k)
            if relation(ws[k]["deprel"]) != "nmod":
                break
            k = position.get(int(ws[k]["head"] or 0))
    return out - fixed


def predicates_of_a_fixed_subject(ws: Sequence[dict], gazetteer: Gazetteer, language, sentence=None) -> set[int]:
    """Predicate nouns (0-based) that denote a subject whose gender the counterfactual keeps: a
    name (*Juan es un buen panadero*), a thing's noun phrase (*el pueblo es espectador*), the
    speaker or the addressee (*Je suis le nouveau serveur*, *Tú eres la mejor enfermera*), and the
    role a possessed noun gives it (*Ana dejó su puesto de directora*). A noun
    after a copula names its subject, so it agrees with it and changes only with it; its conjuncts
    too. An epicene subject fixes no one's gender (*La
    víctima era un hombre* → *una mujer*), and a pronoun or demonstrative the parser took for a name
    (*Aquél*: the language file's paradigms) is no name."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    copulas = {int(w["head"] or 0) for w in ws if relation(w["deprel"]) == "cop"}
    children: dict[int, list[int]] = {}
    for i, w in enumerate(ws):
        children.setdefault(position.get(int(w["head"] or 0), -1), []).append(i)

    def roles(head: int) -> list[int]:
        """Person nouns that say what the subject is through a possessed noun of its clause: *por
        su condición de campeón*, *son travail de productrice* (de + the role; not across a clause
        with a subject of its own)."""
        found, stack = [], [head]
        while stack:
            k = stack.pop()
            for c in children.get(k, []):
                if relation(ws[c]["deprel"]) in CLAUSE_RELATIONS and any(
                        relation(ws[g]["deprel"]) == "nsubj" for g in children.get(c, [])):
                    continue
                stack.append(c)
            possessed = ws[k]["upos"] == "NOUN" and any(
                relation(ws[g]["deprel"]) == "det" and (ws[g]["feats"] or {}).get("Poss") == "Yes"
                for g in children.get(k, []))
            if possessed:
                found += [c for c in children.get(k, []) if ws[c]["upos"] == "NOUN"
                          and relation(ws[c]["deprel"]) == "nmod" and any(
                              relation(ws[g]["deprel"]) == "case" and (ws[g]["lemma"] or "").lower() == "de"
                              for g in children.get(c, []))]
        return found

    def predicates(head: int) -> list[int]:
        """The predicate nouns of a clause headed by `head` said of its subject: the head after a
        copula; a predicative complement (*fue elegida concejala*, *élue conseillère*, an object of a
        passive verb); and those of
        a coordinated clause with no subject of its own (*comió con él y fue su compañero*)."""
        found = [head] if int(ws[head]["id"]) in copulas and ws[head]["upos"] in ("NOUN", "PROPN", "ADJ") else []
        noun = position.get(int(ws[head]["head"] or 0))
        if found and ws[head]["upos"] == "ADJ" and relation(ws[head]["deprel"]) == "amod" and noun is not None:
            found.append(noun)  # spaCy: est mon meilleur ami with meilleur the copula's head, ami its noun
        for c in children.get(head, []):
            rel = relation(ws[c]["deprel"])
            # one of a group: *est un des héros*, *es uno de los jugadores* (the group's noun)
            if (int(ws[head]["id"]) in copulas and ws[head]["upos"] in ("PRON", "NUM") and rel == "nmod"
                    and ws[c]["upos"] == "NOUN"):
                found.append(c)
            passive = any(ws[g]["deprel"] == "aux:pass" for g in children.get(head, []))
            if (rel == "xcomp" or (rel == "obj" and passive)) and ws[c]["upos"] in ("NOUN", "PROPN", "ADJ"):
                found.append(c)  # a passive verb's "object" is its predicative (a parser's slip)
            elif rel == "conj" and not any(relation(ws[g]["deprel"]) == "nsubj" for g in children.get(c, [])):
                found += predicates(c)
        return found

    out: set[int] = set()
    for w in ws:  # no subject written: a first- or second-person singular copula says who (Eres la mejor)
        head = position.get(int(w["head"] or 0))
        feats = w["feats"] or {}
        if (head is not None and relation(w["deprel"]) == "cop" and feats.get("Person") in ("1", "2")
                and feats.get("Number") == "Sing"
                and not any(relation(ws[c]["deprel"]) == "nsubj" for c in children.get(head, []))):
            out.update(predicates(head))
    for w in ws:
        head = position.get(int(w["head"] or 0))
        if head is None or relation(w["deprel"]) != "nsubj":
            continue
        feats = w["feats"] or {}
        fixed = (
            (w["upos"] == "PRON" and feats.get("Person") in ("1", "2") and feats.get("Number", "Sing") == "Sing")
            # a first- or second-person singular copula, whatever the parser took its subject for (Tu/VERB es)
            or any(relation(ws[c]["deprel"]) == "cop" and (ws[c]["feats"] or {}).get("Person") in ("1", "2")
                   and (ws[c]["feats"] or {}).get("Number") == "Sing" for c in children.get(head, []))
            or (w["upos"] == "PROPN" and (w["form"] or "")[:1].isupper() and gazetteer.lookup(w, sentence) is None
                and language.paradigm_tag(w["form"]) is None and language.pronoun(w["form"], w["deprel"] or "") is None)
        )
        # a thing's noun phrase: a predicate noun said of it names no sex-marked person and takes
        # its gender (*el pueblo es espectador*, *la selección es campeona*); a bare noun, or one of
        # another gender, is rather a parser's slip (*una copa ..., ha de ser un presidente*)
        thing = (w["upos"] == "NOUN" and gazetteer.lookup(w, sentence) is None and not gazetteer.is_epicene(w)
                 and any(relation(c["deprel"]) == "det" for c in ws if c["head"] == w["id"]))
        if fixed:
            out.update(predicates(head))
            out.update(roles(head))
        elif thing:
            gender = feats.get("Gender")
            out.update(p for p in predicates(head) if gender and (ws[p]["feats"] or {}).get("Gender") == gender)
    return _with_conjuncts(out, ws, position)  # and the predicate's conjuncts: Juan es carpintero y panadero


def _impersonal(word: dict, ws: list[dict], language, generator=None) -> bool:
    """A subject pronoun of an impersonal verb (fr *il faut*, *il pleut*, *il y a*, *il est
    probable que*, *il fait beau*, *il est temps*, *il est capital de*: the language file's
    ``impersonal``), or of a verb of its ``impersonal.through`` whose infinitive is one (*il devrait
    y avoir*). With the lexicon check the dictionary's stems of the verb count as its lemma (spaCy:
    *manque* lemmatised as the noun)."""
    head = next((w for w in ws if w["id"] == word["head"]), None)
    if head is None or relation(word["deprel"]) not in ("nsubj", "expl"):
        return False
    seen = 0
    while head is not None and seen < len(ws):
        if _impersonal_predicate(head, ws, language, generator):
            return True
        lemmas = _lemmas(head, generator) if generator is not None else {(head["lemma"] or "").lower()}
        if not lemmas & language.impersonal_through:
            return False
        head = next((w for w in ws if w["head"] == head["id"] and relation(w["deprel"]) == "xcomp"
                     and w["upos"] in ("VERB", "AUX")), None)
        seen += 1
    return False


def _impersonal_predicate(head: dict, ws: list[dict], language, generator) -> bool:
    """Whether `head` makes its subject pronoun impersonal (see :func:`_impersonal`)."""
    lemma = (head["lemma"] or "").lower()
    lemmas = _lemmas(head, generator) if generator is not None else {lemma}
    if lemmas & language.impersonal_verbs:
        return True
    dependents = [w for w in ws if w["head"] == head["id"]]
    forms = {(w["form"] or "").lower() for w in dependents}
    if any(language.impersonal_clitics.get(verb) in forms for verb in lemmas):
        return True
    if any((w["deprel"] or "") in language.impersonal_clauses for w in dependents):
        return True
    # an adjective or noun of the file's with_clause whose subject is a clause (il est capital de
    # partir, il est important que), not a person (il est important)
    clause_relations = ("dep", "ccomp", "xcomp", "advcl", "csubj", "acl")
    clause = any(w["upos"] in ("VERB", "AUX") and relation(w["deprel"]) in clause_relations
                 and any(m["head"] == w["id"] and relation(m["deprel"]) == "mark" for m in ws) for w in dependents)
    copulas = {(w["lemma"] or "").lower() for w in dependents if relation(w["deprel"]) == "cop"}
    if clause and any((head["form"] or "").lower() in language.impersonal_with_clause.get(verb, frozenset())
                      or lemma in language.impersonal_with_clause.get(verb, frozenset()) for verb in copulas):
        return True
    # weather and time: the verb or the copula, and one of its words as the predicate or beside it,
    # without a preposition (il est temps, not il est à temps: someone on time)
    if any(relation(w["deprel"]) == "case" for w in dependents):
        return False
    verbs = lemmas | copulas
    words_there = {lemma, (head["form"] or "").lower()} | forms
    return any(language.impersonal_words.get(verb, frozenset()) & words_there for verb in verbs)


def _as_noun_if_coordinated(word: dict, ws: list[dict]) -> dict:
    """A word coordinated with a noun but tagged a verb, adverb or preposition (spaCy: *Mis tíos y
    primos* with *primos* a verb), as the noun it is, without the verb's features."""
    if word["upos"] not in ("VERB", "AUX", "ADV", "ADP") or relation(word["deprel"]) != "conj":
        return word
    head = next((w for w in ws if w["id"] == word["head"]), None)
    if head is None or head["upos"] not in ("NOUN", "PROPN"):
        return word
    return dict(word, upos="NOUN", feats={})


def gender_intervention(
    index: int,
    word: dict,
    generator: CounterfactualGenerator,
    new_gender: str,
    *,
    form: str | None = None,
    lemma: str | None = None,
) -> Intervention:
    """Fix word `index` to `new_gender` ("Masc" or "Fem"), every other subtag kept.

    The one intervention of both the augmentation path (:func:`interventions_for`) and the
    evaluation. A common-gender noun (*periodista*, *joven*: no Gender feature in UD) is given
    `new_gender` outright; flipping its tag would leave it without gender, so nothing agreeing
    with it could change.
    """
    if new_gender not in GENDER_SWAP:
        raise ValueError(f"unknown gender {new_gender!r}; use one of {sorted(GENDER_SWAP)}")
    kept = [sub for sub in generator.word_tag(word) if not sub.startswith("Gender=")]
    return Intervention(index, tuple(sorted((*kept, f"Gender={new_gender}"))), form=form, lemma=lemma)


# -- packaged models for `cdaflow cda` -------------------------------------------------------
MODEL_FILES = ("cda.json", "mrf", "reinflection", "gazetteer.tsv")


def save_model(
    destination: Path,
    mrf: AgreementMRF,
    reinflector_dir: Path,
    gazetteer: Path,
    log_alpha: float,
    *,
    carry_gender: bool = False,
    inherent_gender: Sequence[str] = INHERENT_GENDER,
    card: dict[str, Any] | None = None,
) -> None:
    """One self-contained folder: the MRF, the reinflector, the gazetteer and the tuned settings;
    `card` (scale, data, size, held-out scores) becomes its model_card.json."""
    with atomic_directory(destination) as tmp:
        if card is not None:
            write_card(tmp, kind="cda", lang=mrf.lang, **card)
        mrf.save(tmp / "mrf")
        shutil.copytree(reinflector_dir, tmp / "reinflection")
        Gazetteer.read(gazetteer).write(tmp / "gazetteer.tsv")  # normalised to one format
        settings = {
            "lang": mrf.lang,
            "parameterization": mrf.parameterization,
            "log_alpha": log_alpha,
            "carry_gender": carry_gender,
            "inherent_gender": list(inherent_gender),
        }
        (tmp / "cda.json").write_text(json.dumps(settings, indent=1))


def check_model_folder(directory: Path) -> None:
    """FileNotFoundError unless `directory` holds a model's files (cheap: nothing is read)."""
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: model folder not found (the workflow writes results/morph_cda/<lang>/models/lin)"
        )
    missing = [name for name in MODEL_FILES if not (directory / name).exists()]
    if missing:
        raise FileNotFoundError(f"{directory}: not a cdaflow CDA model (missing {', '.join(missing)})")


def load_model(
    directory: Path, device: str = "cpu", threads: int | None = None, *, lexicon_check: bool = False
) -> tuple[CounterfactualGenerator, Gazetteer]:
    """Load a folder written by `save_model`; a clear error when it is not one. `lexicon_check`:
    see CounterfactualGenerator (the workflow leaves it off, `cdaflow cda` turns it on)."""
    check_model_folder(directory)
    settings = check_settings(
        read_mapping(directory / "cda.json", fmt="json"),
        directory / "cda.json",
        {"lang": str, "log_alpha": float},
    )
    for key, expected in (("carry_gender", bool), ("inherent_gender", list)):
        if key in settings and not isinstance(settings[key], expected):
            raise ValueError(f"{directory / 'cda.json'}: {key}: expected {expected.__name__}, found {settings[key]!r}")
    mrf = AgreementMRF.load(directory / "mrf", device)
    reinflector = Reinflector.load(directory / "reinflection", device=device, threads=threads)
    generator = CounterfactualGenerator(
        mrf,
        reinflector,
        settings["lang"],
        settings["log_alpha"],
        carry_gender=settings.get("carry_gender", False),
        # folders saved before the setting existed let every word change, as they did then
        inherent_gender=settings.get("inherent_gender", ()),
        lexicon_check=lexicon_check,
    )
    return generator, Gazetteer.read(directory / "gazetteer.tsv")
