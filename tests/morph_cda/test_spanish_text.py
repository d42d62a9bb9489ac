"""Spanish text as spaCy (es_core_news_sm) parses it, each on a sentence of our own in a
hand-made tree that copies the parser's slips: a name fixes its person's gender, and the nouns said of
that person keep theirs (an apposition after an adverb, a role after *como*); fixed expressions keep
their words (*como un solo hombre*)."""

from cdaflow.morph_cda.gazetteer import Gazetteer
from tests.morph_cda import test_pronoun_referents as referents
from tests.morph_cda.test_everyday import FS, MS, tree
from tests.morph_cda.test_pronoun_referents import ART_FS, ART_MS, V3, changed

spanish_generator = referents.spanish_generator  # the fixture

PART_MS = "Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part"
ES = Gazetteer({"líder": "líder", "jugador": "jugadora", "entrenador": "entrenadora", "hombre": "mujer",
                "corredor": "corredora", "delantero": "delantera", "brasileño": "brasileña"},
               {"jugadora": "jugador", "entrenadora": "entrenador", "mujer": "hombre", "corredora": "corredor",
                "delantera": "delantero", "brasileña": "brasileño"},
               common={"líder"})


def test_a_noun_after_a_full_name_a_comma_and_an_adverb_keeps_its_gender(spanish_generator):
    # spaCy hangs "líder" on the passive verb as its object (as in AnCora's "fue sustituido ... por
    # Yeliu Yélev, entonces líder de la SDS"): it is still Pedro Ruiz's apposition, and Pedro Ruiz stays
    replaced = tree("Fue sustituido por Pedro Ruiz, entonces líder del grupo.",
                    ("Fue", "ser", "AUX", V3, 2, "aux"), ("sustituido", "sustituir", "VERB", PART_MS, 0, "root"),
                    ("por", "por", "ADP", "", 4, "case"), ("Pedro", "Pedro", "PROPN", "", 2, "obj"),
                    ("Ruiz", "Ruiz", "PROPN", "", 4, "flat"), (",", ",", "PUNCT", "", 8, "punct"),
                    ("entonces", "entonces", "ADV", "", 8, "advmod"),
                    ("líder", "líder", "NOUN", "Number=Sing", 2, "obj"),
                    ("del", "del", "ADP", "", 10, "case"), ("grupo", "grupo", "NOUN", MS, 8, "nmod"),
                    (".", ".", "PUNCT", "", 2, "punct"))
    assert changed(spanish_generator, replaced, ES) == []
    # no name before the comma: the leader is a person of its own
    unnamed = (replaced.replace("Pedro\tPedro\tPROPN", "nadie\tnadie\tPRON")
               .replace("Ruiz\tRuiz\tPROPN", "más\tmás\tADV"))
    assert changed(spanish_generator, unnamed, ES) == ["líder"]


