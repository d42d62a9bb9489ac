"""`cdaflow bias-score` and `cdaflow seat` on a tiny model built here."""

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
    assert len(rows) == 2
    sentence, f, m, absolute, top = rows[0].split("\t")
    assert sentence == "She likes the pink dress." and float(f) >= 0 >= float(m)
    assert float(absolute) == pytest.approx(float(f) - float(m), abs=1e-5)
    assert "she" not in top  # gender words carry no bias


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
