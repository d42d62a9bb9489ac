import pytest

from cdaflow.morph_cda.annotations import Annotation, Change
from cdaflow.morph_cda.evaluation import Scores, evaluate_swap, score_sentence


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
