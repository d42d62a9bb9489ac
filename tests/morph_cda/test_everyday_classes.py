"""Error classes of everyday Spanish and French, on hand-made trees of sentences written
for these tests: a predicate noun that denotes its subject, a noun whose counterpart depends on its
sense (wife/woman), a participle agreeing with its object, a noun modifier tagged a verb, and
determiners before a noun however the parser hung them."""

import pytest

from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.interventions import interventions_for
from tests.morph_cda.test_everyday import french, spanish_generator, tree  # noqa: F401  (fixtures)

MS, FS = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing"
COP = "Number=Sing|Person=3"


@pytest.fixture(scope="module")
def bakers(tmp_path_factory):
    path = tmp_path_factory.mktemp("gazetteer") / "fr.tsv"
    path.write_text("masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"
                    "boulanger\tboulangère\tbaker\tpair\tboulangers\tboulangères\n"
                    "cousin\tcousine\tcousin\tpair\tcousins\tcousines\n"
                    "\tvictime\tvictim\tepicene\t\tvictimes\n", encoding="utf-8")
    return Gazetteer.read(path)


def baker_sentence(subject: tuple, text: str) -> str:
    """<subject> est un boulanger habile. (the subject one word, or "Mon cousin")"""
    rows = [subject] if len(subject) == 6 else list(subject)
    n = len(rows)
    rows = [(*r[:4], n + 3 if r[5] == "nsubj" else r[4], r[5]) for r in rows]
    return tree(text, *rows, ("est", "être", "AUX", COP, n + 3, "cop"), ("un", "un", "DET", MS, n + 3, "det"),
                ("boulanger", "boulanger", "NOUN", MS, 0, "root"),
                ("habile", "habile", "ADJ", "Number=Sing", n + 3, "amod"),
                (".", ".", "PUNCT", "", n + 3, "punct"))


@pytest.mark.parametrize(
    ("subject", "text", "intervened"),
    [
        # a name, the speaker, the addressee keep their gender: the noun that denotes them too
        (("Luc", "Luc", "PROPN", "", 0, "nsubj"), "Luc est un boulanger habile.", []),
        (("Je", "je", "PRON", "Number=Sing|Person=1", 0, "nsubj"), "Je suis un boulanger habile.", []),
        (("Tu", "tu", "PRON", "Number=Sing|Person=2", 0, "nsubj"), "Tu es un boulanger habile.", []),
        # a person noun changes, and the noun that denotes it with it
        ((("Mon", "mon", "DET", "Number=Sing|Poss=Yes", 2, "det"), ("cousin", "cousin", "NOUN", MS, 0, "nsubj")),
         "Mon cousin est un boulanger habile.", [1, 4]),
        # an epicene noun fixes no gender: the predicate says it (la victime était un boulanger)
        ((("La", "le", "DET", FS, 2, "det"), ("victime", "victime", "NOUN", FS, 0, "nsubj")),
         "La victime est un boulanger habile.", [4]),
    ],
)
def test_a_predicate_noun_changes_only_with_its_subject(french, bakers, subject, text, intervened):  # noqa: F811
    (sentence,) = parse_conllu_string(baker_sentence(subject, text))
    assert [i.index for i in interventions_for(sentence, bakers, french, "to-fem")] == intervened


@pytest.fixture(scope="module")
def spouses(tmp_path_factory):
    path = tmp_path_factory.mktemp("gazetteer") / "fr.tsv"
    path.write_text("masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"
                    "homme\tfemme\tman/woman\tpair\thommes\tfemmes\n"
                    "mari\tfemme\thusband/wife\tpair\tmaris\tfemmes\n", encoding="utf-8")
    return Gazetteer.read(path)


@pytest.mark.parametrize(
    ("determiner", "after", "form", "noun"),
    [
        (("Sa", "son", "DET", "Gender=Fem|Number=Sing|Poss=Yes", 2, "det"), [], "mari", "femme"),  # wife
        (("Cette", "ce", "DET", FS, 2, "det"), [], "homme", "femme"),  # woman
        (("La", "le", "DET", FS, 2, "det"),
         [("de", "de", "ADP", "", 4, "case"), ("Luc", "Luc", "PROPN", "", 2, "nmod")],
         "mari", "femme"),
        (("La", "le", "DET", FS, 2, "det"),
         [("de", "de", "ADP", "", 4, "case"), ("garde", "garde", "NOUN", FS, 2, "nmod")],
         "homme", "femme"),  # a femme de garde is no one's wife
    ],
)
def test_a_wife_becomes_a_husband_and_a_woman_a_man(french, spouses, determiner, after, form, noun):  # noqa: F811
    rows = [determiner, (noun, noun, "NOUN", FS, 0, "root"), *after, (".", ".", "PUNCT", "", 2, "punct")]
    text = " ".join(r[0] for r in rows[:-1]) + "."
    (sentence,) = parse_conllu_string(tree(text, *rows))
    (intervention,) = interventions_for(sentence, spouses, french, "to-masc")
    assert (intervention.index, intervention.form) == (1, form)


