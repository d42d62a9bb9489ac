"""Words a counterfactual keeps: parts of proper names, nouns whose gender a name or a kept subject fixes,
and person nouns that name no person here (a thing's adjective, a role, part of a compound)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from cdaflow.morph_cda.agreement_reach import CLAUSE_RELATIONS
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.tree_encoding import relation
from cdaflow.text.case import name_cased

# after these a sentence or a quotation may begin, capitalised
SENTENCE_OPENERS = frozenset(".:;!?¿¡«»\"“”„'‘’()[]—–-…")


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
    capital and no verb: a nickname or a title (*on l'appelait « Le roi de la comédie »*). And the
    words of the language file's ``fixed_phrases`` where they occur in a row (*como un solo hombre*)."""
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

    for start, end in quotations(ws):
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
    lowered = [(w["form"] or "").lower() for w in ws]
    for phrase in language.fixed_phrases:  # a fixed expression: como un solo hombre, comme un seul homme
        for start in range(len(ws) - len(phrase) + 1):
            if tuple(lowered[start:start + len(phrase)]) == phrase:
                out[start:start + len(phrase)] = [True] * len(phrase)
    return out


QUOTES = {"«": "»", "“": "”", "„": "“", '"': '"', "‘": "’"}


def quotations(ws: Sequence[dict]) -> list[tuple[int, int]]:
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


def named_by_a_full_name(ws: Sequence[dict], language=None) -> set[int]:
    """Words a full name names (0-based): a given name and a surname, two or more capitalised
    names in a row, fix the person's gender, so that a noun tied to one is no intervention (*el
    presidente Alberto Fujimori*, *Claudio Aranzadi, predecesor de*, *Juan Pérez es ministro*;
    never *la presidenta Alberto Fujimori*). Tied: the name follows it, a comma alone parts them,
    or one arc joins them (apposition, flat name, or subject and predicate of a copula). A title before one name (*el
    Doctor Pérez*) is not tied to a full name and changes. The comma may be followed by the noun's own
    adverbs and adjectives and, with a language, by one of its ``predicate_markers``
    (*Yeliu Yélev, entonces líder*; *Ricardo García, como jugador*)."""
    markers = language.predicate_markers if language is not None else frozenset()
    capitalised = [name_cased(w["form"] or "") for w in ws]
    position = {int(w["id"]): i for i, w in enumerate(ws)}
    in_name = [w["upos"] == "PROPN" and capitalised[i] for i, w in enumerate(ws)]
    for i, w in enumerate(ws):  # a capitalised given name tagged a noun, in a flat name (spaCy: Hosni Moubarak)
        head = position.get(int(w["head"] or 0))
        if relation(w["deprel"]) == "flat" and head is not None and capitalised[head] and in_name[i]:
            in_name[head] = in_name[head] or (head > 0 and ws[head]["upos"] in ("NOUN", "X"))
        # and a capitalised surname tagged otherwise in a name's flat (spaCy: Marc Petit/ADJ)
        if relation(w["deprel"]) == "flat" and head is not None and in_name[head] and capitalised[i] and i > 0:
            in_name[i] = True
    n = len(ws)
    full = {i for i in range(n) if in_name[i] and (i + 1 < n and in_name[i + 1] or i > 0 and in_name[i - 1])}
    if not full:
        return set()
    copulas = {int(w["head"] or 0) for w in ws if relation(w["deprel"]) == "cop"}
    out = set()
    for index, w in enumerate(ws):
        # right before a full name; a capitalised title, before two names (el Rey Juan Carlos); a participle
        # with its article is a noun too (he הסופרת מירב אלון)
        nominal = w["upos"] in ("NOUN", "PROPN", "ADJ", "X") or (
            (w["feats"] or {}).get("VerbForm") == "Part" and any(
                c["head"] == w["id"] and relation(c["deprel"]) == "det" for c in ws))
        # (not a construct noun whose complement the name is: he שחקני מכבי תל אביב, the team's players)
        construct = index + 1 < n and relation(ws[index + 1]["deprel"]) == "compound" and position.get(
            int(ws[index + 1]["head"] or 0)) == index
        if nominal and index + 1 in full and not construct and (
                not in_name[index] or index + 2 < n and in_name[index + 2]):
            out.add(index)
            # and the noun before the adjectives it has there (he הפרופסור אמריטוס שמואל אביטל), not before
            # a participle, which may take the name (un médico atendido Pedro Ruiz: another person)
            k = index
            while k > 0 and ws[k]["upos"] == "ADJ" and (ws[k]["feats"] or {}).get("VerbForm") != "Part" and ws[
                    k - 1]["upos"] in ("NOUN", "ADJ") and (
                    position.get(int(ws[k]["head"] or 0)) == k - 1 or position.get(int(ws[k - 1]["head"] or 0)) == k):
                k -= 1  # (however the parser hung the two on each other)
                out.add(k)
        # set off by a comma, however a parser attached it: *son frère, Jean Dupont,*
        # (before it, the comma may be followed by the noun's own adverbs and adjectives,
        # and by a predicate marker: *Yeliu Yélev, entonces líder*, *Ricardo García, como jugador*)
        start = index
        while start > 0 and _said_of_the_noun(start - 1, index, ws, position, markers):
            start -= 1
        end = _construct_end(index, ws, position)
        comma = [end + 2 if end + 1 < n and ws[end + 1]["form"] == "," else None,
                 start - 2 if start > 0 and ws[start - 1]["form"] == "," else None]
        if not in_name[index] and w["upos"] == "NOUN" and any(c in full for c in comma if c is not None):
            out.add(index)
        head = position.get(int(w["head"] or 0))
        rel = relation(w["deprel"])
        # a full name right after a participle that takes it (a naming verb's: *un médico llamado Pedro
        # Ruiz*, *un ingénieur appelé Jean Dupont*) names the noun the participle modifies (or, past a
        # name it was hung on, the noun of that name: *un ingeniero de Mecklenburgo llamado Sigfried Marcus*)
        if index in full and head == index - 1 and not in_name[head] and (ws[head]["feats"] or {}).get(
                "VerbForm") == "Part" and relation(ws[head]["deprel"]) in ("amod", "acl"):
            k = position.get(int(ws[head]["head"] or 0))
            while k is not None and in_name[k] and relation(ws[k]["deprel"]) == "nmod":
                k = position.get(int(ws[k]["head"] or 0))
            if k is not None and ws[k]["upos"] == "NOUN" and not in_name[k]:
                out.add(k)
        if head is None or not (rel in ("appos", "flat") or rel == "nsubj" and int(ws[head]["id"]) in copulas):
            continue
        if index in full and not in_name[head]:
            out.add(head)
        if head in full and not in_name[index]:
            out.add(index)
    # and its conjuncts: *Théodore Herzl, journaliste, écrivain et fondateur*
    return _with_conjuncts(out, ws, position)


