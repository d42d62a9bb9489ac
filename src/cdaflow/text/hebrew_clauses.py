"""A Hebrew clause's subject, adjectives, copula and predicate, and a relative clause right after a
noun, found again by the article and hspell's readings where a small parser lost them.

The parser of raw Hebrew (rule morph_cda_parser, trained on the sample's 975 HTB sentences) often
hangs a predicate on the wrong word or tags it as a noun; Study A then changes a subject and leaves its
verb and predicate (*המנהלת כתב*). :func:`repair_clauses` runs on each parsed sentence
(:mod:`cdaflow.text.hebrew`): adjectives carry their noun's article and a predicate does not; a form
of היה is the copula; a noun of either gender (*מורה*) takes its predicate's gender.
"""

from __future__ import annotations

from collections.abc import Mapping

from cdaflow.text.hspell import SUFFIX_PRONOUNS, gender_number, has_possessive_suffix

_BE = "היה"  # hspell's lemma of the copula's forms (היה, הייתה, היו, יהיה ...)
_NOMINAL_PREFIXES = frozenset({"ו", "ה", "ש", "כש"})  # prefixes a subject may carry (not ב, כ, ל, מ)
_MODIFIER_PREFIXES = (("ה",), ("ו", "ה"))  # an adjective of a definite noun: הקטן, והסקרן
_INDEFINITE_MODIFIER_PREFIXES = ((), ("ו",))
_COORDINATORS = frozenset({"אבל", "אך", ","})
_PREPOSITIONS = frozenset({"ב", "ל", "מ", "כ"})  # the prefixes of a prepositional phrase
_CLAUSE_PREFIXES = frozenset({"ו", "ש", "כש"})  # the prefixes a clause's first word may carry


def _free_noun_before(info, word) -> bool:
    """Whether `word`'s head is the noun right before it and not in the construct state."""
    k = next(k for k, (w, *_) in enumerate(info) if w is word)
    head = info[k - 1][0] if k else None
    return head is not None and head["id"] == word["head"] and head["upos"] == "NOUN" and (
        head["feats"] or {}).get("Definite") != "Cons"


def _agreeing_readings(analyses, genders: set[str], number: str | None, *, past: bool = True):
    """hspell's readings of a word as an adjective or a verb of the third person or the present that
    agree with a noun of one of `genders` and `number` (not construct, no possessive suffix)."""
    out = []
    for lemma, features in analyses:
        kind = features[0] if features else ""
        if kind not in ("ת", "פ") or has_possessive_suffix(features) or "סמיכות" in features:
            continue
        if kind == "פ" and not ("הווה" in features or (past and ("3" in features and {"עבר", "עתיד"} & set(features)))):
            continue
        gender, num = gender_number(features)
        if gender in genders and num == number:
            out.append((lemma, features))
    return out


def _as_predicate(word, readings, gender: str | None) -> None:
    """`word` retagged by its reading: an adjective (ADJ), a present-tense verb (VERB, a participle to
    HTB) or a past or future one (VERB, third person); the reading with `gender` first."""
    # an adjective before a verb; a past verb before a present one of the same lemma (נבחר, נכנס: past far
    # more often); but a present one of another lemma (a participle: עובד of עבד, מוכשר of הוכשר) first
    participle = any("הווה" in f and lemma != word["form"] for lemma, f in readings)

    def rank(reading):
        features = reading[1]
        present = "הווה" in features and features[0] == "פ"
        if participle:
            return 0 if present else (1 if features[0] == "ת" else 2)
        return 2 if present else (0 if features[0] == "ת" else 1)

    readings = sorted(readings, key=lambda r: (gender_number(r[1])[0] != gender, rank(r)))
    lemma, features = readings[0]
    gender_value, number = gender_number(features)
    feats = {"Gender": gender_value, "Number": number}
    if features[0] == "ת":
        word["upos"] = "ADJ"
    elif "הווה" in features:
        word["upos"] = "VERB"
        feats.update({"Person": "1,2,3", "VerbForm": "Part"})
    else:
        word["upos"] = "AUX" if lemma == _BE else "VERB"
        feats.update({"Person": "3", "Tense": "Past" if "עבר" in features else "Fut"})
    word["lemma"] = lemma
    word["xpos"] = None
    word["feats"] = feats


