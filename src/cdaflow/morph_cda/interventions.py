"""Choosing interventions: the animate nouns and personal pronouns of a sentence that a counterfactual
changes, each with its new gender and form."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Sequence

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.cda import DIRECTIONS, CounterfactualGenerator, Intervention, gender_intervention
from cdaflow.morph_cda.fixed_words import (
    another_of_a_thing,
    apposed_to_a_thing,
    bare_after,
    in_a_compound,
    kind_of_a_thing,
    marked_after_a_name,
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
from cdaflow.morph_cda.parse_repairs import gather_noun_phrase
from cdaflow.morph_cda.pronouns import pronoun_intervention, pronoun_referents
from cdaflow.morph_cda.surface import WHOLE_WORD
from cdaflow.morph_cda.tree_encoding import relation
from cdaflow.text import language as languages
from cdaflow.text.case import match_case
from cdaflow.text.hebrew_possessives import counterpart_with_suffix, suffixed_readings
from cdaflow.text.hspell import gender_number, own_features
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
    retagged: set[int] = set()
    if generator.language.nouns_by_gazetteer:
        sentence, retagged = _gathered(sentence, gazetteer, generator)
    ws = words(sentence)
    in_names = name_parts(ws, generator.language)
    named = named_by_a_full_name(ws, generator.language) | predicates_of_a_fixed_subject(
        ws, gazetteer, generator.language, sentence)
    named |= nouns_apposed_to(ws, named | names_with_an_article(ws, gazetteer, generator.language))
    named |= person_nouns_before_a_comma(ws, named, gazetteer)
    named |= predicates_of_an_object_pronoun(ws, generator.language) | marked_after_a_name(
        ws, gazetteer, generator.language)
    pronouns: list[Intervention] = []  # kept where they name a person (pronoun_referents), once the nouns are known
    for index, word in enumerate(ws):
        if in_names[index] or index in named:
            continue
        noun = _as_noun_if_coordinated(word, ws)
        language = generator.language
        if (word["form"] or "").lower() in language.thing_forms or _names_a_body(index, ws, language) or (
                _a_definite_thing(index, ws, language)):
            continue  # it i conti: accounts; la Camera dei rappresentanti: a body (the language file's lists)
        split = len(word["form"] or "") > 1 and word["form"].endswith("_")  # he אם_ of אמו (+ _של_ _הוא)
        found = None if split else gazetteer.lookup(noun, sentence)
        if not found:
            possessed = _possessed_noun(index, word, sentence, gazetteer, generator, direction)
            if possessed is not None:
                out.append(possessed)
            if possessed is not None or split:
                continue
            pronoun = pronoun_intervention(index, word, sentence, generator, direction)
            if pronoun is not None:
                pronouns.append(pronoun)
            continue
        if (modifies_a_thing(index, ws, gazetteer, generator) or apposed_to_a_thing(index, ws, gazetteer)
                or in_a_compound(index, ws, gazetteer) or bare_after(index, ws, generator.language.no_person_after)
                or names_a_team(index, ws, generator.language.team_complements)
                or another_of_a_thing(index, ws, gazetteer, generator.language)
                or _no_one(index, ws, generator.language)):
            continue
        if _another_number(word, found, generator):
            continue  # שכירות/Sing: the rent, not the list's plural of שכירה
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
        form = _construct_state(form, index, ws, generator.language)
        plurals = {gazetteer.plurals.get((found.lemma, g)) for g in ("Masc", "Fem")}
        gendered_plural = found.number == "Plur" and len(plurals) == 2 and None not in plurals
        written = (word["form"] or "").lower()
        older_feminine = written in gazetteer.to_masc and written != found.lemma
        if found.kind == "common" and not gendered_plural and not older_feminine:
            form = word["form"]  # one form for both genders: the one written (israelís, not the list's israelíes)
        # (the list's form where the plural shows the gender, it colleghi -> colleghe, or the written
        # form is an older feminine: la presidentessa -> il presidente)
        intervention = gender_intervention(index, noun, generator, new_gender, form=form, lemma=new_lemma)
        if word["upos"] != "NOUN" or index in retagged:
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
    return [i for i in out if (not kind_of_a_thing(i.index, ws, gazetteer)
            or _clause_subject(i.index, ws) in changing)
            and _age_holder(i.index, ws, generator.language) in changing | {None}]


def _possessed_noun(
    index: int, word: dict, sentence: Sentence, gazetteer: Gazetteer, generator: CounterfactualGenerator,
    direction: str,
) -> Intervention | None:
    """The intervention on a Hebrew noun with a possessive suffix whose noun the gazetteer pairs (with
    hspell as the lexicon check): *דודי* -> *דודתי*, and, where HTB splits the suffix off (*אמו* = אם_
    + _של_ + _הוא), the split noun, whose new form is the whole new word with its suffix (*אביו__*: the
    multiword token is rebuilt from it, :func:`~cdaflow.morph_cda.surface.rebuild_multiword`). A
    possessed noun takes the language file's possessed sense (*אשתו* -> *בעלו*). None where the word is
    none of these, or hspell knows no such word."""
    hspell = getattr(getattr(generator, "hunspell", None), "hspell", None)
    if hspell is None or word["upos"] not in ("NOUN", "PROPN"):
        return None
    split = (word["form"] or "").endswith("_")
    written = _possessed_surface(sentence, word, hspell) if split else word["form"]
    if not written or not split and not _only_one_nouns(hspell, written):
        return None  # a whole word hspell reads otherwise too (בתי: houses of, or my daughter; עובדה: a fact)
    language = generator.language
    # (a singular reading first: אחיו is his brother more often than his brothers)
    readings = sorted(suffixed_readings(hspell, written),
                      key=lambda reading: gender_number(own_features(reading[1]))[1] != "Sing")
    for lemma, features in readings:
        number = gender_number(own_features(features))[1] or "Sing"
        # (hspell spells אישה, the gazetteer אשה)
        for spelled in dict.fromkeys((lemma, lemma[:1] + lemma[1:].replace("י", "", 1))):
            if spelled in language.thing_forms:
                continue  # נשיאותו, מועמדותו: his presidency, his candidacy
            found = gazetteer.lookup(dict(word, form=spelled, lemma=spelled, upos="NOUN", feats={}))
            if found is None or found.number != "Sing" or (direction == "to-fem" and found.gender != "Fem") or (
                    direction == "to-masc" and found.gender != "Masc"):
                continue  # (hspell's lemma is a singular: a plural form in the list is another word)
            new_lemma = found.lemma
            senses = language.sense_counterparts.get(gazetteer.to_fem.get(found.lemma, "")) if (
                found.gender == "Masc") else None
            if senses:
                new_lemma = senses[0]  # possessed: אשתו is his wife
            old_gender = "Fem" if found.gender == "Masc" else "Masc"
            plurals = {spelled: gazetteer.plurals.get((spelled, old_gender)),
                       new_lemma: gazetteer.plurals.get((new_lemma, found.gender))}
            new = counterpart_with_suffix(hspell, written, spelled, number, new_lemma, plurals)
            if new is not None:
                intervention = gender_intervention(index, word, generator, found.gender,
                                                   form=new + WHOLE_WORD if split else new, lemma=new_lemma)
                intervention.upos = "NOUN"
                return intervention
    return None


def _another_number(word: dict, found, generator: CounterfactualGenerator) -> bool:
    """Whether a word the gazetteer reads in one number is tagged in the other and the dictionary (hspell)
    has a noun of that number spelled so: another word (he שכירות/Sing, rent, not the list's plural of
    שכירה, hired women)."""
    hspell = getattr(getattr(generator, "hunspell", None), "hspell", None)
    tagged = (word["feats"] or {}).get("Number")
    if hspell is None or tagged in (None, found.number):
        return False
    written = word["form"] or ""
    return any(not r.prefix and f[:1] == ("ע",) and gender_number(f)[1] == tagged and lemma != found.lemma
               for r in hspell.readings([written]).get(written, ()) for lemma, f in r.analyses)


def _only_one_nouns(hspell, written: str) -> bool:
    """Whether hspell reads `written` only as forms of one noun (דודי: my uncle, or uncles of; אשתי)."""
    readings = hspell.readings([written]).get(written, ())
    lemmas = {lemma for r in readings for lemma, f in r.analyses if f[:1] == ("ע",) and not r.prefix}
    return len(lemmas) == 1 and all(not r.prefix and all(f[:1] == ("ע",) for _, f in r.analyses) for r in readings)


def _possessed_surface(sentence: Sentence, word: dict, hspell) -> str | None:
    """The written word of a split noun with its suffix (אמו of אם_ _של_ _הוא, without the prefixes
    of its token: לאמו); None where hspell reads the token with its prefixes as a word of its own."""
    for token in sentence:
        span = token["id"]
        if isinstance(span, tuple) and span[0] <= word["id"] <= span[2]:
            before = "".join((w["form"] or "").strip("_") for w in sentence
                             if isinstance(w["id"], int) and span[0] <= w["id"] < word["id"])
            if before and any(not r.prefix for r in hspell.readings([token["form"]]).get(token["form"], ())):
                return None  # a word of its own split as prefix + word (כלכלתה: its economy, not כ + לכלתה)
            return token["form"][len(before):] if token["form"].startswith(before) else None
    return None


def _a_definite_thing(index: int, ws: Sequence[dict], language) -> bool:
    """Whether word `index` is one of the language file's ``definite_things`` with its article and no
    possessor: a thing far more often than a person (he החברה: the company or society; החברה שלי, חברתי:
    my friend)."""
    word = ws[index]
    if (word["form"] or "").lower() not in language.definite_things:
        return False
    children = [w for w in ws if w["head"] == word["id"]]
    return any(w["upos"] == "DET" and (w["feats"] or {}).get("PronType") == "Art"
               for w in children) and not any((w["deprel"] or "") == "nmod:poss" for w in children)


def _age_holder(index: int, ws: Sequence[dict], language) -> int | None:
    """The holder (0-based) of an age (he מעריצה בת 21, השחקן, בן 30, האיש היה בן 40): a noun of the
    language file's ``age_nouns`` before a number, or right before one of its ``age_units`` (הפסקה בת
    חודש), says the age of the noun it is attached to or of its subject, and changes only with it; None
    where it is no age or has no holder (בת 21 נעצרה: the person)."""
    word = ws[index]
    unit = index + 1 < len(ws) and (ws[index + 1]["form"] or "").lower() in language.age_units
    if (word["form"] or "").lower() not in language.age_nouns or not unit and not any(
            w["upos"] == "NUM" and w["head"] == word["id"] for w in ws[index + 1:index + 4]):
        return None
    before = next((k for k in range(index - 1, -1, -1) if ws[k]["upos"] != "PUNCT"), None)
    if before is not None and ws[before]["upos"] in ("NOUN", "PROPN", "PRON"):
        return before  # the noun right before it (a parser may attach the age to the verb)
    position = {w["id"]: k for k, w in enumerate(ws)}
    head = position.get(word["head"])
    if head is not None and relation(word["deprel"]) in ("acl", "appos", "amod", "nmod") and ws[head]["upos"] in (
            "NOUN", "PROPN", "PRON"):
        return head
    return next((k for k, w in enumerate(ws) if w["head"] == word["id"] and relation(w["deprel"]) == "nsubj"), None)


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
    other than a place's, of a singular noun only, a pronoun or a person noun) fr *femme* is a wife
    (*sa femme* -> *son mari*, *la femme de Paul* -> *le mari de Paul*), without one a woman (*cette
    femme* -> *cet homme*, *la femme de Saint Michel* -> *l'homme*), whatever the gazetteer pairs it with."""
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
                # (a name has one wife: las mujeres de Izquierda Unida are its women)
                child["upos"] == "PRON" or (child["upos"] == "PROPN" and found.number != "Plur")
                or gazetteer.lookup(child) is not None
                or gazetteer.is_epicene(child)):
            possessed = True
    masculine = senses[0] if possessed else senses[1]
    if not possessed:  # an adjective before it that fixes the sense: la petite fille -> le petit garçon
        adjectives = language.sense_adjectives.get(gazetteer.to_fem.get(found.lemma, ""), {})
        for child in ws:
            if (child["head"] == noun["id"] and relation(child["deprel"]) == "amod"
                    and int(child["id"]) < int(noun["id"]) and (child["lemma"] or "").lower() in adjectives):
                masculine = adjectives[(child["lemma"] or "").lower()]
    if masculine == found.lemma:
        return found
    form = masculine if found.number == "Sing" else gazetteer.plurals.get((masculine, "Masc"))
    return dataclasses.replace(found, lemma=masculine, form=form)