def test_a_role_after_como_said_of_a_full_name_keeps_its_gender(spanish_generator):
    # spaCy: "como jugador" an nmod or obl of the verb, not of the name it is said of
    signed = tree("Ficharon a un delantero, el brasileño Pedro Ruiz, como jugador comunitario.",
                  ("Ficharon", "fichar", "VERB", V3, 0, "root"), ("a", "a", "ADP", "", 4, "case"),
                  ("un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 4, "det"),
                  ("delantero", "delantero", "NOUN", MS, 1, "obj"), (",", ",", "PUNCT", "", 4, "punct"),
                  ("el", "el", "DET", ART_MS, 7, "det"), ("brasileño", "brasileño", "NOUN", MS, 1, "obj"),
                  ("Pedro", "Pedro", "PROPN", "", 7, "appos"), ("Ruiz", "Ruiz", "PROPN", "", 8, "flat"),
                  (",", ",", "PUNCT", "", 12, "punct"), ("como", "como", "SCONJ", "", 12, "mark"),
                  ("jugador", "jugador", "NOUN", MS, 1, "obl"), ("comunitario", "comunitario", "ADJ", MS, 12, "amod"),
                  (".", ".", "PUNCT", "", 1, "punct"))
    assert "jugador" not in changed(spanish_generator, signed, ES)
    coach = tree("Llegó Ana María López, como entrenadora del club.",
                 ("Llegó", "llegar", "VERB", V3, 0, "root"), ("Ana", "Ana", "PROPN", "", 1, "nsubj"),
                 ("María", "María", "PROPN", "", 2, "flat"), ("López", "López", "PROPN", "", 2, "flat"),
                 (",", ",", "PUNCT", "", 7, "punct"), ("como", "como", "SCONJ", "", 7, "mark"),
                 ("entrenadora", "entrenador", "NOUN", FS, 1, "obl"), ("del", "del", "ADP", "", 9, "case"),
                 ("club", "club", "NOUN", MS, 7, "nmod"), (".", ".", "PUNCT", "", 1, "punct"))
    assert changed(spanish_generator, coach, ES) == []
    # with another preposition the noun is another person: con su entrenadora
    other = coach.replace("como\tcomo\tSCONJ\t_\t_\t7\tmark", "con\tcon\tADP\t_\t_\t7\tcase")
    assert changed(spanish_generator, other, ES) == ["entrenadora"]


def test_a_fixed_expression_keeps_its_words(spanish_generator):
    # "como un solo hombre": all together, whoever they are (the language file's fixed_phrases)
    from cdaflow.text.language import load

    assert ("como", "un", "solo", "hombre") in load("es").fixed_phrases
    together = tree("Las corredoras salieron como un solo hombre.",
                    ("Las", "el", "DET", "Definite=Def|Gender=Fem|Number=Plur|PronType=Art", 2, "det"),
                    ("corredoras", "corredor", "NOUN", "Gender=Fem|Number=Plur", 3, "nsubj"),
                    ("salieron", "salir", "VERB", "Mood=Ind|Number=Plur|Person=3|VerbForm=Fin", 0, "root"),
                    ("como", "como", "SCONJ", "", 7, "mark"),
                    ("un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 7, "det"),
                    ("solo", "solo", "ADJ", MS, 7, "amod"), ("hombre", "hombre", "NOUN", MS, 3, "obl"),
                    (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(spanish_generator, together, ES) == ["corredoras"]
    # a man on his own is a person: "un solo hombre lo sabía"
    alone = tree("Un solo hombre lo sabía.", ("Un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 3, "det"),
                 ("solo", "solo", "ADJ", MS, 3, "amod"), ("hombre", "hombre", "NOUN", MS, 5, "nsubj"),
                 ("lo", "él", "PRON", "Case=Acc|Gender=Masc|Number=Sing|Person=3|PronType=Prs", 5, "obj"),
                 ("sabía", "saber", "VERB", V3, 0, "root"), (".", ".", "PUNCT", "", 5, "punct"))
    assert changed(spanish_generator, alone, ES) == ["hombre"]


def test_french_and_italian_keep_the_same_expression():
    # comme un seul homme, come un sol uomo: the same fixed expression in the other language files
    from cdaflow.io.conllu import parse_conllu_string, words
    from cdaflow.morph_cda.fixed_words import name_parts
    from cdaflow.text.language import load

    french = tree("Ils ont voté comme un seul homme.", ("Ils", "il", "PRON", "", 3, "nsubj"),
                  ("ont", "avoir", "AUX", "", 3, "aux"), ("voté", "voter", "VERB", "", 0, "root"),
                  ("comme", "comme", "ADP", "", 7, "case"), ("un", "un", "DET", MS, 7, "det"),
                  ("seul", "seul", "ADJ", MS, 7, "amod"), ("homme", "homme", "NOUN", MS, 3, "obl"),
                  (".", ".", "PUNCT", "", 3, "punct"))
    (sentence,) = parse_conllu_string(french)
    assert name_parts(words(sentence), load("fr")) == [False] * 3 + [True] * 4 + [False]
    assert ("come", "un", "sol", "uomo") in load("it").fixed_phrases


def test_an_adjective_taken_for_a_gerund_after_a_noun_modifies_it(spanish_generator):
    # spaCy: "Un amigo estupendo/VERB Ger csubj me ayudó" with "amigo" its subject; "corriendo" is a gerund
    import pytest

    from cdaflow.io.conllu import parse_conllu_string
    from cdaflow.morph_cda.hunspell import Hunspell

    checker = Hunspell.find(["es_ES"])
    if checker is None:
        pytest.skip("hunspell and hunspell-es are not installed")
    saved, spanish_generator.hunspell = spanish_generator.hunspell, checker
    try:
        def analysed(form):
            (sentence,) = parse_conllu_string(tree(
                f"Un amigo {form} me ayudó.", ("Un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 2, "det"),
                ("amigo", "amigo", "NOUN", MS, 3, "nsubj"), (form, form, "VERB", "VerbForm=Ger", 5, "csubj"),
                ("me", "yo", "PRON", "Number=Sing|Person=1|PronType=Prs", 5, "obj"),
                ("ayudó", "ayudar", "VERB", V3, 0, "root"), (".", ".", "PUNCT", "", 5, "punct")))
            ws = spanish_generator.analyse(sentence, [1])
            return [(w["upos"], w["head"], w["deprel"], w["feats"].get("Gender")) for w in ws[1:3]]

        assert analysed("estupendo") == [("NOUN", 5, "nsubj", "Masc"), ("ADJ", 2, "amod", "Masc")]
        assert analysed("corriendo")[1][:3] == ("VERB", 5, "csubj")
    finally:
        spanish_generator.hunspell = saved


def test_women_of_a_name_are_women_and_the_wife_of_a_name_a_wife(spanish_generator):
    # las mujeres de Izquierda Unida: the party's women (a name has one wife), la mujer de Pedro: his wife
    from cdaflow.io.conllu import parse_conllu_string
    from cdaflow.morph_cda.interventions import interventions_for

    gazetteer = Gazetteer({"hombre": "mujer", "marido": "mujer"}, {"mujer": "hombre"},
                          plurals={("hombre", "Masc"): "hombres", ("mujer", "Fem"): "mujeres",
                                   ("marido", "Masc"): "maridos"})

    def counterpart(text, noun, number):
        feats = f"Gender=Fem|Number={number}"
        article = "las" if number == "Plur" else "la"
        (sentence,) = parse_conllu_string(tree(
            f"Llegaron {article} {noun} de Izquierda Unida.", ("Llegaron", "llegar", "VERB", V3, 0, "root"),
            (article, "el", "DET", f"Definite=Def|{feats}|PronType=Art", 3, "det"),
            (noun, "mujer", "NOUN", feats, 1, "nsubj"),
            ("de", "de", "ADP", "", 5, "case"), (text, text, "PROPN", "", 3, "nmod"),
            (".", ".", "PUNCT", "", 1, "punct")))
        (intervention,) = interventions_for(sentence, gazetteer, spanish_generator, "flip")
        return intervention.form

    assert counterpart("Izquierda", "mujeres", "Plur") == "hombres"
    assert counterpart("Pedro", "mujer", "Sing") == "marido"


def test_a_figure_of_speech_is_a_fixed_expression():
    # "no es una hermanita de la caridad", said of a man: never "un hermanito de la caridad"
    from cdaflow.text.language import load

    assert ("hermanita", "de", "la", "caridad") in load("es").fixed_phrases


def test_a_noun_named_by_a_participle_and_a_full_name_keeps_its_gender(spanish_generator):
    # spaCy: "llamado" an amod of the noun, or of a place name hung on it, the full name its object
    gazetteer = Gazetteer({"médico": "médica", "ingeniero": "ingeniera"},
                          {"médica": "médico", "ingeniera": "ingeniero"})
    doctor = tree("Llegó un médico llamado Pedro Ruiz.", ("Llegó", "llegar", "VERB", V3, 0, "root"),
                  ("un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 3, "det"),
                  ("médico", "médico", "NOUN", MS, 1, "nsubj"), ("llamado", "llamado", "ADJ", PART_MS, 3, "amod"),
                  ("Pedro", "Pedro", "PROPN", "", 4, "obj"), ("Ruiz", "Ruiz", "PROPN", "", 5, "flat"),
                  (".", ".", "PUNCT", "", 1, "punct"))
    assert changed(spanish_generator, doctor, gazetteer) == []
    engineer = tree("Llegó un ingeniero de Sevilla llamado Pedro Ruiz.", ("Llegó", "llegar", "VERB", V3, 0, "root"),
                    ("un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 3, "det"),
                    ("ingeniero", "ingeniero", "NOUN", MS, 1, "nsubj"), ("de", "de", "ADP", "", 5, "case"),
                    ("Sevilla", "Sevilla", "PROPN", "", 3, "nmod"), ("llamado", "llamado", "ADJ", PART_MS, 5, "amod"),
                    ("Pedro", "Pedro", "PROPN", "", 6, "obj"), ("Ruiz", "Ruiz", "PROPN", "", 7, "flat"),
                    (".", ".", "PUNCT", "", 1, "punct"))
    assert changed(spanish_generator, engineer, gazetteer) == []
    # a participle with a preposition before the name: another person (atendido por Pedro Ruiz)
    treated = doctor.replace("llamado\tllamado", "atendido\tatender").replace(
        "Llegó un médico llamado Pedro", "Llegó un médico atendido Pedro")
    assert changed(spanish_generator, treated.replace("Pedro\tPedro\tPROPN\t_\t_\t4\tobj",
                                                      "Pedro\tPedro\tPROPN\t_\t_\t1\tobj"), gazetteer) == ["médico"]


def test_another_of_a_thing_is_a_thing(spanish_generator):
    # "un gusano o cualquier otro intruso": the intruder is another pest, as the worm is (the language
    # file's another_words); "el niño o cualquier otro intruso": a person, who changes
    gazetteer = Gazetteer({"intruso": "intrusa", "niño": "niña"}, {"intrusa": "intruso", "niña": "niño"})
    pest = tree("Un gusano o cualquier otro intruso entra.",
                ("Un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 2, "det"),
                ("gusano", "gusano", "NOUN", MS, 7, "nsubj"), ("o", "o", "CCONJ", "", 6, "cc"),
                ("cualquier", "cualquiera", "DET", "Number=Sing|PronType=Ind", 6, "det"),
                ("otro", "otro", "DET", MS + "|PronType=Ind", 4, "det"),
                ("intruso", "intruso", "NOUN", MS, 2, "conj"), ("entra", "entrar", "VERB", V3, 0, "root"),
                (".", ".", "PUNCT", "", 7, "punct"))
    assert changed(spanish_generator, pest, gazetteer) == []
    child = pest.replace("Un gusano", "Un niño").replace("gusano\tgusano", "niño\tniño")
    assert changed(spanish_generator, child, gazetteer) == ["niño", "intruso"]


def test_beans_are_no_jewish_women(spanish_generator):
    # "un plato de judías": beans (the language file's thing_forms)
    gazetteer = Gazetteer({"judío": "judía", "padre": "madre"}, {"judía": "judío", "madre": "padre"},
                          plurals={("judío", "Masc"): "judíos", ("judío", "Fem"): "judías"})
    dish = tree("El padre come un plato de judías.", ("El", "el", "DET", ART_MS, 2, "det"),
                ("padre", "padre", "NOUN", MS, 3, "nsubj"), ("come", "comer", "VERB", V3, 0, "root"),
                ("un", "uno", "DET", "Definite=Ind|" + MS + "|PronType=Art", 5, "det"),
                ("plato", "plato", "NOUN", MS, 3, "obj"), ("de", "de", "ADP", "", 7, "case"),
                ("judías", "judía", "NOUN", "Gender=Fem|Number=Plur", 5, "nmod"), (".", ".", "PUNCT", "", 3, "punct"))
    assert changed(spanish_generator, dish, gazetteer) == ["padre"]


def test_a_person_after_a_full_name_in_a_list_is_a_person_of_its_own(spanish_generator):
    # "Llegaron Pedro Ruiz, la entrenadora y su hijo": a list; the coach is not Pedro Ruiz
    listed = tree("Llegaron Pedro Ruiz, la entrenadora y el jugador.", ("Llegaron", "llegar", "VERB", V3, 0, "root"),
                  ("Pedro", "Pedro", "PROPN", "", 1, "nsubj"), ("Ruiz", "Ruiz", "PROPN", "", 2, "flat"),
                  (",", ",", "PUNCT", "", 6, "punct"), ("la", "el", "DET", ART_FS, 6, "det"),
                  ("entrenadora", "entrenador", "NOUN", FS, 2, "conj"), ("y", "y", "CCONJ", "", 9, "cc"),
                  ("el", "el", "DET", ART_MS, 9, "det"), ("jugador", "jugador", "NOUN", MS, 2, "conj"),
                  (".", ".", "PUNCT", "", 1, "punct"))
    assert changed(spanish_generator, listed, ES) == ["entrenadora", "jugador"]


def test_a_pronoun_said_to_be_a_noun_the_list_does_not_pair_keeps_its_gender(spanish_generator):
    # "él es el directivo blanco": the list has no directiva, so "ella es el directivo" would mix genders;
    # "él es el jugador" changes with its noun
    executive = tree("Él es el directivo blanco.",
                     ("Él", "él", "PRON", "Gender=Masc|Number=Sing|Person=3|PronType=Prs", 4, "nsubj"),
                     ("es", "ser", "AUX", V3, 4, "cop"), ("el", "el", "DET", ART_MS, 4, "det"),
                     ("directivo", "directivo", "NOUN", MS, 0, "root"), ("blanco", "blanco", "ADJ", MS, 4, "amod"),
                     (".", ".", "PUNCT", "", 4, "punct"))
    assert changed(spanish_generator, executive, ES) == []
    player = executive.replace("directivo\tdirectivo", "jugador\tjugador").replace(" directivo ", " jugador ")
    assert changed(spanish_generator, player, ES) == ["Él", "jugador"]
