"""Which pronouns name a person (cda.pronoun_referents): a pronoun follows its antecedent in the
sentence; a French one with none changes only with a cue that it is a person; impersonal il is no
one, and no pronoun changes by agreement alone. Hand-made trees, tiny models."""

import pytest

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.cda import CounterfactualGenerator
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.interventions import interventions_for
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.pronouns import pronoun_intervention
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from tests.morph_cda.test_everyday import FRENCH_LEXICON, FS, MS, tree


def generator(conllu: str, lang: str, more_tags=()) -> CounterfactualGenerator:
    """A tiny untrained MRF and a reinflector trained on `conllu` (as test_everyday's fixtures)."""
    sentences = parse_conllu_string(conllu)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags([tag_from_feats(w["feats"]) for s in sentences for w in words(s)]
                                       + list(more_tags))
    return CounterfactualGenerator(AgreementMRF(inventory, "base", lang), reinflector, lang, log_alpha=1.0)


@pytest.fixture(scope="module")
def french():
    return generator(FRENCH_LEXICON, "fr")


@pytest.fixture(scope="module")
def spanish_generator():
    from tests.morph_cda.test_cda import LEXICON

    return generator(LEXICON, "es", [("Gender=Masc", "Number=Plur"), ("Gender=Fem", "Number=Plur")])


IL = ("il", "il", "PRON", "Gender=Masc|Number=Sing|Person=3")
V3 = "Mood=Ind|Number=Sing|Person=3|VerbForm=Fin"
AUX3 = "Number=Sing|Person=3"
PEOPLE = Gazetteer({"directeur": "directrice", "serveur": "serveuse"},
                   {"directrice": "directeur", "serveuse": "serveur"})


def changed(generator, conllu: str, gazetteer: Gazetteer = PEOPLE) -> list[str]:
    """The forms of the words intervened on (flip)."""
    (sentence,) = parse_conllu_string(conllu)
    return [words(sentence)[i.index]["form"] for i in interventions_for(sentence, gazetteer, generator, "flip")]