def _gathered(
    sentence: Sentence, gazetteer: Gazetteer, generator: CounterfactualGenerator
) -> tuple[Sentence, set[int]]:
    """(The language file's ``nouns_by_gazetteer``.) A copy of the sentence in which the words the
    gazetteer lists are nouns where a small parser tagged them otherwise after a determiner
    (:func:`_as_noun_after_a_determiner`) and their noun phrases hang on them (parse_repairs
    gather_noun_phrase), so that what decides the interventions reads the repaired tree (*Giovanni è il
    mio migliore amico*/ADJ: a name's predicate); and the 0-based indices of the words made nouns."""
    sentence = copy.deepcopy(sentence)
    ws = words(sentence)
    listed, retagged = set(), set()
    for index, word in enumerate(ws):
        if word["upos"] == "PRON" and generator.language.pronoun(word["form"] or "", "nsubj") is not None:
            listed.add(index)  # a subject pronoun the parser made the root (Noi/root siamo rimasti)
            continue
        noun = _as_noun_after_a_determiner(index, word, ws, gazetteer, generator)
        if gazetteer.lookup(noun, sentence) is None:
            continue
        listed.add(index)
        if noun is not word:
            retagged.add(index)
            word["upos"], word["feats"] = "NOUN", dict(noun["feats"] or {}) or None
    for word in gather_noun_phrase(ws, listed, generator.language, generator.analyser.noun_phrase_adjective):
        word["upos"] = "ADJ"
    return sentence, retagged


