"""Everyday-text behaviour of the CDA pipeline on hand-made trees: pre-vocalic forms and elision,
features a parser leaves out, participles that never agree, inverted noun phrases."""

import pytest

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats

MS, FS = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing"


def tree(text: str, *rows: tuple) -> str:
    """CoNLL-U of (form, lemma, upos, feats, head, deprel) rows; the last one has no space after."""
    lines = [f"# text = {text}"]
    for i, (form, lemma, upos, feats, head, deprel) in enumerate(rows, 1):
        misc = "SpaceAfter=No" if form.endswith("'") or i == len(rows) - 1 else "_"
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t_\t{feats or '_'}\t{head}\t{deprel}\t_\t{misc}")
    return "\n".join(lines) + "\n\n"


# The forms the French lexicon learns from.
FRENCH_LEXICON = (
    tree("La femme est grande.", ("La", "le", "DET", FS, 2, "det"), ("femme", "femme", "NOUN", FS, 4, "nsubj"),
         ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"), ("grande", "grand", "ADJ", FS, 0, "root"),
         (".", ".", "PUNCT", "", 4, "punct"))
    + tree("Le homme est grand.", ("Le", "le", "DET", MS, 2, "det"), ("homme", "homme", "NOUN", MS, 4, "nsubj"),
           ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"), ("grand", "grand", "ADJ", MS, 0, "root"),
           (".", ".", "PUNCT", "", 4, "punct"))
    + tree("Ce ami et cette amie.", ("Ce", "ce", "DET", MS, 2, "det"), ("ami", "ami", "NOUN", MS, 0, "root"),
           ("et", "et", "CCONJ", "", 5, "cc"), ("cette", "ce", "DET", FS, 5, "det"),
           ("amie", "ami", "NOUN", FS, 2, "conj"), (".", ".", "PUNCT", "", 2, "punct"))
)


def tiny_generator(lexicon: str, lang: str) -> CounterfactualGenerator:
    """A generator whose reinflection and tags are learnt from `lexicon` (CoNLL-U) in one epoch."""
    sentences = parse_conllu_string(lexicon)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    return CounterfactualGenerator(AgreementMRF(inventory, "base", lang), reinflector, lang, log_alpha=1.0)


@pytest.fixture(scope="module")
def french():
    return tiny_generator(FRENCH_LEXICON, "fr")


def generate(generator, conllu: str, index: int, tag: tuple, form: str) -> str:
    (sentence,) = parse_conllu_string(conllu)
    (result,) = generator.generate([sentence], [[Intervention(index, tag, form=form)]])
    return result.counterfactual


