"""French text as spaCy parses it, on hand-made trees that copy fr_core_news_md's slips: a
participle taken for a noun, a list of adjectives hung as modifiers, a superlative's adjective taken for a
pronoun, a present participle taken for an adjective, an auxiliary left unlabelled; what agrees by plain
rules (the language file's complete_agreement) and what must not (a finite verb: *il fallait*); a line
spaCy cuts into two sentences."""

import pytest

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.agreement_reach import agreeing_words
from cdaflow.morph_cda.cda import _Query
from cdaflow.morph_cda.fixed_words import kind_of_a_thing
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.hunspell import Hunspell
from cdaflow.morph_cda.interventions import interventions_for
from cdaflow.morph_cda.parse_repairs import coordinate_listed_predicates, detached_adjectives
from cdaflow.morph_cda.records import joined_at_weak_breaks
from cdaflow.text.language import load as load_language
from cdaflow.text.parsing import ends_line, mark_line_end
from tests.morph_cda.test_corpus_text import tree as spaced
from tests.morph_cda.test_everyday import FRENCH_LEXICON, tiny_generator, tree

MS, FS, MP = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing", "Gender=Masc|Number=Plur"
AUX3 = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
PART = "Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part"
ART_MS = "Definite=Def|Gender=Masc|Number=Sing|PronType=Art"
FR = Gazetteer({"chasseur": "chasseuse", "voisin": "voisine"}, {"chasseuse": "chasseur", "voisine": "voisin"})


@pytest.fixture(scope="module")
def french():
    """A tiny French generator with the lexicon check's dictionary (hunspell-fr)."""
    checker = Hunspell.find(["fr"])
    if checker is None:
        pytest.skip("hunspell and hunspell-fr are not installed (apt-get install hunspell hunspell-fr)")
    generator = tiny_generator(FRENCH_LEXICON, "fr")
    generator.hunspell = checker
    return generator


def analysed(generator, conllu: str, nouns=()) -> list[dict]:
    (sentence,) = parse_conllu_string(conllu)
    return generator.analyse(sentence, nouns)


def raw(conllu: str) -> list[dict]:
    (sentence,) = parse_conllu_string(conllu)
    return [dict(w, feats=dict(w["feats"] or {})) for w in words(sentence)]


def test_a_finite_verb_shows_no_gender_to_complete_agreement(french):
    # complete_agreement once made "il fallaite" of a verb reached through a clause
    assert load_language("fr").complete_agreement
    assert not french._gendered_form({"form": "fallait", "feats": {}})
    assert french._gendered_form({"form": "partie", "feats": {}})
    assert french._gendered_form({"form": "drôle", "feats": {}})  # epicene: still an adjective
    # without the lexicon check (the workflow's runs) a finite verb shows none either
    bare = tiny_generator(FRENCH_LEXICON, "fr")
    assert not bare._gendered_form({"form": "fallait", "feats": {"VerbForm": "Fin", "Gender": "Masc"}})
    assert bare._gendered_form({"form": "partie", "feats": {"VerbForm": "Part"}})


def test_a_participle_is_no_epicene_because_a_noun_shares_its_form(french):
    # mort is also the noun la mort (feminine): est mort -> est morte all the same
    query = _Query("mourir", "VERB", {"Gender": "Fem", "Number": "Sing"}, ("Gender=Fem", "Number=Sing"), None,
                   ("Gender=Masc", "Number=Sing"))
    assert not french._either_gender("mort", query)


def test_an_unlabelled_auxiliary_still_makes_a_perfect(french):
    # spaCy: Nul employé n'a/AUX dep protesté: the participle of avoir never agrees (not *protestée*)
    ws = raw(tree("Nul employé n'a protesté.", ("Nul", "nul", "DET", MS, 2, "det"),
                  ("employé", "employer", "NOUN", PART, 0, "root"), ("n'", "ne", "ADV", "Polarity=Neg", 5, "advmod"),
                  ("a", "avoir", "AUX", AUX3, 5, "dep"), ("protesté", "protester", "VERB", PART, 2, "xcomp"),
                  (".", ".", "PUNCT", "", 2, "punct")))
    assert french.frozen(ws) == [False, False, False, False, True, False]


