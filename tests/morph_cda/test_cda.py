"""The whole pipeline on hand-made trees: intervention, MAP tags, reinflection, surface."""

import json

import pytest

from cdaflow.cli import main
from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention, gender_intervention
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.interventions import interventions_for
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.model_folder import load_model, save_model
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.sentence_analysis import SentenceAnalyser
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats

# Feminine and masculine forms the lexicon learns from.
LEXICON = """# text = La ingeniera alemana es experta y la niña es alta.
1\tLa\tel\tDET\t_\tGender=Fem|Number=Sing\t2\tdet\t_\t_
2\tingeniera\tingeniero\tNOUN\t_\tGender=Fem|Number=Sing\t5\tnsubj\t_\t_
3\talemana\talemán\tADJ\t_\tGender=Fem|Number=Sing\t2\tamod\t_\t_
4\tes\tser\tAUX\t_\tNumber=Sing|Person=3\t5\tcop\t_\t_
5\texperta\texperto\tADJ\t_\tGender=Fem|Number=Sing\t0\troot\t_\t_
6\ty\ty\tCCONJ\t_\t_\t11\tcc\t_\t_
7\tla\tel\tDET\t_\tGender=Fem|Number=Sing\t8\tdet\t_\t_
8\tniña\tniño\tNOUN\t_\tGender=Fem|Number=Sing\t11\tnsubj\t_\t_
9\tes\tser\tAUX\t_\tNumber=Sing|Person=3\t11\tcop\t_\t_
10\tel\tel\tDET\t_\tGender=Masc|Number=Sing\t11\tdet\t_\t_
11\talto\talto\tADJ\t_\tGender=Masc|Number=Sing\t5\tconj\t_\t_

"""


@pytest.fixture(scope="module")
def reinflector():
    sentences = parse_conllu_string(LEXICON)
    return Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)


@pytest.fixture
def generator(spanish, reinflector):
    inventory = TagInventory.from_tags(
        tag_from_feats(w["feats"]) for s in [*spanish, *parse_conllu_string(LEXICON)] for w in words(s)
    )
    return CounterfactualGenerator(AgreementMRF(inventory, "base", "es"), reinflector, "es", log_alpha=1.0)


def test_paper_figure_1(spanish, generator):
    noun = Intervention(1, ("Gender=Fem", "Number=Sing"), form="ingeniera")
    (result,) = generator.generate([spanish[0]], [[noun]])
    assert result.counterfactual == "La ingeniera alemana es muy experta."
    assert result.changed == [0, 1, 2, 5]


def test_contraction_is_rebuilt(spanish, generator):
    # Make "pueblo" feminine: "del" must become "de la".
    noun = Intervention(6, ("Gender=Fem", "Number=Sing"), form="pueblita")
    (result,) = generator.generate([spanish[1]], [[noun]])
    assert result.counterfactual == "Vi a la niña de la pueblita."


def test_batched_equals_one_at_a_time(spanish, generator):
    groups = [
        [Intervention(1, ("Gender=Fem", "Number=Sing"), form="ingeniera")],
        [Intervention(3, ("Gender=Masc", "Number=Sing"), form="niño")],
    ]
    together = generator.generate(spanish, groups)
    alone = [generator.generate([s], [g])[0] for s, g in zip(spanish, groups)]
    assert [r.counterfactual for r in together] == [r.counterfactual for r in alone]
    assert together[1].counterfactual == "Vi al niño del pueblo."


def test_gazetteer_formats(tmp_path):
    ours = tmp_path / "ours.tsv"
    ours.write_text(
        "# note\nmasculine\tfeminine\tenglish\ningeniero\tingeniera\tengineer\n", encoding="utf-8"
    )
    bias_cda = tmp_path / "spanish.tsv"
    bias_cda.write_text("english\tfem\tmasc\ndancer\tbailarina\tbailarín\n", encoding="utf-8")
    french = tmp_path / "french.tsv"
    french.write_text("student\tétudiante\tétudiant\r\n", encoding="utf-8")
    assert Gazetteer.read(ours).to_fem == {"ingeniero": "ingeniera"}
    assert Gazetteer.read(bias_cda).to_masc == {"bailarina": "bailarín"}
    assert Gazetteer.read(french).to_fem == {"étudiant": "étudiante"}