def _construct_end(index: int, ws: Sequence[dict], position: Mapping[int, int]) -> int:
    """The last word of noun `index` with the construct or prepositional complements right after it,
    their articles, prepositions and name parts (he שחקן בית שאן, שחקן הקבוצה, המורה לאנגלית): the
    noun's phrase before a comma."""
    end = index
    while end + 1 < len(ws):
        k = end + 1
        while ws[k]["upos"] in ("DET", "ADP") and k + 1 < len(ws) and position.get(int(ws[k]["head"] or 0)) == k + 1:
            k += 1  # the complement's article or preposition (ל + אנגלית)
        if not (relation(ws[k]["deprel"]) in ("compound", "flat", "nmod") and index <= position.get(
                int(ws[k]["head"] or 0), -1) < k):
            return end
        end = k
    return end


def _said_of_the_noun(k: int, noun: int, ws: Sequence[dict], position: Mapping[int, int],
                      markers: Collection[str]) -> bool:
    """Whether word `k`, before `noun`, belongs to the noun's phrase between a comma and it: an adverb
    or adjective hung on a word from it to the noun (*entonces líder*, *nuevo presidente*), or a
    predicate marker on the noun (*como jugador*). Not a determiner: after a comma, *la ministra* may be
    the next of a list of persons (*Juan Pérez, la ministra y el secretario*)."""
    w = ws[k]
    head = position.get(int(w["head"] or 0))
    if head is None or not k < head <= noun:
        return False
    rel = relation(w["deprel"])
    if rel in ("mark", "case"):
        return head == noun and (w["form"] or "").lower() in markers
    return rel in ("advmod", "amod") and w["upos"] in ("ADV", "ADJ")


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


def modifies_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer, generator) -> bool:
    """A person noun used as an adjective of a thing noun before it (*el grupo inversor*, *le pays
    producteur*): it names no person. The noun before is a thing's: no person noun, and no
    adjective the reinflection lexicon attests (*Cette nouvelle voisine*: a parser's inversion). An
    adjective of a name before it is the name's, whose gender stays (he מזרח-פרוסיה הגרמנית)."""
    word = ws[index]
    head = next((k for k, w in enumerate(ws) if w["id"] == word["head"]), None)
    if head is not None and head < index and ws[head]["upos"] == "PROPN" and relation(word["deprel"]) == "amod":
        return True
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
    return generator.analyser.attested_adjective((thing["form"] or "").lower()) is None


