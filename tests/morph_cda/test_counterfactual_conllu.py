"""`cdaflow cda --output-format conllu`: a counterfactual written back into its sentence's annotation."""

from types import SimpleNamespace

from cdaflow.io.conllu import parse_conllu_string, validate_sentence, words
from cdaflow.morph_cda.counterfactual_conllu import counterfactual_sentence

SENTENCE = """# sent_id = s1
# text = El hijo del rey llegó.
1\tEl\tel\tDET\t_\tGender=Masc|Number=Sing\t2\tdet\t_\t_
2\thijo\thijo\tNOUN\t_\tGender=Masc|Number=Sing\t6\tnsubj\t_\t_
3-4\tdel\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tel\tel\tDET\t_\tGender=Masc|Number=Sing\t5\tdet\t_\t_
5\trey\trey\tNOUN\t_\tGender=Masc|Number=Sing\t2\tnmod\t_\t_
6\tllegó\tllegar\tVERB\t_\tNumber=Sing|Person=3\t0\troot\t_\tSpaceAfter=No
7\t.\t.\tPUNCT\t_\t_\t6\tpunct\t_\t_

"""
FEATURES = ("Gender", "Number", "Person")
FEM = ("Gender=Fem", "Number=Sing")
MASC = ("Gender=Masc", "Number=Sing")


def result(forms, tags, changed, counterfactual):
    return SimpleNamespace(forms=forms, tags=tags, changed=changed, counterfactual=counterfactual,
                           original="El hijo del rey llegó.")


def test_changed_words_get_their_forms_and_features_and_a_broken_contraction_is_written_out():
    (sentence,) = parse_conllu_string(SENTENCE)
    forms = ["La", "hija", "de", "la", "reina", "llegó", "."]
    tags = [FEM, FEM, (), FEM, FEM, ("Number=Sing", "Person=3"), ()]
    new = counterfactual_sentence(sentence, result(forms, tags, [0, 1, 3, 4], "La hija de la reina llegó."),
                                  "es", FEATURES)
    assert [w["form"] for w in words(new)] == forms
    assert words(new)[1]["feats"] == {"Gender": "Fem", "Number": "Sing"}
    assert words(new)[1]["lemma"] == "hijo" and words(new)[1]["head"] == 6  # the annotation otherwise kept
    assert not any(isinstance(t["id"], tuple) for t in new)  # de + la is no contraction: the range goes
    assert new.metadata["text"] == "La hija de la reina llegó."
    assert new.metadata["original_text"] == "El hijo del rey llegó."
    validate_sentence(new)
    assert words(sentence)[0]["form"] == "El"  # the input sentence is not touched


def test_a_contraction_whose_parts_keep_their_gender_stays():
    (sentence,) = parse_conllu_string(SENTENCE)
    forms = ["La", "hija", "de", "el", "rey", "llegó", "."]
    tags = [FEM, FEM, (), MASC, MASC, ("Number=Sing", "Person=3"), ()]
    new = counterfactual_sentence(sentence, result(forms, tags, [0, 1], "La hija del rey llegó."), "es", FEATURES)
    assert [t["form"] for t in new if isinstance(t["id"], tuple)] == ["del"]


def test_a_sentence_without_a_counterfactual_is_copied_as_it_is():
    (sentence,) = parse_conllu_string(SENTENCE)
    new = counterfactual_sentence(sentence, None, "es", FEATURES)
    assert new == sentence and new is not sentence and "original_text" not in new.metadata