def test_interventions_follow_the_direction(spanish, generator):
    gazetteer = Gazetteer(
        {"ingeniero": "ingeniera", "niño": "niña"}, {"ingeniera": "ingeniero", "niña": "niño"}
    )
    assert [i.form for i in interventions_for(spanish[0], gazetteer, generator, "flip")] == ["ingeniera"]
    assert interventions_for(spanish[0], gazetteer, generator, "to-masc") == []
    assert [i.form for i in interventions_for(spanish[1], gazetteer, generator, "to-masc")] == ["niño"]
    with pytest.raises(ValueError, match="unknown direction"):
        interventions_for(spanish[0], gazetteer, generator, "sideways")


def test_saved_model_runs_from_the_cli(spanish, generator, reinflector, tmp_path, capsys):
    reinflector_dir = tmp_path / "reinflection"
    reinflector.save(reinflector_dir)
    gazetteer = tmp_path / "g.tsv"
    gazetteer.write_text("masculine\tfeminine\tenglish\ningeniero\tingeniera\tengineer\n", encoding="utf-8")
    save_model(tmp_path / "model", generator.mrf, reinflector_dir, gazetteer, 1.0)
    loaded, _ = load_model(tmp_path / "model")
    assert loaded.log_alpha == 1.0 and loaded.lang == "es"
    conllu = tmp_path / "in.conllu"
    conllu.write_text("".join(s.serialize() for s in spanish), encoding="utf-8")
    args = [
        "cda",
        "--lang",
        "es",
        "--model",
        str(tmp_path / "model"),
        "--format",
        "conllu",
        "--input",
        str(conllu),
    ]
    assert main(args) == 0
    first, second = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert first["counterfactual"] == "La ingeniera alemana es muy experta."
    assert {c["to"] for c in first["changed"]} == {"La", "ingeniera", "alemana", "experta"}
    assert first["intervened"] == [{"id": 2, "from": "ingeniero", "to": "ingeniera"}]
    assert second["counterfactual"] is None  # no gazetteer noun


def test_cli_errors(tmp_path, capsys):
    assert main(["cda", "--lang", "es", "--model", str(tmp_path / "absent")]) == 2
    assert "model folder not found" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["cda", "--lang", "es", "--model", str(tmp_path / "empty")]) == 2
    assert "not a cdaflow CDA model" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["cda", "--lang", "xx", "--model", str(tmp_path)])


def test_gazetteer_note_rows_and_one_written_format(tmp_path):
    source = tmp_path / "spanish.tsv"
    source.write_text("english\tfem\tmasc\r\nengineer\tingeniera\tingeniero\r\n\t\t\r\nremoved uno--una\t\t\r\n")
    gazetteer = Gazetteer.read(source)
    assert gazetteer.to_fem == {"ingeniero": "ingeniera"}
    gazetteer.write(tmp_path / "out.tsv")
    assert (tmp_path / "out.tsv").read_text().splitlines() == [
        "# read from spanish.tsv",
        "masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural",
        "ingeniero\tingeniera\tengineer\tpair\t\t",
    ]
    assert Gazetteer.read(tmp_path / "out.tsv").to_masc == {"ingeniera": "ingeniero"}
    source.write_text("masculine\tfeminine\nactor\t\n")
    with pytest.raises(ValueError, match="row 2: expected masculine and feminine"):
        Gazetteer.read(source)


# "El periodista es experto.": a common-gender noun (no Gender feature), masculine by its article.
COMMON_GENDER = """# sent_id = periodista
# text = El periodista es experto.
1\tEl\tel\tDET\t_\tDefinite=Def|Gender=Masc|Number=Sing|PronType=Art\t2\tdet\t_\t_
2\tperiodista\tperiodista\tNOUN\t_\tNumber=Sing\t4\tnsubj\t_\t_
3\tes\tser\tAUX\t_\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t4\tcop\t_\t_
4\texperto\texperto\tADJ\t_\tGender=Masc|Number=Sing\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t_\t_\t4\tpunct\t_\t_

"""


def test_gender_intervention_gives_a_common_gender_noun_its_new_gender(generator):
    (sentence,) = parse_conllu_string(COMMON_GENDER)
    noun = words(sentence)[1]
    intervention = gender_intervention(1, noun, generator, "Fem", form="periodista")
    assert intervention.tag == ("Gender=Fem", "Number=Sing")
    (result,) = generator.generate([sentence], [[intervention]])
    # Flipping the gender-less tag would change nothing; the given gender reaches El and experto.
    assert result.counterfactual == "La periodista es experta."
    assert gender_intervention(0, words(sentence)[0], generator, "Fem").tag == ("Gender=Fem", "Number=Sing")
    with pytest.raises(ValueError, match="unknown gender"):
        gender_intervention(1, noun, generator, "Neut")


