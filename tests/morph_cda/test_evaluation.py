import pytest

from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.annotations import Annotation, Change
from cdaflow.morph_cda.cda import Counterfactual, CounterfactualGenerator
from cdaflow.morph_cda.evaluation import (
    Scores,
    evaluate,
    evaluate_swap,
    gold_new_gender,
    link_to_noun,
    relation_rows,
    relation_scores,
    score_sentence,
)
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats


@pytest.fixture
def annotation(spanish):
    return Annotation(
        "tb",
        "test",
        "fig2",
        "test",
        Change(2, "ingeniero", "ingeniera"),
        (Change(1, "El", "La"), Change(3, "alemán", "alemana"), Change(6, "experto", "experta")),
        "",
        "x.tsv:2",
        spanish[0],
    )


def test_hand_made_scores(annotation):
    # Predicted: El and alemán right, "es" wrongly changed, experto missed; one form wrong.
    forms = ["La", "ingeniera", "alemán", "son", "muy", "experto", "."]
    scores = score_sentence(annotation, {0, 2, 3}, forms)
    assert (scores.true_positive, scores.predicted, scores.gold, scores.words) == (2, 3, 3, 6)
    assert scores.tags_correct == 4  # El, alemán, muy, "." right; es and experto wrong
    assert scores.forms_correct == 3  # La, muy, "."
    row = scores.as_row()
    assert row["tag_precision"] == pytest.approx(200 / 3)
    assert row["tag_recall"] == pytest.approx(200 / 3)
    assert row["tag_f1"] == pytest.approx(200 / 3)
    assert row["tag_accuracy"] == pytest.approx(400 / 6)
    assert row["form_accuracy"] == pytest.approx(50.0)


def test_perfect_prediction(annotation):
    scores = score_sentence(annotation, {0, 2, 5}, annotation.gold_forms())
    row = scores.as_row()
    assert row["tag_f1"] == row["tag_accuracy"] == row["form_accuracy"] == 100


def test_swap_changes_nothing_but_the_noun(annotation):
    row = evaluate_swap([annotation]).as_row()
    assert row["tag_precision"] == row["tag_recall"] == row["tag_f1"] == 0
    assert row["tag_accuracy"] == pytest.approx(50.0)  # 3 of 6 words need no change
    assert row["form_accuracy"] == pytest.approx(50.0)


def test_scores_add_up():
    total = Scores()
    total.add(Scores(1, 2, 3, 4, 5, 6, 1))
    total.add(Scores(1, 2, 3, 4, 5, 6, 1))
    assert total == Scores(2, 4, 6, 8, 10, 12, 2)


# "El periodista es experto.": a common-gender noun; {det} and {adj} are the article's and
# the adjective's Gender (the treebank's, which may be wrong).
COMMON = """# sent_id = c1
# text = El periodista es experto.
1\tEl\tel\tDET\t_\tGender={det}|Number=Sing\t2\tdet\t_\t_
2\tperiodista\tperiodista\tNOUN\t_\tNumber=Sing\t4\tnsubj\t_\t_
3\tes\tser\tAUX\t_\tNumber=Sing|Person=3\t4\tcop\t_\t_
4\texperto\texperto\tADJ\t_\tGender={adj}|Number=Sing\t0\troot\t_\tSpaceAfter=No
5\t.\t.\tPUNCT\t_\t_\t4\tpunct\t_\t_

"""


def common_gender_annotation(det="Masc", adj="Masc"):
    (sentence,) = parse_conllu_string(COMMON.format(det=det, adj=adj))
    return Annotation(
        "tb", "test", "c1", "test", Change(2, "periodista", "periodista"),
        (Change(1, "El", "La"), Change(4, "experto", "experta")), "", "x.tsv:3", sentence,
    )


class FormsByGender:
    """A stand-in reinflector: the form of (lemma, gender), else the lemma."""

    FORMS = {
        ("el", "Masc"): "el", ("el", "Fem"): "la",
        ("experto", "Masc"): "experto", ("experto", "Fem"): "experta",
    }

    def inflect(self, queries):
        return [self.FORMS.get((lemma, features.get("Gender")), lemma) for lemma, _, features in queries]


def lexicon_generator(sentences, with_reinflector=True):
    tags = [tag_from_feats(w["feats"]) for s in sentences for w in s]
    feminine = [tuple(sorted(("Gender=Fem", *t[1:]))) for t in tags if t[:1] == ("Gender=Masc",)]
    inventory = TagInventory.from_tags(tags + feminine)
    reinflector = FormsByGender() if with_reinflector else None
    return CounterfactualGenerator(AgreementMRF(inventory, "base", "es"), reinflector, "es", 1.0)