def _as_noun_after_a_determiner(
    index: int, word: dict, ws: list[dict], gazetteer: Gazetteer, generator: CounterfactualGenerator
) -> dict:
    """(The language file's ``nouns_by_gazetteer``.) A word the gazetteer lists that a small parser
    tagged an adverb, adposition, verb, conjunction or adjective (it: *Un famoso scrittore*/ADV, *le
    sorelle*/ADP, *i miei figli*/ADJ), as the noun it is: right after a determiner, or after a
    determiner and a word before it (``prenominal``: *il nuovo*/ADJ *impiegato*/ADJ, not *la squadra
    americana*/ADJ); an adjective before a listed word tagged a noun stays that noun's (*un vecchio*/ADJ
    *contadino*/NOUN), or right after one of the language file's ``predicate_markers`` (*come
    infermiere*/VERB). An adjective keeps its own features."""
    if word["upos"] not in ("ADV", "ADP", "VERB", "AUX", "CCONJ", "SCONJ", "ADJ", "X"):
        return word
    determiners = languages.determiner_forms()

    def determiner(w: dict) -> bool:
        return w["upos"] == "DET" or (w["form"] or "").lower() in determiners

    def listed(w: dict) -> bool:
        return w["upos"] not in ("PUNCT", "ADP") and gazetteer.lookup(dict(w, upos="NOUN", feats={})) is not None

    before = [ws[k] for k in (index - 1, index - 2) if k >= 0]
    adjective = generator.analyser.attested_adjective

    def prenominal(w: dict) -> bool:
        """The word between the determiner and this one: an adjective, or a word tagged a noun before a
        word no modifier is tagged (Un famoso/NOUN scrittore/ADV); not a noun it modifies (la squadra
        americana/ADJ, la squadra invitata/VERB) or one the lexicon knows only as a noun."""
        form = (w["form"] or "").lower()
        if listed(w) and adjective(form) is None:
            return False
        return w["upos"] == "ADJ" or (w["upos"] == "NOUN" and word["upos"] in ("ADV", "ADP", "CCONJ", "SCONJ", "X")
                                      and not generator.analyser.attested_noun(form))

    opened = bool(before) and (determiner(before[0]) or (
        len(before) == 2 and determiner(before[1]) and not determiner(before[0]) and prenominal(before[0])))
    # (or right after a predicate marker: lavora come infermiere/VERB, an "infinitive" to a small parser)
    opened = opened or (bool(before) and (before[0]["form"] or "").lower() in generator.language.predicate_markers
                        and word["upos"] in ("VERB", "ADJ", "ADV", "X"))
    after = ws[index + 1] if index + 1 < len(ws) else None
    # an adjective before a listed word the parser calls a noun is that noun's (un vecchio contadino)
    if not opened or (word["upos"] == "ADJ" and after is not None and after["upos"] == "NOUN" and listed(after)):
        return word
    return dict(word, upos="NOUN", feats=dict(word["feats"] or {}) if word["upos"] == "ADJ" else {})


