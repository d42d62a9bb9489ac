"""Stanza's models: fetched as stanza.download does (index of the installed version, md5-checked model files),
checked at start-up, and read by the parse rules."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
import yaml

from cdaflow.config import load_schema
from cdaflow.data.lockfile import LockFile
from cdaflow.io.conllu import surface_tokens, validate_sentence, words
from cdaflow.text.options import parser_options
from cdaflow.text.stanza_models import (
    FETCH_ROOT,
    StanzaModelsError,
    fetch_stanza_models,
    missing_models,
    stanza_languages,
    startup_problems,
)
from tests.mock_servers import mock_server
from tests.workflow import rehearsal

ROOT = Path(__file__).resolve().parents[2]
VERSION = "1.15.0"


def _fake_models(folder: Path, lang: str = "es") -> dict[str, dict[str, dict[str, Path]]]:
    """Model files with distinct bytes (what the fetch moves and checks; nothing loads them)."""
    processors = {"tokenize": "gsd", "mwt": "gsd", "pos": "gsd_nocharlm", "lemma": "gsd_nocharlm",
                  "depparse": "gsd_nocharlm", "pretrain": "gsd"}  # fmt: skip
    models: dict[str, dict[str, Path]] = {}
    for processor, package in processors.items():
        path = folder / lang / f"{processor}.pt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{lang} {processor} model".encode())
        models[processor] = {package: path}
    return {lang: models}


@pytest.fixture()
def served(tmp_path: Path):
    from stanza.resources.common import DEFAULT_RESOURCES_VERSION

    assert DEFAULT_RESOURCES_VERSION == VERSION  # the index name the installed stanza asks for
    models = _fake_models(tmp_path / "models")
    with mock_server() as server:
        url = rehearsal.serve_stanza(server, models, tmp_path / "served")
        yield server, url, models


def test_fetch_gets_the_index_and_every_model_with_its_dependencies(served, tmp_path: Path) -> None:
    server, url, models = served
    lock = LockFile(tmp_path / "downloads.tsv")
    dest = fetch_stanza_models("es", tmp_path / "stanza/es", resources_url=url, lockfile=lock, retries=0)
    index = f"GET /raw.githubusercontent.com/stanfordnlp/stanza-resources/main/resources_{VERSION}.json"
    assert index in server.requests
    for processor, packages in models["es"].items():
        [package] = packages
        fetched = dest / "es" / processor / f"{package}.pt"
        assert fetched.read_bytes() == models["es"][processor][package].read_bytes()
    assert json.loads((dest / "resources.json").read_text())["es"]["packages"]["default"]["pos"] == "gsd_nocharlm"
    assert missing_models(dest, "es") == []
    rows = {row["file"]: row for row in csv.DictReader(open(tmp_path / "downloads.tsv"), delimiter="\t")}
    assert set(rows) == {"resources.json", "es/tokenize/gsd.pt", "es/mwt/gsd.pt", "es/pos/gsd_nocharlm.pt",
                         "es/lemma/gsd_nocharlm.pt", "es/depparse/gsd_nocharlm.pt", "es/pretrain/gsd.pt"}  # fmt: skip
    pretrain = rows["es/pretrain/gsd.pt"]
    assert pretrain["dataset"] == "stanza:es" and pretrain["url"] == (
        f"{server.base}/huggingface.co/stanfordnlp/stanza-es/resolve/v{VERSION}/models/pretrain/gsd.pt"
    )
    assert pretrain["sha256"] == hashlib.sha256(models["es"]["pretrain"]["gsd"].read_bytes()).hexdigest()
    # No temporary folders left beside the result.
    assert [p.name for p in dest.parent.iterdir()] == ["es"]


def test_a_model_that_does_not_match_the_index_md5_fails_the_fetch(served, tmp_path: Path) -> None:
    _, url, models = served
    models["es"]["lemma"]["gsd_nocharlm"].write_bytes(b"changed after the index was written")
    waits: list[float] = []
    with pytest.raises(StanzaModelsError) as info:
        fetch_stanza_models("es", tmp_path / "stanza/es", resources_url=url, retries=1, backoff=0.5,
                            sleep=waits.append)  # fmt: skip
    message = str(info.value)
    assert "'es'" in message and f"resources_{VERSION}.json" in message and "md5" in message
    assert "\n" not in message and waits == [0.5]
    assert not (tmp_path / "stanza/es").exists()


def test_fetch_names_an_unknown_language_and_a_missing_index(served, tmp_path: Path) -> None:
    server, url, _ = served
    with pytest.raises(StanzaModelsError, match="does not list language 'it'"):
        fetch_stanza_models("it", tmp_path / "it", resources_url=url, retries=0)
    with pytest.raises(StanzaModelsError, match=r"404"):
        fetch_stanza_models("es", tmp_path / "es", resources_url=f"{server.base}/nothing", retries=0)


def test_missing_models_follow_the_index_dependencies(served, tmp_path: Path) -> None:
    _, url, _ = served
    dest = fetch_stanza_models("es", tmp_path / "es", resources_url=url, retries=0)
    (dest / "es/pretrain/gsd.pt").unlink()
    assert missing_models(dest, "es") == ["es/pretrain/gsd.pt"]
    assert missing_models(tmp_path / "nowhere", "es") == [f"{tmp_path / 'nowhere'}: no resources.json"]


def _config(**parsing) -> dict:
    """The parts of a validated config the check reads: Study B tags Spanish, two corpora in Italian and Hebrew."""
    return {"parsing": {"treebanks": "gold", "corpora": "stanza", "stanza_model_dir": None, **parsing},
            "corpora": {"wiki_it": {"lang": "it"}, "wiki_he": {"lang": "he"}}, "treebanks": {},
            "studies": {"regender": {"enabled": True}}}  # fmt: skip


def test_startup_check_names_what_a_given_model_dir_lacks(served, tmp_path: Path, monkeypatch) -> None:
    _, url, _ = served
    monkeypatch.chdir(tmp_path)
    # Nothing given, nothing fetched yet: rule fetch_stanza_models will fetch, so the run may start.
    assert startup_problems(_config()) == []
    given = tmp_path / "mine"
    fetch_stanza_models("es", given, resources_url=url, retries=0)
    [line] = startup_problems(_config(stanza_model_dir=str(given)))[:1]
    assert line.startswith(f"parsing.stanza_model_dir: {given} lacks stanza's models for 'he': ")
    assert "does not list language 'he'" in line and "stanza_model_dir: null" in line and "\n" not in line
    # A folder the rule fetched, damaged since: the rule would not run again, so the run stops.
    fetched = tmp_path / FETCH_ROOT / "it"
    fetch_stanza_models("es", fetched, resources_url=url, retries=0)
    problems = startup_problems(_config())
    assert problems == [f"{FETCH_ROOT}/it: the stanza models fetched for 'it' are incomplete: "
                        f"{FETCH_ROOT}/it/resources.json does not list language 'it' (delete the folder and rule "
                        "fetch_stanza_models fetches them again)"]  # fmt: skip


def test_the_paper_config_parses_four_languages_with_stanza_from_fetched_folders() -> None:
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text(encoding="utf-8"))
    parsing = {**paper["parsing"], "stanza_model_dir": None}
    langs = stanza_languages({"parsing": {"treebanks": "gold", **parsing}, "corpora": paper["corpora"],
                              "studies": {"regender": {"enabled": True}}})  # fmt: skip
    assert langs == ["es", "fr", "he", "it"]
    options = parser_options(parsing, "stanza", "he")
    assert options["model_dir"] == f"{FETCH_ROOT}/he"
    assert parser_options({**parsing, "stanza_model_dir": "/models"}, "stanza", "he")["model_dir"] == "/models"


def test_schema_defaults_are_stanzas_own_urls() -> None:
    from stanza.resources.common import DEFAULT_MODEL_URL, STANZA_RESOURCES_GITHUB

    parsing = load_schema()["properties"]["parsing"]["properties"]
    assert parsing["stanza_resources_url"]["default"] == STANZA_RESOURCES_GITHUB + "main"
    assert parsing["stanza_model_url"]["default"] == DEFAULT_MODEL_URL == "default"


@pytest.mark.slow
@pytest.mark.shared_data
def test_models_trained_by_stanza_are_fetched_and_parse(tmp_path: Path) -> None:
    """The rehearsal's models: trained for a few steps by stanza's own code, served, fetched, loaded, parsing."""
    if not rehearsal.UD.is_dir():
        pytest.skip(f"{rehearsal.UD} is absent: the models are trained on its samples")
    from cdaflow.text.parsing import parse_text_file
    from cdaflow.text.stanza_parser import StanzaParser

    models = rehearsal.build_stanza(tmp_path / "train", ["es"])
    with mock_server() as server:
        url = rehearsal.serve_stanza(server, models, tmp_path / "served")
        dest = fetch_stanza_models("es", tmp_path / "es", resources_url=url, retries=0)
    parser = StanzaParser("es", model_dir=dest)
    assert parser._nlp.processors.keys() >= {"tokenize", "mwt", "pos", "lemma", "depparse"}
    texts = rehearsal.conllu_texts(rehearsal.UD / "UD_Spanish-GSD/es_gsd-ud-dev.conllu")[:5]
    sentences = list(parse_text_file(parser, texts, sent_id_prefix="t"))
    assert sentences and all(s.metadata["sent_id"].startswith("t-") for s in sentences)
    for sentence in sentences:
        validate_sentence(sentence)
        assert surface_tokens(sentence) and words(sentence)
    # Every word carries the trained tagger's and parser's labels, from the treebank's tag sets.
    upos = {t["upos"] for s in sentences for t in words(s)}
    assert upos and upos <= {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
                             "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X"}  # fmt: skip