def test_a_common_gender_noun_takes_the_gender_of_its_gold_forms():
    annotation = common_gender_annotation()
    generator = lexicon_generator([annotation.sentence])
    assert gold_new_gender(annotation, generator) == "Fem"
    scores, (output,) = evaluate(generator, [annotation])
    # Before, flipping the gender-less noun left it as it was: both gold changes were unreachable.
    assert output.counterfactual == "La periodista es experta."
    assert (scores.true_positive, scores.gold, scores.predicted) == (2, 2, 2)


def test_gold_forms_outvote_a_wrong_treebank_gender():
    # The treebank calls El and experto feminine; the gold forms La and experta are feminine, so
    # the noun becomes feminine (the present genders alone would have said masculine).
    annotation = common_gender_annotation(det="Fem", adj="Fem")
    assert gold_new_gender(annotation, lexicon_generator([annotation.sentence])) == "Fem"
    without_forms = lexicon_generator([annotation.sentence], with_reinflector=False)
    assert gold_new_gender(annotation, without_forms) == "Masc"


def test_a_gendered_noun_takes_the_other_gender(annotation):
    assert gold_new_gender(annotation, lexicon_generator([annotation.sentence])) == "Fem"


def test_links_to_the_noun(annotation):
    links = [link_to_noun(annotation, i) for i in (0, 2, 3, 4, 5)]
    assert links == [
        ("dependent", "det"),
        ("dependent", "amod"),
        ("sibling", "cop"),
        ("sibling", "advmod"),
        ("head", "nsubj"),  # experto: the predicative adjective the subject hangs on
    ]


def test_relation_rows_separate_tag_and_form_errors(annotation):
    # El changed right; alemán's tag right but its form wrong; experto missed.
    forms = ["La", "ingeniera", "alemanes", "es", "muy", "experto", "."]
    output = Counterfactual("", "", forms, [], [0, 1, 2])
    rows = {(r["link"], r["relation"]): r for r in relation_rows("LIN", relation_scores([annotation], [output]))}
    assert set(rows) == {("dependent", "det"), ("dependent", "amod"), ("head", "nsubj")}
    assert rows[("dependent", "det")]["tag_f1"] == 100 and rows[("dependent", "det")]["form_accuracy"] == 100
    amod = rows[("dependent", "amod")]
    assert (amod["tag_errors"], amod["form_errors_tag_right"], amod["form_accuracy"]) == (0, 1, 0)
    nsubj = rows[("head", "nsubj")]
    assert (nsubj["gold_changes"], nsubj["true_positives"], nsubj["tag_recall"], nsubj["tag_errors"]) == (1, 0, 0, 1)
    assert [r["link"] for r in relation_rows("LIN", relation_scores([annotation], [output]))][-1] == "head"


def test_tuning_picks_gender_carrying_when_the_dev_sentences_need_it():
    import torch

    from cdaflow.morph_cda.evaluation import tune_log_alpha
    from cdaflow.morph_cda.tree_encoding import Batch, encode

    (sentence,) = parse_conllu_string(
        "# text = Este profesor es el mejor.\n"
        "1\tEste\teste\tDET\t_\tGender=Masc|Number=Sing\t2\tdet\t_\t_\n"
        "2\tprofesor\tprofesor\tNOUN\t_\tGender=Masc|Number=Sing\t5\tnsubj\t_\t_\n"
        "3\tes\tser\tAUX\t_\tNumber=Sing|Person=3\t5\tcop\t_\t_\n"
        "4\tel\tel\tDET\t_\tGender=Masc|Number=Sing\t5\tdet\t_\t_\n"
        "5\tmejor\tmejor\tADJ\t_\tNumber=Sing\t0\troot\t_\t_\n\n"
    )
    tags = [tag_from_feats(w["feats"]) for w in sentence]
    inventory = TagInventory.from_tags(tags + [("Gender=Fem", "Number=Sing"), ("Gender=Fem", "Number=Sing")])
    mrf = AgreementMRF(inventory, "lin", "es", arc_frames=False)  # W set by the paper's arc types
    batch = Batch.build([encode(sentence, inventory)])
    with torch.no_grad():
        for j in (0, 1, 3):
            for g, sub in enumerate(inventory.subtags):
                if sub.startswith("Gender="):
                    mrf.W[int(batch.triple[0, j]), g, g] = 5.0
    generator = CounterfactualGenerator(mrf, FormsByGender(), "es", 1.0)
    annotation = Annotation(
        "tb", "test", "m", "dev", Change(2, "profesor", "profesora"),
        (Change(1, "Este", "Esta"), Change(4, "el", "la")), "", "x.tsv:4", sentence,
    )
    best, results = tune_log_alpha(generator, [annotation], [1.0, 2.0], carry_gender=(False, True))
    assert (best, generator.carry_gender) == (1.0, True)
    assert {(a, c) for a, c, _ in results} == {(1.0, False), (2.0, False), (1.0, True), (2.0, True)}
    f1 = {(a, c): row["tag_f1"] for a, c, row in results}
    assert f1[(1.0, True)] == 100 and f1[(1.0, False)] < 100