def test_a_pronoun_follows_its_antecedent(french):
    # a thing before it: the village is what il is; a person noun: il changes with it
    village = tree("Le village est au sud et il jouxte la ville.",
                   ("Le", "le", "DET", MS, 2, "det"), ("village", "village", "NOUN", MS, 5, "nsubj"),
                   ("est", "être", "AUX", AUX3, 5, "cop"), ("au", "à", "ADP", "", 5, "case"),
                   ("sud", "sud", "NOUN", MS, 0, "root"), ("et", "et", "CCONJ", "", 8, "cc"),
                   (*IL, 8, "nsubj"), ("jouxte", "jouxter", "VERB", V3, 5, "conj"),
                   ("la", "le", "DET", FS, 10, "det"), ("ville", "ville", "NOUN", FS, 8, "obj"),
                   (".", ".", "PUNCT", "", 5, "punct"))
    assert changed(french, village) == []
    director = tree("Le directeur est arrivé et il jouxte la ville.",
                    ("Le", "le", "DET", MS, 2, "det"), ("directeur", "directeur", "NOUN", MS, 4, "nsubj"),
                    ("est", "être", "AUX", AUX3, 4, "aux"), ("arrivé", "arriver", "VERB", "Gender=Masc|Number=Sing|"
                                                              "Tense=Past|VerbForm=Part", 0, "root"),
                    ("et", "et", "CCONJ", "", 7, "cc"), (*IL, 7, "nsubj"), ("jouxte", "jouxter", "VERB", V3, 4, "conj"),
                    ("la", "le", "DET", FS, 9, "det"), ("ville", "ville", "NOUN", FS, 7, "obj"),
                    (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(french, director) == ["directeur", "il"]
    # a month in an oblique is no antecedent of a subject: il is a person by its verb
    may = tree("Le 6 mai, il démissionne.", ("Le", "le", "DET", MS, 3, "det"), ("6", "6", "NUM", "", 3, "nummod"),
               ("mai", "mai", "NOUN", MS, 6, "obl:mod"), (",", ",", "PUNCT", "", 3, "punct"),
               (*IL, 6, "nsubj"), ("démissionne", "démissionner", "VERB", V3, 0, "root"),
               (".", ".", "PUNCT", "", 6, "punct"))
    assert changed(french, may) == ["il"]


def test_a_french_pronoun_with_no_antecedent_needs_a_person_cue(french):
    place = tree("Il est situé sur la rive.", (*IL, 3, "nsubj:pass"), ("est", "être", "AUX", AUX3, 3, "aux:pass"),
                 ("situé", "situer", "VERB", "Gender=Masc|Number=Sing|VerbForm=Part", 0, "root"),
                 ("sur", "sur", "ADP", "", 6, "case"), ("la", "le", "DET", FS, 6, "det"),
                 ("rive", "rive", "NOUN", FS, 3, "obl"), (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(french, place) == []
    # a person noun as its predicate, with comme, shared by the participle's clause
    waiter = tree("Engagé comme serveur, il part.",
                  ("Engagé", "engager", "VERB", "Gender=Masc|Number=Sing|VerbForm=Part", 6, "advcl"),
                  ("comme", "comme", "ADP", "", 3, "case"), ("serveur", "serveur", "NOUN", MS, 1, "obl"),
                  (",", ",", "PUNCT", "", 1, "punct"), (*IL, 6, "nsubj"), ("part", "partir", "VERB", V3, 0, "root"),
                  (".", ".", "PUNCT", "", 6, "punct"))
    assert changed(french, waiter) == ["serveur", "il"]
    # a chain: the second il is a person (chez lui), so the first, the same one, changes too
    home = tree("Il part et il dort chez lui.", (*IL, 2, "nsubj"), ("part", "partir", "VERB", V3, 0, "root"),
                ("et", "et", "CCONJ", "", 5, "cc"), (*IL, 5, "nsubj"), ("dort", "dormir", "VERB", V3, 2, "conj"),
                ("chez", "chez", "ADP", "", 7, "case"), ("lui", "lui", "PRON", "Gender=Masc|Number=Sing|Person=3",
                                                         5, "obl"),
                (".", ".", "PUNCT", "", 2, "punct"))
    assert changed(french, home) == ["il", "il", "lui"]


def test_a_spanish_pronoun_with_no_antecedent_is_a_person(spanish_generator):
    he = tree("Él llegó.", ("Él", "él", "PRON", "Gender=Masc|Number=Sing|Person=3", 2, "nsubj"),
              ("llegó", "llegar", "VERB", V3, 0, "root"), (".", ".", "PUNCT", "", 2, "punct"))
    assert changed(spanish_generator, he, Gazetteer()) == ["Él"]
    # en él: the project, a thing before it
    project = tree("El proyecto es bueno y en él trabajan.",
                   ("El", "el", "DET", MS, 2, "det"), ("proyecto", "proyecto", "NOUN", MS, 4, "nsubj"),
                   ("es", "ser", "AUX", AUX3, 4, "cop"), ("bueno", "bueno", "ADJ", MS, 0, "root"),
                   ("y", "y", "CCONJ", "", 8, "cc"), ("en", "en", "ADP", "", 7, "case"),
                   ("él", "él", "PRON", "Gender=Masc|Number=Sing|Person=3", 8, "obl"),
                   ("trabajan", "trabajar", "VERB", "Number=Plur|Person=3", 4, "conj"),
                   (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(spanish_generator, project, Gazetteer()) == []


def test_impersonal_il_through_a_modal_with_a_clause_and_with_en(french):
    """*il devrait y avoir* (the infinitive's verb decides), *il est capital de partir* (a
    predicate of the file's with_clause, with a clause), *il n'en est rien* (être with en)."""
    modal = tree("Il devrait y avoir du monde.", (*IL, 2, "expl:subj"),
                 ("devrait", "devoir", "VERB", V3, 0, "root"), ("y", "y", "PRON", "Person=3", 4, "expl:comp"),
                 ("avoir", "avoir", "VERB", "VerbForm=Inf", 2, "xcomp"), ("du", "de", "DET", MS, 6, "det"),
                 ("monde", "monde", "NOUN", MS, 4, "obj"), (".", ".", "PUNCT", "", 2, "punct"))
    capital = tree("Il est capital de partir.", (*IL, 3, "nsubj"), ("est", "être", "AUX", AUX3, 3, "cop"),
                   ("capital", "capital", "ADJ", MS, 0, "root"), ("de", "de", "ADP", "", 5, "mark"),
                   ("partir", "partir", "VERB", "VerbForm=Inf", 3, "dep"), (".", ".", "PUNCT", "", 3, "punct"))
    nothing = tree("Il n'en est rien.", (*IL, 4, "expl:subj"), ("n'", "ne", "ADV", "Polarity=Neg", 4, "advmod"),
                   ("en", "en", "PRON", "Person=3", 4, "expl:comp"), ("est", "être", "VERB", V3, 0, "root"),
                   ("rien", "rien", "PRON", "", 4, "obj"), (".", ".", "PUNCT", "", 4, "punct"))
    for text in (modal, capital, nothing):
        (parsed,) = parse_conllu_string(text)
        assert pronoun_intervention(0, words(parsed)[0], parsed, french, "flip") is None, text
    # without a clause, il est capital says something of him
    person = tree("Il est capital.", (*IL, 3, "nsubj"), ("est", "être", "AUX", AUX3, 3, "cop"),
                  ("capital", "capital", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 3, "punct"))
    (parsed,) = parse_conllu_string(person)
    assert pronoun_intervention(0, words(parsed)[0], parsed, french, "flip") is not None


def test_an_impersonal_il_reached_by_agreement_stays_il(french, monkeypatch):
    """spaCy's expletive il (expl:subj) closes its clause (*car il fallait partir* after a changed
    noun became *car il fallaite partir*), and no pronoun changes by agreement alone: an il the MRF
    gave the changed noun's gender became *ile*."""
    from cdaflow.morph_cda.agreement_reach import agreement_reach
    from cdaflow.morph_cda.cda import Intervention

    text = tree("La femme est partie car il fallait partir.",
                ("La", "le", "DET", FS, 2, "det"), ("femme", "femme", "NOUN", FS, 4, "nsubj"),
                ("est", "être", "AUX", AUX3, 4, "aux"),
                ("partie", "partir", "VERB", "Gender=Fem|Number=Sing|VerbForm=Part", 0, "root"),
                ("car", "car", "CCONJ", "", 7, "cc"), ("il", "il", "PRON", "Gender=Masc|Number=Sing|Person=3", 7,
                                                         "expl:subj"),
                ("fallait", "falloir", "VERB", V3, 4, "conj"), ("partir", "partir", "VERB", "VerbForm=Inf", 7, "xcomp"),
                (".", ".", "PUNCT", "", 4, "punct"))
    (parsed,) = parse_conllu_string(text)
    assert not agreement_reach(words(parsed), [1]) & {5, 6, 7}
    # an il in reach (hung on the participle, a parser's slip) that the MRF makes feminine stays il
    (slip,) = parse_conllu_string(text.replace("\t7\texpl:subj", "\t4\texpl:subj"))
    feminine = french.inventory.index(("Gender=Fem", "Number=Sing"))
    intervene = french.mrf.intervene

    def il_made_feminine(batch, fixed, *args, **kwargs):
        predicted = intervene(batch, fixed, *args, **kwargs)
        predicted[0, 5] = feminine
        return predicted

    monkeypatch.setattr(french.mrf, "intervene", il_made_feminine)
    (result,) = french.generate([slip], [[Intervention(1, ("Gender=Masc", "Number=Sing"), form="homme")]])
    assert result.forms[5] == "il" and 5 not in result.changed


# -- nouns that name no person, or a person whose gender is kept -------------------------------------
ES_PEOPLE = Gazetteer({"dueño": "dueña", "director": "directora", "inversor": "inversora", "ministro": "ministra",
                       "socialista": "socialista", "policía": "policía", "concejal": "concejala"},
                      {"dueña": "dueño", "directora": "director", "inversora": "inversor", "ministra": "ministro",
                       "concejala": "concejal"},
                      common={"socialista", "policía"})
ART_MS, ART_FS = "Definite=Def|Gender=Masc|Number=Sing|PronType=Art", "Definite=Def|Gender=Fem|Number=Sing|PronType=Art"
ART_MP = "Definite=Def|Gender=Masc|Number=Plur|PronType=Art"


def test_a_person_noun_used_for_a_thing_is_no_intervention(spanish_generator):
    # an adjective of a thing noun (el grupo inversor), an apposition of a thing's phrase (the owners,
    # a company), the feminine singular of a noun whose feminine names a body (la policía)
    group = tree("El grupo inversor llegó.", ("El", "el", "DET", ART_MS, 2, "det"),
                 ("grupo", "grupo", "NOUN", MS, 4, "nsubj"), ("inversor", "inversor", "NOUN", MS, 2, "amod"),
                 ("llegó", "llegar", "VERB", V3, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(spanish_generator, group, ES_PEOPLE) == []
    owners = tree("Los dueños, el grupo Sogo, firmaron.", ("Los", "el", "DET", ART_MP, 2, "det"),
                  ("dueños", "dueño", "NOUN", "Gender=Masc|Number=Plur", 8, "nsubj"),
                  (",", ",", "PUNCT", "", 5, "punct"),
                  ("el", "el", "DET", ART_MS, 5, "det"), ("grupo", "grupo", "NOUN", MS, 2, "appos"),
                  ("Sogo", "Sogo", "PROPN", "", 5, "flat"), (",", ",", "PUNCT", "", 5, "punct"),
                  ("firmaron", "firmar", "VERB", "Number=Plur|Person=3", 0, "root"),
                  (".", ".", "PUNCT", "", 8, "punct"))
    assert changed(spanish_generator, owners, ES_PEOPLE) == []
    police = tree("La policía llegó.", ("La", "el", "DET", ART_FS, 2, "det"),
                  ("policía", "policía", "NOUN", FS, 3, "nsubj"),
                  ("llegó", "llegar", "VERB", V3, 0, "root"), (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(spanish_generator, police, ES_PEOPLE) == []
    officer = police.replace("La\tel\tDET\t_\t" + ART_FS, "El\tel\tDET\t_\t" + ART_MS).replace(
        "policía\tpolicía\tNOUN\t_\t" + FS, "policía\tpolicía\tNOUN\t_\t" + MS).replace("La policía", "El policía")
    assert changed(spanish_generator, officer, ES_PEOPLE) == ["policía"]


def test_nouns_naming_a_person_a_full_name_fixes_keep_their_gender(spanish_generator):
    # an apposition of an apposition of the name (el primer ministro, el socialista Lionel Jospin), and a
    # predicative complement of a name (Ana Gil fue elegida concejala)
    jospin = tree("El ministro, el socialista Lionel Jospin, habló.", ("El", "el", "DET", ART_MS, 2, "det"),
                  ("ministro", "ministro", "NOUN", MS, 9, "nsubj"), (",", ",", "PUNCT", "", 5, "punct"),
                  ("el", "el", "DET", ART_MS, 5, "det"),
                  ("socialista", "socialista", "NOUN", "Number=Sing", 2, "appos"),
                  ("Lionel", "Lionel", "PROPN", "", 5, "appos"), ("Jospin", "Jospin", "PROPN", "", 6, "flat"),
                  (",", ",", "PUNCT", "", 5, "punct"), ("habló", "hablar", "VERB", V3, 0, "root"),
                  (".", ".", "PUNCT", "", 9, "punct"))
    assert changed(spanish_generator, jospin, ES_PEOPLE) == []
    elected = tree("Ana Gil fue elegida concejala.", ("Ana", "Ana", "PROPN", "", 4, "nsubj:pass"),
                   ("Gil", "Gil", "PROPN", "", 1, "flat"), ("fue", "ser", "AUX", AUX3, 4, "aux:pass"),
                   ("elegida", "elegir", "VERB", "Gender=Fem|Number=Sing|VerbForm=Part", 0, "root"),
                   ("concejala", "concejal", "NOUN", FS, 4, "xcomp"), (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(spanish_generator, elected, ES_PEOPLE) == []


def test_a_person_noun_under_a_prefix_heads_its_phrase_again(spanish_generator):
    """spaCy: *del ex ministro* with *ex* the noun and *ministro* its compound: *del* goes with
    *ministro* (de la ex ministra), not left as *del ex ministra*."""
    text = tree("Habló del ex ministro.", ("Habló", "hablar", "VERB", V3, 0, "root"),
                ("del", "del", "ADP", "AdpType=Preppron", 3, "case"), ("ex", "ex", "NOUN", "", 1, "obl"),
                ("ministro", "ministro", "NOUN", "", 3, "compound"), (".", ".", "PUNCT", "", 1, "punct"))
    (sentence,) = parse_conllu_string(text)
    ws = spanish_generator.analyse(sentence, {3})
    assert (ws[1]["head"], ws[3]["head"], ws[2]["head"]) == (4, 1, 4)  # del and ex under ministro, ministro on Habló


def test_french_present_participles_and_feminine_homographs(french):
    from cdaflow.morph_cda.cda import Intervention

    # jouissant de: a present participle has no gender; an adverb-tagged past participle (vêtu) has
    rich = tree("Un homme jouissant de biens et vêtu de noir.", ("Un", "un", "DET", MS, 2, "det"),
                ("homme", "homme", "NOUN", MS, 0, "root"),
                ("jouissant", "jouir", "VERB", "Tense=Pres|VerbForm=Part", 2, "acl"),
                ("de", "de", "ADP", "", 5, "case"),
                ("biens", "bien", "NOUN", "Gender=Masc|Number=Plur", 3, "obl"), ("et", "et", "CCONJ", "", 7, "cc"),
                ("vêtu", "vêtir", "ADV", "", 2, "amod"), ("de", "de", "ADP", "", 9, "case"),
                ("noir", "noir", "NOUN", MS, 7, "obl"), (".", ".", "PUNCT", "", 2, "punct"))
    (sentence,) = parse_conllu_string(rich)
    ws = french.analyse(sentence, {1})
    assert french.frozen(ws)[2] and ws[6]["upos"] == "ADJ"
    (result,) = french.generate([sentence], [[Intervention(1, ("Gender=Fem", "Number=Sing"), form="femme")]])
    assert result.forms[2] == "jouissant"
    # son martyre (martyrdom, masculine) is no female martyr
    martyrs = Gazetteer({"martyr": "martyre"}, {"martyre": "martyr"})
    thing = tree("Son martyre commence.", ("Son", "son", "DET", "Gender=Masc|Number=Sing|Poss=Yes", 2, "det"),
                 ("martyre", "martyre", "NOUN", MS, 3, "nsubj"), ("commence", "commencer", "VERB", V3, 0, "root"),
                 (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(french, thing, martyrs) == []
    woman = thing.replace(f"martyre\tmartyre\tNOUN\t_\t{MS}", f"martyre\tmartyre\tNOUN\t_\t{FS}")
    assert changed(french, woman, martyrs) == ["martyre"]


def test_an_opening_participle_is_said_of_the_next_subject(french):
    """spaCy: *Annoncé comme favori, il souligne* with *Annoncé* the root and *souligne* its
    parataxis: the participle becomes an adverbial clause of *souligne*, in reach of *il*."""
    from cdaflow.morph_cda.agreement_reach import agreement_reach

    text = tree("Annoncé comme favori, il souligne.",
                ("Annoncé", "annoncer", "VERB", "Gender=Masc|Number=Sing|VerbForm=Part", 0, "root"),
                ("comme", "comme", "ADP", "", 3, "case"), ("favori", "favori", "NOUN", MS, 1, "obl"),
                (",", ",", "PUNCT", "", 1, "punct"), (*IL, 6, "nsubj"),
                ("souligne", "souligner", "VERB", V3, 1, "parataxis"), (".", ".", "PUNCT", "", 1, "punct"))
    (sentence,) = parse_conllu_string(text)
    ws = french.analyse(sentence, {4})
    assert (ws[0]["head"], ws[0]["deprel"], ws[5]["head"], ws[5]["deprel"]) == (6, "advcl", 0, "root")
    assert 0 in agreement_reach(ws, [4])


def test_a_compound_and_a_rank_are_no_person(french):
    chiefs = Gazetteer({"chef": "cheffe"}, {"cheffe": "chef"})
    from tests.morph_cda.test_corpus_text import tree as spaced  # a 7th column: the MISC

    glued = "SpaceAfter=No"
    town = spaced("Le chef-lieu grandit.", ("Le", "le", "DET", MS, 2, "det"),
                  ("chef", "chef", "NOUN", MS, 5, "nsubj", glued), ("-", "-", "PUNCT", "", 4, "punct", glued),
                  ("lieu", "lieu", "NOUN", MS, 2, "nmod"), ("grandit", "grandir", "VERB", V3, 0, "root"),
                  (".", ".", "PUNCT", "", 5, "punct"))
    assert changed(french, town, chiefs) == []
    rank = tree("Le rédacteur en chef part.", ("Le", "le", "DET", MS, 2, "det"),
                ("rédacteur", "rédacteur", "NOUN", MS, 5, "nsubj"), ("en", "en", "ADP", "", 4, "case"),
                ("chef", "chef", "NOUN", MS, 2, "nmod"), ("part", "partir", "VERB", V3, 0, "root"),
                (".", ".", "PUNCT", "", 5, "punct"))
    assert changed(french, rank, chiefs) == []
    assert changed(french, rank.replace("en\ten\tADP", "le\tle\tDET").replace("Le rédacteur en chef",
                                                                            "Le rédacteur le chef"), chiefs) == ["chef"]


def test_a_pronoun_whose_antecedent_is_a_name_follows_the_name(french):
    # a name is never changed, nor what is said of it: its pronoun keeps its gender (née stays)
    curie = tree("Marie Curie est née et elle a souri.", ("Marie", "Marie", "PROPN", "", 4, "nsubj"),
                 ("Curie", "Curie", "PROPN", "", 1, "flat:name"), ("est", "être", "AUX", AUX3, 4, "aux"),
                 ("née", "naître", "VERB", "Gender=Fem|Number=Sing|VerbForm=Part", 0, "root"),
                 ("et", "et", "CCONJ", "", 8, "cc"),
                 ("elle", "il", "PRON", "Gender=Fem|Number=Sing|Person=3", 8, "nsubj"),
                 ("a", "avoir", "AUX", AUX3, 8, "aux"), ("souri", "sourire", "VERB", "VerbForm=Part", 4, "conj"),
                 (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(french, curie) == []
    # unless a person noun stands beside the name (spaCy: a second subject of the same verb)
    director = tree("Le directeur, Jean, a dit qu'il part.", ("Le", "le", "DET", MS, 2, "det"),
                    ("directeur", "directeur", "NOUN", MS, 7, "nsubj"), (",", ",", "PUNCT", "", 7, "punct"),
                    ("Jean", "Jean", "PROPN", "", 7, "nsubj"), (",", ",", "PUNCT", "", 7, "punct"),
                    ("a", "avoir", "AUX", AUX3, 7, "aux"), ("dit", "dire", "VERB", "VerbForm=Part", 0, "root"),
                    ("qu'", "que", "SCONJ", "", 10, "mark"), (*IL, 10, "nsubj"),
                    ("part", "partir", "VERB", V3, 7, "ccomp"),
                    (".", ".", "PUNCT", "", 7, "punct"))
    assert changed(french, director) == ["directeur", "il"]


def test_predicates_of_a_passive_and_of_one_of_a_group(french):
    heroes = Gazetteer({"héros": "héroïne", "joueur": "joueuse"}, {"héroïne": "héros", "joueuse": "joueur"})
    # a passive verb's "object" is its predicative (spaCy): elle is a person, and changes with it
    named = tree("Elle est désignée meilleure joueuse.", ("Elle", "il", "PRON", "Gender=Fem|Number=Sing|Person=3", 3,
                                                           "nsubj:pass"),
                 ("est", "être", "AUX", AUX3, 3, "aux:pass"),
                 ("désignée", "désigner", "VERB", "Gender=Fem|Number=Sing|VerbForm=Part", 0, "root"),
                 ("meilleure", "meilleur", "ADJ", FS, 5, "amod"), ("joueuse", "joueur", "NOUN", FS, 3, "obj"),
                 (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(french, named, heroes) == ["Elle", "joueuse"]
    # a name is un des héros: the group's noun is said of the name, and keeps its gender
    group = tree("Paul est un des héros.", ("Paul", "Paul", "PROPN", "", 3, "nsubj"),
                 ("est", "être", "AUX", AUX3, 3, "cop"), ("un", "un", "PRON", MS, 0, "root"),
                 ("des", "de", "ADP", "", 5, "case"), ("héros", "héros", "NOUN", "Gender=Masc|Number=Plur", 3, "nmod"),
                 (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(french, group, heroes) == []


def test_an_inflected_predicate_is_matched_by_its_masculine_singular():
    """The language file lists adjectives and participles in the masculine singular: *elle est fatiguée*
    is matched as *fatigué* (spaCy lemmatises the participle *fatiguer*), through the reinflector."""
    from types import SimpleNamespace

    from cdaflow.morph_cda.pronouns import word_lemmas

    asked = []

    class Reinflector:
        def inflect_one(self, lemma, upos, feats):
            asked.append((lemma, upos, feats["Gender"], feats["Number"]))
            return {"fatiguer": "Fatigué"}.get(lemma, "")

    generator = SimpleNamespace(reinflector=Reinflector(), hunspell=None)
    tired = {"form": "fatiguée", "lemma": "fatiguer", "upos": "VERB",
             "feats": {"Gender": "Fem", "Number": "Sing", "VerbForm": "Part"}}  # fmt: skip
    assert word_lemmas(tired, generator) == {"fatiguée", "fatiguer", "fatigué"}
    assert asked == [("fatiguer", "VERB", "Masc", "Sing")]
    content = {"form": "content", "lemma": "content", "upos": "ADJ", "feats": {"Gender": "Masc", "Number": "Sing"}}
    assert word_lemmas(content, generator) == {"content"} and len(asked) == 1  # already the listed form