def test_a_participle_taken_for_a_noun_heads_its_clause(french):
    # spaCy: Ma collègue est partie/NOUN tôt, with collègue, est and partie all under tôt
    ws = analysed(french, tree(
        "Ma collègue est partie tôt.", ("Ma", "mon", "DET", FS + "|Poss=Yes", 2, "det"),
        ("collègue", "collègue", "NOUN", FS, 5, "nsubj"), ("est", "être", "AUX", AUX3, 5, "cop"),
        ("partie", "partie", "NOUN", FS, 5, "advmod"), ("tôt", "tôt", "ADV", "", 0, "root"),
        (".", ".", "PUNCT", "", 5, "punct")), nouns=[1])
    partie = ws[3]
    assert (partie["upos"], partie["head"], partie["deprel"]) == ("VERB", 0, "root")
    assert partie["feats"]["VerbForm"] == "Part" and partie["feats"]["Gender"] == "Fem"
    assert [(w["head"], w["deprel"]) for w in ws[1:3]] == [(4, "nsubj"), (4, "aux")]
    assert (ws[4]["head"], ws[4]["deprel"]) == (4, "advmod")
    # a noun with a determiner stays a noun (elle est une partie du tout)
    noun = analysed(french, tree(
        "Elle est la partie utile.", ("Elle", "il", "PRON", FS, 4, "nsubj"), ("est", "être", "AUX", AUX3, 4, "cop"),
        ("la", "le", "DET", FS, 4, "det"), ("partie", "partie", "NOUN", FS, 0, "root"),
        ("utile", "utile", "ADJ", "Number=Sing", 4, "amod"), (".", ".", "PUNCT", "", 4, "punct")))
    assert noun[3]["upos"] == "NOUN"


def test_a_list_of_adjectives_is_coordinated():
    # spaCy: grand, fort/ADV advmod et rapide/conj of fort
    ws = raw(tree("Le champion est grand, fort et rapide.", ("Le", "le", "DET", ART_MS, 2, "det"),
                  ("champion", "champion", "NOUN", MS, 4, "nsubj"), ("est", "être", "AUX", AUX3, 4, "cop"),
                  ("grand", "grand", "ADJ", MS, 0, "root"), (",", ",", "PUNCT", "", 4, "punct"),
                  ("fort", "fort", "ADV", "", 4, "advmod"), ("et", "et", "CCONJ", "", 8, "cc"),
                  ("rapide", "rapide", "ADJ", "Number=Sing", 6, "conj"), (".", ".", "PUNCT", "", 4, "punct")))
    coordinate_listed_predicates(ws)
    assert [(w["head"], w["deprel"]) for w in (ws[5], ws[7])] == [(4, "conj"), (4, "conj")]
    # without a comma it modifies the adjective (très grand: not a list)
    plain = raw(tree("Il est vraiment grand et fort.", ("Il", "il", "PRON", MS, 4, "nsubj"),
                     ("est", "être", "AUX", AUX3, 4, "cop"), ("vraiment", "vraiment", "ADV", "", 4, "advmod"),
                     ("grand", "grand", "ADJ", MS, 0, "root"), ("et", "et", "CCONJ", "", 6, "cc"),
                     ("fort", "fort", "ADJ", MS, 4, "conj"), (".", ".", "PUNCT", "", 4, "punct")))
    coordinate_listed_predicates(plain)
    assert plain[2]["deprel"] == "advmod"


def test_adjectives_between_commas_after_a_noun_modify_it():
    # spaCy: Le voisin, fatigué/conj of voisin et affamé/NOUN punct of fatigué, est rentré tard
    ws = raw(tree("Le voisin, fatigué et affamé, est rentré.", ("Le", "le", "DET", ART_MS, 2, "det"),
                  ("voisin", "voisin", "NOUN", MS, 9, "nsubj:pass"), (",", ",", "PUNCT", "", 4, "punct"),
                  ("fatigué", "fatigué", "ADJ", MS, 2, "conj"), ("et", "et", "CCONJ", "", 6, "cc"),
                  ("affamé", "affamé", "NOUN", FS, 4, "punct"), (",", ",", "PUNCT", "", 9, "punct"),
                  ("est", "être", "AUX", AUX3, 9, "aux:pass"), ("rentré", "rentrer", "VERB", PART, 0, "root"),
                  (".", ".", "PUNCT", "", 9, "punct")))
    detached_adjectives(ws)
    assert [(w["head"], w["deprel"]) for w in (ws[3], ws[5])] == [(2, "amod"), (4, "conj")]


