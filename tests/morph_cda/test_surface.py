import pytest

from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.surface import contract, detokenize, match_case, surface


def test_contraction_tables():
    assert contract("es", ["de", "el"]) == "del" and contract("es", ["de", "la"]) is None
    assert contract("fr", ["De", "le"]) == "Du" and contract("fr", ["à", "les"]) == "aux"
    assert contract("it", ["di", "la"]) == "della" and contract("it", ["in", "gli"]) == "negli"
    assert contract("it", ["su", "il"]) == "sul" and contract("it", ["a", "lo"]) == "allo"


def test_match_case():
    assert (
        match_case("El", "la") == "La" and match_case("EL", "la") == "LA" and match_case("el", "la") == "la"
    )


def test_spanish_del_becomes_de_la(spanish):
    tokens, spaces = surface(spanish[1], {6: "la", 7: "pueblita"}, "es")
    assert detokenize(tokens, spaces) == "Vi a la niña de la pueblita."


def test_unchanged_sentence_keeps_its_text(spanish):
    for sentence in spanish:
        assert detokenize(*surface(sentence, {}, "es")) == sentence.metadata["text"]


FRENCH = """# text = Il parle de la voisine.
1\tIl\til\tPRON\t_\tGender=Masc\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tla\tle\tDET\t_\tGender=Fem\t5\tdet\t_\t_
5\tvoisine\tvoisin\tNOUN\t_\tGender=Fem\t2\tobl\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


def test_french_de_le_contracts_to_du():
    (sentence,) = parse_conllu_string(FRENCH)
    assert detokenize(*surface(sentence, {4: "le", 5: "voisin"}, "fr")) == "Il parle du voisin."


ITALIAN = """# text = Il libro della ragazza.
1\tIl\til\tDET\t_\t_\t2\tdet\t_\t_
2\tlibro\tlibro\tNOUN\t_\t_\t0\troot\t_\t_
3-4\tdella\t_\t_\t_\t_\t_\t_\t_\t_
3\tdi\tdi\tADP\t_\t_\t5\tcase\t_\t_
4\tla\til\tDET\t_\tGender=Fem\t5\tdet\t_\t_
5\tragazza\tragazzo\tNOUN\t_\tGender=Fem\t2\tnmod\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


def test_italian_multiword_token_is_rebuilt():
    (sentence,) = parse_conllu_string(ITALIAN)
    assert detokenize(*surface(sentence, {4: "il", 5: "ragazzo"}, "it")) == "Il libro del ragazzo."


HEBREW = """# text = הילד הלך.
1-2\tהילד\t_\t_\t_\t_\t_\t_\t_\t_
1\tה\tה\tDET\t_\t_\t2\tdet\t_\t_
2\tילד\tילד\tNOUN\t_\tGender=Masc\t3\tnsubj\t_\t_
3\tהלך\tהלך\tVERB\t_\tGender=Masc\t0\troot\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

# text = בבית שלו.
1-3\tבבית\t_\t_\t_\t_\t_\t_\t_\t_
1\tב\tב\tADP\t_\t_\t3\tcase\t_\t_
2\tה\tה\tDET\t_\t_\t3\tdet\t_\t_
3\tבית\tבית\tNOUN\t_\t_\t0\troot\t_\t_
4-6\tביתו\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
4\tבית_\tבית\tNOUN\t_\t_\t3\tappos\t_\t_
5\t_של_\tשל\tADP\t_\t_\t6\tcase\t_\t_
6\t_הוא\tהוא\tPRON\t_\tGender=Masc\t4\tnmod:poss\t_\t_
7\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

"""


@pytest.mark.parametrize(
    ("index", "forms", "expected"),
    [
        (0, {2: "ילדה", 3: "הלכה"}, "הילדה הלכה."),  # prefix ה + noun: concatenation
        (1, {3: "חדר"}, "בחדר ביתו."),  # ב + (ה) + noun: the article stays swallowed
        (1, {6: "_היא"}, "בבית ביתה."),  # possessive suffix: ו → ה
    ],
)
def test_hebrew_prefixes_and_suffixes(index, forms, expected):
    sentence = parse_conllu_string(HEBREW)[index]
    assert detokenize(*surface(sentence, forms, "he")) == expected
