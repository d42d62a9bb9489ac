"""The lexicon check: Hunspell analyses, gender and number agreement, candidate choice."""

import pytest

from cdaflow.morph_cda.hunspell import Hunspell, agrees, features_of, genderless

FS, MS = {"Gender": "Fem", "Number": "Sing"}, {"Gender": "Masc", "Number": "Sing"}
FP = {"Gender": "Fem", "Number": "Plur"}


def analysis(*fields):
    return frozenset(fields)


def test_agreement_with_and_without_gender_fields():
    inquiete = (analysis("st:inquiéter", "po:ipre"), analysis("st:inquiet", "po:adj", "is:fem", "is:sg"))
    assert agrees(inquiete, FS) and not agrees(inquiete, MS)  # the verb reading does not count
    assert agrees((analysis("st:malade", "po:adj", "is:epi", "is:sg"),), MS)
    assert agrees((analysis("st:heureux", "po:adj", "is:mas", "is:inv"),), {"Gender": "Masc", "Number": "Plur"})
    verb_only = (analysis("st:partir", "po:simp", "po:2sg"),)
    assert agrees(verb_only, FP) and not agrees(verb_only, FP, marks_gender=True)  # partisses
    assert agrees((analysis("st:acusada"),), FS)  # Spanish: known is all the dictionary says
    assert not agrees((), FS)


def test_features_of_a_form():
    assert features_of((analysis("st:fatiguer", "po:ppas", "is:mas", "is:sg"),)) == {"Gender": "Masc", "Number": "Sing"}
    assert features_of((analysis("st:furieux", "po:adj", "is:mas", "is:inv"),)) == {"Gender": "Masc"}
    assert genderless((analysis("st:jeune", "po:adj", "is:epi", "is:sg"),))
    assert not genderless((analysis("st:grand", "po:adj", "is:mas", "is:sg"),))


def test_find_needs_the_command_and_the_dictionaries(tmp_path):
    assert Hunspell.find(["fr"], directory=tmp_path) is None
    assert Hunspell.find(["fr"], command="no-such-hunspell-command") is None
    assert Hunspell.find([]) is None


@pytest.fixture(scope="module")
def french():
    checker = Hunspell.find(["fr"])
    if checker is None:
        pytest.skip("hunspell and hunspell-fr are not installed (apt-get install hunspell hunspell-fr)")
    return checker


def test_french_dictionary(french):
    found = french.analyses(["inquiète", "inquietes", "gentille", "gentile", "grand-mère", "de la"])
    assert agrees(found["inquiète"], FS) and agrees(found["gentille"], FS)
    assert found["inquietes"] == () and found["gentile"] == () and found["de la"] == ()  # unknown, or not one word
    assert features_of(found["grand-mère"], ("po:nom",)) == FS
    assert french.known(["inquiète", "inquietes"]) == {"inquiète"}


@pytest.mark.parametrize(
    ("dictionary", "known", "unknown"), [("es_ES", "navegadora", "inquieto_x"), ("it_IT", "gentile", "gentila")]
)
def test_other_dictionaries(dictionary, known, unknown):
    checker = Hunspell.find([dictionary])
    if checker is None:
        pytest.skip(f"hunspell {dictionary} is not installed")
    assert checker.known([known, unknown]) == {known}
