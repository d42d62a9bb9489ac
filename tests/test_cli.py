"""The `cdaflow` command as users call it (in-process through main(), and once as a script)."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdaflow.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "parse" in out and "datasets" in out


def test_console_script_is_installed():
    result = subprocess.run(
        [Path(sys.executable).parent / "cdaflow", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "usage: cdaflow" in result.stdout


def test_parse_spacy_text(tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("La profesora del pueblo está cansada.\n", encoding="utf-8")
    assert main(["parse", "--lang", "es", "--backend", "spacy", "--input", str(source)]) == 0
    out = capsys.readouterr().out
    assert "# text = La profesora del pueblo está cansada." in out
    assert "Gender=Fem" in out


def test_parse_gold_reports_malformed_conllu(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text(
        "# sent_id = x\n1\tLa\tel\tDET\t_\t_\t2\tdet\t_\t_\n2\tniña\tniña\tNOUN\t_\t_\t1\tnsubj\t_\t_\n\n"
    )
    code = main(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--input", str(bad)])
    assert code == 2
    err = capsys.readouterr().err
    assert "bad.conllu:" in err and ("root" in err or "cycle" in err)


def test_parse_unknown_language_is_a_clear_error(capsys):
    assert main(["parse", "--lang", "xx", "--backend", "spacy", "--input", "/dev/null"]) == 2
    assert "xx" in capsys.readouterr().err


def write_config(tmp_path: Path, datasets: dict) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"scale": "demo", "datasets": datasets}))
    return path


def test_datasets_list_fetch_verify(tmp_path, capsys, monkeypatch):
    source = tmp_path / "source"
    source.mkdir()
    (source / "a.txt").write_text("hola\n")
    config = write_config(tmp_path, {"local": {"path": str(source), "description": "a folder"}})
    monkeypatch.chdir(tmp_path)

    assert main(["datasets", "--config", str(config), "list"]) == 0
    assert "local" in capsys.readouterr().out

    assert main(["datasets", "--config", str(config), "fetch"]) == 0
    assert (tmp_path / "resources/data/local/a.txt").read_text() == "hola\n"
    lock = (tmp_path / "results/downloads.tsv").read_text()
    assert f"local\tpath:{source}" in lock

    assert main(["datasets", "--config", str(config), "verify"]) == 0
    assert "local: ok" in capsys.readouterr().out

    assert main(["datasets", "--config", str(config), "fetch", "nope"]) == 2
    assert "unknown dataset(s) nope" in capsys.readouterr().err


def test_datasets_fetch_missing_path_is_an_error(tmp_path, capsys, monkeypatch):
    config = write_config(tmp_path, {"gone": {"path": str(tmp_path / "absent")}})
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "--config", str(config), "fetch"]) == 2
    assert "gone" in capsys.readouterr().err
    assert not (tmp_path / "resources/data/gone").exists()


def test_bad_config_is_reported(tmp_path, capsys):
    config = write_config(tmp_path, {"d": {"path": "x", "sha": "1"}})
    assert main(["datasets", "--config", str(config), "list"]) == 2
    assert "datasets.d: unknown key 'sha'" in capsys.readouterr().err


def test_config_that_is_not_utf8_is_named(tmp_path, capsys):
    config = tmp_path / "latin1.yaml"
    config.write_bytes("scale: demo  # démo\ndatasets: {d: {path: x}}\n".encode("latin-1"))
    assert main(["datasets", "--config", str(config), "list"]) == 2
    err = capsys.readouterr().err
    assert f"cdaflow datasets: error: {config}: not valid UTF-8" in err and "Traceback" not in err
