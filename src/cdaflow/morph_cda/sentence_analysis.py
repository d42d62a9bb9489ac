"""Sentence analysis before generation: a parsed sentence's words repaired and tagged as agreement needs
them (parts of speech, gender and number a parser left out or got wrong), and encoded for the MRF."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.fixed_words import name_parts
from cdaflow.morph_cda.hunspell import Hunspell, features_of, genderless
from cdaflow.morph_cda.parse_repairs import (
    attach_articles_of_adverbs,
    attach_detached_predicate,
    attach_headless_articles,
    attach_nouns_and_determiners,
    attach_postnominal_possessives,
    attach_prenominal_closed_class,
    conjuncts_of_modifiers,
    coordinate_listed_predicates,
    detached_adjectives,
    gather_noun_phrase,
    raise_participles_over_nouns,
    relative_object,
    unhang_from_prefixes,
    uninvert_noun_phrases,
)
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.tags import GENDER_SWAP, Tag, TagInventory, gender_of, tag_from_feats
from cdaflow.morph_cda.tree_encoding import POS_INDEX, REL_INDEX, EncodedSentence, encode_words, relation
from cdaflow.text.case import name_cased


class SentenceAnalyser:
    """A parsed sentence's words as the MRF reads them, for one language (the generator's first step)."""

    def __init__(self, language, inventory: TagInventory, reinflector: Reinflector | None, hunspell: Hunspell | None):
        self.language = language
        self.inventory = inventory
        self.reinflector = reinflector  # its lexicon attests adjective forms
        self.hunspell = hunspell  # the lexicon check (None: off)
        self._adjectives: frozenset[str] | None = None  # lemmas the reinflection lexicon has as ADJ
        self._adjective_forms: tuple[dict, dict] | None = None  # its ADJ forms' readings, its lemmas' forms
        self._noun_forms: frozenset[str] | None = None  # forms it has as NOUN and never as ADJ

    def word_tag(self, word: dict) -> Tag:
        tag = tag_from_feats(word["feats"], self.inventory.features)
        fused = self.language.fused.get(word["form"].lower())
        if fused and word["upos"] == "ADP" and not gender_of(tag):
            tag = self.language.article_tag(fused[1]) or tag
        return tag

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
            head = next((h for h in ws if h["id"] == ws[index]["head"]), None)
            if (relation(ws[index]["deprel"]) in ("aux", "cop") and head is not None and head["upos"] in ("VERB", "AUX")
                    and ws.index(head) > index):
                # a small parser's slip (it: Essi/aux furono condannati): a person before a verb is its subject
                passive = any(c["head"] == head["id"] and c["deprel"] == "aux:pass" for c in ws)
                ws[index]["deprel"] = "nsubj:pass" if passive else "nsubj"
        nouns = set(nouns)
        if self.language.object_clitics:
            for w in ws:  # an object clitic (l'ho vista, le/DET ho invitate): a pronoun with its form's features
                clitic = self.language.clitic_tag(w["form"] or "")
                head = next((h for h in ws if h["id"] == w["head"]), None)
                if (clitic is None or relation(w["deprel"]) != "obj" or head is None
                        or head["upos"] not in ("VERB", "AUX") or int(head["id"]) < int(w["id"])):
                    continue
                w["upos"] = "PRON"
                gender = clitic[0] or (head["feats"] or {}).get("Gender")  # l': the participle's
                w["feats"] = {k: v for k, v in w["feats"].items() if k not in ("Gender", "Number", "Definite")}
                w["feats"].update({"Number": clitic[1], **({"Gender": gender} if gender else {})})
        for w in ws:  # an adjective is no object: a predicative (spaCy: continúan conmocionados/obj)
            if w["upos"] == "ADJ" and w["deprel"] == "obj":
                w["deprel"] = "xcomp"
        if self.language.nouns_by_gazetteer:
            raise_participles_over_nouns(ws)
            for w in gather_noun_phrase(ws, nouns, self.language, self.noun_phrase_adjective):
                self._as_adjective(w, None)
        attach_detached_predicate(ws)
        unhang_from_prefixes(ws, nouns, self.language.prefix_words)
        uninvert_noun_phrases(ws, nouns)
        attach_nouns_and_determiners(ws, nouns)
        attach_prenominal_closed_class(ws, nouns, self.language)
        attach_postnominal_possessives(ws, self.language)
        attach_headless_articles(ws, self.language)
        attach_articles_of_adverbs(ws, self.language)
        for w in ws:  # a be-participle under a noun or adjective is its copula (è stato/aux:pass ospite)
            head = next((h for h in ws if h["id"] == w["head"]), None)
            if (relation(w["deprel"]) == "aux" and w["feats"].get("VerbForm") == "Part" and head is not None
                    and head["upos"] in ("NOUN", "ADJ", "PRON")
                    and (w["lemma"] or "").lower() in self.language.be_lemmas):
                w["deprel"] = "cop"
        for index, w in enumerate(ws):  # an auxiliary is a verb: after essere, a participle (sono rimasti/NOUN)
            before = ws[index - 1] if index else None
            if (before is not None and index not in nouns and w["upos"] in ("NOUN", "ADJ")
                    and relation(w["deprel"]) == "aux" and before["upos"] == "AUX"
                    and (before["lemma"] or "").lower() in self.language.be_lemmas
                    and (w["feats"] or {}).get("Gender")):
                w["upos"] = "VERB"
                w["feats"] = {**w["feats"], "VerbForm": "Part"}
        self._participles_taken_for_nouns(ws, nouns)
        coordinate_listed_predicates(ws)
        detached_adjectives(ws)
        self._gerunds_after_nouns(ws)
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
            if known and w["upos"] in ("VERB", "AUX") and self.language.nouns_by_gazetteer:
                # a small parser's verb (it: è stata colei/VERB Part che ...): the paradigm's pronoun
                w["upos"] = "PRON"
                for name in ("VerbForm", "Tense", "Mood", "Person"):
                    feats.pop(name, None)
                feats["Gender"], feats["Number"] = known
            if known and w["upos"] in ("DET", "PRON", "ADJ") and (
                    "Gender" not in feats or (w["upos"] == "PRON" and feats.get("Number") != known[1])):
                # (or a pronoun without its form's number, given its verb's later: spaCy's chacun)
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
                # a superlative's adjective taken for a pronoun (spaCy: est le plus drôle/PRON)
                or (w["upos"] == "PRON" and {"cop", "det"} <= relations and self._dictionary_adjective(w["form"]))
            )
            if slip and index not in nouns:
                self._as_adjective(w, head if relation(w["deprel"]) == "amod" else None)
        for w in ws:  # a bare noun right after a person noun modifies it: el abuelo enfermo
            head = by_id.get(int(w["head"] or 0))
            if (
                w["upos"] == "NOUN"
                and ws.index(w) not in nouns
                # or, after a small parser, its bare conjunct (it: Il nonno, stanco/NOUN conj e affamato)
                and (relation(w["deprel"]) in ("appos", "amod")
                     or (relation(w["deprel"]) == "conj" and self.language.nouns_by_gazetteer))
                and head is not None
                and ws.index(head) in nouns
                and not {relation(c["deprel"]) for c in children.get(int(w["id"]), [])} & {"det", "case"}
                and (
                    self.attested_adjective(w["form"].lower()) or self.gender_by_ending(w["form"].lower(), w["feats"])
                )
            ):
                self._as_adjective(w, head)
                w["deprel"] = "amod"
        for index, w in enumerate(ws):  # a bare predicate noun or adverb that is an adjective: es bajita
            own = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            # or a passive's participle tagged a noun (it: è stato rieletto/NOUN)
            passive = any(c["deprel"] == "aux:pass" for c in children.get(int(w["id"]), []))
            # or, after a small parser, a bare noun with a person noun for its subject and no verb (it: Ho
            # trovato mio figlio/nsubj molto stanco/NOUN)
            small_clause = self.language.nouns_by_gazetteer and "case" not in own and any(
                relation(c["deprel"]) == "nsubj" and ws.index(c) in nouns for c in children.get(int(w["id"]), []))
            if (w["upos"] in ("NOUN", "ADV") and index not in nouns and ("cop" in own or passive or small_clause)
                    and "det" not in own):
                coordinated = any(
                    relation(c["deprel"]) == "conj" and c["upos"] == "ADJ" for c in children.get(int(w["id"]), [])
                )
                # not a noun the lexicon knows only as a noun, whose endings fit an adjective's (colpa, colpo)
                if (coordinated or self.gender_by_ending(w["form"].lower(), w["feats"])) and not (
                        self.language.nouns_by_gazetteer and self.attested_noun(w["form"].lower())):
                    self._as_adjective(w, None)
        if self.language.nouns_by_gazetteer:
            for w in ws:  # a bare adjective a small parser made the subject of the predicate adjective before it
                head = by_id.get(int(w["head"] or 0))  # (it: Loro sono stanchi morti/nsubj): its conjunct
                if (w["upos"] == "ADJ" and relation(w["deprel"]) == "nsubj" and head is not None and _agreeing(head)
                        and ws.index(head) < ws.index(w)
                        and not any(relation(c["deprel"]) == "det" for c in children.get(int(w["id"]), []))):
                    w["deprel"] = "conj"
        self._repair_conjuncts(ws, children)
        for w in ws:
            if (w["upos"] == "ADJ" or w["feats"].get("VerbForm") == "Part") and "Gender" not in w["feats"]:
                form = w["form"].lower()
                attested = self.attested_adjective(form)
                gender = attested[1].get("Gender") if attested else self.gender_by_ending(form, w["feats"])
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
        conjuncts_of_modifiers(ws)
        return ws

    def attested_noun(self, form: str) -> bool:
        """Whether the reinflection lexicon attests `form` as a noun and never as an adjective."""
        lexicon = getattr(self.reinflector, "lexicon", None)
        if lexicon is None:
            return False
        if self._noun_forms is None:
            tags: dict[str, set[str]] = {}
            for _lemma, upos, _feats, written, _count in lexicon.entries():
                tags.setdefault(written, set()).add(upos)
            self._noun_forms = frozenset(w for w, found in tags.items() if "NOUN" in found and "ADJ" not in found)
        return form in self._noun_forms

    def noun_phrase_adjective(self, w: dict) -> bool:
        """A word that may be an adjective in a person noun's phrase (gather_noun_phrase): an adjective,
        noun, verb that is no participle or adverb whose form the lexicon attests as an adjective or whose
        ending shows a gender and number (:meth:`reading_by_ending`; not *teneva*/ADJ); without the
        lexicon check, a word tagged an adjective."""
        if w["upos"] == "ADJ" and self.hunspell is None:
            return True
        if w["upos"] not in ("ADJ", "NOUN", "VERB", "ADV") or (w["feats"] or {}).get("VerbForm") == "Part":
            return False
        form = (w["form"] or "").lower()
        return bool(self.attested_adjective(form) or (self.hunspell is not None and self.reading_by_ending(form)))

    def _participles_taken_for_nouns(self, ws: list[dict], nouns: Collection[int]) -> None:
        """A bare noun right after a be-auxiliary, hung beside it on a word after them, that a dictionary
        marking gender reads as a past participle is that participle, heading its clause (spaCy: *Ma
        collègue est partie/NOUN tôt* with *collègue*, *est* and *partie* all on *tôt*; *La directrice
        qui est partie était compétente*): it takes that word's place, with the dependents before it
        (subject, auxiliary), and the word becomes its modifier, so that it agrees with its subject."""
        if self.hunspell is None or not self.language.hunspell_marks_gender:
            return
        by_id = {int(w["id"]): w for w in ws}
        for index in range(1, len(ws)):
            w, auxiliary = ws[index], ws[index - 1]
            head = by_id.get(int(w["head"] or 0))
            if (index in nouns or w["upos"] != "NOUN" or auxiliary["upos"] != "AUX"
                    or (auxiliary["lemma"] or "").lower() not in self.language.be_lemmas
                    or head is None or auxiliary["head"] != w["head"] or ws.index(head) < index
                    or any(c["head"] == w["id"] for c in ws)):
                continue
            form = (w["form"] or "").lower()
            participle = [a for a in self.hunspell.analyses([form]).get(form, ()) if "po:ppas" in a]
            if not participle:
                continue
            lemma = next((f[3:] for f in sorted(participle[0]) if f.startswith("st:")), w["lemma"])
            w["upos"], w["lemma"] = "VERB", lemma
            w["feats"] = {"Tense": "Past", "VerbForm": "Part", **features_of(participle, ("po:ppas",))}
            w["head"], w["deprel"] = head["head"], head["deprel"]
            for k in range(index):
                if ws[k]["head"] == head["id"]:
                    ws[k]["head"] = w["id"]
            auxiliary["deprel"] = "aux"
            head["head"], head["deprel"] = w["id"], "advmod" if head["upos"] == "ADV" else "xcomp"

    def _gerunds_after_nouns(self, ws: list[dict]) -> None:
        """A "gerund" with no dependents right after a noun, hung elsewhere, whose form is an
        adjective's (the lexicon attests it, or its other gender's form is a word: *estupendo*,
        *estupenda*; not *corriendo*) of the noun's gender modifies that noun (spaCy: *Un amigo
        estupendo/VERB Ger csubj me ayudó*, the noun its subject): it becomes the noun's amod, which the
        slips below make an adjective, and the noun takes its place."""
        for index in range(1, len(ws)):
            w, noun = ws[index], ws[index - 1]
            if (w["upos"] != "VERB" or w["feats"].get("VerbForm") != "Ger" or noun["upos"] != "NOUN"
                    or w["head"] == noun["id"] or any(c["head"] == w["id"] and c is not noun for c in ws)):
                continue
            form = (w["form"] or "").lower()
            attested = self.attested_adjective(form)
            gender = attested[1].get("Gender") if attested else self.gender_by_ending(form, w["feats"])
            if not gender or gender != (noun["feats"] or {}).get("Gender", gender):
                continue
            if noun["head"] == w["id"]:  # the noun hung on it as its subject: the noun takes its place
                rel = relation(w["deprel"])
                noun["head"], noun["deprel"] = w["head"], "nsubj" if rel == "csubj" else w["deprel"]
            w["head"], w["deprel"] = noun["id"], "amod"

    def _dictionary_adjective(self, form: str) -> bool:
        """Whether a dictionary that marks gender reads the form as an adjective and it is no closed-class
        word of the language file (False without the lexicon check)."""
        form = (form or "").lower()
        if self.hunspell is None or not self.language.hunspell_marks_gender or self.language.paradigm_tag(form):
            return False
        return any("po:adj" in a for a in self.hunspell.analyses([form]).get(form, ()))

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
            self.attested_adjective(form) or self.gender_by_ending(form, w["feats"]))

    def _as_adjective(self, w: dict, source: dict | None) -> None:
        """Read a mis-tagged word as an adjective: the lemma, gender and number the reinflection
        lexicon attests for its form, else `source`'s gender and number (the word it agrees with)."""
        w["upos"] = "ADJ"
        for name in ("Person", "Mood", "Tense", "VerbForm"):
            w["feats"].pop(name, None)
        attested = self.attested_adjective(w["form"].lower())
        if attested is not None:
            w["lemma"] = attested[0]
            for name in ("Gender", "Number"):
                w["feats"].pop(name, None)
            w["feats"].update(attested[1])
        elif source is not None:
            for name in ("Gender", "Number"):
                if name in (source["feats"] or {}):
                    w["feats"][name] = source["feats"][name]

    def _repair_conjuncts(self, ws: list[dict], children: dict[int, list[dict]]) -> None:
        """A conjunct of an adjective that a parser tagged as something else (spaCy: *sano y salvo*
        with *salvo* a preposition, *agotado y dolorido* with *dolorido* a finite verb, *sucias y
        cansadas* with *cansadas* a noun) is an adjective, agreeing as its first conjunct does. Not a
        name written as one (he הפרופסור אמריטוס שמואל אביטל, the name a conjunct of the adjective); a
        lower-case "name" is the parser's slip (*alto y moreno/PROPN*)."""
        by_id = {int(w["id"]): w for w in ws}
        for w in ws:
            head = by_id.get(int(w["head"] or 0))
            if relation(w["deprel"]) != "conj" or head is None or not _agreeing(head) or w["upos"] == "ADJ" or (
                    w["upos"] == "PROPN" and name_cased(w["form"] or "")):
                continue
            own = {relation(c["deprel"]) for c in children.get(int(w["id"]), [])}
            if own & {"det", "case", "nsubj", "cop", "obj"}:
                continue
            if w["upos"] == "VERB" and w["feats"].get("VerbForm") == "Part":
                continue
            self._as_adjective(w, head)

    def gender_by_ending(self, form: str, feats: dict) -> str | None:
        """The gender a form's ending shows, when the form with the other gender's ending is a word
        the dictionaries know (*contentas*: feminine, as *contentos* exists); None without the
        lexicon check."""
        if self.hunspell is None or form in self.language.invariable:
            return None
        if self.language.ending_paradigms:
            reading = self.reading_by_ending(form)
            return reading[0] if reading else None
        number = feats.get("Number", "Plur" if form.endswith("s") else "Sing")
        found = []
        for gender, other in (("Masc", "Fem"), ("Fem", "Masc")):
            swapped = self.language.gender_candidates(form, gender, other, number)
            if swapped and self.hunspell.known(swapped):
                found.append(gender)
        return found[0] if len(found) == 1 else None

    def reading_by_ending(self, form: str) -> tuple[str, str] | None:
        """(gender, number) of an adjective or participle form by the language file's
        ``ending_paradigms``, where the dictionaries know the forms that reading needs and it is the
        only one; else None."""
        readings = self.language.readings_by_ending(form)
        known = self.hunspell.known({w for _, needed in readings for w in needed}) if readings else set()
        cells = {cell for cell, needed in readings if all(w in known for w in needed)}
        return next(iter(cells)) if len(cells) == 1 else None

    def _adjectives_by_ending(self, ws: list[dict], nouns: Collection[int], children: dict[int, list[dict]]) -> None:
        """A word in an adjective's place that a small parser tagged a noun, a finite verb or an adverb
        is an adjective where its ending and the dictionary say so (:meth:`reading_by_ending`): a
        determiner (*Poche*/ADV *atlete*), a predicate with a copula or auxiliary and a subject (*era
        stanca*/VERB), a conjunct of an adjective (*stanca ma contenta*/NOUN)."""
        by_id = {int(w["id"]): w for w in ws}
        for index, w in enumerate(ws):
            if (index + 1 in nouns and index not in nouns and w["upos"] in ("NOUN", "ADP", "ADV")
                    and (w["form"] or "").lower() not in self.language.fused):  # cogli: con + gli
                # right before a person noun: an adjective in its alternate form (bei/NOUN, bell'/ADP bambini)
                reading = self.reading_by_ending(self.language.full_form((w["form"] or "").lower(), None))
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
                # an adjective has no object: a bare word as its "object" is a conjunct (alto, magro/obj
                # e biondo); a bare word completing a verb is its predicative (è tornato stanco/ADV)
                or (rel == "obj" and head is not None and head["upos"] == "ADJ" and not own & {"det", "case"})
                # a bare noun hung as a modifier of an adjective (siamo rimasti sorpresi/NOUN amod)
                or (rel == "amod" and w["upos"] == "NOUN" and head is not None and _agreeing(head)
                    and not own & {"det", "case"})
                or (rel == "xcomp" and w["upos"] == "ADV" and head is not None and head["upos"] in ("VERB", "AUX"))
            )
            if not placed:
                continue
            if rel in ("obj", "amod") and head is not None and _agreeing(head) and w["upos"] == "NOUN":
                w["deprel"] = "conj"  # agrees as the adjective does
            reading = self.reading_by_ending((w["form"] or "").lower())
            if reading:
                self._as_adjective(w, None)
                w["feats"]["Gender"], w["feats"]["Number"] = reading

    def _features_from_endings(self, ws: list[dict]) -> None:
        """Gender and number of adjectives, participles and determiners by their endings
        (:meth:`reading_by_ending`) over a parser's guess (a small treebank's parser: *curioso*
        feminine, *stanco* plural); articles and the paradigms' closed-class words keep theirs."""
        for w in ws:
            form = self.language.full_form((w["form"] or "").lower(), w["feats"].get("Gender"))  # bell' -> bello
            determiner = relation(w["deprel"]) == "det"  # whatever the tag: Tanti/PROPN attori
            if not (w["upos"] in ("ADJ", "DET") or determiner or (w["feats"] or {}).get("VerbForm") == "Part"):
                continue
            if form in self.language.invariable or self.language.article_tag(form) or self.language.paradigm_tag(form):
                continue
            reading = self.reading_by_ending(form)
            if reading:
                w["feats"]["Gender"], w["feats"]["Number"] = reading
                if determiner and w["upos"] == "PROPN":
                    w["upos"] = "DET"  # a determiner is no name (names agree with nothing)
            elif w["upos"] == "ADJ" and not determiner and self._two_form_adjective(form):
                w["feats"].pop("Gender", None)  # popolari, brillanti: one form for both genders

    def _two_form_adjective(self, form: str) -> bool:
        """Whether `form` is a word of an adjective with one form per number for both genders (it
        popolare/popolari, grande/grandi): it ends as a plural of the ``ending_paradigms`` (-e, -i), the
        dictionary knows it, and none of the gendered singulars they would give it (popolaro, popolara;
        not vittima, a singular's ending)."""
        singular = set()  # the gendered singulars of the paradigms whose plural endings the form has (-i, -e)
        for paradigm in self.language.ending_paradigms:
            for (_, cell_number), ending in paradigm.items():
                if cell_number == "Plur" and form.endswith(ending) and len(form) >= len(ending) + 2:
                    stem = form[: len(form) - len(ending)]
                    singular |= {stem + e for (_, number), e in paradigm.items() if number == "Sing"} - {form}
        return bool(singular) and bool(self.hunspell.known({form})) and not self.hunspell.known(singular)

    def attested_adjective(self, form: str) -> tuple[str, dict[str, str]] | None:
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
            if marks and found and all("po:ppre" in a for a in found):
                # known only as a present participle (Tweetant/ADJ): a verb form with no gender
                w["upos"] = "VERB"
                w["feats"].pop("Gender", None)
                w["feats"].pop("Number", None)
                w["feats"].update(VerbForm="Part", Tense="Pres")
                continue
            if marks and w["upos"] == "VERB" and found and not any(a & {"po:ppas", "po:adj"} for a in found):
                w["feats"].pop("Gender", None)
                w["feats"].pop("Number", None)
                continue
            if genderless(found):
                w["feats"].pop("Gender", None)
            for name, value in features_of(found).items():
                if name in features:
                    w["feats"][name] = value

    def adverbial(self, w: dict, heads: Mapping[int, dict]) -> bool:
        """An adjective used as an invariable adverb under a verb that is no copula (the language file's
        ``adverbial_adjectives``: il sent bon, elle coûte cher, si è sentita male/NOUN); under a linking
        verb only a word the parser did not read as an adjective (elle se sent forte/ADJ agrees)."""
        if (w["form"] or "").lower() not in self.language.adverbial_adjectives:
            return False
        head = heads.get(int(w["head"] or 0))
        lemma = (head.get("lemma") or "").lower() if head else ""
        if not head or head["upos"] != "VERB" or lemma in self.language.be_lemmas or relation(w["deprel"]) == "conj":
            return False
        if any(c["head"] == head["id"] and relation(c["deprel"]) == "cop" for c in heads.values()):
            return False  # a predicate with a copula, whatever its tag (è severo/VERB ma giusto)
        reflexive = any(c["head"] == head["id"] and (c["feats"] or {}).get("Reflex") == "Yes" for c in heads.values())
        linking = lemma in self.language.linking_verbs or (reflexive and lemma in self.language.reflexive_linking_verbs)
        return not (linking and w["upos"] == "ADJ")

    def frozen(self, ws: Sequence[dict]) -> list[bool]:
        """Participles that never agree: a perfect's (*ha elegido*: its auxiliary is one of the
        language's ``perfect_auxiliaries`` and no copula or passive auxiliary goes with it), and a
        participle that is itself an auxiliary (*ha sido*, *a été*), a present participle but after a
        copula (*jouissant de*: a verb form with no gender; *est souriante*: an adjective), a
        pronoun that is a copula's predicate (*como lo fue*, *elle l'est*: neuter), and, where finite
        verbs agree (he), a verb that shows no gender (נפצעו, הכנתי)."""
        children: dict[int, list[dict]] = {}
        for w in ws:
            children.setdefault(int(w["head"] or 0), []).append(w)
        heads = {int(w["id"]): w for w in ws if isinstance(w["id"], int)}
        out = []
        for w in ws:
            if (w["upos"] == "PRON" and any(relation(c["deprel"]) == "cop" for c in children.get(int(w["id"]), []))
                    and not self.language.paradigm_tag(w["form"] or "")):  # a demonstrative agrees: è quella che
                out.append(True)  # a predicative clitic is neuter: tan brillante como lo fue, elle l'est
                continue
            participle = (w["feats"] or {}).get("VerbForm") == "Part"
            if not participle:
                # where finite verbs show a gender (he), one that shows none keeps its form (נפצעו, הכנתי)
                genderless_verb = self.language.finite_verbs_agree and w["upos"] in ("VERB", "AUX") and not (
                    w["feats"] or {}).get("Gender")
                out.append(genderless_verb or self.adverbial(w, heads))
                continue
            if self.language.invariant_participle_of_aux and relation(w["deprel"]) == "aux":
                out.append(True)
                continue
            # an auxiliary a parser left unlabelled counts too (spaCy: Nul employé n'a/AUX dep protesté)
            auxiliaries = [c for c in children.get(int(w["id"]), []) if relation(c["deprel"]) in ("aux", "cop")
                           or (c["upos"] == "AUX" and relation(c["deprel"]) == "dep")]
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
            # (fr la cliente que j'ai servie: a relative object before it, the language file's switch)
            agrees_with_relative = self.language.relative_object_agreement and any(
                relative_object(c) and int(c["id"]) < int(w["id"]) for c in children.get(int(w["id"]), []))
            # (it l'ho vista, le ho invitate: an object clitic before it, the language file's object_clitics)
            agrees_with_clitic = any(
                relation(c["deprel"]) == "obj" and int(c["id"]) < int(w["id"])
                and self.language.clitic_tag(c["form"] or "") is not None for c in children.get(int(w["id"]), []))
            out.append(perfect and not be and not agrees_with_relative and not agrees_with_clitic)
        return out

    def encode(self, sentence: Sentence, ws: list[dict] | None = None) -> EncodedSentence:
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


def _agreeing(word: dict) -> bool:
    """An adjective or participle (what a coordinated adjective agrees along with)."""
    return word["upos"] == "ADJ" or (word["feats"] or {}).get("VerbForm") == "Part"


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
