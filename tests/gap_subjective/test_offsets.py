from __future__ import annotations

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.gap import GapExample, read_gap, write_gap
from cdaflow.gap_subjective.offsets import rebuild_example
from cdaflow.gap_subjective.reports import table4, table7
from cdaflow.gap_subjective.sentences import split_sentences

TEXT = "Tom met Sam in Leeds. Later Sam said that Tom liked him. Tom left."


def example(**changes) -> GapExample:
    fields = dict(
        id="t-1",
        text=TEXT,
        pronoun="him",
        pronoun_offset=TEXT.index("him"),
        a="Tom",
        a_offset=TEXT.index("Tom liked"),
        a_coref=False,
        b="Sam",
        b_offset=TEXT.index("Sam said"),
        b_coref=True,
        url="u",
    )
    fields.update(changes)
    return GapExample(**fields)


def test_offsets_follow_a_transferred_sentence_and_the_ones_after_it() -> None:
    original = example()
    sentences = split_sentences(TEXT)
    rebuilt = rebuild_example(
        original, sentences, {0: "Notorious Tom met Sam in Leeds.", 1: "Later Sam claimed that Tom liked him."}
    )
    new = rebuilt.example
    assert new.text == "Notorious Tom met Sam in Leeds. Later Sam claimed that Tom liked him. Tom left."
    # hand-computed: sentence 2 now starts at 32; "Sam" at 32 + 6, "Tom" at 32 + 23, "him" at 32 + 33
    assert (new.b_offset, new.a_offset, new.pronoun_offset) == (38, 55, 65)
    assert new.mismatched_spans() == []
    assert rebuilt.converted and rebuilt.all_found and rebuilt.changed
    assert rebuilt.replaced == 2


def test_an_unchanged_sentence_after_a_longer_one_moves_by_the_length_change() -> None:
    text = "Ann sang. Beth played. She won."
    original = GapExample("t-2", text, "She", text.index("She"), "Ann", 0, True, "Beth", text.index("Beth"), False, "u")
    rebuilt = rebuild_example(original, split_sentences(text), {1: "Beth brilliantly played."})
    assert rebuilt.example.text == "Ann sang. Beth brilliantly played. She won."
    assert rebuilt.example.pronoun_offset == original.pronoun_offset + len(" brilliantly")
    assert rebuilt.example.a_offset == 0


def test_the_same_occurrence_is_matched_by_rank() -> None:
    # "Tom" twice in one sentence: the second one is the mention; an adjective before the first
    # must not make the match pick the first.
    text = "Tom told Tom Jr. that he would stay."
    original = GapExample("t-3", text, "he", text.index("he "), "Tom", 0, True, "Tom Jr.", 9, False, "u")
    changed = "Famous Tom told Tom Jr. that he would stay."
    rebuilt = rebuild_example(original, split_sentences(text), {0: changed})
    assert rebuilt.example.b_offset == changed.index("Tom Jr.")
    assert rebuilt.example.a_offset == changed.index("Tom")
    # Whole words only: "he" in "the" or "there" is no occurrence.
    text2 = "Ann saw the man there and he left."
    original2 = GapExample(
        "t-4", text2, "he", text2.index("he left"), "Ann", 0, False, "man", text2.index("man"), True, "u"
    )
    rebuilt2 = rebuild_example(original2, split_sentences(text2), {0: "Sadly, Ann saw the man there and he left."})
    assert rebuilt2.all_found and rebuilt2.example.text[rebuilt2.example.pronoun_offset :].startswith("he left")


def test_a_lost_mention_falls_back_to_the_original_instance() -> None:
    original = example()
    sentences = split_sentences(TEXT)
    # The model dropped the pronoun: not found, the GAP instance is released unchanged.
    rebuilt = rebuild_example(original, sentences, {1: "Later Sam said that Tom liked the idea."})
    assert rebuilt.example == original
    assert rebuilt.found == {"Pronoun": False, "A": True, "B": True}
    assert rebuilt.converted and not rebuilt.changed
    # An added occurrence makes the rank ambiguous: not found either.
    rebuilt = rebuild_example(original, sentences, {1: "Later Sam, like Sam, said that Tom liked him."})
    assert rebuilt.found["B"] is False and rebuilt.example == original


def test_no_replacement_is_the_original() -> None:
    original = example()
    rebuilt = rebuild_example(original, split_sentences(TEXT), {})
    assert rebuilt.example is original and not rebuilt.converted and rebuilt.all_found


def test_tables_4_and_7_from_records() -> None:
    original = example()
    sentences = split_sentences(TEXT)
    records = pd.DataFrame(
        [
            rebuild_example(original, sentences, {}).record(),
            rebuild_example(original, sentences, {2: "Tom sadly left."}).record(),
            rebuild_example(original, sentences, {1: "Later Sam said that Tom liked the idea."}).record(),
            rebuild_example(original, sentences, {0: "Tom met Sam in rainy Leeds."}).record(),
        ]
    )
    t7 = table7({"test": records}).iloc[0]
    assert t7["pronoun_found_pct"] == 75.0 and t7["a_found_pct"] == 100.0 and t7["all_found_pct"] == 75.0
    assert t7["paper_all"] == 98.20
    t4 = table4({"test": records}).iloc[0]
    assert t4["converted_pct"] == 75.0 and t4["released_changed_pct"] == 50.0


def test_real_contexts_round_trip_through_gap_tsv(shared_data: Path, tmp_path: Path) -> None:
    examples = read_gap(shared_data / "gap-coreference" / "gap-validation.tsv")[:100]
    released = []
    for e in examples:
        sentences = split_sentences(e.text)
        released.append(rebuild_example(e, sentences, {0: "Reportedly, " + sentences[0].text}).example)
    path = tmp_path / "gap-validation.tsv"
    write_gap(released, path)
    back = read_gap(path)
    assert back == released
    assert sum(r.text.startswith("Reportedly, ") for r in back) > 90
