"""Pronouns: which personal pronouns of a sentence name a person whose gender the counterfactual changes
(their antecedents, impersonal subjects), and the intervention on each."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention, gender_intervention
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.tags import GENDER_SWAP
from cdaflow.morph_cda.tree_encoding import relation
from cdaflow.text.case import match_case


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
        lemmas = word_lemmas(head, generator) if generator is not None else {(head["lemma"] or "").lower()}
        if not lemmas & language.impersonal_through:
            return False
        head = next((w for w in ws if w["head"] == head["id"] and relation(w["deprel"]) == "xcomp"
                     and w["upos"] in ("VERB", "AUX")), None)
        seen += 1
    return False


def _impersonal_predicate(head: dict, ws: list[dict], language, generator) -> bool:
    """Whether `head` makes its subject pronoun impersonal (see :func:`_impersonal`)."""
    lemma = (head["lemma"] or "").lower()
    lemmas = word_lemmas(head, generator) if generator is not None else {lemma}
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
    what agrees with it or is predicated of it
    (:func:`~cdaflow.morph_cda.fixed_words.predicates_of_a_fixed_subject`), so a pronoun whose
    antecedent is a name keeps its gender too (*Paul Pelliot (né ...) est un linguiste ..., il*; *M.
    Karoubi, bloqué chez lui*), as does one whose antecedent is a name with an article, a thing's
    (*La DeLorean ... elle sert*).

    A chain with no antecedent in the sentence (*Il démissionna*, *Elle a le statut de ville*) is
    decided by the language file's ``pronoun_referents.bare`` (or the pronoun's own ``bare``: Italian
    *esso*, *essa*, as often a thing as a person): "person" (Spanish, Italian: an overt
    pronoun names a person; a thing's subject goes unsaid), or "cues" (French, where *il* and *elle*
    are as often a town, a bridge or a company as a person): a person only where the sentence says so
    of one of its pronouns (:func:`person_cue`).
    """
    language = generator.language
    features: dict[int, tuple[str | None, str]] = {}
    bare: dict[int, str] = {}  # each pronoun's own pronoun_referents.bare (it esso, essa: cues)
    for p in pronouns:
        match = language.pronoun(ws[p]["form"], ws[p]["deprel"] or "")
        features[p] = (match[1], match[0].number) if match else (None, "")
        bare[p] = (match[0].bare if match else None) or language.bare_pronouns
    people: set[int] = set()
    chain_of: dict[int, int] = {}  # a pronoun with no antecedent noun -> the first pronoun of its chain
    for p in pronouns:
        gender, number = features[p]
        if gender is None or (ws[p]["feats"] or {}).get("Person") in ("1", "2"):
            people.add(p)  # nous, vous, nosotras: the speaker's or addressee's gender, shown only by agreement
            continue
        antecedent = _antecedent(p, ws, gender, number, features, gazetteer, bare[p] == "person",
                                 language.possessors_name_persons and ws[p]["deprel"] == "nmod:poss",
                                 language.objects_skip_their_subject, language.never_antecedents)
        if antecedent is None:
            if language.objects_skip_their_subject and relation(ws[p]["deprel"]) in ("obj", "obl", "iobj"):
                continue  # an object with no antecedent here: someone else, whatever its verb says of the subject
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
        if all(bare[p] == "person" for p in members) or any(person_cue(p, ws, gazetteer, generator) for p in members):
            people.update(members)
    return {p for p in people if not _said_to_be_a_kept_noun(p, ws, features[p][0], gazetteer)}


def _said_to_be_a_kept_noun(p: int, ws: Sequence[dict], gender: str | None, gazetteer: Gazetteer) -> bool:
    """Whether pronoun `p` is the subject of a copula whose predicate is a noun phrase of its own gender
    that the gazetteer does not pair, which keeps its gender (*él es el directivo blanco*: never *ella es
    el directivo blanco*; *él es el problema* stays too): the pronoun keeps its own."""
    head = next((w for w in ws if w["id"] == ws[p]["head"]), None)
    if head is None or relation(ws[p]["deprel"]) != "nsubj" or head["upos"] != "NOUN" or gender is None:
        return False
    own = [relation(w["deprel"]) for w in ws if w["head"] == head["id"]]
    return ("cop" in own and "det" in own and (head["feats"] or {}).get("Gender") == gender
            and gazetteer.lookup(head) is None and not gazetteer.is_epicene(head))