def in_a_compound(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
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


def bare_after(index: int, ws: Sequence[dict], words_before: Collection[str]) -> bool:
    """A person noun right after one of the language file's ``no_person_after`` with no determiner
    (fr *rédacteur en chef*, *en breton*: a rank, a language), naming no one."""
    return (index > 0 and (ws[index - 1]["form"] or "").lower() in words_before
            and not any(w["head"] == ws[index]["id"] and relation(w["deprel"]) == "det" for w in ws))


def another_of_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer, language) -> bool:
    """A person noun with one of the language file's ``another_words`` (es *otro*) coordinated with a
    thing's noun: another of those things, no person (*un virus o cualquier otro invasor*)."""
    if not language.another_words:
        return False
    word = ws[index]
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    inside = {int(word["id"])}  # the noun and its determiners (cualquier otro: otro hangs on cualquier)
    for _ in range(2):
        inside |= {int(w["id"]) for w in ws if int(w["head"] or 0) in inside and relation(w["deprel"]) == "det"}
    if not any((w["lemma"] or "").lower() in language.another_words for w in ws if int(w["id"]) in inside
               and w is not word):
        return False
    others = [position.get(int(word["head"] or 0))] if relation(word["deprel"]) == "conj" else []
    others += [i for i, w in enumerate(ws) if w["head"] == word["id"] and relation(w["deprel"]) == "conj"]
    return any(k is not None and ws[k]["upos"] == "NOUN" and gazetteer.lookup(ws[k]) is None
               and not gazetteer.is_epicene(ws[k]) for k in others)


def names_a_team(index: int, ws: Sequence[dict], competitions: Collection[str]) -> bool:
    """A person noun with a team competition (the language file's ``team_complements``) as its
    complement (*el campeón de Liga*, *el líder de la Copa*): it names a team, not a person."""
    if not competitions:
        return False
    word = ws[index]
    return any(w["head"] == word["id"] and relation(w["deprel"]) == "nmod"
               and ((w["lemma"] or "").lower() in competitions or (w["form"] or "").lower() in competitions)
               for w in ws)


