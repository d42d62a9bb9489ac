"""Tables in and out (cdaflow.io.tabular): every column and the row order kept, quoting, line breaks
and nulls survive, bad tables are named by file and line."""

import gzip
import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cdaflow.io import tabular
from cdaflow.io.tabular import TableError, TableReader, TableWriter

ROWS = [
    {"id": "1", "text": 'She said "hi", then left.', "label": "a"},
    {"id": "2", "text": "two\nlines, and a comma", "label": "b"},
    {"id": "3", "text": "", "label": "c"},
    {"id": "007", "text": "tab\there \\ backslash", "label": "NA"},
]


def read_all(path, fmt, column="text"):
    reader = TableReader(path, fmt, column)
    return reader, [(number, row) for number, _, row in reader.rows()]


@pytest.mark.parametrize("name, fmt", [("t.csv", "csv"), ("t.CSV.gz", "csv"), ("t.tsv", "tsv"), ("t.tab", "tsv"),
                                       ("t.jsonl", "jsonl"), ("t.ndjson.gz", "jsonl"), ("t.parquet", "parquet"),
                                       ("t.txt", None), ("t.gz", None), (None, None)])
def test_format_of_a_name(name, fmt):
    assert tabular.format_of(name) == fmt


def test_csv_round_trip_keeps_cells_as_written(tmp_path):
    source = tmp_path / "in.csv"
    pd.DataFrame(ROWS).to_csv(source, index=False)
    reader, rows = read_all(source, "csv")
    assert reader.columns == ["id", "text", "label"]
    assert [row for _, row in rows] == ROWS  # 007 stays 007, NA stays NA, the empty cell is empty
    assert [number for number, _ in rows] == [1, 2, 3, 4]
    out = io.StringIO(newline="")
    writer = TableWriter(out, "csv", reader.columns, ["n", "changes"])
    for number, row in rows:
        writer.write({**row, "n": number * 0.5, "changes": [{"from": "a", "to": "b"}] if number == 1 else None})
    writer.close()
    back = pd.read_csv(io.StringIO(out.getvalue()), dtype=str, keep_default_na=False)
    assert back["text"].tolist() == [r["text"] for r in ROWS]
    assert back["id"].tolist() == ["1", "2", "3", "007"]
    assert back["n"].tolist() == ["0.5", "1.0", "1.5", "2.0"]
    assert json.loads(back["changes"][0]) == [{"from": "a", "to": "b"}] and back["changes"][1] == ""


def test_gzip_csv_is_read(tmp_path):
    source = tmp_path / "in.csv.gz"
    with gzip.open(source, "wt", encoding="utf-8") as handle:
        pd.DataFrame(ROWS).to_csv(handle, index=False)
    _, rows = read_all(source, "csv")
    assert [row["text"] for _, row in rows] == [r["text"] for r in ROWS]


def test_tsv_escapes_survive_a_round_trip(tmp_path):
    out = io.StringIO()
    writer = TableWriter(out, "tsv", ["id", "text", "label"], ["x"])
    for row in ROWS:
        writer.write({**row, "x": "nul\x00 and \u2028 sep"})
    writer.close()
    text = out.getvalue()
    assert len(text.splitlines()) == 5  # header + 4 rows, whatever the cells hold
    assert "\x00" not in text and "\u2028" not in text
    source = tmp_path / "in.tsv"
    source.write_text(text, encoding="utf-8")
    reader, rows = read_all(source, "tsv")
    assert reader.columns == ["id", "text", "label", "x"]
    assert [row["text"] for _, row in rows] == [r["text"] for r in ROWS]
    assert rows[0][1]["x"] == "nul\x00 and \u2028 sep"