def test_interventions_for_uses_the_shared_intervention(generator, spanish):
    gazetteer = Gazetteer({"ingeniero": "ingeniera"}, {"ingeniera": "ingeniero"})
    (found,) = interventions_for(spanish[0], gazetteer, generator, "flip")
    word = words(spanish[0])[1]
    assert found == gender_intervention(1, word, generator, "Fem", form="ingeniera", lemma="ingeniera")


def spacy_like(text_rows):
    """One sentence from tab-separated (form, lemma, upos, feats, head, deprel) rows."""
    lines = [
        "\t".join([str(i), form, lemma, upos, "_", feats or "_", str(head), deprel, "_", "_"])
        for i, (form, lemma, upos, feats, head, deprel) in enumerate(text_rows, start=1)
    ]
    return parse_conllu_string("\n".join(lines) + "\n\n")[0]


FIN = "Number=Plur|Person=3|VerbForm=Fin"


def test_a_lower_case_propn_in_the_list_is_read_as_a_noun_with_its_number(generator):
    from cdaflow.morph_cda.cda import with_parts_of_speech
    from cdaflow.morph_cda.tree_encoding import POS_INDEX

    # spaCy: "Los reyes fueron recibidos." with reyes PROPN and no features
    sentence = spacy_like([
        ("Los", "el", "DET", "Gender=Masc|Number=Plur", 2, "det"), ("reyes", "reyes", "PROPN", "", 4, "nsubj"),
        ("fueron", "ser", "AUX", FIN, 4, "aux"), ("recibidos", "recibir", "VERB", "Gender=Masc|Number=Plur", 0, "root"),
    ])
    plurals = {("rey", "Masc"): "reyes", ("reina", "Fem"): "reinas"}
    gazetteer = Gazetteer({"rey": "reina"}, {"reina": "rey"}, plurals=plurals)
    (found,) = interventions_for(sentence, gazetteer, generator, "to-fem")
    assert (found.form, found.upos, found.tag) == ("reinas", "NOUN", ("Gender=Fem", "Number=Plur"))
    encoded = generator.analyser.encode(sentence)
    assert with_parts_of_speech(encoded, [found]).pos[1] == POS_INDEX["NOUN"]
    assert encoded.pos[1] == POS_INDEX["PROPN"]  # the shared encoding is left as it was


def test_a_bare_predicate_noun_the_lexicon_knows_as_an_adjective_is_read_as_one(generator):
    from cdaflow.morph_cda.tree_encoding import POS_INDEX

    def predicate(lemma, with_article):
        rows = [("El", "el", "DET", "Gender=Masc|Number=Sing", 2, "det"),
                ("niño", "niño", "NOUN", "Gender=Masc|Number=Sing", 4, "nsubj"),
                ("es", "ser", "AUX", "Number=Sing|Person=3", 4, "cop"),
                (lemma, lemma, "NOUN", "Gender=Masc|Number=Sing", 0, "root")]
        if with_article:
            rows = rows[:3] + [("un", "uno", "DET", "Gender=Masc|Number=Sing", 5, "det")] + [rows[3][:4] + (0, "root")]
            rows[1] = rows[1][:4] + (5, "nsubj")
            rows[2] = rows[2][:4] + (5, "cop")
        return spacy_like(rows)

    # the lexicon has "alto" and "experto" as adjectives (LEXICON), not "pueblo"
    assert generator.analyser.encode(predicate("alto", False)).pos[3] == POS_INDEX["ADJ"]
    assert generator.analyser.encode(predicate("pueblo", False)).pos[3] == POS_INDEX["NOUN"]
    assert generator.analyser.encode(predicate("alto", True)).pos[4] == POS_INDEX["NOUN"]  # "un alto": a noun


