"""Gender swapping for data augmentation (Dolci et al. 2023, §4.2.2 and Appendix A)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cdaflow.sentence_bias.swap import (
    APPENDIX_A_NAME_EXAMPLES,
    DEFAULT_SWAP_PAIRS,
    Swapper,
    load_swap_pairs,
    read_ssa_names,
    tokenize,
)

FEMALE_NAMES = ["Mary", "Patricia", "Rachel", "Emma", "Jordan"]
MALE_NAMES = ["James", "John", "Patrick", "Jordan", "Michael", "Noah"]


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, str]]:
    return load_swap_pairs()


@pytest.fixture(scope="module")
def swapper(pairs) -> Swapper:
    return Swapper(pairs, FEMALE_NAMES, MALE_NAMES)


@pytest.fixture(scope="module")
def context_swapper(pairs) -> Swapper:
    return Swapper(pairs, FEMALE_NAMES, MALE_NAMES, her_rule="context")


def test_appendix_a_list(pairs) -> None:
    assert len(pairs) == 62
    words = {w for pair in pairs for w in pair}
    assert len(words) == 122  # the paper's "122 gender words"
    assert pairs[0] == ("girl", "boy") and pairs[-1] == ("aunts", "uncles")
    assert ("her", "him") in pairs and ("hers", "his") in pairs and ("her", "his") in pairs
    lines = [line for line in DEFAULT_SWAP_PAIRS.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    assert lines[0] == "female\tmale" and len(lines) == 63
    assert len(APPENDIX_A_NAME_EXAMPLES) == 30 and APPENDIX_A_NAME_EXAMPLES[0] == ("Mary", "James")


def test_tokenize_offsets() -> None:
    sentence = "She  didn't see   the girl's dog, (Mr. Smith)!"
    tokens = tokenize(sentence)
    assert [t.text for t in tokens] == [
        "She", "did", "n't", "see", "the", "girl", "'s", "dog", ",", "(", "Mr", ".", "Smith", ")", "!",
    ]  # fmt: skip
    assert all(sentence[t.start : t.end] == t.text for t in tokens)


@pytest.mark.parametrize(
    ("sentence", "expected", "n"),
    [
        ("he is a young boy", "she is a young girl", 2),  # the paper's examples
        ("my father is a singer", "my mother is a singer", 1),
        ("She is a young girl", "He is a young boy", 2),
        ("SHE and HE", "HE and SHE", 2),
        ("The Queen met the KINGS.", "The King met the QUEENS.", 2),
        ("Two men are outside", "Two women are outside", 1),
        ("The wives and husbands", "The husbands and wives", 2),
        ("Grandsons visit their grandmothers", "Granddaughters visit their grandfathers", 2),
        ("A businesswoman and two spokesmen", "A businessman and two spokeswomen", 2),
        ("Mr. Smith's wife", "Mrs. Smith's husband", 2),
        ("the girl's mother-in-law", "the boy's father-in-law", 2),
        ("himself, herself", "herself, himself", 2),
    ],
)
def test_gender_words_both_directions(swapper, sentence, expected, n) -> None:
    assert swapper.swap(sentence) == (expected, n)


def test_mixed_case_and_unknown_words_untouched(swapper) -> None:
    assert swapper.swap("sHe is a ManAger; the boyish mentor") == ("sHe is a ManAger; the boyish mentor", 0)


def test_names_by_rank(swapper) -> None:
    # the paper's example: Patrick and Rachel have the same popularity rank
    assert swapper.swap("Patrick is going to the supermarket") == ("Rachel is going to the supermarket", 1)
    assert swapper.swap("Mary met John and PATRICIA.") == ("James met Patricia and JOHN.", 3)
    # names match only capitalised or upper case; a name beyond the shorter list (Noah, rank 5) is not used
    assert swapper.swap("mary will mark it, Noah") == ("mary will mark it, Noah", 0)
    # unisex name: male rank 3 < female rank 4, so it is read as male and becomes the female name of rank 3
    assert swapper.swap("Jordan and Emma") == ("Emma and Jordan", 2)
    assert swapper.swap("Michael") == ("Jordan", 1)


def test_n_names_limit(pairs) -> None:
    limited = Swapper(pairs, FEMALE_NAMES, MALE_NAMES, n_names=1)
    assert limited.swap("Mary and John") == ("James and John", 1)
    assert limited.n_names == 2
    assert Swapper(pairs, FEMALE_NAMES, MALE_NAMES).n_names == 9  # Jordan once


def test_gender_word_wins_over_name(pairs) -> None:
    swapper = Swapper(pairs, ["Gal", "Rose"], ["Guy", "Ted"])
    assert swapper.swap("Guy saw Rose") == ("Gal saw Ted", 2)


def test_spacing_and_punctuation_preserved(swapper) -> None:
    sentence = '  "He said:   the BOY\'s\tdad-- (his son) -- is here!"  '
    expected = '  "She said:   the GIRL\'s\tmom-- (her daughter) -- is here!"  '
    assert swapper.swap(sentence) == (expected, 5)


def test_sentence_without_gender_words(swapper) -> None:
    sentence = "A dog runs through the park, chasing  a ball."
    assert swapper.swap(sentence) == (sentence, 0)
    assert swapper.swap("A nurse helps Mary")[1] > 0 and swapper.swap("HIS")[1] == 1


def test_her_his_paper_rule(swapper) -> None:
    # Appendix A: him <=> her, his <=> hers, his => her (one way): her -> him, hers -> his, his -> her, him -> her
    assert swapper.swap("She gave her dog to him") == ("He gave him dog to her", 3)
    assert swapper.swap("The bag is hers, not his.") == ("The bag is his, not her.", 2)
    assert swapper.swap("His hat; HER hat") == ("Her hat; HIM hat", 2)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("She walks her dog.", "He walks his dog."),
        ("A woman carries her red bag", "A man carries his red bag"),
        ("He saw her.", "She saw him."),
        ("He saw her", "She saw him"),
        ("He gave her a hat", "She gave him a hat"),
        ("pick her up and hug her", "pick him up and hug him"),
        ("her 2 kids", "his 2 kids"),
        ("Her mother's car", "His father's car"),
        ("The bag is his.", "The bag is hers."),
        ("his is red", "hers is red"),
        ("He raises his hand", "She raises her hand"),
        ("holding his or her hand", "holding her or his hand"),
        ("look at him or her.", "look at her or him."),
        ("The bag is hers", "The bag is his"),
    ],
)
def test_her_his_context_rule(context_swapper, sentence, expected) -> None:
    assert context_swapper.swap(sentence)[0] == expected


def test_round_trip(swapper) -> None:
    sentence = "The Queen's nephews and Mary's stepdaughter met Mr. Jones, her uncle."
    once, n = swapper.swap(sentence)
    assert once == "The King's nieces and James's stepson met Mrs. Jones, him aunt."
    assert swapper.swap(once) == (sentence, n) and n == 7


def test_invalid_arguments(pairs, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="her_rule"):
        Swapper(pairs, her_rule="grammar")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="both female and male"):
        Swapper([("her", "his"), ("his", "him")])
    bad = tmp_path / "bad.tsv"
    bad.write_text("male\tfemale\nboy\tgirl\n", encoding="utf-8")
    with pytest.raises(ValueError, match="header"):
        load_swap_pairs(bad)


def test_read_ssa_names(tmp_path: Path) -> None:
    (tmp_path / "yob2000.txt").write_text("Mary,F,10\nAnna,F,5\nJohn,M,9\nJordan,M,1\nJordan,F,2\n", encoding="utf-8")
    (tmp_path / "yob2001.txt").write_text("Anna,F,7\nJohn,M,1\nPaul,M,4\n", encoding="utf-8")
    female, male = read_ssa_names(tmp_path)
    assert female == ["Anna", "Mary", "Jordan"]
    assert male == ["John", "Paul", "Jordan"]
    assert read_ssa_names(tmp_path, n=1) == (["Anna"], ["John"])


@pytest.mark.shared_data
def test_context_rule_agrees_with_snli_parses(shared_data: Path, pairs) -> None:
    """On real SNLI dev sentences, her -> his/him follows the gold PRP$/PRP tag of the parse in >= 98 % of cases."""
    swapper = Swapper(pairs, her_rule="context")
    agree = total = 0
    for path in sorted((shared_data / "snli_1.0-partial").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for key in ("sentence1", "sentence2"):
                tags = re.findall(r"\((PRP\$?) [Hh]er\)", record[f"{key}_parse"])
                tokens = [t.text for t in tokenize(record[key])]
                if not tags or tokens.count("her") + tokens.count("Her") != len(tags):
                    continue
                swapped = [t.text.lower() for t in tokenize(swapper.swap(record[key])[0])]
                at = [i for i, t in enumerate(tokens) if t.lower() == "her"]
                for i, tag in zip(at, tags):
                    total += 1
                    agree += (swapped[i] == "his") == (tag == "PRP$")
    assert total > 200
    assert agree / total >= 0.98


@pytest.mark.shared_data
def test_swap_twice_restores_snli_sentences(shared_data: Path, pairs) -> None:
    """Without his/her (the only non-invertible rows), swapping twice gives back the original sentence."""
    swapper = Swapper(pairs, *zip(*APPENDIX_A_NAME_EXAMPLES))
    checked = changed = 0
    path = shared_data / "snli_1.0-partial" / "Deltaus_sBiMPM__snli_1.0_dev.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for sentence in (record["sentence1"], record["sentence2"]):
            if {t.text.lower() for t in tokenize(sentence)} & {"his", "her", "hers"}:
                continue
            once, n = swapper.swap(sentence)
            assert swapper.swap(once) == (sentence, n)
            checked += 1
            changed += n > 0
    assert checked > 1000 and changed > 300
