"""`cdaflow cda --persons all`: Study B's rules on the first- and second-person agreement Study A
leaves, on hand-made trees (spaCy's analyses of these sentences)."""

import pytest

from cdaflow.cross_study.persons import SpeakerRules, rules_languages
from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.cda import Counterfactual
from cdaflow.morph_cda.tags import AGREEMENT_FEATURES, tag_from_feats

MS, FS = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing"
ESTOY = "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin"
ESTAS = "Mood=Ind|Number=Sing|Person=2|Tense=Pres|VerbForm=Fin"
ESTA = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"


def tree(text: str, *rows: tuple) -> str:
    """The sentence of (form, lemma, upos, feats, head, deprel) rows; `text` its spacing."""
    lines = [f"# text = {text}"]
    for i, (form, lemma, upos, feats, head, deprel) in enumerate(rows, 1):
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t_\t{feats or '_'}\t{head}\t{deprel}\t_\t_")
    (sentence,) = parse_conllu_string("\n".join(lines) + "\n\n")
    return sentence


TIRED = tree(
    "Estoy cansado y mi hermana está cansada.",
    ("Estoy", "estar", "AUX", ESTOY, 2, "cop"), ("cansado", "cansado", "ADJ", MS, 0, "root"),
    ("y", "y", "CCONJ", "", 8, "cc"), ("mi", "mi", "DET", "Number=Sing|Person=1|Poss=Yes|PronType=Prs", 5, "det"),
    ("hermana", "hermano", "NOUN", FS, 8, "nsubj"), ("está", "estar", "AUX", ESTA, 8, "cop"),
    ("cansada", "cansado", "ADJ", FS, 2, "conj"), (".", ".", "PUNCT", "", 2, "punct"),
)
HAPPY = tree(
    "¡Qué contento estás!",
    ("¡", "¡", "PUNCT", "", 3, "punct"), ("Qué", "qué", "PRON", "PronType=Exc", 3, "advmod"),
    ("contento", "contento", "ADJ", MS, 0, "root"), ("estás", "estar", "AUX", ESTAS, 3, "cop"),
    ("!", "!", "PUNCT", "", 3, "punct"),
)
BROKEN = tree(
    "Está rota.",
    ("Está", "estar", "AUX", ESTA, 2, "cop"), ("rota", "roto", "ADJ", FS, 0, "root"),
    (".", ".", "PUNCT", "", 2, "punct"),
)


@pytest.fixture(scope="module")
def speakers():
    return SpeakerRules("es")


def study_a(sentence, forms: dict[int, str], intervened: list[int], counterfactual: str) -> Counterfactual:
    """Study A's result as the generator gives it: `forms` the changed words (0-based)."""
    from cdaflow.io.conllu import words

    ws = words(sentence)
    new = [forms.get(i, w["form"]) for i, w in enumerate(ws)]
    tags = [tag_from_feats(w["feats"]) for w in ws]
    return Counterfactual(sentence.metadata["text"], counterfactual, new, tags, sorted(forms), intervened)


def test_study_a_and_the_rules_in_one_counterfactual(speakers):
    a = study_a(TIRED, {4: "hermano", 6: "cansado"}, [4], "Estoy cansado y mi hermano está cansado.")
    result = speakers.apply(TIRED, a, "flip", AGREEMENT_FEATURES)
    assert result.counterfactual == "Estoy cansada y mi hermano está cansado."
    assert result.changed == [1, 4, 6] and result.intervened == [4]
    assert result.forms[1] == "cansada" and result.by == {1: "persons"}
    assert "Gender=Fem" in result.tags[1]


def test_a_sentence_study_a_leaves(speakers):
    result = speakers.apply(HAPPY, None, "flip", AGREEMENT_FEATURES)
    assert result.original == "¡Qué contento estás!"
    assert result.counterfactual == "¡Qué contenta estás!"
    assert result.changed == [2] and result.intervened == [] and result.by == {2: "persons"}


def test_third_person_is_left_to_study_a(speakers):
    # the rules alone re-gender "Está rota." (usted, or a thing): not a first or second person
    assert speakers.apply(BROKEN, None, "flip", AGREEMENT_FEATURES) is None


def test_direction(speakers):
    assert speakers.apply(HAPPY, None, "to-masc", AGREEMENT_FEATURES) is None
    assert speakers.apply(HAPPY, None, "to-fem", AGREEMENT_FEATURES).counterfactual == "¡Qué contenta estás!"


def test_the_users_case_and_spacing_kept(speakers):
    shout = tree(
        "¡Qué  CONTENTO estás!",
        ("¡", "¡", "PUNCT", "", 3, "punct"), ("Qué", "qué", "PRON", "PronType=Exc", 3, "advmod"),
        ("CONTENTO", "contento", "ADJ", MS, 0, "root"), ("estás", "estar", "AUX", ESTAS, 3, "cop"),
        ("!", "!", "PUNCT", "", 3, "punct"),
    )
    assert speakers.apply(shout, None, "flip", AGREEMENT_FEATURES).counterfactual == "¡Qué  CONTENTA estás!"


def test_languages_without_rules_refused_in_one_line():
    assert rules_languages() == ["es"]
    with pytest.raises(ValueError) as info:
        SpeakerRules("fr")
    assert str(info.value) == (
        "--persons all: Study B has re-gendering rules for es only, not 'fr'; first- and second-person "
        "sentences of 'fr' cannot be re-gendered"
    )


def test_a_copula_the_parser_read_as_a_name(speakers):
    # spaCy: sentence-initial "Eres" a PROPN without features; its ending gives the person
    best = tree(
        "Eres la mejor.",
        ("Eres", "Eres", "PROPN", "", 3, "cop"), ("la", "el", "DET", "Definite=Def|" + FS + "|PronType=Art", 3, "det"),
        ("mejor", "mejor", "ADJ", "Degree=Cmp|Number=Sing", 0, "root"), (".", ".", "PUNCT", "", 3, "punct"),
    )
    assert speakers.apply(best, None, "flip", AGREEMENT_FEATURES).counterfactual == "Eres el mejor."
    third = tree(
        "Es la mejor.",
        ("Es", "Es", "PROPN", "", 3, "cop"), ("la", "el", "DET", "Definite=Def|" + FS + "|PronType=Art", 3, "det"),
        ("mejor", "mejor", "ADJ", "Degree=Cmp|Number=Sing", 0, "root"), (".", ".", "PUNCT", "", 3, "punct"),
    )
    assert speakers.apply(third, None, "flip", AGREEMENT_FEATURES) is None


def test_a_clitic_names_a_third_person(speakers):
    # the rules give "Lo vi ayer." (PPC): la is whoever was seen, not the speaker
    seen = tree(
        "La vi ayer.",
        ("La", "él", "PRON", "Case=Acc|" + FS + "|Person=3|PrepCase=Npr|PronType=Prs", 2, "obj"),
        ("vi", "ver", "VERB", "Mood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin", 0, "root"),
        ("ayer", "ayer", "ADV", "", 2, "advmod"), (".", ".", "PUNCT", "", 2, "punct"),
    )
    assert speakers.rules.decide(_segment(speakers, seen)).variant == "Lo vi ayer."
    assert speakers.apply(seen, None, "flip", AGREEMENT_FEATURES) is None


def _segment(speakers, sentence):
    from cdaflow.regender.segments import segment_from_sentence

    return segment_from_sentence(sentence, speakers.tagmap)