def test_a_fused_preposition_is_read_as_its_article(generator):
    from cdaflow.morph_cda.tree_encoding import POS_INDEX, REL_INDEX

    sentence = spacy_like([  # spaCy's one token "del"
        ("la", "el", "DET", "Gender=Fem|Number=Sing", 2, "det"),
        ("hija", "hijo", "NOUN", "Gender=Fem|Number=Sing", 0, "root"),
        ("del", "del", "ADP", "", 4, "case"), ("vecino", "vecino", "NOUN", "Gender=Masc|Number=Sing", 2, "nmod"),
    ])
    encoded = generator.analyser.encode(sentence)
    assert (encoded.pos[2], encoded.rel[2]) == (POS_INDEX["DET"], REL_INDEX["det"])
    (result,) = generator.generate([sentence], [[Intervention(3, ("Gender=Fem", "Number=Sing"), form="vecina")]])
    assert result.counterfactual == "la hija de la vecina"


def test_nouns_keep_their_gender_setting_is_saved(generator, reinflector, tmp_path):
    import json

    from cdaflow.morph_cda.cda import INHERENT_GENDER

    assert generator.inherent_gender == INHERENT_GENDER == ("NOUN", "PROPN")
    reinflector.save(tmp_path / "reinflection")
    gazetteer = tmp_path / "g.tsv"
    gazetteer.write_text("masculine\tfeminine\tenglish\ningeniero\tingeniera\tengineer\n", encoding="utf-8")
    save_model(tmp_path / "model", generator.mrf, tmp_path / "reinflection", gazetteer, 1.0)
    assert load_model(tmp_path / "model")[0].inherent_gender == INHERENT_GENDER
    settings = json.loads((tmp_path / "model" / "cda.json").read_text())
    del settings["inherent_gender"]  # a folder saved before the setting existed
    (tmp_path / "model" / "cda.json").write_text(json.dumps(settings))
    assert load_model(tmp_path / "model")[0].inherent_gender == ()


@pytest.mark.parametrize(
    ("original", "rebuilt", "new", "expected"),
    [
        ("descubiertos", "descubridos", "descubridas", "descubiertas"),  # irregular stem: edit the word itself
        ("cansados", "cansados", "cansadas", "cansadas"),  # regular: the reinflector's form stands
        ("puesto", "ponido", "ponida", "puesta"),
        ("fue", "fueron", "fueran", "fueran"),  # the word does not end as the edit expects: no analogy
        ("os", "ados", "adas", "adas"),  # nothing would be left of the word
    ],
)
def test_by_analogy_reinflects_irregular_words_from_their_own_form(original, rebuilt, new, expected):
    from cdaflow.morph_cda.cda import by_analogy

    assert by_analogy(original, rebuilt, new) == expected


class _SlipProbe:
    """What SentenceAnalyser._predicative_slip reads: an adjective lexicon, no Hunspell."""

    def __init__(self, adjectives):
        self.adjectives = adjectives

    def attested_adjective(self, form):
        return self.adjectives.get(form)

    def gender_by_ending(self, form, feats):
        return None


@pytest.mark.parametrize(
    ("word", "head", "relations", "slip"),
    [
        # spaCy's French: "Ma voisine semblait inquiète hier soir" (inquiète: a finite inquiéter)
        ({"form": "inquiète", "upos": "VERB", "deprel": "xcomp", "feats": {"VerbForm": "Fin"}}, "VERB", set(), True),
        # "... semblait fatiguée hier soir" (fatiguée: a bare noun)
        ({"form": "fatiguée", "upos": "NOUN", "deprel": "xcomp", "feats": {}}, "VERB", {"advmod"}, True),
        ({"form": "fatiguée", "upos": "NOUN", "deprel": "obj", "feats": {}}, "VERB", set(), False),  # not a predicate
        ({"form": "fatiguée", "upos": "NOUN", "deprel": "xcomp", "feats": {}}, "VERB", {"det"}, False),  # a noun phrase
        ({"form": "chante", "upos": "VERB", "deprel": "xcomp", "feats": {"VerbForm": "Fin"}}, "VERB", set(), False),
        ({"form": "inquiète", "upos": "VERB", "deprel": "xcomp", "feats": {"VerbForm": "Fin"}}, None, set(), False),
    ],
)
def test_a_predicate_taken_for_a_verb_or_a_noun_is_an_adjective(word, head, relations, slip):
    probe = _SlipProbe({"inquiète": ("inquiet", {}), "fatiguée": ("fatigué", {})})
    head_word = None if head is None else {"upos": head}
    assert SentenceAnalyser._predicative_slip(probe, word, head_word, relations) is slip