def repair_clauses(info: list, closed_class: Mapping[str, tuple[str, str]] | None = None,
                   linking_verbs: frozenset[str] = frozenset(), name_articles: frozenset[str] = frozenset()) -> None:
    """The subject and predicate of a clause, and its noun's adjectives, where the small parser lost them.

    A parser trained on 900 sentences parses *המנהל כתב* with *כתב* a noun object of *מנהל*, *המלצר היה
    עסוק* with *היה* a determiner, *התלמיד החדש והשקט ישב* with *השקט* a verb; agreement then never
    reaches the verb. Hebrew marks what a definite noun's words are: its adjectives carry its article
    (*הילד הקטן והסקרן*), its predicate does not (*הילד הקטן משחק*, *היה עייף*). So after a noun that
    opens a clause (the sentence's first, or after punctuation, a conjunction or an adverb; no
    preposition on it, no construct noun or של before it), the words that hspell reads as adjectives
    or present-tense verbs agreeing with it in gender and number are its modifiers, while they carry
    the article where it does (without: for an indefinite noun, *סופר ישראלי מפורסם*); then a form of
    היה is a copula; then the first word with no prefix that hspell reads as such an adjective or verb
    (a past or future one of the third person too) is the predicate, with the adjectives coordinated
    with it (*עייף וחולה*, *קשוח אבל הוגן*). A relative clause's first predicate right after the noun
    (*השכן שגר למעלה*, *הילדה שהייתה מפוחדת*) is an acl:relcl of it, and the main predicate may follow
    its adverbs and object. Words are retagged by their hspell reading; the tree is changed only where
    no cycle results, and otherwise left as the parser made it. `info`: each syntactic word as
    :func:`_with_multiword` collects it (word, is a prefix unit, its prefix units, hspell's analyses).
    `name_articles`: the language file's articles of foreign names (Arabic אל-), see :func:`_names_and_constructs`.
    """
    content = [k for k, (_, prefix, _, _) in enumerate(info) if not prefix]
    for word, _, units, analyses in info:
        # a numeral of the language file's paradigms has its cell's gender and number (שלושת: Masc Plur;
        # the parser: singular), also where the parser tagged it otherwise as a count (מששה או שבעה: ששה/VERB)
        counted = word["deprel"] == "nummod" or (word["deprel"] == "conj" and any(
            w["id"] == word["head"] and w["deprel"] == "nummod" for w, *_ in info))
        if (word["upos"] == "NUM" or counted and word["upos"] in ("VERB", "NOUN", "ADJ")) and (
                closed_class or {}).get(word["form"]):
            gender, number = closed_class[word["form"]]
            word["upos"], word["xpos"] = "NUM", None
            word["feats"] = {**(word["feats"] or {}), "Gender": gender, "Number": number}
        elif word["upos"] in ("VERB", "AUX") and (closed_class or {}).get(word["form"]) and not (
                word["feats"] or {}).get("Gender"):
            # a closed-class form the parser gave no gender (a modal, זכאים/AUX with VerbType=Mod only): its
            # cell's, so that it agrees with its subject (שאתם זכאים -> שאתן זכאיות)
            gender, number = closed_class[word["form"]]
            word["feats"] = {**(word["feats"] or {}), "Gender": gender, "Number": number}
        elif word["upos"] == "NOUN" and word["deprel"] in ("acl", "amod", "compound:smixut") and (
                closed_class or {}).get(word["form"]) and _free_noun_before(info, word):
            # a construct of the paradigms describing the noun before it, which is in the free state (אנשים
            # בעלי כסף, not a construct chain: אנשי משרד): its adjective
            gender, number = closed_class[word["form"]]
            word["upos"], word["xpos"], word["deprel"] = "ADJ", None, "amod"
            word["feats"] = {"Gender": gender, "Number": number, "Definite": "Cons"}
        elif word["upos"] == "NUM" and word["feats"]:
            # another numeral (מיליוני, אלפי, מאה) has one form whatever the noun's gender
            word["feats"] = {k: v for k, v in word["feats"].items() if k != "Gender"} or None
        # the second noun of a construct (פקיד התוכנית) that the parser tagged an adjective: a noun (an
        # adjective agrees with the first, it is no compound:smixut), which agrees with nothing; a word
        # hspell reads as an adjective and never as a noun is the first noun's adjective (מדריך נחמד)
        if word["deprel"] == "compound:smixut" and word["upos"] in ("ADJ", "NOUN") and any(
                f[:1] == ("ת",) for _, f in analyses) and not any(f[:1] == ("ע",) for _, f in analyses):
            word["upos"], word["xpos"], word["deprel"] = "ADJ", None, "amod"
        elif word["upos"] == "ADJ" and word["deprel"] == "compound:smixut":
            word["upos"], word["xpos"] = "NOUN", None
        # the first word of a name (צבי קפלן, חיים אביבי: flat:name under it) is a name, whatever else it is,
        # where hspell reads it or a part as a name, or it as a noun, or knows it not (not עייפה נכנסה, the
        # parser's slip; דנה כהן: hspell has כהן as a name, דנה only as a verb)
        parts = [(w, a) for w, _, _, a in info if w["deprel"] == "flat:name" and w["head"] == word["id"]]
        if word["upos"] in ("NOUN", "ADJ") and parts and (
                _may_be_a_name(analyses) or any(f[:1] == ("ע",) for _, f in analyses)
                or any(a and _may_be_a_name(a) for _, a in parts)):
            for part in [word, *(w for w, _ in parts)]:
                part["upos"], part["xpos"], part["feats"] = "PROPN", None, None
        # an adjective with a preposition of its own in a noun's relation (הודיעה על תוכניות): it stands
        # for a noun (hspell knows תוכניות only as the adjective), and agrees with nothing; so does a
        # participle (כמתנדבים, למנהלים: the one who does it, a person noun if the gazetteer lists it)
        # the article on a word hspell reads as a present-tense verb: a participle (הסופר, המנקה), which the
        # gazetteer makes a noun where it lists it (gazetteer.py: a participle after a determiner)
        if word["upos"] == "VERB" and "ה" in units and any(f[:1] == ("פ",) and "הווה" in f for _, f in analyses):
            word["feats"] = {**(word["feats"] or {}), "VerbForm": "Part"}
        # (with its own prefix: not משותף, an adjective too, nor תובעים לדין, a verb with its complement)
        participle = word["upos"] == "VERB" and bool(analyses) and all(
            f[:1] == ("פ",) and "הווה" in f for _, f in analyses) and bool(set(units) & _PREPOSITIONS)
        if (word["upos"] == "ADJ" or participle) and word["deprel"] in ("obj", "iobj", "obl", "nmod") and any(
                w["deprel"] == "case" and w["head"] == word["id"] for w, *_ in info):
            word["upos"], word["xpos"] = "NOUN", None
            if participle:  # a noun by its own form, not the verb's lemma (משותף is no שותף, "partner")
                word["lemma"] = word["form"]
        # a finite verb coordinated with one of another number has a subject of its own (התקשרו ..., ורק אז
        # התברר כי: impersonal), no shared one
        head = next((w for w, *_ in info if w["id"] == word["head"]), None) if word["deprel"] == "conj" else None
        if head is not None and word["upos"] in ("VERB", "AUX") and head["upos"] in ("VERB", "AUX") and \
                None not in (number := (word["feats"] or {}).get("Number"), (head["feats"] or {}).get("Number")) and \
                number != head["feats"]["Number"] and "Part" not in ((word["feats"] or {}).get("VerbForm"), (
                    head["feats"] or {}).get("VerbForm")):
            word["deprel"] = "parataxis"
        # an adjective after ו + a form of היה, hung on a verb as its subject or object (הגיעו מוקדם והיו
        # שקטים), or its conjunct with היה its subject: a predicate coordinated with the verb, היה its copula
        be = [k for k, (w, _, units, a) in enumerate(info) if w["head"] == word["id"] and "ו" in units
              and _is_be(a) and int(w["id"]) < int(word["id"])]
        head = next((w for w, *_ in info if w["id"] == word["head"]), None)
        if word["upos"] == "ADJ" and be and head is not None and head["upos"] in ("VERB", "AUX") and \
                word["deprel"] in ("nsubj", "obj", "dep", "xcomp", "conj"):  # (its copula a subject of it)
            word["deprel"] = "conj"
            info[be[0]][0]["upos"], info[be[0]][0]["deprel"] = "AUX", "cop"
        # the same with ו + היה the verb's conjunct and the adjective its object (הגיעו מוקדם והיו שקטים)
        entry = next((e for e in info if e[0]["id"] == word["head"]), None)
        if word["upos"] == "ADJ" and entry is not None and word["deprel"] in ("obj", "xcomp", "dep") and \
                entry[0]["deprel"] == "conj" and "ו" in entry[2] and _is_be(entry[3]):
            be, saved = entry[0], [(w["head"], w["deprel"]) for w, *_ in info]
            word["head"], word["deprel"], be["head"], be["deprel"] = be["head"], "conj", word["id"], "cop"
            if _acyclic([w for w, *_ in info]):
                be["upos"] = "AUX"
            else:
                for (w, *_), old in zip(info, saved):
                    w["head"], w["deprel"] = old
        # an adjective as an adverb (הגיעו מוקדם): it agrees with nothing
        if word["upos"] == "ADJ" and word["deprel"] == "advmod":
            word["upos"], word["xpos"], word["feats"] = "ADV", None, None
        # a word heading a construct (מדעי of איש מדעי המדינה) that hspell reads as a construct noun: a noun
        # (not one of the paradigms, made an adjective above: בעלי כסף)
        if word["upos"] == "ADJ" and not (closed_class or {}).get(word["form"]) and any(
                f[:1] == ("ע",) and "סמיכות" in f for _, f in analyses) and any(
                w["deprel"] == "compound:smixut" and w["head"] == word["id"] for w, *_ in info):
            word["upos"], word["xpos"] = "NOUN", None
            if word["deprel"] == "amod":  # the next noun of its head's construct chain (איש מדעי)
                word["deprel"] = "compound:smixut"
    for position, i in enumerate(content):
        noun, _, units, analyses = info[i]
        nouns = [f for _, f in analyses if f[:1] == ("ע",) and not has_possessive_suffix(f) and "סמיכות" not in f]
        possessed = [f for _, f in analyses if f[:1] == ("ע",) and has_possessive_suffix(f)]
        verbs = [f for _, f in analyses if f[:1] == ("פ",)]
        imperative = bool(verbs) and all("ציווי" in f for f in verbs)
        # a clause's first word read as a verb but followed by an adjective that agrees with its noun
        # reading (סופר ישראלי מפורסם הגיע: a writer, not "was told")
        # (or a participle, as person nouns often are: סופר, עובד)
        agents = nouns or [f for f in verbs if "הווה" in f and "סמיכות" not in f and not has_possessive_suffix(f)]
        described = bool(position == 0 and not units and agents and position + 1 < len(content)
                         and not info[content[position + 1]][2]
                         and any(f[:1] == ("ת",) and gender_number(f) == gender_number(agents[0])
                                 for _, f in info[content[position + 1]][3]))
        if described and not nouns:
            nouns = [("ע", *f[1:]) for f in agents]
        if noun["upos"] == "VERB" and (("ה" in units and nouns and not any("הווה" in f for f in verbs))
                                       or (imperative and possessed and position == 0) or described):
            # the article on a word that is no participle: a noun (הילדה, not the verb "she gave birth");
            # a sentence's first word that is a noun with a possessive suffix or an imperative: the noun (אחי)
            gender, number = gender_number((nouns if "ה" in units or described else possessed)[0])
            noun["upos"], noun["xpos"], noun["lemma"] = "NOUN", None, noun["form"]
            noun["feats"] = {k: v for k, v in (("Gender", gender), ("Number", number)) if v}
        feats = noun["feats"] or {}
        # a subject pronoun opens a clause too (הוא עבד: the parser's עבד a noun, "slave"); it has no adjectives
        # (after a conjunction or a relativizer too: שהוא גר, כשהיא הגיעה)
        pronoun = noun["upos"] == "PRON" and noun["deprel"] == "nsubj" and set(units) <= _CLAUSE_PREFIXES and bool(
            feats.get("Gender"))
        if pronoun:
            if feats.get("Number") in ("Sing", "Plur") and (_opens_clause(info, content, position) or units):
                _repair_clause(info, content, position, {feats["Gender"]}, feats["Number"], True, linking_verbs)
            continue
        # a clause's first word that the parser tagged an adjective and hspell reads only as a noun (הנערה
        # שנפצעה; after a noun, סובייטים, האירופים are its adjectives whatever hspell has)
        if noun["upos"] == "ADJ" and nouns and noun["deprel"] != "amod" and not any(
                f[:1] in (("ת",), ("פ",)) for _, f in analyses) and _opens_clause(info, content, position):
            noun["upos"], noun["xpos"] = "NOUN", None
        if noun["upos"] not in ("NOUN", "PROPN") or not set(units) <= _NOMINAL_PREFIXES:
            continue
        number = feats.get("Number")
        if not nouns and possessed and noun["upos"] == "NOUN":
            nouns = possessed  # אחי: a noun with its possessive suffix, definite as with the article
            number = gender_number(possessed[0])[1] or number
        genders = {gender_number(f)[0] for f in nouns} - {None} or (
            {feats["Gender"]} if feats.get("Gender") else set())
        if not genders or number not in ("Sing", "Plur") or not _opens_clause(info, content, position):
            continue
        definite = "ה" in units or nouns is possessed
        _repair_clause(info, content, position, genders, number, definite, linking_verbs)
    for position in range(len(content)):
        _relative_of(info, content, position, closed_class or {})
    _doubled_possessors(info)
    _resumptive_pronouns(info)
    _ages(info)
    _names_and_constructs(info, name_articles)


