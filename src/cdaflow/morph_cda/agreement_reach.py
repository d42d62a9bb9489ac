"""Agreement reach: which words an intervention on a noun or pronoun can change, along the tree (what the
MRF may re-tag) and by plain rules (what agrees with it for certain)."""

from __future__ import annotations

from collections.abc import Sequence

from cdaflow.morph_cda.parse_repairs import is_relative_word, relative_object
from cdaflow.morph_cda.tree_encoding import relation

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
            and ws[c]["upos"] in NOMINALS and not is_relative_word(ws[c])
            for c in children.get(i, [])
        )

    def oblique_relative(i: int, c: int) -> bool:
        """`c` is a relative clause on `i` opened by a pronoun with a preposition (*il candidato, con il
        quale si è congratulato*): its verb says its own subject's gender, not the noun's."""
        return relation(ws[c]["deprel"]) == "acl" and any(
            i < g < c and ws[g]["upos"] == "PRON"
            and any(relation(ws[k]["deprel"]) == "case" for k in children.get(g, []))
            for g in children.get(c, []))

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
            relation(ws[c]["deprel"]) in CLAUSE_RELATIONS and own_subject(c)) and not agrees_with_an_object(i, c)
            and not oblique_relative(i, c)]
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
        # a finite verb with a gender, where the language file says verbs agree (he: כתב -> כתבה)
        finite = getattr(language, "finite_verbs_agree", False) and w["upos"] in ("VERB", "AUX") and bool(
            (w["feats"] or {}).get("Gender")) and (w["feats"] or {}).get("VerbForm") != "Inf" and (
            w["feats"] or {}).get("Person") not in ("1", "2")  # הכנתי: the speaker's
        numeral = getattr(language, "numerals_agree", False) and w["upos"] == "NUM" and bool(
            (w["feats"] or {}).get("Gender"))
        return w["upos"] in ("ADJ", "DET") or (w["feats"] or {}).get("VerbForm") == "Part" or finite or numeral or (
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
                if getattr(language, "finite_verbs_agree", False):  # its own copula too (he ... והייתה מצוינת)
                    for g in children.get(c, []):
                        if relation(ws[g]["deprel"]) == "cop" and agreeing(g) and g not in out:
                            out.append(g)

    def own_subject(i: int) -> bool:  # a clause with a subject of its own: la ragazza con cui lui è uscito
        return any(relation(ws[c]["deprel"]) == "nsubj" and not is_relative_word(ws[c]) for c in children.get(i, []))

    def has_object(i: int) -> bool:  # a predicative of the object: tiene nascosto un segreto
        return any(relation(ws[c]["deprel"]) == "obj" and (ws[c]["feats"] or {}).get("Reflex") != "Yes"
                   for c in children.get(i, []))

    def adverbial(verb: int, c: int) -> bool:  # an adjective used as an adverb: il sent bon, elle coûte cher
        lemma = (ws[verb].get("lemma") or "").lower()
        reflexive = any((ws[k]["feats"] or {}).get("Reflex") == "Yes" for k in children.get(verb, []))
        return (ws[c]["form"] or "").lower() in language.adverbial_adjectives and lemma not in language.be_lemmas \
            and lemma not in language.linking_verbs and not (reflexive and lemma in language.reflexive_linking_verbs)

    def oblique_relative(c: int) -> bool:  # a clause on the noun through a preposition: con il quale si è ...
        return relation(ws[c]["deprel"]) == "acl" and any(
            index < g < c and ws[g]["upos"] == "PRON" and any(relation(ws[k]["deprel"]) == "case"
                                                              for k in children.get(g, []))
            for g in children.get(c, []))

    for c in children.get(index, []):
        if relation(ws[c]["deprel"]) in _MODIFIERS and not own_subject(c) and not oblique_relative(c):
            add_with_conjuncts(c)
            if c in out and relation(ws[c]["deprel"]) == "acl" and getattr(language, "finite_verbs_agree", False):
                # a relative clause's copula agrees with the noun too (he הילדה שהייתה מפוחדת)
                for g in children.get(c, []):
                    if relation(ws[g]["deprel"]) in ("cop", "aux"):
                        add_with_conjuncts(g)
        elif (c > index and ws[c]["upos"] == "ADJ" and relation(ws[c]["deprel"]) in ("appos", "conj")
              and any(relation(ws[g]["deprel"]) == "det" for g in children.get(c, [])) and not own_subject(c)):
            # an adjective with its article apposed to the noun (le baron, 39 ans, le plus populaire des
            # ministres; spaCy: populaire a conj of baron) names it again
            add_with_conjuncts(c)
            for g in children.get(c, []):
                if relation(ws[g]["deprel"]) == "det":
                    add_with_conjuncts(g)
    # the article of a relative pronoun opening a clause on the noun (il custode, il quale ...; con il quale)
    for c in children.get(index, []):
        if relation(ws[c]["deprel"]) != "acl" or c < index:
            continue
        for g in children.get(c, []):
            if index < g < c and ws[g]["upos"] == "PRON":
                for d in children.get(g, []):
                    if (d == g - 1 and relation(ws[d]["deprel"]) == "det"
                            and language.article_tag((ws[d]["form"] or "").lower()) is not None):
                        add_with_conjuncts(d)
    # an adjective right after the noun that a parser hung on the verb (La bambina piccola/amod of piangeva)
    after = index + 1
    if after < len(ws) and ws[after]["upos"] == "ADJ" and position.get(int(ws[after]["head"] or 0)) != index:
        head_of_after = position.get(int(ws[after]["head"] or 0))
        if head_of_after is None or ws[head_of_after]["upos"] not in ("NOUN", "PROPN"):
            add_with_conjuncts(after)
    # a relative clause right after the noun that a parser hung elsewhere (Il cuoco, che era famoso/advcl)
    relative = next((k for k in (index + 1, index + 2) if k < len(ws) and is_relative_word(ws[k])
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
    if language.relative_object_agreement:
        # a perfect's participle whose object is a relative pronoun right after the noun (la cliente que
        # j'ai servie)
        found = next((k for k in (index + 1, index + 2) if k < len(ws) and relative_object(ws[k])
                      and all(ws[m]["upos"] == "PUNCT" for m in range(index + 1, k))), None)
        participle = position.get(int(ws[found]["head"] or 0)) if found is not None else None
        if participle is not None and participle > found and (ws[participle]["feats"] or {}).get("VerbForm") == "Part":
            add_with_conjuncts(participle)
    head = position.get(int(ws[index]["head"] or 0))
    # a subject a small parser attached otherwise (Quello studente/obl è molto bravo): a bare noun
    # before a head that has no subject
    misattached = (
        relation(ws[index]["deprel"]) in ("obl", "advmod", "obj", "dep") and head is not None and index < head
        and not any(relation(ws[c]["deprel"]) in ("case", "mark") for c in children.get(index, []))
        and not any(relation(ws[c]["deprel"]) == "nsubj" for c in children.get(head, []))
    )
    if relation(ws[index]["deprel"]) == "obj" and head is not None:
        # an object's predicative after it (montre le rappeur enfermé dans un salon; trouvé mon fils endormi)
        for c in children.get(head, []):
            if c > index and relation(ws[c]["deprel"]) == "xcomp" and not own_subject(c) and not has_object(c):
                add_with_conjuncts(c)
    if relation(ws[index]["deprel"]) == "nsubj" or misattached:
        if head is not None and (ws[index]["feats"] or {}).get("Number") == "Plur":
            # a distributive pronoun of a plural subject (les employés étaient là, chacun avec son
            # téléphone): a closed-class pronoun with singular forms only, beside the verb after the subject
            for c in children.get(head, []):
                form = language.full_form((ws[c]["form"] or "").lower(), None)
                if (c > index and ws[c]["upos"] == "PRON" and relation(ws[c]["deprel"]) in ("obl", "dep", "appos")
                        and language.paradigm_tag(form) is not None and not any(
                            language.paradigm_form(form, g, "Plur") for g in ("Masc", "Fem"))):
                    add_with_conjuncts(c)
        if head is not None:
            predicates = [head] + [c for c in children.get(head, []) if relation(ws[c]["deprel"]) == "xcomp"
                                   and not has_object(head) and not has_object(c) and not own_subject(c)
                                   and not adverbial(head, c)]
            for p in predicates:
                if any(relation(ws[c]["deprel"]) in ("aux", "cop")
                       and (ws[c]["feats"] or {}).get("Person") in ("1", "2") for c in children.get(p, [])):
                    continue  # a first- or second-person verb's (Ho chiamato il direttore): not the noun's
                add_with_conjuncts(p)
                if p not in out and getattr(language, "finite_verbs_agree", False):
                    # a predicate that shows no gender (he השחקן יהיה במנוחה: a noun with its preposition):
                    # its finite be-verb does, and the verbs coordinated with it share its subject (ויחזור)
                    for c in children.get(p, []):
                        if relation(ws[c]["deprel"]) in ("aux", "cop") and (
                                (ws[c].get("lemma") or "").lower() in language.be_lemmas
                                or (ws[c]["feats"] or {}).get("VerbType") == "Cop"
                                or language.paradigm_tag((ws[c]["form"] or "").lower()) is not None):
                            add_with_conjuncts(c)
                        elif relation(ws[c]["deprel"]) == "conj" and ws[c]["upos"] in ("VERB", "AUX") and c > p:
                            add_with_conjuncts(c)
                lemma = (ws[p].get("lemma") or "").lower()
                if lemma in language.linking_verbs or (lemma in language.reflexive_linking_verbs and any(
                        (ws[c]["feats"] or {}).get("Reflex") == "Yes" for c in children.get(p, []))):
                    # the adjective after a linking verb describes the subject, however parsed (il s'est
                    # senti seul/advmod, resta immobile/advmod)
                    for c in children.get(p, []):
                        if c > p and ws[c]["upos"] == "ADJ" and relation(ws[c]["deprel"]) in ("advmod", "obj", "dep"):
                            add_with_conjuncts(c)
                if ws[p]["upos"] in ("NOUN", "PROPN"):  # a predicate noun's copula participle: è stata ospite
                    for c in children.get(p, []):
                        if (relation(ws[c]["deprel"]) == "cop" and (ws[c]["feats"] or {}).get("VerbForm") == "Part"
                                and (ws[c]["lemma"] or "").lower() in language.be_lemmas):
                            add_with_conjuncts(c)
                if p in out or (ws[p]["form"] or "").lower() in language.invariable:  # è la migliore
                    for c in children.get(p, []):
                        # (and a gendered closed-class word the parser hung as an adverb: he אינם, the
                        # negative copula, with the subject's gender: הילדות אינן גדלות)
                        if relation(ws[c]["deprel"]) in _PREDICATE_PARTS or (
                                relation(ws[c]["deprel"]) == "advmod" and c < p
                                and language.paradigm_tag((ws[c]["form"] or "").lower()) is not None):
                            add_with_conjuncts(c)
                            # and a participle's own passive auxiliary (stata ritrovata/cop sana)
                            for g in children.get(c, []):
                                if relation(ws[g]["deprel"]) == "aux" and c in out:
                                    add_with_conjuncts(g)
                        elif (c < p and ws[c]["upos"] == "ADJ" and relation(ws[c]["deprel"]) in ("dep", "amod")
                              and any(relation(ws[g]["deprel"]) == "det" for g in children.get(c, []))):
                            # an adjective with its own article before the predicate (spaCy: est le
                            # premier/dep arrivé, with le under premier)
                            add_with_conjuncts(c)
                            for g in children.get(c, []):
                                if relation(ws[g]["deprel"]) == "det":
                                    add_with_conjuncts(g)
    if language.object_clitics and ws[index]["upos"] in ("NOUN", "PROPN", "PRON"):
        # an object clitic after the noun with its gender and number, no other such noun between them
        # (Ho chiamato le ragazze e le ho invitate; Mia sorella? L'ho vista): the clitic and the participle
        # it is the object of agree with it (the language file's object_clitics)
        feats = ws[index]["feats"] or {}
        for k in range(index + 1, len(ws)):
            clitic = language.clitic_tag(ws[k]["form"] or "")
            verb = position.get(int(ws[k]["head"] or 0))
            if clitic is None or relation(ws[k]["deprel"]) != "obj" or verb is None or verb < k:
                continue
            persons = {(ws[c]["feats"] or {}).get("Person") for c in [verb, *children.get(verb, [])]
                       if c == verb or relation(ws[c]["deprel"]) == "aux"}
            # (Mia sorella/nsubj? L'ho vista: a first-person verb's object, the speaker saw her)
            its_subject = (position.get(int(ws[index]["head"] or 0)) == verb
                           and relation(ws[index]["deprel"]) == "nsubj" and not persons & {"1", "2"})
            if its_subject or any(relation(ws[c]["deprel"]) in ("ccomp", "csubj") for c in children.get(verb, [])):
                # not the object of the noun's own verb (Il dottore lo disse), nor a clause's neuter lo
                # (lo disse subito, che ...)
                continue
            gender = clitic[0] or (ws[k]["feats"] or {}).get("Gender")
            if (gender, clitic[1]) != (feats.get("Gender"), feats.get("Number")):
                continue
            if any(ws[m]["upos"] in ("NOUN", "PROPN") and (ws[m]["feats"] or {}).get("Gender") == gender
                   and (ws[m]["feats"] or {}).get("Number") == clitic[1] for m in range(index + 1, k)):
                break  # a nearer antecedent
            if k not in out:
                out.append(k)
            if (ws[verb]["feats"] or {}).get("VerbForm") == "Part":
                add_with_conjuncts(verb)
    # the predicative of a passive verb with no subject (è stato nominato amministratore, è citato come
    # allievo): the verb and its participle auxiliaries say the noun's person
    head = position.get(int(ws[index]["head"] or 0))
    rel = relation(ws[index]["deprel"])
    marked = any(relation(ws[c]["deprel"]) == "case" and (ws[c]["form"] or "").lower() in language.predicate_markers
                 for c in children.get(index, []))
    if (head is not None and (rel == "xcomp" or (rel in ("obl", "nmod") and marked))
            and any(ws[c]["deprel"] == "aux:pass" for c in children.get(head, []))
            and not any(relation(ws[c]["deprel"]) in ("nsubj", "csubj") for c in children.get(head, []))):
        add_with_conjuncts(head)
        for c in children.get(head, []):
            if relation(ws[c]["deprel"]) == "aux" and (ws[c]["feats"] or {}).get("VerbForm") == "Part":
                add_with_conjuncts(c)
    return [i for i in out if ws[i]["upos"] not in ("NOUN", "PROPN") and i != index]
