"""Choosing interventions: the animate nouns and personal pronouns of a sentence that a counterfactual
changes, each with its new gender and form."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.cda import DIRECTIONS, CounterfactualGenerator, Intervention, gender_intervention
from cdaflow.morph_cda.fixed_words import (
    apposed_to_a_thing,
    bare_after,
    in_a_compound,
    kind_of_a_thing,
    modifies_a_thing,
    name_parts,
    named_by_a_full_name,
    names_a_team,
    names_with_an_article,
    nouns_apposed_to,
    person_nouns_before_a_comma,
    predicates_of_a_fixed_subject,
    predicates_of_an_object_pronoun,
    quotations,
)
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.pronouns import pronoun_intervention, pronoun_referents
from cdaflow.morph_cda.tree_encoding import relation
from cdaflow.text.case import match_case
from cdaflow.text.normalization import read_sentence


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
    named |= nouns_apposed_to(ws, named | names_with_an_article(ws, gazetteer, generator.language))
    named |= person_nouns_before_a_comma(ws, named, gazetteer)
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
        if (modifies_a_thing(index, ws, gazetteer, generator) or apposed_to_a_thing(index, ws, gazetteer)
                or in_a_compound(index, ws, gazetteer) or bare_after(index, ws, generator.language.no_person_after)
                or names_a_team(index, ws, generator.language.team_complements)):
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
    return [i for i in out if not kind_of_a_thing(i.index, ws, gazetteer)
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
    spans = quotations(ws)
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


def _as_noun_if_coordinated(word: dict, ws: list[dict]) -> dict:
    """A word coordinated with a noun but tagged a verb, adverb or preposition (spaCy: *Mis tíos y
    primos* with *primos* a verb), as the noun it is, without the verb's features."""
    if word["upos"] not in ("VERB", "AUX", "ADV", "ADP") or relation(word["deprel"]) != "conj":
        return word
    head = next((w for w in ws if w["id"] == word["head"]), None)
    if head is None or head["upos"] not in ("NOUN", "PROPN"):
        return word
    return dict(word, upos="NOUN", feats={})
