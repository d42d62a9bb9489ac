"""The word rules alone: the other-gender form of one word of a word class, or None when it has no gender."""

import pytest

from cdaflow.regender.flipping import WordFlipper
from cdaflow.regender.rule_files import read_rule_folder
from cdaflow.regender.rules import DEFAULT_RULES_DIR


@pytest.fixture(scope="module")
def paper() -> WordFlipper:
    return WordFlipper(read_rule_folder(DEFAULT_RULES_DIR, "paper").rules)


@pytest.fixture(scope="module")
def extended() -> WordFlipper:
    return WordFlipper(read_rule_folder(DEFAULT_RULES_DIR, "extended").rules)


@pytest.mark.parametrize(
    ("category", "word", "next_word", "flipped"),
    [
        ("PPC", "Lo", None, "La"),  # in the word's case
        ("PPC", "lo", "siento", None),  # Lo siento: lo stands for a general concept
        ("ADJ", "cansado", None, "cansada"),
        ("ADJ", "genial", None, None),  # a neutral ending
        ("ADJ", "trabajadores", None, "trabajadoras"),  # -dores is not the neutral -es
        ("Vadj", "CANSADO", None, "CANSADA"),
        ("VCL", "verlo", None, "verla"),
        ("VCL", "pensarlo", None, None),  # a verb whose lo is neuter
        ("VCL", "olvídala", None, "olvídalo"),  # ... but not its la
        ("DM", "este", None, "esta"),
        ("DM", "esto", None, None),
    ],
)
def test_flip(paper, category, word, next_word, flipped):
    assert paper.flip(category, word, next_word) == flipped


def test_the_extension_adds_articles(paper, extended):
    assert (paper.flip("ART", "la"), extended.flip("ART", "la")) == (None, "el")
    with pytest.raises(ValueError, match="unknown category 'NC'"):
        paper.flip("NC", "casa")