def test_a_participle_with_an_object_agrees_with_the_object():
    from cdaflow.io.conllu import words
    from cdaflow.morph_cda.agreement_reach import agreement_reach

    part = "Gender=Fem|Number=Sing|VerbForm=Part"
    # El tío tiene escondida una llave: escondida is the key's, not the uncle's
    key = tree("El tío tiene escondida una llave.", ("El", "el", "DET", MS, 2, "det"),
               ("tío", "tío", "NOUN", MS, 3, "nsubj"), ("tiene", "tener", "VERB", COP, 0, "root"),
               ("escondida", "esconder", "VERB", part, 3, "xcomp"), ("una", "uno", "DET", FS, 6, "det"),
               ("llave", "llave", "NOUN", FS, 3, "obj"), (".", ".", "PUNCT", "", 3, "punct"))
    ws = words(parse_conllu_string(key)[0])
    assert 3 not in agreement_reach(ws, [1]) and {0, 1} <= agreement_reach(ws, [1])
    # spaCy's other tree: the object hung under the participle, the participle an obj of tener
    ws[3]["deprel"], ws[5]["head"] = "obj", 4
    assert 3 not in agreement_reach(ws, [1])
    # an intervened object takes its predicative along: Tiene a su tío enfermo -> a su tía enferma
    ill = tree("Tiene a su tío enfermo.", ("Tiene", "tener", "VERB", COP, 0, "root"), ("a", "a", "ADP", "", 4, "case"),
               ("su", "su", "DET", "Number=Sing|Poss=Yes", 4, "det"), ("tío", "tío", "NOUN", MS, 1, "obj"),
               ("enfermo", "enfermo", "ADJ", MS, 1, "xcomp"), (".", ".", "PUNCT", "", 1, "punct"))
    assert 4 in agreement_reach(words(parse_conllu_string(ill)[0]), [3])


def test_a_reflexive_or_a_prepositional_phrase_is_no_object_to_agree_with():
    """*se* is the subject itself, and spaCy's obj with *por* under a participle is an oblique: the
    predicative still agrees with the subject (corpus audit: *se vio obligado*, *continúan conmocionados*)."""
    from cdaflow.io.conllu import words
    from cdaflow.morph_cda.agreement_reach import agreement_reach

    part = "Gender=Masc|Number=Sing|VerbForm=Part"
    reflexive = tree("El jugador se sintió cansado.", ("El", "el", "DET", MS, 2, "det"),
                     ("jugador", "jugador", "NOUN", MS, 4, "nsubj"),
                     ("se", "él", "PRON", "Person=3|PronType=Prs|Reflex=Yes", 4, "obj"),
                     ("sintió", "sentir", "VERB", COP, 0, "root"), ("cansado", "cansar", "ADJ", part, 4, "obj"),
                     (".", ".", "PUNCT", "", 4, "punct"))
    assert 4 in agreement_reach(words(parse_conllu_string(reflexive)[0]), [1])
    oblique = tree("El vecino sigue conmocionado por la noticia.", ("El", "el", "DET", MS, 2, "det"),
                   ("vecino", "vecino", "NOUN", MS, 3, "nsubj"), ("sigue", "seguir", "VERB", COP, 0, "root"),
                   ("conmocionado", "conmocionar", "ADJ", part, 3, "obj"), ("por", "por", "ADP", "", 7, "case"),
                   ("la", "el", "DET", FS, 7, "det"), ("noticia", "noticia", "NOUN", FS, 4, "obj"),
                   (".", ".", "PUNCT", "", 3, "punct"))
    assert 3 in agreement_reach(words(parse_conllu_string(oblique)[0]), [1])


def test_a_noun_modifier_tagged_a_gerund_is_an_adjective(spanish_generator):  # noqa: F811
    # spaCy: "un vecino tremendo" with tremendo a VERB (VerbForm=Ger): it is the noun's adjective, and
    # changes with it (never "una vecina tremendo")
    text = tree("Vino un vecino tremendo.", ("Vino", "venir", "VERB", COP, 0, "root"),
                ("un", "uno", "DET", MS, 3, "det"), ("vecino", "vecino", "NOUN", MS, 1, "nsubj"),
                ("tremendo", "tremendo", "VERB", "VerbForm=Ger", 3, "amod"), (".", ".", "PUNCT", "", 1, "punct"))
    (sentence,) = parse_conllu_string(text)
    analysed = spanish_generator.analyse(sentence, [2])
    assert analysed[3]["upos"] == "ADJ" and analysed[3]["feats"].get("Gender") == "Masc"
    assert "VerbForm" not in analysed[3]["feats"]
    # a real gerund hung on a verb stays one (Vino corriendo)
    run = tree("Vino corriendo.", ("Vino", "venir", "VERB", COP, 0, "root"),
               ("corriendo", "correr", "VERB", "VerbForm=Ger", 1, "advcl"), (".", ".", "PUNCT", "", 1, "punct"))
    assert spanish_generator.analyse(parse_conllu_string(run)[0])[1]["upos"] == "VERB"