_AGES = {"בן": "Masc", "בת": "Fem"}


def _names_and_constructs(info, name_articles: frozenset[str] = frozenset()) -> None:
    """Words whose kind hspell and the spelling tell, whatever the parser tagged them.

    A word hspell knows only as a proper name (שמואל, אלכס: every analysis פרטי) is a name, which never
    changes; so are two words in a row with no prefix that hspell reads as names among other readings
    (דן לוי: "judged" and "companion" too), a given name and a surname, and a name's flat:name part. The
    first word of a hyphenated construct (כתב-העת, בית-הספר: glued to a hyphen and the
    article after it) is a noun in the construct state, never the verb hspell also reads (כתב "wrote"), so
    it takes no subject's gender. A word, a name article glued to a hyphen and the word after it (the
    Arabic אל of באב אל-ואד, עבד אל-נאצר) are one name: the first word its head, the others flat:name.
    """
    words = [w for w, *_ in info]
    for k in range(len(words) - 3):
        first, article, hyphen, last = words[k:k + 4]
        if (not info[k][1] and first["upos"] not in ("PUNCT", "ADP") and article["form"] in name_articles
                and hyphen["form"] == "-" and (article.get("misc") or {}).get("SpaceAfter") == "No"
                and (hyphen.get("misc") or {}).get("SpaceAfter") == "No" and last["upos"] != "PUNCT"):
            saved = [(w["head"], w["deprel"]) for w in (article, hyphen, last)]
            for w in (first, article, last):
                w["upos"], w["xpos"], w["feats"] = "PROPN", None, None
            for w, deprel in ((article, "flat:name"), (hyphen, "punct"), (last, "flat:name")):
                w["head"], w["deprel"] = first["id"], deprel
            if not _acyclic(words):
                for w, (head, deprel) in zip((article, hyphen, last), saved):
                    w["head"], w["deprel"] = head, deprel

    def named(k: int) -> bool:  # a word with no prefix that hspell reads as a name
        return 0 <= k < len(info) and not info[k][1] and not info[k][2] and any("פרטי" in f for _, f in info[k][3])

    for k, (word, _, _, analyses) in enumerate(info):
        only_a_name = analyses and all("פרטי" in f for _, f in analyses)
        if word["upos"] in ("NOUN", "ADJ", "VERB") and (only_a_name or named(k) and (named(k - 1) or named(k + 1))):
            word["upos"], word["xpos"], word["feats"] = "PROPN", None, None
            continue
        glued = (word.get("misc") or {}).get("SpaceAfter") == "No"
        constructs = [f for _, f in analyses if f[:1] == ("ע",) and "סמיכות" in f]
        if (word["upos"] != "NOUN" and glued and constructs and k + 2 < len(words) and words[k + 1]["form"] == "-"
                and (words[k + 1].get("misc") or {}).get("SpaceAfter") == "No" and info[k + 2][1]
                and words[k + 2]["upos"] == "DET"):
            gender, number = gender_number(constructs[0])
            word["upos"], word["xpos"] = "NOUN", None
            word["feats"] = {"Gender": gender, "Number": number, "Definite": "Cons"} if gender and number else None
    by_id = {w["id"]: w for w in words}
    for word in words:  # a name's flat:name part, whatever its tag (שמואל לוי/ADP)
        if word["deprel"] == "flat:name" and word["upos"] != "PUNCT" and (
                by_id.get(word["head"], {}).get("upos") == "PROPN"):
            word["upos"], word["xpos"], word["feats"] = "PROPN", None, None


