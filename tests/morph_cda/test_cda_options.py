"""`cdaflow cda --animals` and `--persons all` end to end with the Spanish validation model
(skipped where the workflow has not built it), and their one-line refusals."""

import json
from pathlib import Path

import pytest

from cdaflow.cli import main

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "results/morph_cda/es/models/lin"
needs_model = pytest.mark.skipif(not (MODEL / "cda.json").is_file(), reason="no Spanish CDA model (run the workflow)")
LINES = (
    "La gata de mi vecino duerme en el sofá.\n"
    "Estoy cansado y mi hermana está cansada.\n"
    "¡Qué contento estás!\n"
)


def run(tmp_path, capsys, *options: str) -> list[dict]:
    source = tmp_path / "in.txt"
    source.write_text(LINES, encoding="utf-8")
    code = main(["cda", "--lang", "es", "--model", str(MODEL), "--no-lexicon-check", "--input", str(source), *options])
    assert code == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@needs_model
def test_options_off_by_default(tmp_path, capsys):
    records = run(tmp_path, capsys)
    assert [r["counterfactual"] for r in records] == [
        "La gata de mi vecina duerme en el sofá.",
        "Estoy cansado y mi hermano está cansado.",
        None,
    ]
    assert not any("by" in entry for r in records for entry in r["changed"] + r["intervened"])


@needs_model
def test_animals_and_every_person(tmp_path, capsys):
    records = run(tmp_path, capsys, "--animals", "--persons", "all")
    assert [r["counterfactual"] for r in records] == [
        "El gato de mi vecina duerme en el sofá.",
        "Estoy cansada y mi hermano está cansado.",
        "¡Qué contenta estás!",
    ]
    assert [(c["from"], c["to"], c.get("by")) for c in records[0]["changed"]] == [
        ("La", "El", "animals"), ("gata", "gato", "animals"), ("vecino", "vecina", None)]
    assert records[0]["intervened"] == [
        {"sentence": "s-1-1", "id": 2, "from": "gata", "to": "gato", "by": "animals"},
        {"sentence": "s-1-1", "id": 5, "from": "vecino", "to": "vecina"},
    ]
    assert records[1]["changed"][0] == {
        "sentence": "s-2-1", "id": 2, "from": "cansado", "to": "cansada", "by": "persons"}
    assert records[2]["changed"] == [
        {"sentence": "s-3-1", "id": 3, "from": "contento", "to": "contenta", "by": "persons"}]
    assert records[2]["intervened"] == []


@needs_model
def test_every_person_in_conllu_output(tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("¡Qué contento estás!\n", encoding="utf-8")
    assert main(["cda", "--lang", "es", "--model", str(MODEL), "--no-lexicon-check", "--input", str(source),
                 "--persons", "all", "--output-format", "conllu"]) == 0
    out = capsys.readouterr().out
    assert "# text = ¡Qué contenta estás!" in out and "# original_text = ¡Qué contento estás!" in out
    assert "\tcontenta\tcontento\tADJ\t" in out and "Gender=Fem" in out


@pytest.mark.parametrize(
    "lang, option, message",
    [
        ("he", "--animals", "cdaflow cda: error: --animals: no animal list for 'he' (lists for es, fr, it; "
         "add resources/morph_cda/animals/he.tsv in the gazetteer format)"),
        ("fr", "--persons=all", "cdaflow cda: error: --persons all: Study B has re-gendering rules for es only, "
         "not 'fr'; first- and second-person sentences of 'fr' cannot be re-gendered"),
    ],
)
def test_refused_in_one_line(tmp_path, capsys, lang, option, message):
    # refused before the model is read: any folder will do
    assert main(["cda", "--lang", lang, "--model", str(tmp_path), option, "--input", "-"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [message]