def test_elision_and_pre_vocalic_forms(french):
    woman = tree("La femme est grande.", ("La", "le", "DET", FS, 2, "det"), ("femme", "femme", "NOUN", FS, 4, "nsubj"),
                 ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"), ("grande", "grand", "ADJ", FS, 0, "root"),
                 (".", ".", "PUNCT", "", 4, "punct"))
    assert generate(french, woman, 1, ("Gender=Masc", "Number=Sing"), "homme") == "L'homme est grand."
    man = tree("L'homme est grand.", ("L'", "le", "DET", MS, 2, "det"), ("homme", "homme", "NOUN", MS, 4, "nsubj"),
               ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"), ("grand", "grand", "ADJ", MS, 0, "root"),
               (".", ".", "PUNCT", "", 4, "punct"))
    assert generate(french, man, 1, ("Gender=Fem", "Number=Sing"), "femme") == "La femme est grande."
    # spaCy leaves "cette" a gender, "ce" none: the form tells it (the language file's paradigms)
    friend = tree("Cette amie est grande.", ("Cette", "ce", "DET", "Number=Sing", 2, "det"),
                  ("amie", "ami", "NOUN", FS, 4, "nsubj"), ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"),
                  ("grande", "grand", "ADJ", FS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    assert generate(french, friend, 1, ("Gender=Masc", "Number=Sing"), "ami") == "Cet ami est grand."


def test_a_missing_number_comes_from_the_controller(french):
    # "grande" without Number (spaCy gives none to many predicate adjectives): the copula's is taken
    sentence = tree("La femme est grande.", ("La", "le", "DET", FS, 2, "det"),
                    ("femme", "femme", "NOUN", FS, 4, "nsubj"),
                    ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"),
                    ("grande", "grand", "ADJ", "Gender=Fem", 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    assert french.analyse(parsed)[3]["feats"] == {"Gender": "Fem", "Number": "Sing"}
    assert parsed[3]["feats"] == {"Gender": "Fem"}  # the sentence itself is left as it was


def test_an_inverted_noun_phrase_is_set_right(french):
    # spaCy: "Cette nouvelle voisine est charmante" with nouvelle as subject and voisine its amod
    sentence = tree("Cette nouvelle voisine est là.", ("Cette", "ce", "DET", FS, 2, "det"),
                    ("nouvelle", "nouveau", "ADJ", FS, 5, "nsubj"), ("voisine", "voisin", "NOUN", FS, 2, "amod"),
                    ("est", "être", "AUX", "Number=Sing|Person=3", 5, "cop"), ("là", "là", "ADV", "", 0, "root"),
                    (".", ".", "PUNCT", "", 5, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    ws = french.analyse(parsed)
    assert [(w["form"], w["head"], w["deprel"]) for w in ws[:3]] == [
        ("Cette", 3, "det"), ("nouvelle", 3, "amod"), ("voisine", 5, "nsubj")
    ]


def test_participles_of_perfects_never_agree():
    """El ministro ha sido acusado: acusado agrees (a passive), sido never does (never *sida*); in
    ha elegido the participle of the perfect does not either."""
    from tests.morph_cda.test_cda import LEXICON

    sentences = parse_conllu_string(LEXICON)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    generator = CounterfactualGenerator(AgreementMRF(inventory, "base", "es"), reinflector, "es", log_alpha=1.0)
    part = "Gender=Masc|Number=Sing|VerbForm=Part"
    passive = tree("El ministro ha sido acusado.", ("El", "el", "DET", MS, 2, "det"),
                   ("ministro", "ministro", "NOUN", MS, 5, "nsubj:pass"),
                   ("ha", "haber", "AUX", "Number=Sing", 5, "aux"),
                   ("sido", "ser", "AUX", part, 5, "aux:pass"), ("acusado", "acusar", "VERB", part, 0, "root"),
                   (".", ".", "PUNCT", "", 5, "punct"))
    perfect = tree("El ministro ha elegido.", ("El", "el", "DET", MS, 2, "det"),
                   ("ministro", "ministro", "NOUN", MS, 4, "nsubj"), ("ha", "haber", "AUX", "Number=Sing", 4, "aux"),
                   ("elegido", "elegir", "VERB", part, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    assert generator.frozen(words(parse_conllu_string(passive)[0])) == [False, False, False, True, False, False]
    assert generator.frozen(words(parse_conllu_string(perfect)[0])) == [False, False, False, True, False]


@pytest.fixture(scope="module")
def spanish_generator():
    from tests.morph_cda.test_cda import LEXICON

    sentences = parse_conllu_string(LEXICON)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    tags = [tag_from_feats(w["feats"]) for s in sentences for w in words(s)]
    inventory = TagInventory.from_tags(tags + [("Gender=Masc", "Number=Plur"), ("Gender=Fem", "Number=Plur")])
    return CounterfactualGenerator(AgreementMRF(inventory, "base", "es"), reinflector, "es", log_alpha=1.0)


COP = "Number=Sing|Person=3"


def test_the_article_of_a_headless_relative_goes_with_the_subject(spanish_generator):
    # spaCy: "Mi vecino es el que vive arriba" with "el" a det of "vive"
    sentence = tree("Mi vecino es el que vive arriba.", ("Mi", "mi", "DET", "Number=Sing", 2, "det"),
                    ("vecino", "vecino", "NOUN", MS, 3, "nsubj"), ("es", "ser", "AUX", COP, 0, "root"),
                    ("el", "el", "DET", MS, 6, "det"), ("que", "que", "PRON", "PronType=Rel", 6, "nsubj"),
                    ("vive", "vivir", "VERB", COP, 3, "ccomp"), ("arriba", "arriba", "ADV", "", 6, "advmod"),
                    (".", ".", "PUNCT", "", 3, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    ws = spanish_generator.analyse(parsed, {1})
    assert (ws[3]["head"], ws[3]["deprel"]) == (2, "det")


def test_a_possessive_after_a_noun_is_its_determiner(spanish_generator):
    # spaCy: "Una compañera tuya llamó" with "tuya" a preposition and no features
    sentence = tree("Una compañera tuya llamó.", ("Una", "uno", "DET", FS, 2, "det"),
                    ("compañera", "compañero", "NOUN", FS, 4, "nsubj"), ("tuya", "tuyo", "ADP", "", 2, "advmod"),
                    ("llamó", "llamar", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    tuya = spanish_generator.analyse(parsed, {1})[2]
    assert (tuya["upos"], tuya["deprel"], tuya["feats"]) == ("DET", "det", {"Gender": "Fem", "Number": "Sing"})


def test_a_mis_tagged_conjunct_of_an_adjective_is_an_adjective(spanish_generator):
    # spaCy: "Mi tío está sano y salvo" with "salvo" a preposition
    sentence = tree("Mi tío está sano y salvo.", ("Mi", "mi", "DET", "Number=Sing", 2, "det"),
                    ("tío", "tío", "NOUN", MS, 4, "nsubj"), ("está", "estar", "AUX", COP, 4, "cop"),
                    ("sano", "sano", "ADJ", MS, 0, "root"), ("y", "y", "CCONJ", "", 6, "cc"),
                    ("salvo", "salvo", "ADP", "", 4, "conj"), (".", ".", "PUNCT", "", 4, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    salvo = spanish_generator.analyse(parsed, {1})[5]
    assert (salvo["upos"], salvo["feats"]) == ("ADJ", {"Gender": "Masc", "Number": "Sing"})


def test_closed_class_words_take_their_listed_forms(spanish_generator):
    # a capitalised demonstrative pronoun tagged a name keeps its accent: Aquél -> Aquélla
    sentence = tree("Aquél es mi vecino.", ("Aquél", "Aquél", "PROPN", "", 4, "nsubj"),
                    ("es", "ser", "AUX", COP, 4, "cop"), ("mi", "mi", "DET", "Number=Sing", 4, "det"),
                    ("vecino", "vecino", "NOUN", MS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    (parsed,) = parse_conllu_string(sentence)
    ws = spanish_generator.analyse(parsed, {3})
    assert (ws[0]["upos"], ws[0]["feats"]) == ("PRON", {"Gender": "Masc", "Number": "Sing"})
    from cdaflow.text.language import load

    assert load("es").paradigm_form("aquél", "Fem", "Sing") == "aquélla"


class _Dictionary:
    """A stand-in for Hunspell: the words it knows, without analyses (as the Spanish one)."""

    def __init__(self, known):
        self.words = set(known)

    def analyses(self, words):
        return {w: ((frozenset({f"st:{w}"}),) if w in self.words else ()) for w in words}

    def known(self, words):
        return {w for w in words if w in self.words}


def test_a_form_of_the_other_gender_is_passed_over(spanish_generator, monkeypatch):
    """Without gender in the dictionary, *cansadas* for a masculine is passed over when *cansados*
    exists; an invariable comparative (*mejor*) is left as it is."""
    monkeypatch.setattr(spanish_generator, "hunspell", _Dictionary({"cansadas", "cansados", "mejor", "mejora"}))
    masc_plural = {"Gender": "Masc", "Number": "Plur"}
    assert spanish_generator._choose([["cansadas", "cansados"]], [masc_plural]) == ["cansados"]
    assert spanish_generator.analyser.gender_by_ending("cansadas", {"Number": "Plur"}) == "Fem"
    assert spanish_generator.analyser.gender_by_ending("mejor", {"Number": "Sing"}) is None


def test_pronouns_are_interventions(spanish_generator, french):
    from cdaflow.morph_cda.gazetteer import Gazetteer
    from cdaflow.morph_cda.interventions import interventions_for
    from cdaflow.morph_cda.pronouns import pronoun_intervention

    nobody = Gazetteer()
    they = tree("Ellos están cansados.", ("Ellos", "él", "PRON", "Gender=Masc|Number=Plur|Person=3", 3, "nsubj"),
                ("están", "estar", "AUX", "Number=Plur|Person=3", 3, "cop"),
                ("cansados", "cansado", "ADJ", "Gender=Masc|Number=Plur", 0, "root"),
                (".", ".", "PUNCT", "", 3, "punct"))
    (parsed,) = parse_conllu_string(they)
    (intervention,) = interventions_for(parsed, nobody, spanish_generator, "to-fem")
    assert (intervention.index, intervention.form) == (0, "Ellas")
    assert intervention.tag == ("Gender=Fem", "Number=Plur", "Person=3")
    assert interventions_for(parsed, nobody, spanish_generator, "to-masc") == []
    (result,) = spanish_generator.generate([parsed], [[intervention]])
    assert result.intervened == [0] and result.forms[0] == "Ellas"
    # French: an impersonal il is no one; a dative lui is both genders'; a stressed lui is a man
    rain = tree("Il pleut.", ("Il", "il", "PRON", "Gender=Masc|Number=Sing|Person=3", 2, "expl:subj"),
                ("pleut", "pleuvoir", "VERB", "Number=Sing|Person=3", 0, "root"), (".", ".", "PUNCT", "", 2, "punct"))
    (parsed,) = parse_conllu_string(rain)
    assert pronoun_intervention(0, words(parsed)[0], parsed, french, "to-fem") is None
    dative = tree("Je lui parle.", ("Je", "je", "PRON", "Number=Sing|Person=1", 3, "nsubj"),
                  ("lui", "lui", "PRON", "Gender=Masc|Number=Sing|Person=3", 3, "iobj"),
                  ("parle", "parler", "VERB", "Number=Sing|Person=1", 0, "root"), (".", ".", "PUNCT", "", 3, "punct"))
    (parsed,) = parse_conllu_string(dative)
    assert [pronoun_intervention(i, w, parsed, french, "to-fem") for i, w in enumerate(words(parsed))] == [None] * 4
    stressed = tree("Chez lui.", ("Chez", "chez", "ADP", "", 2, "case"),
                    ("lui", "lui", "PRON", "Gender=Masc|Number=Sing|Person=3", 0, "root"),
                    (".", ".", "PUNCT", "", 2, "punct"))
    (parsed,) = parse_conllu_string(stressed)
    assert pronoun_intervention(1, words(parsed)[1], parsed, french, "to-fem").form == "elle"


def test_weather_and_time_il_is_no_one_but_a_person_on_time_is(french):
    """*il fait beau*, *il est temps*: the language file's impersonal ``with_words``; with a
    preposition (*il est à temps*) the subject is someone."""
    from cdaflow.morph_cda.pronouns import pronoun_intervention

    il = ("Il", "il", "PRON", "Gender=Masc|Number=Sing|Person=3")
    weather = tree("Il fait froid.", (*il, 2, "nsubj"), ("fait", "faire", "VERB", "Number=Sing|Person=3", 0, "root"),
                   ("froid", "froid", "ADJ", MS, 2, "obj"), (".", ".", "PUNCT", "", 2, "punct"))
    time_ = tree("Il est temps.", (*il, 3, "nsubj"), ("est", "être", "AUX", "Number=Sing|Person=3", 3, "cop"),
                 ("temps", "temps", "NOUN", MS, 0, "root"), (".", ".", "PUNCT", "", 3, "punct"))
    on_time = tree("Il est à temps.", (*il, 4, "nsubj"), ("est", "être", "AUX", "Number=Sing|Person=3", 4, "cop"),
                   ("à", "à", "ADP", "", 4, "case"), ("temps", "temps", "NOUN", MS, 0, "root"),
                   (".", ".", "PUNCT", "", 4, "punct"))
    work = tree("Il fait son travail.", (*il, 2, "nsubj"), ("fait", "faire", "VERB", "Number=Sing|Person=3", 0, "root"),
                ("son", "son", "DET", MS, 4, "det"), ("travail", "travail", "NOUN", MS, 2, "obj"),
                (".", ".", "PUNCT", "", 2, "punct"))
    found = {}
    for name, text in (("weather", weather), ("time", time_), ("on_time", on_time), ("work", work)):
        (parsed,) = parse_conllu_string(text)
        found[name] = pronoun_intervention(0, words(parsed)[0], parsed, french, "to-fem")
    assert found["weather"] is None and found["time"] is None
    assert found["on_time"].form == "Elle" and found["work"].form == "Elle"