def _may_be_a_name(analyses) -> bool:
    """Whether hspell reads a word as a name, or knows it not at all (a foreign name: קפלן, לוין)."""
    return not analyses or any("פרטי" in f for _, f in analyses)


def _ages(info) -> None:
    """בן or בת before a number is an age (הנהג, בן 50,), a noun in the construct state with the number as
    its dependent, not a name the parser made of the two."""
    words = [w for w, *_ in info]
    for word, number in zip(words, words[1:]):
        if word["form"] in _AGES and word["upos"] == "PROPN" and (number["form"] or "").isdigit():
            word["upos"], word["feats"] = "NOUN", {"Gender": _AGES[word["form"]], "Number": "Sing"}
            number["upos"], number["head"], number["deprel"], number["feats"] = (
                "NUM", word["id"], "compound:smixut", {})


def _resumptive_pronouns(info) -> None:
    """A pronoun after a preposition or as an object inside a relative clause, with the gender and number
    of the clause's noun, names that noun (a resumptive pronoun: האנשים שדיברתי איתם; קומץ אנשים שניסו
    למשוך אליהם): it agrees with the noun as a determiner does, as a doubled possessor does."""
    words = [w for w, *_ in info]
    by_id = {w["id"]: w for w in words}
    for pronoun in words:
        if pronoun["form"] not in SUFFIX_PRONOUNS.values() or pronoun["deprel"] not in ("obj", "obl", "iobj"):
            continue
        clause, steps = by_id.get(pronoun["head"]), 0
        while clause is not None and steps < 3 and clause["deprel"] in ("xcomp", "conj"):
            clause, steps = by_id.get(clause["head"]), steps + 1
        if clause is None or clause["deprel"] != "acl:relcl":
            continue
        if pronoun["deprel"] == "obj" and not any(w["head"] == clause["id"] and w["deprel"] == "nsubj"
                                                  for w in words):
            continue  # the noun is the clause's subject: its object is someone else (עצמו names the subject)
        noun = by_id.get(clause["head"])
        own, its = pronoun["feats"] or {}, (noun or {}).get("feats") or {}
        if noun is None or noun["upos"] != "NOUN" or noun["id"] > pronoun["id"] or (
                (own.get("Gender"), own.get("Number")) != (its.get("Gender"), its.get("Number"))):
            continue
        saved = (pronoun["head"], pronoun["deprel"])
        pronoun["head"], pronoun["deprel"] = noun["id"], "det"
        if not _acyclic(words):
            pronoun["head"], pronoun["deprel"] = saved


