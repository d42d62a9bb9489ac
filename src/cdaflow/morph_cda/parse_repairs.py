"""Tree repairs before agreement: where a parser hung a sentence's words wrongly for agreement (a person
noun under its adjective, a determiner under the verb), the words are re-attached as UD would have them."""

from __future__ import annotations

from collections.abc import Callable, Collection

from cdaflow.morph_cda.tree_encoding import relation


def attach_detached_predicate(ws: list[dict]) -> None:
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
                    and ws[i]["upos"] in ("NOUN", "PROPN", "PRON") and not is_relative_word(ws[i])), None)
    if subject is None:
        return
    verb = next((w for w in ws if w["id"] == ws[subject]["head"]), None)
    if verb is None or verb is opener or ws.index(verb) < comma or _below(opener, verb, ws):
        return
    if _below(verb, opener, ws):  # the clause hangs under the opener: it takes the opener's place
        verb["head"], verb["deprel"] = opener["head"], opener["deprel"]
    opener["head"], opener["deprel"] = verb["id"], "advcl"


def unhang_from_prefixes(ws: list[dict], nouns: Collection[int], prefixes: Collection[str]) -> None:
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


def uninvert_noun_phrases(ws: list[dict], nouns: Collection[int] = ()) -> None:
    """A noun attached as ``amod`` of an adjective, or a person noun attached as ``amod`` of
    another word of its phrase, heads it instead, with its place in the tree and its determiners
    (a parser's inversion: *Cette nouvelle voisine*, *La diosa griega*); the demoted word is an
    adjective. Not under a name: a listed word there is the name's adjective (he מזרח-פרוסיה הגרמנית)."""
    by_id = {int(w["id"]): w for w in ws}
    for index, w in enumerate(ws):
        head = by_id.get(int(w["head"] or 0))
        if relation(w["deprel"]) != "amod" or head is None:
            continue
        inverted = w["upos"] in ("NOUN", "PROPN") and head["upos"] == "ADJ"
        person = index in nouns and head["upos"] in ("NOUN", "ADJ") and ws.index(head) not in nouns
        if not (inverted or person):
            continue
        w["head"], w["deprel"] = head["head"], head["deprel"]
        head["head"], head["deprel"] = w["id"], "amod"
        if head["upos"] != "ADJ":
            head["upos"] = "ADJ"
        for other in ws:
            if other is not w and other["head"] == head["id"] and relation(other["deprel"]) in ("det", "amod"):
                other["head"] = w["id"]


def attach_nouns_and_determiners(ws: list[dict], nouns: Collection[int]) -> None:
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


def attach_prenominal_closed_class(ws: list[dict], nouns: Collection[int], language) -> None:
    """A possessive or demonstrative of the paradigms right before a person noun is its determiner,
    whatever a parser made of it; where the noun hangs under it (a small parser: *Mio*/PRON the
    subject, *fratello* its dependent) the noun takes its place in the tree."""
    for index in nouns:
        if index == 0:
            continue
        before, noun = ws[index - 1], ws[index]
        if not language.paradigm_tag(before["form"] or ""):
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


def attach_postnominal_possessives(ws: list[dict], language) -> None:
    """A possessive of the language's paradigms right after a noun modifies it (spaCy: *Un
    primo suyo vive* with *suyo* as the subject, it *Un amico mio lavora* with *mio* a det of the verb)."""
    by_id = {int(w["id"]): w for w in ws}
    for before, w in zip(ws, ws[1:]):
        head = by_id.get(int(w["head"] or 0))
        of_a_verb = relation(w["deprel"]) == "det" and head is not None and head["upos"] in ("VERB", "AUX")
        if (
            before["upos"] in ("NOUN", "PROPN")
            and language.paradigm_tag(w["form"])
            and (relation(w["deprel"]) not in ("det", "root", "cop", "aux") or of_a_verb)
            and not _below(before, w, ws)
        ):
            # a determiner of the noun (spaCy: "tuya" as a preposition, "tuyo" as an adjective)
            w["head"], w["deprel"], w["upos"] = before["id"], "det", "DET"