def kind_of_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
    """A singular person noun with no determiner after a bare *de* under a thing's noun: a kind or
    a role, not a person of its own (*un prototype de chasseur*, *le titre de grand maître*, *el
    cargo de director técnico*; after *a*: *la candidatura a vicepresidente*), which changes only with
    its clause's subject, the holder (:func:`~cdaflow.morph_cda.interventions.interventions_for`); under a
    possessed noun it is the possessor's role (*en su etapa de jugador*), and a plural is a number of
    persons (*millones de dominicanos*)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    while relation(ws[index]["deprel"]) == "conj" and position.get(int(ws[index]["head"] or 0)) is not None:
        index = position[int(ws[index]["head"])]  # de técnicos y jugadores: the first conjunct decides
    word = ws[index]
    head = position.get(int(word["head"] or 0))
    own = [w for w in ws if w["head"] == word["id"]]
    if relation(word["deprel"]) == "det" and head == index + 1 and ws[head]["upos"] in ("NOUN", "ADJ"):
        # a person noun made the determiner of the word after it (spaCy: un prototype de chasseur/det
        # monoplace/nmod): the phrase's place and its preposition are the person noun's
        phrase = ws[head]
        own += [w for w in ws if w["head"] == phrase["id"] and w is not word]
        word = dict(word, head=phrase["head"], deprel=phrase["deprel"])
        head = position.get(int(word["head"] or 0))
    if (head is None or relation(word["deprel"]) != "nmod" or ws[head]["upos"] != "NOUN"
            or (word["feats"] or {}).get("Number") == "Plur"):
        return False
    # de, or a of a candidacy's aim (la candidatura a vicepresidente)
    bare_de = any(relation(w["deprel"]) == "case" and (w["form"] or "").lower() in ("de", "d'", "d’", "a")
                  for w in own)
    if not bare_de or any(relation(w["deprel"]) == "det" for w in own):
        return False
    thing = ws[head]
    possessed = any(w["head"] == thing["id"] and (w["feats"] or {}).get("Poss") == "Yes" for w in ws)
    return not possessed and gazetteer.lookup(thing) is None and not gazetteer.is_epicene(thing)


def apposed_to_a_thing(index: int, ws: Sequence[dict], gazetteer: Gazetteer) -> bool:
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


def nouns_apposed_to(ws: Sequence[dict], fixed: set[int]) -> set[int]:
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


def marked_after_a_name(ws: Sequence[dict], gazetteer: Gazetteer, language) -> set[int]:
    """Nouns (0-based) right after one of the language file's ``predicate_markers`` that follows a name
    (*Pérez como presidente*, he גרוסבורד כמנהל): they say what the named person is, whose gender the
    counterfactual keeps; their conjuncts too. Not a plural noun after a name that is no coordination:
    one name is not several people (עובדים זרים מתאילנד כמתנדבים: the workers are the volunteers)."""
    position = {int(w["id"]): i for i, w in enumerate(ws) if isinstance(w["id"], int)}
    coordinated = {int(w["head"] or 0) for w in ws if relation(w["deprel"]) == "conj"}
    out = set()
    for i in range(2, len(ws)):
        marker, name = ws[i - 1], ws[i - 2]
        if (ws[i]["upos"] == "NOUN" and (marker["form"] or "").lower() in language.predicate_markers
                and position.get(int(marker["head"] or 0)) == i and name["upos"] == "PROPN"
                and name_cased(name["form"] or "") and gazetteer.lookup(name) is None
                and ((ws[i]["feats"] or {}).get("Number") != "Plur" or int(name["id"]) in coordinated)):
            out.add(i)
    return _with_conjuncts(out, ws, position)


def person_nouns_before_a_comma(ws: Sequence[dict], fixed: set[int], gazetteer: Gazetteer) -> set[int]:
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

    def becomes(verb: int, noun: int) -> bool:
        """A bare noun after *en* under a reflexive verb says what the subject becomes (*se erigió en
        dueño*, *se convirtió en presidente*); with a determiner it may be a place or a person of its
        own (*se fijó en un profesor*)."""
        own = [ws[g] for g in children.get(noun, [])]
        return (any(relation(g["deprel"]) == "case" and (g["form"] or "").lower() == "en" for g in own)
                and not any(relation(g["deprel"]) == "det" for g in own)
                and any((ws[g]["feats"] or {}).get("Reflex") == "Yes" for g in children.get(verb, [])))

    def elected(noun: int) -> bool:
        """A bare singular noun hung under a passive verb, not its agent: its predicative, however the
        parser attached it (*élue en 2001 conseillère générale*: an obl with the date's *en*)."""
        own = [ws[g] for g in children.get(noun, [])]
        return ((ws[noun]["feats"] or {}).get("Number") != "Plur" and ws[noun]["deprel"] != "obl:agent"
                and not any(relation(g["deprel"]) == "det" for g in own)
                and not any(relation(g["deprel"]) == "case" and (g["form"] or "").lower() in ("par", "por")
                            for g in own))

    def a_name(w: dict) -> bool:
        return (w["upos"] == "PROPN" and name_cased(w["form"] or "") and gazetteer.lookup(w, sentence) is None
                and language.paradigm_tag(w["form"]) is None and language.pronoun(w["form"], w["deprel"] or "") is None)

    def predicates(head: int) -> list[int]:
        """The predicate nouns of a clause headed by `head` said of its subject: the head after a
        copula; a predicative complement (*fue elegida concejala*, *élue conseillère*, an object of a
        passive verb); and those of
        a coordinated clause with no subject of its own (*comió con él y fue su compañero*)."""
        # a noun with a preposition after the copula is no predicate noun: *es de mi hermano* names the
        # owner, who is not the subject (*ese coche*) and changes on his own
        said_of = not any(relation(ws[c]["deprel"]) == "case" for c in children.get(head, []))
        # (or a nominal sentence with no copula, the noun the root with a subject: he אני סטודנט)
        nominal = relation(ws[head]["deprel"]) == "root" and any(
            relation(ws[c]["deprel"]) == "nsubj" for c in children.get(head, []))
        copular = (int(ws[head]["id"]) in copulas or nominal) and ws[head]["upos"] in ("NOUN", "PROPN", "ADJ")
        copular = copular and said_of
        found = [head] if copular else []
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
            # a noun after a predicate marker says what the subject is (he גדלים כיהודים, es trabaja como camarero),
            # however a small parser hung it (he iobj, dep); with an object, what the object is (הזמינו עובדים
            # כמתנדבים)
            objects = any(relation(ws[g]["deprel"]) == "obj" for g in children.get(head, []))
            marked = ws[c]["upos"] == "NOUN" and rel not in ("nsubj", "conj", "appos", "compound") and not objects
            marked = marked and any(
                relation(ws[g]["deprel"]) in ("case", "mark")
                and (ws[g]["form"] or "").lower() in language.predicate_markers for g in children.get(c, []))
            if marked:
                found.append(c)
            elif (rel == "xcomp" or (rel == "obj" and passive)) and ws[c]["upos"] in ("NOUN", "PROPN", "ADJ"):
                found.append(c)  # a passive verb's "object" is its predicative (a parser's slip)
            elif rel in ("obj", "obl") and ws[c]["upos"] == "NOUN" and (becomes(head, c) or passive and elected(c)):
                found.append(c)
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
            or a_name(w)
            # a relative pronoun whose clause hangs on a name (el Grupo Protexa, quien se erigió en dueño)
            or (w["upos"] == "PRON" and "Rel" in (feats.get("PronType") or "")
                and relation(ws[head]["deprel"]) == "acl" and position.get(int(ws[head]["head"] or 0)) is not None
                and a_name(ws[position[int(ws[head]["head"])]]))
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