def _doubled_possessors(info) -> None:
    """A possessive suffix doubled by the של phrase after it (לבם של הפקידים, קולו של הזמר, past the
    noun's adjectives: למאבקם הפומבי של השופטים): the suffix's pronoun names that phrase's noun, so it
    agrees with it as a determiner does (a det of the noun; the language file's paradigms give its other
    forms)."""
    words = [w for w, *_ in info]
    for k, (word, _, _, _) in enumerate(info):
        if word["form"] not in SUFFIX_PRONOUNS.values() or k < 2 or words[k - 1]["form"] != "_של_":
            continue
        # the next token past the noun's adjectives (and their article): של, then the noun (after its article)
        j, noun = k + 1, words[k - 2]["id"]
        while j < len(words) and (info[j][1] or words[j]["upos"] == "ADJ" and words[j]["head"] == noun):
            j += 1
        if j >= len(words) or words[j]["form"] not in ("של", "של_"):
            continue
        j += 1
        while j < len(words) and info[j][1]:
            j += 1
        if j >= len(words) or words[j]["upos"] not in ("NOUN", "PROPN"):
            continue
        gender, number = (words[j]["feats"] or {}).get("Gender"), (words[j]["feats"] or {}).get("Number")
        own = words[k]["feats"] or {}
        # (a name shows no gender: the suffix says it, והעברתו של האקט)
        if (gender, number) == (own.get("Gender"), own.get("Number")) or words[j]["upos"] == "PROPN" and not gender:
            _as_determiner(words, word, words[j])


def _as_determiner(words, pronoun, noun) -> None:
    """`pronoun` hung on `noun` as a determiner, which agrees with it, unless that makes a cycle."""
    saved = (pronoun["head"], pronoun["deprel"])
    pronoun["head"], pronoun["deprel"] = noun["id"], "det"
    if not _acyclic(words):
        pronoun["head"], pronoun["deprel"] = saved


def _relative_of(info, content, position, closed_class) -> None:
    """A relative clause right after a noun (a comma between them or not) whose first word, with ש,
    hspell reads as a verb or adjective agreeing with the noun (אקדמאים שאינם מוזמנים, המועמד ... שהצליח
    right after its noun): an acl:relcl of the noun, with its copula (a form of היה or the negative
    copula אינו, אינה, אינם, אינן) as its cop, whatever the parser hung them on."""
    noun = info[content[position]][0]
    feats = noun["feats"] or {}
    gender, number = feats.get("Gender"), feats.get("Number")
    if noun["upos"] not in ("NOUN", "PROPN") or gender not in ("Masc", "Fem") or number not in ("Sing", "Plur"):
        return
    k = position + 1
    comma = k < len(content) and info[content[k]][0]["form"] == ","
    k += comma
    if k >= len(content):
        return
    word, _, units, analyses = info[content[k]]
    # after a comma, ה + a participle is a relative too (הפוליטיקאים, המעוניינים להיפטר)
    participle = comma and units == ("ה",) and any(
        "הווה" in f for _, f in _agreeing_readings(analyses, {gender}, number, past=False))
    if units != ("ש",) and not participle:
        return
    copula = None
    negative = closed_class.get(word["form"]) if analyses and all(lemma == "אין" for lemma, _ in analyses) else None
    if negative == (gender, number) or (_is_be(analyses) and _agreeing_readings(analyses, {gender}, number)):
        copula = content[k]
        k += 1
        if k >= len(content) or info[content[k]][2]:
            return
        analyses = info[content[k]][3]
    readings = _agreeing_readings(analyses, {gender}, number)
    if not readings:
        return
    words = [w for w, *_ in info]
    saved = [(w["head"], w["deprel"], w["upos"], w["lemma"], w["xpos"], w["feats"]) for w in words]
    predicate = words[content[k]]
    _as_predicate(predicate, readings, gender)
    if int(predicate["head"] or 0) == int(noun["id"]) and predicate["deprel"].startswith("acl") and copula is None:
        return  # the parser has it (retagged as hspell reads it: a participle, not an AUX)
    old_head = int(predicate["head"] or 0)
    if old_head == 0:  # the parser's root: the noun's head takes its place
        root = next((w for w in words if w is not predicate and int(w["head"] or 0) == int(predicate["id"])
                     and w is not noun), None)
        if root is None:
            for w, old in zip(words, saved):
                w["head"], w["deprel"], w["upos"], w["lemma"], w["xpos"], w["feats"] = old
            return
        root["head"], root["deprel"] = 0, "root"
    predicate["head"], predicate["deprel"] = noun["id"], "acl:relcl"
    mark = content[k] - 1
    while mark >= 0 and info[mark][1]:  # its ש or relativizer ה (and the copula's)
        if words[mark]["form"] in ("ש", "ה"):
            words[mark]["upos"], words[mark]["feats"] = "SCONJ", None
            words[mark]["head"], words[mark]["deprel"] = predicate["id"], "mark"
        mark -= 1
    if copula is not None:
        cop = words[copula]
        cop["upos"], cop["xpos"], cop["head"], cop["deprel"] = "AUX", None, predicate["id"], "cop"
        cop["feats"] = {**(cop["feats"] or {}), "Gender": gender, "Number": number}
        cop["feats"].pop("VerbForm", None)
        for j in range(copula - 1, -1, -1):
            if not info[j][1]:
                break
            if words[j]["form"] == "ש":
                words[j]["head"], words[j]["deprel"] = predicate["id"], "mark"
    if not _acyclic(words):
        for w, old in zip(words, saved):
            w["head"], w["deprel"], w["upos"], w["lemma"], w["xpos"], w["feats"] = old