def attach_headless_articles(ws: list[dict], language) -> None:
    """The article of a headless relative agrees with the noun across the copula: *Mi vecino
    es el que vive arriba* (spaCy: *el* a det of *vive*). It becomes a det of that noun."""
    by_id = {int(w["id"]): w for w in ws}
    for w in ws:
        verb = by_id.get(int(w["head"] or 0))
        if (
            w["upos"] not in ("DET", "PRON")
            or language.article_tag(w["form"]) is None
            or relation(w["deprel"]) != "det"
            or verb is None
            or verb["upos"] not in ("VERB", "AUX")
            or not any(c["head"] == verb["id"] and is_relative_word(c) for c in ws)
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


def gather_noun_phrase(
    ws: list[dict], nouns: Collection[int], language, adjective: Callable[[dict], bool]
) -> list[dict]:
    """(The language file's ``nouns_by_gazetteer``: a small parser's trees.) A person noun heads its
    noun phrase: the determiners and adjectives right before it (articles, the paradigms' words, or
    `adjective` words) and the `adjective` words right after it, whatever a parser hung them on
    (it: *I miei*/NOUN *figli*/ADJ with *figli* under *miei*; *Il bravo*/nsubj *ragazzo*/obl *biondo*
    with *ragazzo* under *bravo*). The noun takes the place in the tree of the phrase's word that hangs
    outside it (unless the noun does itself; no verb or adverb before it, and after it only adjectives
    and words hung on it or its phrase, *contadino napoletano*/VERB), the others and their outside
    dependents hang on the noun. A noun still an ``obl`` or ``advmod`` with no preposition before its
    predicate is its subject (*Mio fratello e mio cugino sono alti*; *Mia zia è arrivata ieri sera*,
    whose parser's subject after the verb, *sera*, is then an oblique), and one made the root over its own verb is
    that verb's subject (*Gli altri invitati*/root *sono andati*/parataxis). Returns the words read as
    adjectives that were tagged otherwise."""
    retagged: list[dict] = []
    taken: set[int] = set()
    for index in sorted(nouns):
        noun = ws[index]
        if noun["upos"] == "PRON" or index in taken:
            continue

        def closed(w: dict) -> bool:
            form = (w["form"] or "").lower()
            return bool(language.article_tag(form) or language.paradigm_tag(language.full_form(form, None)))

        start = index  # before it: no verb or adverb (vede/VERB mio padre), and nothing but closed-class
        # words before its article (tutti i miei figli; not dal punto di vista finanziario i conti)
        while start > 0 and start - 1 not in nouns and start - 1 not in taken and (
                closed(ws[start - 1]) or (ws[start - 1]["upos"] in ("ADJ", "NOUN") and adjective(ws[start - 1])
                                          and not any(language.article_tag((w["form"] or "").lower())
                                                      for w in ws[start:index]))):
            start -= 1
        end = index  # after it: an adjective, or another word the parser hung on it (napoletano/VERB)
        while end + 1 < len(ws) and end + 1 not in nouns and not closed(ws[end + 1]) and adjective(ws[end + 1]) and (
                ws[end + 1]["upos"] == "ADJ" or ws[end + 1]["head"] in {w["id"] for w in ws[start:end + 1]}):
            end += 1
        # and a possessive right after it, wherever the parser hung it (Un'amica mia/det:poss of abita)
        if (end + 1 < len(ws) and end + 1 not in nouns and closed(ws[end + 1])
                and ((ws[end + 1]["feats"] or {}).get("Poss") == "Yes" or ws[end + 1]["deprel"] == "det:poss")):
            end += 1
        span = [ws[k] for k in range(start, end + 1)]
        ids = {w["id"] for w in span}
        taken.update(range(start, end + 1))
        if len(span) == 1:
            continue
        outside = [w for w in span if w["head"] not in ids]
        if noun not in outside and outside:
            top = next((w for w in outside if relation(w["deprel"]) not in ("det", "amod", "punct")), outside[0])
            above = next((w for w in ws if w["id"] == top["head"]), None)
            if above is None or not _below(above, noun, ws):
                noun["head"], noun["deprel"] = top["head"], top["deprel"]
        if noun["head"] in ids:
            continue  # the noun could not take the phrase's place: left as it is (no cycle)
        for w in span:
            if w is noun:
                continue
            for other in ws:  # its dependents outside the phrase go with the noun, but its conjuncts (alto e moro)
                if other["head"] == w["id"] and other["id"] not in ids and relation(other["deprel"]) not in (
                        "conj", "cc", "punct"):
                    other["head"] = noun["id"]
            w["head"] = noun["id"]
            if closed(w):
                w["deprel"] = "det"
                if w["upos"] not in ("DET", "PRON"):
                    w["upos"] = "DET"
            else:
                w["deprel"] = "amod"
                if w["upos"] != "ADJ":
                    retagged.append(w)
    by_id = {int(w["id"]): w for w in ws}
    for index in nouns:
        w = ws[index]
        head = by_id.get(int(w["head"] or 0))
        # (an advmod too: Mia zia/advmod è arrivata ieri sera/nsubj; a subject after the verb that no
        # listed noun is, sera, is then its oblique)
        later = [c for c in ws if head is not None and c["head"] == head["id"] and relation(c["deprel"]) == "nsubj"]
        if (relation(w["deprel"]) in ("obl", "advmod") and head is not None and ws.index(head) > index
                and not any(c["head"] == w["id"] and relation(c["deprel"]) in ("case", "mark") for c in ws)
                and all(ws.index(c) > ws.index(head) and ws.index(c) not in nouns and c["upos"] == "NOUN"
                        for c in later)):
            w["deprel"] = "nsubj"
            for c in later:
                c["deprel"] = "obl"
        # a person noun or pronoun made the root over its own verb (Gli altri invitati/root sono
        # andati/parataxis; Noi/root siamo rimasti/NOUN parataxis) is that verb's subject, where the verb
        # has an auxiliary and no subject of its own
        own = [c for c in ws if c["head"] == w["id"]]
        verb = next((c for c in own if relation(c["deprel"]) in ("parataxis", "dep")
                     and c["upos"] in ("VERB", "AUX", "NOUN") and ws.index(c) > index), None)
        if relation(w["deprel"]) == "root" and verb is not None:
            theirs = [c for c in ws if c["head"] == verb["id"]]
            if any(relation(c["deprel"]) in ("aux", "cop") for c in theirs) and not any(
                    relation(c["deprel"]) in ("nsubj", "csubj") for c in theirs):
                verb["head"], verb["deprel"] = w["head"], w["deprel"]
                passive = any(c["deprel"] == "aux:pass" for c in theirs)
                w["head"], w["deprel"] = verb["id"], "nsubj:pass" if passive else "nsubj"
                for c in own:
                    if relation(c["deprel"]) == "punct" and ws.index(c) > ws.index(verb):
                        c["head"] = verb["id"]
    return retagged


def raise_participles_over_nouns(ws: list[dict]) -> None:
    """A participle right after a form of essere that a small parser hung, with that verb, on a noun after
    them (it: *sono*/cop *arrivati*/amod *stamattina*/root) is the clause's verb: it takes the noun's
    place, the verb is its auxiliary, the noun its oblique, and the noun's subject is the participle's."""
    for k, w in enumerate(ws):
        if k == 0 or w["upos"] != "VERB" or (w["feats"] or {}).get("VerbForm") != "Part":
            continue
        before, head = ws[k - 1], next((h for h in ws if h["id"] == w["head"]), None)
        if (relation(w["deprel"]) != "amod" or head is None or head["upos"] != "NOUN" or ws.index(head) < k
                or before["upos"] != "AUX" or before["head"] != head["id"]
                or relation(before["deprel"]) not in ("cop", "aux")):
            continue
        w["head"], w["deprel"] = head["head"], head["deprel"]
        head["head"], head["deprel"] = w["id"], "obl"
        before["head"], before["deprel"] = w["id"], "aux"
        for other in ws:
            if other["head"] == head["id"] and relation(other["deprel"]) in ("nsubj", "aux", "cop", "punct", "advmod"):
                other["head"] = w["id"]


def attach_articles_of_adverbs(ws: list[dict], language) -> None:
    """An article hung on an adverb (a small parser: *è la*/det of *più brava*) determines the adjective
    after it that the adverb modifies: the superlative *la più brava*, whose article agrees with it."""
    by_id = {int(w["id"]): w for w in ws}
    for w in ws:
        head = by_id.get(int(w["head"] or 0))
        if (relation(w["deprel"]) != "det" or head is None or head["upos"] != "ADV"
                or language.article_tag((w["form"] or "").lower()) is None):
            continue
        target = by_id.get(int(head["head"] or 0))
        if target is not None and target["upos"] == "ADJ" and ws.index(target) > ws.index(head) > ws.index(w):
            w["head"] = target["id"]


def coordinate_listed_predicates(ws: list[dict]) -> None:
    """A list of adjectives whose second item a parser hung as a modifier of the first (spaCy: *grand,
    mince et blond* with *mince* an advmod of *grand* and *blond* a conjunct of *mince*; *grand, fort/ADV
    et rapide*): the items after a comma are conjuncts of the first, as UD has them, so that they agree
    as it does."""
    by_id = {int(w["id"]): w for w in ws}
    for index in range(1, len(ws)):
        w, head = ws[index], by_id.get(int(ws[index]["head"] or 0))
        if (relation(w["deprel"]) != "advmod" or w["upos"] not in ("ADJ", "ADV") or ws[index - 1]["form"] != ","
                or head is None or not (head["upos"] == "ADJ" or (head["feats"] or {}).get("VerbForm") == "Part")
                or ws.index(head) > index):
            continue
        last = [c for c in ws if c["head"] == w["id"] and relation(c["deprel"]) == "conj" and c["upos"] == "ADJ"
                and any(g["head"] == c["id"] and relation(g["deprel"]) == "cc" for g in ws)]
        if not last:
            continue
        w["deprel"] = "conj"
        for c in last:
            c["head"] = head["id"]


def detached_adjectives(ws: list[dict]) -> None:
    """Adjectives set off by commas after a noun (*Le voisin, fatigué et affamé, est rentré*) modify it,
    where a parser made the first a conjunct of the noun (spaCy) and the next one after *et* a
    "punct" of it: the first becomes the noun's amod, the next its conjunct."""
    by_id = {int(w["id"]): w for w in ws}
    for index in range(2, len(ws)):
        w, head = ws[index], by_id.get(int(ws[index]["head"] or 0))
        if (relation(w["deprel"]) != "conj" or head is None or head["upos"] != "NOUN"
                or not (w["upos"] == "ADJ" or (w["feats"] or {}).get("VerbForm") == "Part")
                or ws[index - 1]["form"] != "," or ws.index(head) != index - 2
                or any(c["head"] == w["id"] and relation(c["deprel"]) in ("cc", "det", "nsubj") for c in ws)):
            continue
        w["deprel"] = "amod"
        for c in ws:  # an item after et that a parser labelled punct (affamé/NOUN punct)
            if (c["head"] == w["id"] and c["deprel"] == "punct" and c["upos"] != "PUNCT"
                    and any(g["head"] == c["id"] and relation(g["deprel"]) == "cc" for g in ws)):
                c["deprel"] = "conj"


def conjuncts_of_modifiers(ws: list[dict]) -> None:
    """A conjunct of an adjectival modifier modifies the same noun (*un hombre alto y moreno*), as
    enhanced UD has it: it becomes an amod of that noun."""
    by_id = {int(w["id"]): w for w in ws}
    for w in ws:
        head = by_id.get(int(w["head"] or 0))
        if relation(w["deprel"]) == "conj" and w["upos"] == "ADJ" and head and relation(head["deprel"]) == "amod":
            w["head"], w["deprel"] = head["head"], "amod"


def _below(node: dict, ancestor: dict, ws: list[dict]) -> bool:
    """Whether `node` is `ancestor` or under it in the tree."""
    by_id = {int(w["id"]): w for w in ws}
    steps = 0
    while node is not None and steps <= len(ws):
        if node is ancestor:
            return True
        node, steps = by_id.get(int(node["head"] or 0)), steps + 1
    return False


def relative_object(word: dict) -> bool:
    """A relative pronoun that is its verb's object (spaCy: *que*/SCONJ obj, with no PronType)."""
    return relation(word["deprel"]) == "obj" and (
        is_relative_word(word) or (word["form"] or "").lower() in ("que", "qu'", "qu’"))


def is_relative_word(word: dict) -> bool:
    return "Rel" in ((word["feats"] or {}).get("PronType") or "")
