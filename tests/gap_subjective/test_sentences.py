from __future__ import annotations

from pathlib import Path

import pytest

from cdaflow.gap_subjective.gap import read_gap
from cdaflow.gap_subjective.sentences import join_sentences, split_sentences


def test_offsets_point_at_each_sentence_and_join_is_lossless() -> None:
    text = "  Dr. Smith moved to St. Louis in 1999.  He left in 2004!\nHis son stayed. "
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Dr. Smith moved to St. Louis in 1999.",
        "He left in 2004!",
        "His son stayed.",
    ]
    assert [(s.start, s.end) for s in sentences] == [(2, 39), (41, 57), (58, 73)]
    assert [s.separator for s in sentences] == ["  ", "\n", " "]
    assert sentences[0].lead == "  "
    for s in sentences:
        assert text[s.start : s.end] == s.text
    assert join_sentences([s.text for s in sentences], sentences) == text


def test_replaced_sentences_keep_the_original_spacing() -> None:
    text = "She sang.  He played."
    sentences = split_sentences(text)
    assert join_sentences(["Sadly, she sang.", "He played."], sentences) == "Sadly, she sang.  He played."
    with pytest.raises(ValueError, match="1 sentence texts for 2 sentences"):
        join_sentences(["x"], sentences)


def test_empty_and_unterminated_text() -> None:
    assert split_sentences("   ") == []
    only = split_sentences("no full stop here")
    assert [(s.text, s.start, s.end, s.separator) for s in only] == [("no full stop here", 0, 17, "")]


def test_every_gap_context_splits_losslessly(shared_data: Path) -> None:
    examples = read_gap(shared_data / "gap-coreference" / "gap-validation.tsv")
    count = 0
    for example in examples:
        sentences = split_sentences(example.text)
        count += len(sentences)
        assert join_sentences([s.text for s in sentences], sentences) == example.text
        assert all(example.text[s.start : s.end] == s.text == s.text.strip() for s in sentences)
    # The paper's splitter found 1,389 sentences in the validation split (Table 2).
    assert 1300 < count < 1480