def _opens_clause(info, content, position) -> bool:
    if position == 0:
        return True
    before = info[content[position - 1]][0]
    form = before["form"]
    if before["upos"] in ("PUNCT", "SCONJ", "CCONJ", "ADV") and form not in ("של", "של_", "את", "את_"):
        return True
    # after a quantifier or numeral that opens it (כל סטודנט, כמה שחקנים, שלושה תלמידים; שכל עובד: after
    # its relativizer)
    units = info[content[position - 1]][2]
    return before["upos"] in ("DET", "NUM") and set(units) <= _CLAUSE_PREFIXES and (
        bool(units) or _opens_clause(info, content, position - 1))


def _main_predicate_after(info, content, k: int, genders, number) -> int:
    """Where the main clause's predicate is after a relative clause's last words (its objects and
    prepositional phrases, no comma: החקלאי שמכר לנו ירקות גר, הנערה שנפצעה בתאונה כבר מרגישה): the
    first word with no prefix within four that agrees with the noun, as a past or future verb, or as an
    adjective or participle that the word before it cannot take (ירקות ... גר); else `k` as it was."""
    for j in range(k, min(k + 4, len(content))):
        word, _, units, analyses = info[content[j]]
        if word["upos"] == "PUNCT" or "ש" in units:
            break
        agreeing = _agreeing_readings(analyses, genders, number)
        finite = any(f[:1] == ("פ",) and {"עבר", "עתיד"} & set(f) for _, f in agreeing)
        before = _gender_number_of(info[content[j - 1]][0]) if j > 0 else (None, None)
        if j > k and not units and (finite or agreeing and before not in {gender_number(f) for _, f in agreeing}):
            return j
    return k


def _gender_number_of(word) -> tuple[str | None, str | None]:
    """A word's (gender, number) as tagged."""
    feats = word["feats"] or {}
    return feats.get("Gender"), feats.get("Number")


def _form_of(info, k) -> str:
    return info[k][0]["form"]


def _is_be(analyses) -> bool:
    return bool(analyses) and all(lemma == _BE and f[:1] == ("פ",) for lemma, f in analyses)