def test_prenominal_determiners_are_the_nouns():
    from cdaflow.io.conllu import words
    from cdaflow.morph_cda.parse_repairs import attach_nouns_and_determiners

    # spaCy: "Vuestros propios tíos" with propios hung on the possessive: it modifies the noun
    text = tree("Vuestros propios tíos mienten.", ("Vuestros", "vuestro", "DET", "Number=Plur|Poss=Yes", 3, "det"),
                ("propios", "propio", "ADJ", "Gender=Masc|Number=Plur", 1, "det"),
                ("tíos", "tío", "NOUN", "Gender=Masc|Number=Plur", 4, "nsubj"),
                ("mienten", "mentir", "VERB", "Number=Plur|Person=3", 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    ws = [dict(w) for w in words(parse_conllu_string(text)[0])]
    attach_nouns_and_determiners(ws, [2])
    assert (ws[1]["head"], ws[1]["deprel"]) == (3, "amod") and ws[0]["head"] == 3


def test_a_participle_after_a_determiner_is_a_person_noun(tmp_path):
    path = tmp_path / "es.tsv"
    path.write_text("masculine\tfeminine\nempleado\templeada\n", encoding="utf-8")
    gazetteer = Gazetteer.read(path)
    part = "Gender=Masc|Number=Sing|VerbForm=Part"
    # spaCy: "Dicho empleado dimitió" with empleado a participle: after a determiner it is a noun
    text = tree("Dicho empleado dimitió.", ("Dicho", "dicho", "ADJ", MS, 2, "amod"),
                ("empleado", "emplear", "VERB", part, 3, "nsubj"), ("dimitió", "dimitir", "VERB", COP, 0, "root"),
                (".", ".", "PUNCT", "", 3, "punct"))
    (sentence,) = parse_conllu_string(text)
    assert gazetteer.lookup(sentence[1], sentence).form == "empleada"
    # a participle after a verb is the verb's (Fue empleado: no noun)
    verb = tree("Fue empleado.", ("Fue", "ser", "AUX", COP, 2, "aux:pass"),
                ("empleado", "emplear", "VERB", part, 0, "root"),
                (".", ".", "PUNCT", "", 2, "punct"))
    (sentence,) = parse_conllu_string(verb)
    assert gazetteer.lookup(sentence[1], sentence) is None


def test_a_noun_phrase_after_a_determiner_taken_for_a_clause():
    from cdaflow.io.conllu import words
    from cdaflow.morph_cda.parse_repairs import attach_nouns_and_determiners

    # spaCy: "Dicho cartero fue premiado" with cartero a ccomp of premiado: the subject
    text = tree("Dicho cartero fue premiado.", ("Dicho", "dicho", "ADJ", MS, 2, "amod"),
                ("cartero", "cartero", "NOUN", MS, 4, "ccomp"), ("fue", "ser", "AUX", COP, 4, "aux:pass"),
                ("premiado", "premiar", "VERB", "Gender=Masc|Number=Sing|VerbForm=Part", 0, "root"),
                (".", ".", "PUNCT", "", 4, "punct"))
    ws = [dict(w) for w in words(parse_conllu_string(text)[0])]
    attach_nouns_and_determiners(ws, [1])
    assert ws[1]["deprel"] == "nsubj"


def test_an_adjective_after_a_closed_class_determiner_is_a_noun(tmp_path):
    path = tmp_path / "es.tsv"
    path.write_text("masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"
                    "alumno\talumna\tpupil\tpair\talumnos\talumnas\n", encoding="utf-8")
    gazetteer = Gazetteer.read(path)
    # spaCy: "Dichas alumnas" both ADJ, the noun an amod of the determiner
    text = tree("Dichas alumnas aprobaron.", ("Dichas", "dicho", "ADJ", "Gender=Fem|Number=Plur", 3, "nsubj"),
                ("alumnas", "alumna", "ADJ", "Gender=Fem|Number=Plur", 1, "amod"),
                ("aprobaron", "aprobar", "VERB", "Number=Plur|Person=3", 0, "root"),
                (".", ".", "PUNCT", "", 3, "punct"))
    (sentence,) = parse_conllu_string(text)
    assert gazetteer.lookup(sentence[1], sentence).form == "alumnos"
