"""Sentence analysis before generation: a parsed sentence's words repaired and tagged as agreement needs
them (parts of speech, gender and number a parser left out or got wrong), and encoded for the MRF."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.fixed_words import name_parts
from cdaflow.morph_cda.hunspell import Hunspell, features_of, genderless
from cdaflow.morph_cda.parse_repairs import (
    attach_detached_predicate,
    attach_headless_articles,
    attach_nouns_and_determiners,
    attach_postnominal_possessives,
    attach_prenominal_closed_class,
    conjuncts_of_modifiers,
    unhang_from_prefixes,
    uninvert_noun_phrases,
)
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.tags import GENDER_SWAP, Tag, TagInventory, gender_of, tag_from_feats
from cdaflow.morph_cda.tree_encoding import POS_INDEX, REL_INDEX, EncodedSentence, encode_words, relation


class SentenceAnalyser:
    """A parsed sentence's words as the MRF reads them, for one language (the generator's first step)."""

    def __init__(self, language, inventory: TagInventory, reinflector: Reinflector | None, hunspell: Hunspell | None):
        self.language = language
        self.inventory = inventory
        self.reinflector = reinflector  # its lexicon attests adjective forms
        self.hunspell = hunspell  # the lexicon check (None: off)
        self._adjectives: frozenset[str] | None = None  # lemmas the reinflection lexicon has as ADJ
        self._adjective_forms: tuple[dict, dict] | None = None  # its ADJ forms' readings, its lemmas' forms

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
        nouns = set(nouns)
        for w in ws:  # an adjective is no object: a predicative (spaCy: continúan conmocionados/obj)
            if w["upos"] == "ADJ" and w["deprel"] == "obj":
                w["deprel"] = "xcomp"
        attach_detached_predicate(ws)
        unhang_from_prefixes(ws, nouns, self.language.prefix_words)
        uninvert_noun_phrases(ws, nouns)
        attach_nouns_and_determiners(ws, nouns)
        attach_prenominal_closed_class(ws, nouns, self.language)
        attach_postnominal_possessives(ws, self.language)
        attach_headless_articles(ws, self.language)
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
                    self.attested_adjective(w["form"].lower()) or self.gender_by_ending(w["form"].lower(), w["feats"])
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
                if coordinated or self.gender_by_ending(w["form"].lower(), w["feats"]):
                    self._as_adjective(w, None)
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
            if index + 1 in nouns and index not in nouns and w["upos"] in ("NOUN", "ADP", "ADV"):
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
            )
            if not placed:
                continue
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