def _repair_clause(info, content, position, genders, number, definite, linking_verbs=frozenset()) -> None:
    i = content[position]
    modifiers: list[int] = []
    copula = relative = predicate = None
    relative_copula = None
    conjuncts: list[int] = []
    conjunct_copulas: dict[int, int] = {}
    k = position + 1
    ok_prefixes = _MODIFIER_PREFIXES if definite else _INDEFINITE_MODIFIER_PREFIXES
    # the noun's adjectives
    while k < len(content):
        word, _, units, analyses = info[content[k]]
        # (a construct's head is a noun; the parser's construct on a word hspell reads only as a verb is none)
        heads_construct = any(w["deprel"] == "compound:smixut" and w["head"] == word["id"] and not (
            a and all(f[:1] == ("פ",) for _, f in a)) for w, _, _, a in info)
        if units in ok_prefixes and (units or not definite) and not _is_be(analyses) and not heads_construct:
            readings = _agreeing_readings(analyses, genders, number, past=False)
            # (a conjunct of an indefinite noun's adjective is one too, whatever else it reads: צעירה ועייפה)
            conjunct = bool(modifiers) and units == ("ו",)
            if readings and (definite or conjunct or all(
                    f[0] != "פ" or "הווה" in f for _, f in analyses if f[:1] == ("פ",)) or not _past_reading(analyses)):
                modifiers.append(content[k])
                k += 1
                continue
            # a word hspell knows only as a noun that the parser made an adjective of the noun (הצעיר), or that
            # an adjective is coordinated with (אחות צעירה ועייפה: hspell has צעירה only as "young woman")
            conjoined = k + 1 < len(content) and info[content[k + 1]][2] == ("ו",) and any(
                f[:1] == ("ת",) for _, f in _agreeing_readings(info[content[k + 1]][3], genders, number))
            if not readings and (word["upos"] == "ADJ" or word["deprel"] == "amod" or conjoined) and any(
                    f[:1] == ("ע",) and gender_number(f) in {(g, number) for g in genders} and "סמיכות" not in f
                    and not has_possessive_suffix(f) for _, f in analyses):
                modifiers.append(content[k])
                k += 1
                continue
        break
    # של + a pronoun or a noun (השכן שלנו, האב של הקורבן)
    if k < len(content) and _form_of(info, content[k]) in ("של", "של_") and k + 1 < len(content):
        k += 2
        # and the noun's construct complements (של בית הספר)
        while k < len(content) and info[content[k]][0]["deprel"] == "compound:smixut" and not (
                set(info[content[k]][2]) - {"ה"}):
            k += 1
    # the noun's prepositional phrase, where an agreeing finite verb follows it (כל עובד במפעל יקבל, with
    # the phrase's construct complements: העובד בבית החולים יקבל)
    if k < len(content) and set(info[content[k]][2]) & _PREPOSITIONS:
        for j in range(k + 1, min(k + 4, len(content))):
            _, _, units, analyses = info[content[j]]
            agreeing = _agreeing_readings(analyses, genders, number)
            # or an adjective or participle that cannot be the phrase's noun's (האחיות במחלקה עסוקות)
            before = _gender_number_of(info[content[j - 1]][0])
            if not units and (any(f[:1] == ("פ",) and {"עבר", "עתיד"} & set(f) for _, f in agreeing) or (
                    agreeing and before not in {gender_number(f) for _, f in agreeing})):
                k = j
                break
            if info[content[j]][0]["deprel"] != "compound:smixut" or set(units) - {"ה"}:
                break
    # a relative clause: ש + its predicate (or a copula and its predicate)
    if k < len(content):
        word, _, units, analyses = info[content[k]]
        if units == ("ש",):
            if _is_be(analyses) and _agreeing_readings(analyses, genders, number) and k + 1 < len(content) \
                    and not info[content[k + 1]][2]:
                relative_copula = content[k]
                k += 1
                analyses = info[content[k]][3]
            readings = _agreeing_readings(analyses, genders, number)
            own_subject = not readings and any(f[:1] == ("פ",) and {"1", "2"} & set(f) for _, f in analyses)
            if not readings and not own_subject:
                return
            # (a verb of the speaker or addressee has a subject of its own: השכן שפגשתי, the noun its object)
            relative = (content[k], readings) if readings else None
            k += 1
            # the main clause's copula a few words on (התלמיד שהגיע מאוחר היה מודאג): the words before it
            # are the relative's
            ahead = next((n for n in range(k, min(k + 4, len(content))) if not info[content[n]][2]
                          and _is_be(info[content[n]][3]) and _agreeing_readings(info[content[n]][3], genders, number)),
                         None)
            if ahead is not None and all(info[content[n]][0]["upos"] != "PUNCT" for n in range(k, ahead)):
                k = ahead
            # its adverbs and object (אותי = את_ + _אני)
            while k < len(content):
                form = _form_of(info, content[k])
                if info[content[k]][0]["upos"] == "ADV" and not info[content[k]][2]:
                    k += 1
                elif form in ("את", "את_") and k + 1 < len(content):
                    k += 2
                else:
                    break
            # its other words up to a comma, then the main clause's verb (כל סטודנט שירצה ללמוד בספרייה, יקבל)
            comma = next((n for n in range(k, min(k + 8, len(content))) if _form_of(info, content[n]) == ","), None)
            after = comma + 1 if comma is not None and comma + 1 < len(content) else None
            if after is not None and not info[content[after]][2] and any(
                    f[:1] == ("פ",) for _, f in _agreeing_readings(info[content[after]][3], genders, number)) and not (
                    k < len(content) and _agreeing_readings(info[content[k]][3], genders, number)):
                k = after
            else:
                k = _main_predicate_after(info, content, k, genders, number)
    while k < len(content) and info[content[k]][0]["upos"] == "ADV" and not info[content[k]][2]:
        k += 1
    # the copula and the predicate
    if k < len(content) and not info[content[k]][2] and _is_be(info[content[k]][3]):
        if _agreeing_readings(info[content[k]][3], genders, number):
            copula = content[k]
            k += 1
            while k < len(content) and info[content[k]][0]["upos"] == "ADV" and not info[content[k]][2]:
                k += 1
    heads_construct = k < len(content) and any(
        w["deprel"] == "compound:smixut" and w["head"] == info[content[k]][0]["id"] for w, *_ in info) and not any(
        f[:1] == ("פ",) for _, f in _agreeing_readings(info[content[k]][3], genders, number))  # מספר סיפורים: a verb
    if k < len(content) and not info[content[k]][2] and not heads_construct:
        readings = _agreeing_readings(info[content[k]][3], genders, number, past=copula is None)
        if readings:
            predicate = (content[k], readings)
            k += 1
            while k < len(content):  # its coordinated adjectives: עייף וחולה, קשוח אבל הוגן, גבוה, רזה
                form, units = _form_of(info, content[k]), info[content[k]][2]
                step = 1 if form in _COORDINATORS and not units else 0
                if k + step >= len(content):
                    break
                word, _, units, analyses = info[content[k + step]]
                if units not in ((), ("ו",)) or (step == 0 and units != ("ו",)):
                    break
                own_copula = None
                if units == ("ו",) and _is_be(analyses) and _agreeing_readings(analyses, genders, number) \
                        and k + step + 1 < len(content) and not info[content[k + step + 1]][2]:
                    own_copula = content[k + step]  # והיו שקטים: a conjunct with a copula of its own
                    step += 1
                    analyses = info[content[k + step]][3]
                found = _agreeing_readings(analyses, genders, number, past=False)
                if not found:
                    break
                conjuncts.append((content[k + step], found))
                if own_copula is not None:
                    conjunct_copulas[content[k + step]] = own_copula
                k += step + 1
        elif copula is not None:
            copula = None  # a copula with a predicate noun: left as parsed
    if predicate is None and copula is not None:
        copula = None
    _apply(info, i, genders, number, modifiers, relative, relative_copula, copula, predicate, conjuncts,
           conjunct_copulas)
    # after a linking verb, the adjective it links to the subject (נראית עייפה), its complement
    if predicate is not None and predicate[1][0][0] in linking_verbs and k < len(content) and not info[content[k]][2]:
        found = [r for r in _agreeing_readings(info[content[k]][3], genders, number) if r[1][:1] == ("ת",)]
        if found:
            word = info[content[k]][0]
            saved = (word["head"], word["deprel"])
            _as_predicate(word, found, None)
            word["head"], word["deprel"] = info[predicate[0]][0]["id"], "xcomp"
            if not _acyclic([w for w, *_ in info]):
                word["head"], word["deprel"] = saved


def _past_reading(analyses) -> bool:
    return any(f[:1] == ("פ",) and {"עבר", "עתיד"} & set(f) for _, f in analyses)