def test_a_superlatives_adjective_taken_for_a_pronoun_is_an_adjective(french):
    # spaCy: Ton oncle est le plus drôle/PRON Dem
    ws = analysed(french, tree(
        "Ton oncle est le plus drôle.", ("Ton", "ton", "DET", MS + "|Poss=Yes", 2, "det"),
        ("oncle", "oncle", "NOUN", MS, 6, "nsubj"), ("est", "être", "AUX", AUX3, 6, "cop"),
        ("le", "le", "DET", ART_MS, 6, "det"), ("plus", "plus", "ADV", "", 6, "advmod"),
        ("drôle", "drôle", "PRON", "PronType=Dem", 0, "root"), (".", ".", "PUNCT", "", 6, "punct")), nouns=[1])
    assert ws[5]["upos"] == "ADJ"
    assert 3 in agreeing_words(ws, 1, load_language("fr"))  # le plus drôle -> la plus drôle


def test_a_present_participle_has_no_gender(french):
    # spaCy: Tweetant/ADJ (once reinflected as *Twetante*)
    ws = analysed(french, tree(
        "Les citoyens tweetant avec passion.", ("Les", "le", "DET", "Number=Plur", 2, "det"),
        ("citoyens", "citoyen", "NOUN", MP, 0, "root"), ("tweetant", "tweetant", "ADJ", MS, 2, "amod"),
        ("avec", "avec", "ADP", "", 5, "case"), ("passion", "passion", "NOUN", FS, 3, "obl"),
        (".", ".", "PUNCT", "", 2, "punct")), nouns=[1])
    assert "Gender" not in ws[2]["feats"] and ws[2]["feats"]["Tense"] == "Pres"
    assert french.frozen(ws)[2]


def test_what_agrees_by_plain_rules():
    fr = load_language("fr")
    # est le premier arrivé (spaCy: premier a dep of arrivé, le under premier)
    first = raw(tree("Le voisin est le premier arrivé.", ("Le", "le", "DET", ART_MS, 2, "det"),
                     ("voisin", "voisin", "NOUN", MS, 6, "nsubj"), ("est", "être", "AUX", AUX3, 6, "aux:pass"),
                     ("le", "le", "DET", ART_MS, 5, "det"), ("premier", "premier", "ADJ", MS, 6, "dep"),
                     ("arrivé", "arriver", "VERB", PART, 0, "root"), (".", ".", "PUNCT", "", 6, "punct")))
    assert set(agreeing_words(first, 1, fr)) >= {3, 4, 5}
    # le baron, le plus populaire des ministres (spaCy: populaire a conj of baron)
    apposed = raw(tree("Le baron, le plus populaire des ministres, parle.", ("Le", "le", "DET", ART_MS, 2, "det"),
                       ("baron", "baron", "NOUN", MS, 10, "nsubj"), (",", ",", "PUNCT", "", 6, "punct"),
                       ("le", "le", "DET", ART_MS, 6, "det"), ("plus", "plus", "ADV", "", 6, "advmod"),
                       ("populaire", "populaire", "ADJ", "Number=Sing", 2, "conj"),
                       ("des", "de", "ADP", "", 8, "case"), ("ministres", "ministre", "NOUN", MP, 6, "nmod"),
                       (",", ",", "PUNCT", "", 6, "punct"), ("parle", "parler", "VERB", AUX3, 0, "root"),
                       (".", ".", "PUNCT", "", 10, "punct")))
    assert set(agreeing_words(apposed, 1, fr)) >= {3, 5}
    # an object's predicative: montre le rappeur enfermé
    shown = raw(tree("Elle montre le rappeur enfermé.", ("Elle", "il", "PRON", FS, 2, "nsubj"),
                     ("montre", "montrer", "VERB", AUX3, 0, "root"), ("le", "le", "DET", ART_MS, 4, "det"),
                     ("rappeur", "rappeur", "NOUN", MS, 2, "obj"), ("enfermé", "enfermer", "VERB", PART, 2, "xcomp"),
                     (".", ".", "PUNCT", "", 2, "punct")))
    assert 4 in agreeing_words(shown, 3, fr)
    assert 4 not in agreeing_words(shown, 0, fr)  # not the subject's


def test_a_person_noun_taken_for_a_determiner_is_still_a_kind():
    # spaCy: un prototype de chasseur/det monoplace/nmod: a fighter aircraft, no person
    ws = raw(tree("Un prototype de chasseur monoplace.", ("Un", "un", "DET", MS, 2, "det"),
                  ("prototype", "prototype", "NOUN", MS, 0, "root"), ("de", "de", "ADP", "", 5, "case"),
                  ("chasseur", "chasseur", "NOUN", MS, 5, "det"), ("monoplace", "monoplace", "NOUN", MS, 2, "nmod"),
                  (".", ".", "PUNCT", "", 2, "punct")))
    assert kind_of_a_thing(3, ws, FR)


