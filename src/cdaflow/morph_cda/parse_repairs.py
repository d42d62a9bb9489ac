"""Tree repairs before agreement: where a parser hung a sentence's words wrongly for agreement (a person
noun under its adjective, a determiner under the verb), the words are re-attached as UD would have them."""

from __future__ import annotations

from collections.abc import Collection

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
            and (relation(w["deprel"]) not in ("det", "root") or of_a_verb)
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


def is_relative_word(word: dict) -> bool:
    return "Rel" in ((word["feats"] or {}).get("PronType") or "")