def test_jsonl_keeps_types_and_key_order(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a", "label": 1, "meta": {"k": [1]}}\n\n{"text": null, "label": 2}\n')
    reader, rows = read_all(source, "jsonl")
    assert [number for number, _ in rows] == [1, 2]
    out = io.StringIO()
    writer = TableWriter(out, "jsonl", reader.columns, ["counterfactual"])
    for _, row in rows:
        writer.write({**row, "counterfactual": "b\u2029"})
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\\u2029" in lines[0]
    assert json.loads(lines[0]) == {"text": "a", "label": 1, "meta": {"k": [1]}, "counterfactual": "b\u2029"}
    assert list(json.loads(lines[1])) == ["text", "label", "counterfactual"]


def test_parquet_keeps_the_schema_and_adds_typed_columns(tmp_path):
    source = tmp_path / "in.parquet"
    table = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "text": ["a", None, "c"], "label": ["x", "y", "z"]})
    pq.write_table(table, source, row_group_size=2)
    reader, rows = read_all(source, "parquet")
    assert [row for _, row in rows] == table.to_pylist()
    target = tmp_path / "out.parquet"
    with open(target, "wb") as handle:
        writer = TableWriter(handle, "parquet", reader.columns, ["counterfactual", "score", "changed"],
                             schema=reader.schema)
        for number, row in rows:
            writer.write({**row, "counterfactual": None if number == 1 else f"cf{number}", "score": number / 4,
                          "changed": [{"id": number}]})
        writer.close()
    back = pq.read_table(target)
    assert back.schema.field("id").type == pa.int32()
    assert back.schema.field("score").type == pa.float64()
    assert back.column("counterfactual").to_pylist() == [None, "cf2", "cf3"]
    assert back.column("changed").to_pylist() == ['[{"id": 1}]', '[{"id": 2}]', '[{"id": 3}]']
    assert back.column("text").to_pylist() == ["a", None, "c"]


def test_augmented_rows_follow_their_original():
    row = {"text": "La profesora.", "label": "pos"}
    assert list(tabular.augmented_rows(row, "text", "El profesor.", "is_counterfactual")) == [
        {"text": "La profesora.", "label": "pos", "is_counterfactual": False},
        {"text": "El profesor.", "label": "pos", "is_counterfactual": True},
    ]
    assert len(list(tabular.augmented_rows(row, "text", None, "is_counterfactual"))) == 1


def test_a_missing_column_names_those_there_are(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("id,sentence\n1,hola\n")
    message = r"in\.csv: no column 'text' \(--column\); the columns there: 'id', 'sentence'"
    with pytest.raises(TableError, match=message):
        TableReader(source, "csv", "text")


@pytest.mark.parametrize("content, message", [
    ('id,text\n1,"fine"\n2,"never closed\n3,x\n', r"in\.csv:3: broken CSV quoting"),
    ("id,text\n1,a\n2,b,c\n", r"in\.csv:3: 3 fields where the header has 2"),
    ("", r"in\.csv: empty input \(no header row\)"),
])
def test_broken_csv_is_named_by_line(tmp_path, content, message):
    source = tmp_path / "in.csv"
    source.write_text(content)
    with pytest.raises(TableError, match=message):
        read_all(source, "csv")


def test_broken_jsonl_and_tsv_are_named_by_line(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"text": "a"}\n{"text": \n')
    with pytest.raises(TableError, match=r"in\.jsonl:2: not JSON"):
        read_all(source, "jsonl")
    source.write_text('{"text": "a"}\n[1]\n')
    with pytest.raises(TableError, match=r"in\.jsonl:2: a JSON list, not an object"):
        read_all(source, "jsonl")
    tsv = tmp_path / "in.tsv"
    tsv.write_text("id\ttext\n1\ta\n2\tb\tc\n")
    with pytest.raises(TableError, match=r"in\.tsv:3: 3 tab-separated fields where the header has 2"):
        read_all(tsv, "tsv")


def test_text_of_a_cell():
    assert tabular.text_of("x", where="f", column="t") == "x"
    assert tabular.text_of(None, where="f", column="t") is None
    assert tabular.text_of(float("nan"), where="f", column="t") is None
    assert tabular.text_of(5, where="f", column="t") == "5"
    with pytest.raises(TableError, match=r"f:3: column 't' holds a list \(\[1, 2\]\), not text"):
        tabular.text_of([1, 2], where="f:3", column="t")
    with pytest.raises(TableError, match="holds true/false"):
        tabular.text_of(True, where="f", column="t")


def test_escape_tsv_round_trip():
    for text in ["plain", "a\tb\nc\\d\re", "\x00\u2028\u2029", "\\t literally", "ends with \\"]:
        escaped = tabular.escape_tsv(text)
        assert "\t" not in escaped and "\n" not in escaped and len(escaped.splitlines()) <= 1
        assert tabular.unescape_tsv(escaped) == text
