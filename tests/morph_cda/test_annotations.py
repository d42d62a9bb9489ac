import pytest

from cdaflow.morph_cda.annotations import AnnotationError, annotated_keys, join, read_annotations

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