def _construct_state(form: str | None, index: int, ws: Sequence[dict], language) -> str | None:
    """The new form of a noun in the construct state (the language file's ``construct_state``: a noun
    with Definite=Cons or a dependent in its relation): he *שר המשפטים* -> *שרת המשפטים*, *אנשי משרד*
    -> *נשות משרד*, not the free forms *שרה*, *נשים*."""
    construct = language.construct_state
    if not form or not construct:
        return form
    word = ws[index]
    if (word["feats"] or {}).get("Definite") != "Cons" and not any(
            w["head"] == word["id"] and w["deprel"] == construct["relation"] for w in ws[index + 1:index + 2]):
        return form
    lower = form.lower()
    if lower in construct["forms"]:
        return construct["forms"][lower]
    for pattern, replacement in construct["endings"]:
        if re.search(pattern, lower):
            return re.sub(pattern, replacement, lower)
    return form


def _no_one(index: int, ws: Sequence[dict], language) -> bool:
    """Whether word `index` is one of the language file's ``no_one.words`` with no determiner and a
    ``no_one.negations`` word near it (he *איש לא התכוון*, *לא היה איש*, *איש, כולל ..., לא הורשה*):
    "no one", not a man."""
    words, negations = language.no_one
    word = ws[index]
    if (word["form"] or "").lower() not in words or any(
            w["head"] == word["id"] and relation(w["deprel"]).startswith("det")
            and (w["form"] or "").lower() not in negations for w in ws):  # (a negation is no determiner: אף איש)
        return False
    if index > 0 and relation(ws[index - 1]["deprel"]) in ("det", "case") and ws[index - 1]["head"] == word["id"] \
            and (ws[index - 1]["form"] or "").lower() not in negations:
        return False  # a prefix of its own (ה, ב, ל: האיש, לאיש)
    near = [w for w in ws[max(0, index - 3): index + 8] if w is not word]
    return any((w["form"] or "").lower() in negations for w in near)


