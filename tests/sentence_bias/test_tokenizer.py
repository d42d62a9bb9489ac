"""InferSent v1's tokenisation, as NLTK's word_tokenize gives it."""

import json
from pathlib import Path

import pytest

from cdaflow.sentence_bias.tokenizer import tokenize


@pytest.mark.parametrize(
    "text, expected",
    [
        ("A man isn't playing the saxophone.", ["A", "man", "is", "n't", "playing", "the", "saxophone", "."]),
        ("She's here, isn't she?", ["She", "'s", "here", ",", "is", "n't", "she", "?"]),
        ('He said "hello" (twice).', ["He", "said", "``", "hello", "''", "(", "twice", ")", "."]),
        ("I cannot go.", ["I", "can", "not", "go", "."]),
        ("They'll pay $3.88 for it.", ["They", "'ll", "pay", "$", "3.88", "for", "it", "."]),
        ("1,000 people came: many.", ["1,000", "people", "came", ":", "many", "."]),
        ("the boys' toys", ["the", "boys", "'", "toys"]),
        ("I'm gonna win... maybe", ["I", "'m", "gon", "na", "win", "...", "maybe"]),
        ("A man -- tall -- walks; he'd run!", ["A", "man", "--", "tall", "--", "walks", ";", "he", "'d", "run", "!"]),
        ("The U.S. is big.", ["The", "U.S.", "is", "big", "."]),
        ("Mr. Smith left.", ["Mr.", "Smith", "left", "."]),
        ("He left. She came.", ["He", "left", ".", "She", "came", "."]),
        # NLTK's own word_tokenize doctest (Punkt splits the sentences; periods become tokens)
        (
            "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\nThanks.",
            "Good muffins cost $ 3.88 in New York . Please buy me two of them . Thanks .".split(),
        ),
        ("Two women are embracing .", ["Two", "women", "are", "embracing", "."]),  # pre-tokenised stays put
        ("", []),
    ],
)
def test_tokenize_like_nltk_word_tokenize(text, expected):
    assert tokenize(text) == expected


@pytest.mark.shared_data
def test_tokenize_matches_snli_tokenisation_on_real_data(shared_data: Path):
    """SNLI's own (Stanford) tokenisation in SentEval's files equals ours on nearly every pair."""
    records = [
        json.loads(line)
        for line in (shared_data / "snli_1.0-partial" / "Deltaus_sBiMPM__snli_1.0_dev.jsonl").open(encoding="utf-8")
        if line.strip()
    ]
    folder = shared_data / "senteval-downstream" / "SNLI"
    s1 = [line.strip() for line in (folder / "s1.dev").open(encoding="utf-8")]
    s2 = [line.strip() for line in (folder / "s2.dev").open(encoding="utf-8")]
    known = set(zip(s1, s2))
    gold = [r for r in records if r["gold_label"] != "-"]
    same = sum((" ".join(tokenize(r["sentence1"])), " ".join(tokenize(r["sentence2"]))) in known for r in gold)
    assert len(gold) > 1000
    assert same / len(gold) > 0.99  # the few misses: "53:11" is one token for NLTK, three for Stanford
