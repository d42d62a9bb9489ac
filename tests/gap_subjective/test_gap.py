from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cdaflow.gap_subjective.gap import COLUMNS, GapError, GapExample, read_gap, write_gap

TEXT = "Anna met Marie in Paris. Later she moved to Rome with her sister."
HEADER = "\t".join(COLUMNS) + "\n"


def example(**changes) -> GapExample:
    base = GapExample(
        id="test-1",
        text=TEXT,
        pronoun="she",
        pronoun_offset=31,
        a="Anna",
        a_offset=0,
        a_coref=True,
        b="Marie",
        b_offset=9,
        b_coref=False,
        url="http://en.wikipedia.org/wiki/Anna",
    )
    return replace(base, **changes)


def row(**changes) -> str:
    return "\t".join(example(**changes).row()) + "\n"


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    examples = [
        example(),
        example(id="test-2", pronoun="her", pronoun_offset=54, a_coref=False, b_coref=True),
        example(id="test-3", a_coref=False),
    ]
    path = tmp_path / "gap-test.tsv"
    assert write_gap(examples, path) == 3
    assert read_gap(path) == examples
    assert path.read_text(encoding="utf-8").splitlines()[0].split("\t") == list(COLUMNS)
    assert [e.label for e in examples] == ["A", "B", "NEITHER"]
    assert [e.gender for e in examples] == ["feminine"] * 3


def test_real_gap_files_read_and_write_back_byte_for_byte(shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / "gap-coreference" / "gap-validation.tsv"
    examples = read_gap(source)
    assert len(examples) == 454
    assert sum(e.gender == "masculine" for e in examples) == 227
    copy = tmp_path / "copy.tsv"
    write_gap(examples, copy)
    assert copy.read_bytes().replace(b"\r\n", b"\n") == source.read_bytes().replace(b"\r\n", b"\n")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (row(pronoun_offset=30), "line 2: field Pronoun-offset: 30 points at ' sh', not 'she'"),
        (row().replace("\tTRUE\t", "\tyes\t"), "line 2: field A-coref: 'yes' is not TRUE or FALSE"),
        (row().replace("\t31\t", "\tx\t"), "line 2: field Pronoun-offset: 'x' is not an integer offset"),
        (row(b_coref=True), "line 2: fields A-coref, B-coref: both TRUE"),
        (row(pronoun="they", pronoun_offset=0), "field Pronoun: 'they'"),
        (row().rsplit("\t", 1)[0] + "\n", "line 2: 10 fields, expected 11"),
    ],
)
def test_bad_rows_name_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(HEADER + line, encoding="utf-8")
    with pytest.raises(GapError, match=str(path).replace(".", r"\.")) as error:
        read_gap(path)
    assert message in str(error.value)


def test_duplicate_ids_and_wrong_header_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.tsv"
    path.write_text(HEADER + row() + row(), encoding="utf-8")
    with pytest.raises(GapError, match="line 3: field ID: duplicate 'test-1'"):
        read_gap(path)
    path.write_text(HEADER.replace("URL", "Url") + row(), encoding="utf-8")
    with pytest.raises(GapError, match="line 1: header"):
        read_gap(path)


def test_writer_refuses_offsets_that_miss_their_span(tmp_path: Path) -> None:
    path = tmp_path / "out.tsv"
    with pytest.raises(GapError, match="offsets of A do not match"):
        write_gap([example(a_offset=1)], path)
    assert not path.exists()