def test_a_line_cut_at_a_colon_is_one_sentence_again():
    first = spaced("Commentaire du voisin :", ("Commentaire", "commentaire", "NOUN", MS, 0, "root"),
                   ("du", "de", "ADP", "", 3, "case"), ("voisin", "voisin", "NOUN", MS, 1, "nmod", "_"),
                   (":", ":", "PUNCT", "", 1, "punct", "_"))
    second = tree("il part.", ("il", "il", "PRON", MS, 2, "nsubj"), ("part", "partir", "VERB", AUX3, 0, "root"),
                  (".", ".", "PUNCT", "", 2, "punct"))
    third = tree("Il pleut.", ("Il", "il", "PRON", MS, 2, "expl:subj"), ("pleut", "pleuvoir", "VERB", AUX3, 0, "root"),
                 (".", ".", "PUNCT", "", 2, "punct"))
    sentences = parse_conllu_string(first + second + third + second)
    for sentence, sent_id in zip(sentences, ("s-1-1", "s-1-2", "s-1-3", "s-2-1")):
        sentence.metadata["sent_id"] = sent_id
    mark_line_end(sentences[2])
    mark_line_end(sentences[3])
    out = list(joined_at_weak_breaks(sentences))
    assert [s.metadata["text"] for s in out] == ["Commentaire du voisin : il part.", "Il pleut.", "il part."]
    assert [w["form"] for w in words(out[0])] == ["Commentaire", "du", "voisin", ":", "il", "part", "."]
    assert (words(out[0])[5]["head"], words(out[0])[5]["deprel"]) == (1, "parataxis")
    assert [ends_line(s) for s in out] == [False, True, True]


def test_a_distributive_pronoun_of_a_plural_subject_agrees_in_the_singular(french):
    # spaCy: chacun/PRON obl:mod of venus, with no number (the verb's plural filled in later)
    ws = analysed(french, tree(
        "Les amis sont venus, chacun avec un cadeau.", ("Les", "le", "DET", "Number=Plur", 2, "det"),
        ("amis", "ami", "NOUN", MP, 4, "nsubj"), ("sont", "être", "AUX", AUX3, 4, "aux:tense"),
        ("venus", "venir", "VERB", "Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part", 0, "root"),
        (",", ",", "PUNCT", "", 4, "punct"), ("chacun", "chacun", "PRON", "Gender=Masc", 4, "obl:mod"),
        ("avec", "avec", "ADP", "", 9, "case"), ("un", "un", "DET", MS, 9, "det"),
        ("cadeau", "cadeau", "NOUN", MS, 6, "nmod"), (".", ".", "PUNCT", "", 4, "punct")), nouns=[1])
    assert ws[5]["feats"] == {"Gender": "Masc", "Number": "Sing"}  # its form's number, not the verb's
    assert 5 in agreeing_words(ws, 1, load_language("fr"))


def test_a_little_girl_becomes_a_little_boy_not_a_son(french):
    # fr.yaml sense_counterparts: fille after petite is a girl (le petit garçon), after a possessive a daughter
    girls = Gazetteer({"fils": "fille", "garçon": "fille"}, {"fille": "fils"})

    def counterpart(text: str, determiner: tuple) -> str:
        (sentence,) = parse_conllu_string(tree(
            text, determiner, ("petite", "petit", "ADJ", FS, 3, "amod"), ("fille", "fille", "NOUN", FS, 4, "nsubj"),
            ("pleurait", "pleurer", "VERB", AUX3, 0, "root"), (".", ".", "PUNCT", "", 4, "punct")))
        (intervention,) = interventions_for(sentence, girls, french, "to-masc")
        return intervention.form

    assert counterpart("La petite fille pleurait.", ("La", "le", "DET", FS, 3, "det")) == "garçon"
    assert counterpart("Sa petite fille pleurait.", ("Sa", "son", "DET", FS + "|Poss=Yes", 3, "det")) == "fils"