def _antecedent(
    p: int, ws: Sequence[dict], gender: str, number: str, pronouns: dict[int, tuple], gazetteer: Gazetteer,
    persons_only: bool = False, possessor: bool = False, skip_own_subject: bool = False,
    never: frozenset[str] = frozenset(),
) -> int | None:
    """The antecedent of pronoun `p` (see :func:`pronoun_referents`): a noun's or an earlier
    pronoun's or a name's index, or None (none in the sentence). `persons_only`: a subject pronoun
    names a person (Spanish: a thing's subject goes unsaid), so only a person noun is its antecedent
    (*el desencanto ... aunque él afirma*: the minister before it). `possessor`: a possessor pronoun
    whose antecedent is a person (he language file's ``possessors_name_persons``: השופטים ... לפי רמתם
    past לדרגים), so a noun the gazetteer does not list and a name in an oblique are passed over.
    `skip_own_subject`: an object or oblique pronoun is not its own verb's subject (he
    ``objects_skip_their_subject``: a non-reflexive pronoun, המורה נתן לו: someone else). `never`: the
    language file's ``never_antecedents`` (he משהו), passed over."""
    subject = relation(ws[p]["deprel"]) in SUBJECT
    passes = ANTECEDENT_PASSES if subject else (None,)
    # a possessor's: the words above it, whose thing or whose subject thing it may still name (העמותה
    # מתעלמת מהסכמתה; תובענה שעילתה)
    above: set = set()
    by_id = {w["id"]: w for w in ws}
    head = ws[p]["head"]
    while possessor and head in by_id and head not in above:
        above.add(head)
        word, head = by_id[head], by_id[head]["head"]
        if relation(word["deprel"]) == "conj" and head in by_id:
            head = by_id[head]["head"]  # a coordinate is beside it, not above (לחו"ל עם חבריו)
    for relations in passes:
        for j in range(p - 1, -1, -1):
            w = ws[j]
            if relations is not None and relation(w["deprel"]) not in relations or (w["form"] or "").lower() in never:
                continue
            if ws[p]["deprel"] == "nmod:poss" and w["id"] == ws[p]["head"]:
                continue  # a possessor is not its own noun (he פתרונו = פתרון_ + _של_ + _הוא)
            if (skip_own_subject and not subject and relation(ws[p]["deprel"]) in ("obj", "obl", "iobj")
                    and relation(w["deprel"]) in SUBJECT and w["head"] == ws[p]["head"]):
                continue  # its own verb's subject (המורה נתן לו): a non-reflexive pronoun names someone else
            if subject and (relations is None or persons_only) and w["upos"] == "NOUN" and not (
                    gazetteer.lookup(w) is not None or gazetteer.is_epicene(w)):
                continue
            if subject and relations is None and w["upos"] != "NOUN" and j not in pronouns:
                continue
            # (a name's flat part stands where its first word does: בעין כרם, a place under a preposition)
            name_relation = relation((by_id.get(w["head"], w) if relation(w["deprel"]) == "flat" else w)["deprel"])
            if possessor and j not in pronouns and (
                    (w["upos"] == "NOUN" and gazetteer.lookup(w) is None and not gazetteer.is_epicene(w)
                     and w["id"] not in above and not (relation(w["deprel"]) in SUBJECT and w["head"] in above))
                    or (w["upos"] == "PROPN" and name_relation in ("obl", "iobj", "xcomp", "nmod"))):
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
        if not participle and word_lemmas(ws[q], generator) & language.person_predicates:
            return True
        passive = any(ws[g]["deprel"] == "aux:pass" for g in children.get(q, []))
        for c in children.get(q, []):
            marked = any(ws[g]["form"].lower() in language.predicate_markers for g in children.get(c, []))
            # a passive verb's "object" is its predicative (spaCy: est désignée meilleure joueuse/obj)
            predicative = relation(ws[c]["deprel"]) == "xcomp" or (passive and relation(ws[c]["deprel"]) == "obj")
            if (predicative or marked) and person(c):
                return True
    return False


def word_lemmas(word: dict, generator) -> set[str]:
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