def _apply(info, i, genders, number, modifiers, relative, relative_copula, copula, predicate, conjuncts,
           conjunct_copulas=None) -> None:
    words = [w for w, *_ in info]
    saved = [(w["head"], w["deprel"], w["upos"], w["lemma"], w["xpos"], w["feats"]) for w in words]
    noun = words[i]
    gender = (noun["feats"] or {}).get("Gender")
    if len(genders) > 1:
        # a noun of either gender (מורה, מרצה): the gender its adjectives and predicate show
        shown = {gender_number(f)[0] for k in modifiers for _, f in _agreeing_readings(info[k][3], genders, number,
                                                                                          past=False)}
        said = ([predicate] if predicate else []) + ([relative] if relative else []) + conjuncts
        for n, (_, found) in enumerate(said):
            genders_found = {gender_number(f)[0] for _, f in found}
            shown = shown & genders_found if shown or n else genders_found
        if len(shown) == 1:
            gender = shown.pop()
            noun["feats"] = {**(noun["feats"] or {}), "Gender": gender}
    ids = {id(w): k for k, w in enumerate(words)}

    def attach(k: int, head: int, deprel: str) -> None:
        words[k]["head"] = words[head]["id"] if head >= 0 else 0
        words[k]["deprel"] = deprel

    def own_prefixes(k: int, head_relations: dict[str, str]) -> None:
        j = k - 1
        while j >= 0 and info[j][1]:
            unit = words[j]["form"]
            if unit in head_relations:
                attach(j, k, head_relations[unit])
            j -= 1

    first = None
    for k in modifiers:
        readings = _agreeing_readings(info[k][3], genders, number, past=False)
        if readings:
            _as_predicate(words[k], readings, gender)
        if words[k]["upos"] == "VERB":
            words[k]["upos"] = "ADJ" if any(f[0] == "ת" for _, f in readings) else "VERB"
        if first is not None and "ו" in info[k][2]:
            attach(k, first, "conj")
            own_prefixes(k, {"ו": "cc", "ה": "det:def"})
        else:
            attach(k, i, "amod")
            own_prefixes(k, {"ה": "det:def"})
            first = k
    if relative is not None:
        r, readings = relative
        _as_predicate(words[r], readings, gender)
        attach(r, i, "acl:relcl")
        own_prefixes(r, {"ש": "mark"})
        if relative_copula is not None:
            _as_predicate(words[relative_copula], _agreeing_readings(info[relative_copula][3], genders, number), gender)
            attach(relative_copula, r, "cop" if words[r]["upos"] == "ADJ" else "aux")
            own_prefixes(relative_copula, {"ש": "mark"})
    if predicate is not None:
        p, readings = predicate
        _as_predicate(words[p], readings, gender)
        # the words given a place here: the clause's root among them (or the noun's head) makes the predicate root
        placed = {i, *modifiers, *(k for k, _ in conjuncts), *(k for k in (copula, relative_copula) if k is not None),
                  *([relative[0]] if relative else [])}
        old_root = next((n for n, (head, *_) in enumerate(saved) if int(head or 0) == 0), None)
        noun_head = int(saved[i][0] or 0)
        noun_head_index = next((n for n, w in enumerate(words) if int(w["id"]) == noun_head), None)
        if old_root in placed or old_root == p or noun_head == 0 or _descends(words, ids, p, i):
            words[p]["head"], words[p]["deprel"] = 0, "root"
            if old_root is not None and old_root != p and old_root not in placed:
                attach(old_root, p, "parataxis")
        elif noun_head_index is not None and noun_head_index not in placed and noun_head_index != p \
                and int(words[p]["head"] or 0) in {int(words[k]["id"]) for k in placed}:
            words[p]["head"], words[p]["deprel"] = noun_head, saved[i][1]
        for k, w in enumerate(words):  # what the parser hung on the noun after the predicate is the predicate's
            if k > p and int(w["head"] or 0) == int(noun["id"]) and k not in placed:
                attach(k, p, w["deprel"])
        attach(i, p, "nsubj")
        if copula is not None:
            _as_predicate(words[copula], _agreeing_readings(info[copula][3], genders, number), gender)
            words[copula]["upos"] = "AUX"
            attach(copula, p, "cop" if words[p]["upos"] == "ADJ" else "aux")
        for k, found in conjuncts:
            _as_predicate(words[k], found, gender)
            attach(k, p, "conj")
            own_prefixes(k, {"ו": "cc"})
            c = (conjunct_copulas or {}).get(k)
            if c is not None:
                _as_predicate(words[c], _agreeing_readings(info[c][3], genders, number), gender)
                words[c]["upos"] = "AUX"
                attach(c, k, "cop" if words[k]["upos"] == "ADJ" else "aux")
                own_prefixes(c, {"ו": "cc"})
    if not _acyclic(words):
        for w, old in zip(words, saved):
            w["head"], w["deprel"], w["upos"], w["lemma"], w["xpos"], w["feats"] = old


def _descends(words, ids, k: int, ancestor: int) -> bool:
    """Whether word k lies under word `ancestor`."""
    by_id = {int(w["id"]): n for n, w in enumerate(words)}
    seen = set()
    while k not in seen:
        seen.add(k)
        head = int(words[k]["head"] or 0)
        if head == 0:
            return False
        k = by_id[head]
        if k == ancestor:
            return True
    return False


def _acyclic(words) -> bool:
    by_id = {int(w["id"]): n for n, w in enumerate(words)}
    for start in range(len(words)):
        k, steps = start, 0
        while int(words[k]["head"] or 0) != 0:
            k = by_id.get(int(words[k]["head"]))
            steps += 1
            if k is None or steps > len(words):
                return False
    return sum(1 for w in words if int(w["head"] or 0) == 0) >= 1
