import pytest

from cdaflow.io.conllu import write_conllu_atomic
from cdaflow.morph_cda.annotations import (
    SOURCE_FIELD,
    AnnotationError,
    annotated_keys,
    hold_out_dev,
    join,
    read_annotations,
    read_joined,
    sentences_by_key,
    without_annotated,
)

HEADER = "treebank\tfile_split\tsent_id\teval_split\tnoun\tchanges\tcomment\n"


def write(tmp_path, *rows):
    path = tmp_path / "es.tsv"
    path.write_text("# a comment\n" + HEADER + "".join(rows), encoding="utf-8")
    return path


def test_read_and_join(tmp_path, spanish):
    path = write(
        tmp_path,
        "tb\ttest\tfig2\ttest\t2:ingeniero>ingeniera\t1:El>La;3:alemán>alemana;6:experto>experta\t\n",
    )
    (annotation,) = read_annotations(path)
    assert annotation.noun.new == "ingeniera" and len(annotation.changes) == 3
    (joined,) = join([annotation], {("tb", "test", "fig2"): spanish[0]})
    assert joined.gold_forms() == ["La", "ingeniera", "alemana", "es", "muy", "experta", "."]
    assert annotated_keys([path]) == {("tb", "test", "fig2")}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("tb\ttest\tfig2\ttest\t2:ingeniero>ingeniera\n", "expected 7 tab-separated fields, got 5"),
        ("tb\ttest\tfig2\tval\t2:ingeniero>ingeniera\t\t\n", "field eval_split: must be dev or test"),
        ("tb\ttest\tfig2\ttest\tingeniero>ingeniera\t\t\n", "field noun: expected ID:original>new"),
        ("tb\ttest\tfig2\ttest\t2:ingeniero>ingeniera\t1-La\t\n", "field changes: expected ID:original>new"),
    ],
)
def test_malformed_rows_name_file_line_and_field(tmp_path, row, message):
    path = write(tmp_path, row)
    with pytest.raises(AnnotationError, match=rf"es\.tsv:3: {message}"):
        read_annotations(path)


def test_bad_header(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("treebank\tsent\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match="header must be"):
        read_annotations(path)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("tb\ttest\tnope\ttest\t2:ingeniero>ingeniera\t\t\n", "field sent_id: 'nope' not found in tb/test"),
        (
            "tb\ttest\tfig2\ttest\t2:ingeniera>ingeniero\t\t\n",
            "field noun: word 2 is 'ingeniero' in the treebank, not 'ingeniera'",
        ),
        ("tb\ttest\tfig2\ttest\t2:ingeniero>ingeniera\t9:x>y\t\n", "field changes: word 9 out of range 1..7"),
    ],
)
def test_misaligned_annotations_fail_loudly(tmp_path, spanish, row, message):
    path = write(tmp_path, row)
    with pytest.raises(AnnotationError, match=message):
        join(read_annotations(path), {("tb", "test", "fig2"): spanish[0]})


def test_prepare_keeps_annotated_sentences_out_of_training_and_joins_them_again(tmp_path, spanish):
    split = tmp_path / "tb" / "test.conllu"
    split.parent.mkdir()
    write_conllu_atomic(spanish, split)
    path = write(tmp_path, "tb\ttest\tfig2\ttest\t2:ingeniero>ingeniera\t1:El>La\t\n")
    kept, dropped = without_annotated([split], annotated_keys([path]))
    assert [s.metadata["sent_id"] for s in kept] == ["del"] and dropped == 1
    by_key = sentences_by_key([split])
    assert set(by_key) == {("tb", "test", "fig2"), ("tb", "test", "del")}
    assert by_key[("tb", "test", "fig2")].metadata[SOURCE_FIELD] == "tb/test"
    # The prepared file carries each sentence's source; the evaluation joins the annotations to it.
    prepared = tmp_path / "annotated.conllu"
    write_conllu_atomic([a.sentence for a in join(read_annotations(path), by_key)], prepared)
    (joined,) = read_joined(path, prepared)
    assert joined.gold_forms()[:2] == ["La", "ingeniera"]
    train, dev = hold_out_dev(list(range(25)), seed=1)
    assert len(dev) == 2 and sorted(train + dev) == list(range(25))
    assert hold_out_dev(list(range(25)), seed=1) == (train, dev)  # fixed by the seed
    assert hold_out_dev([7], seed=1) == ([], [7])  # at least one dev tree