def _names_a_body(index: int, ws: Sequence[dict], language) -> bool:
    """Whether word `index` is a plural noun with the language file's ``body_preposition`` (it *di*, or
    its fused forms) or in a construct as the complement of one of the language file's ``body_nouns``
    (it *la Camera dei rappresentanti*, he *ועד העובדים*): the body's name, not persons."""
    word = ws[index]
    if not language.body_nouns or (word["feats"] or {}).get("Number") == "Sing":
        return False
    head = next((w for w in ws if w["id"] == word["head"]), None)
    if head is not None and relation(word["deprel"]) == "amod" and head is not word:
        return _names_a_body(ws.index(head), ws, language)  # he איגוד הפועלים החקלאיים: the name's adjective
    if head is None or (head["lemma"] or head["form"] or "").lower() not in language.body_nouns and (
            head["form"] or "").lower() not in language.body_nouns:
        return False
    if word["deprel"] == "compound:smixut":  # he: the body's construct, איגוד הפועלים, ועד העובדים
        return True
    return language.body_preposition is not None and any(
        w["head"] == word["id"] and relation(w["deprel"]) == "case"
        and language.fused.get((w["form"] or "").lower(), ((w["lemma"] or "").lower(),))[0] == language.body_preposition
        for w in ws)


def _as_noun_if_coordinated(word: dict, ws: list[dict]) -> dict:
    """A word coordinated with a noun but tagged a verb, adverb or preposition (spaCy: *Mis tíos y
    primos* with *primos* a verb), as the noun it is, without the verb's features."""
    if word["upos"] not in ("VERB", "AUX", "ADV", "ADP") or relation(word["deprel"]) != "conj":
        return word
    head = next((w for w in ws if w["id"] == word["head"]), None)
    if head is None or head["upos"] not in ("NOUN", "PROPN"):
        return word
    if any(w["head"] == word["id"] and relation(w["deprel"]) in ("aux", "nsubj") for w in ws):
        return word  # a verb with its own auxiliary or subject (Shamir ha inviato/conj una lettera)
    return dict(word, upos="NOUN", feats={})