def test_a_perfects_participle_agrees_with_a_relative_object(french):
    # fr.yaml relative_object_agreement: la cliente que j'ai servie (spaCy: que/SCONJ obj of servi)
    ws = raw(spaced("Le client que j'ai servi était poli.", ("Le", "le", "DET", ART_MS, 2, "det"),
                    ("client", "client", "NOUN", MS, 8, "nsubj"), ("que", "que", "SCONJ", "", 6, "obj"),
                    ("j'", "je", "PRON", "Number=Sing|Person=1", 6, "nsubj"),
                    ("ai", "avoir", "AUX", "Number=Sing|Person=1", 6, "aux:tense"),
                    ("servi", "servir", "VERB", PART, 2, "acl:relcl"), ("était", "être", "AUX", AUX3, 8, "cop"),
                    ("poli", "poli", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 8, "punct")))
    assert not french.frozen(ws)[5]
    assert 5 in agreeing_words(ws, 1, load_language("fr"))
    # a relative subject's perfect does not agree (la cliente qui a mangé)
    ws[2].update(form="qui", lemma="qui", upos="PRON", deprel="nsubj", feats={"PronType": "Rel"})
    ws[3].update(deprel="obj")
    assert french.frozen(ws)[5]
    # nor a Spanish one (la clienta que he servido)
    assert not load_language("es").relative_object_agreement


def _linking(verb: str, lemma: str, adjective: str, deprel: str, reflexive: bool) -> list[dict]:
    rows = [("Le", "le", "DET", ART_MS, 2, "det"), ("voisin", "voisin", "NOUN", MS, 4 if reflexive else 3, "nsubj")]
    if reflexive:
        rows.append(("se", "se", "PRON", "Person=3|Reflex=Yes", 4, "expl:comp"))
    head = len(rows) + 1
    rows += [(verb, lemma, "VERB", AUX3, 0, "root"), (adjective, adjective, "ADJ", MS, head, deprel),
             (".", ".", "PUNCT", "", head, "punct")]
    text = " ".join(r[0] for r in rows[:-1]) + "."
    return raw(tree(text, *rows))


def test_an_adjective_after_a_linking_verb_agrees_however_parsed():
    # spaCy: Le professeur s'est senti seul/advmod; a reflexive makes sentir and dire linking verbs
    fr = load_language("fr")
    felt = _linking("sent", "sentir", "seul", "advmod", reflexive=True)
    assert 4 in agreeing_words(felt, 1, fr)
    stayed = _linking("reste", "rester", "immobile", "advmod", reflexive=False)
    assert 3 in agreeing_words(stayed, 1, fr)
    # without the reflexive, sentir is no linking verb, and an adverbial adjective stays (il sent bon)
    smells = _linking("sent", "sentir", "bon", "xcomp", reflexive=False)
    assert 3 not in agreeing_words(smells, 1, fr)
    assert 3 not in agreeing_words(_linking("sent", "sentir", "seul", "advmod", reflexive=False), 1, fr)


def test_an_adjective_used_as_an_adverb_keeps_its_form(french):
    # Le boulanger sent bon -> La boulangère sent bon (not bonne): bon is an adverb here, not with a reflexive
    smells = _linking("sent", "sentir", "bon", "xcomp", reflexive=False)
    assert french.analyser.adverbial(smells[3], {int(w["id"]): w for w in smells})
    feels = _linking("sent", "sentir", "bon", "xcomp", reflexive=True)
    assert not french.analyser.adverbial(feels[4], {int(w["id"]): w for w in feels})
    is_good = raw(tree("Le pain est bon.", ("Le", "le", "DET", ART_MS, 2, "det"),
                       ("pain", "pain", "NOUN", MS, 4, "nsubj"), ("est", "être", "AUX", AUX3, 4, "cop"),
                       ("bon", "bon", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct")))
    assert not french.analyser.adverbial(is_good[3], {int(w["id"]): w for w in is_good})


def test_human_rights_keep_their_man():
    # les droits de l'homme (human rights), never *les droits de la femme*: a fixed phrase of fr.yaml
    from cdaflow.morph_cda.fixed_words import name_parts

    ws = raw(tree("Il défend les droits de l'homme.", ("Il", "il", "PRON", MS, 2, "nsubj"),
                  ("défend", "défendre", "VERB", AUX3, 0, "root"), ("les", "le", "DET", "Number=Plur", 4, "det"),
                  ("droits", "droit", "NOUN", MP, 2, "obj"), ("de", "de", "ADP", "", 7, "case"),
                  ("l'", "le", "DET", "Number=Sing", 7, "det"), ("homme", "homme", "NOUN", MS, 4, "nmod"),
                  (".", ".", "PUNCT", "", 2, "punct")))
    assert name_parts(ws, load_language("fr")) == [False] * 3 + [True] * 4 + [False]
