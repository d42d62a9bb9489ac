"""Hard debiasing (Bolukbasi et al. 2016), the baseline of Dolci et al. 2023 §5.4."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cdaflow.sentence_bias.debias import equalize, hard_debias, neutralize
from cdaflow.sentence_bias.direction import gender_direction
from cdaflow.sentence_bias.embeddings import WordVectors

DIM = 12


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _cos(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


@pytest.fixture
def toy():
    """Unit vectors where 'she'/'he' lean along axis 0 (the gender direction) and neutral words leak into it."""
    rng = np.random.default_rng(7)
    vocab = ["she", "he", "woman", "man", "queen", "king", "nurse", "doctor", "table", "Queen", "King"]
    matrix = rng.normal(size=(len(vocab), DIM))
    g = np.zeros(DIM)
    g[0] = 1.0
    for word, sign in (("she", 2), ("woman", 2), ("queen", 2), ("Queen", 2), ("he", -2), ("man", -2),
                       ("king", -2), ("King", -2), ("nurse", 1), ("doctor", -0.5)):  # fmt: skip
        matrix[vocab.index(word), 0] += sign
    return _unit(matrix), vocab, g


def test_neutralize_makes_neutral_words_orthogonal(toy) -> None:
    matrix, vocab, g = toy
    specific = {"she", "he", "woman", "man"}
    out = neutralize(matrix, vocab, g, specific)
    for i, word in enumerate(vocab):
        if word in specific:
            np.testing.assert_array_equal(out[i], matrix[i])  # gender-specific words untouched
        else:
            assert abs(out[i] @ g) < 1e-12
            assert np.linalg.norm(out[i]) == pytest.approx(1.0)
    nurse = vocab.index("nurse")
    assert abs(matrix[nurse] @ g) > 0.2  # it was biased before
    np.testing.assert_array_equal(matrix, toy[0])  # input not modified


def test_neutralize_accepts_mapping_vocab_and_non_unit_direction(toy) -> None:
    matrix, vocab, g = toy
    out = neutralize(matrix, {w: i for i, w in enumerate(vocab)}, 5 * g, [])
    assert np.abs(out @ g).max() < 1e-12


def test_equalize_makes_pairs_symmetric(toy) -> None:
    matrix, vocab, g = toy
    specific = {"she", "he", "woman", "man", "queen", "king", "Queen", "King"}
    neutral = neutralize(matrix, vocab, g, specific)
    out = equalize(neutral, vocab, g, [["king", "queen"], ["man", "woman"]])
    index = {w: i for i, w in enumerate(vocab)}
    for male, female in (("king", "queen"), ("King", "Queen"), ("man", "woman")):  # title case via debiaswe rule
        m, f = out[index[male]], out[index[female]]
        assert _cos(f, g) == pytest.approx(-_cos(m, g))
        assert _cos(f, g) > 0.5  # each word stays on its side of g
        assert np.linalg.norm(m) == pytest.approx(1.0) and np.linalg.norm(f) == pytest.approx(1.0)
        for word in ("nurse", "doctor", "table"):
            n = out[index[word]]
            assert np.linalg.norm(m - n) == pytest.approx(np.linalg.norm(f - n))
            assert _cos(m, n) == pytest.approx(_cos(f, n))
    for word in ("she", "he", "nurse", "table"):
        np.testing.assert_array_equal(out[index[word]], neutral[index[word]])


def test_hard_debias_leaves_gender_specific_words(toy) -> None:
    matrix, vocab, g = toy
    scaled = matrix * np.arange(1, len(vocab) + 1)[:, None]  # not unit length: hard_debias normalises first
    specific = ["she", "he", "woman", "man"]
    out = hard_debias(scaled, vocab, g, specific, [("king", "queen")])
    index = {w: i for i, w in enumerate(vocab)}
    for word in specific:
        np.testing.assert_allclose(out[index[word]], matrix[index[word]], atol=1e-12)
    for word in ("nurse", "doctor", "table"):
        assert abs(out[index[word]] @ g) < 1e-12
    assert _cos(out[index["queen"]], g) == pytest.approx(-_cos(out[index["king"]], g))
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0)


def test_memmap_input_not_modified(toy, tmp_path: Path) -> None:
    matrix, vocab, g = toy
    path = tmp_path / "vectors.f32"
    matrix.astype(np.float32).tofile(path)
    before = path.read_bytes()
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=matrix.shape)
    out = hard_debias(mapped, vocab, g, ["she", "he"], [("king", "queen")])
    assert out.dtype == np.float32 and not isinstance(out, np.memmap)
    assert np.abs(out[vocab.index("nurse")] @ g) < 1e-6
    writable = np.memmap(path, dtype=np.float32, mode="r+", shape=matrix.shape)
    neutralize(writable, vocab, g, [])
    equalize(writable, vocab, g, [("man", "woman")])
    del writable
    assert path.read_bytes() == before


def test_shape_errors(toy) -> None:
    matrix, vocab, g = toy
    with pytest.raises(ValueError, match="rows"):
        neutralize(matrix, vocab[:-1], g, [])
    with pytest.raises(ValueError, match="dimensions"):
        neutralize(matrix, vocab, g[:-1], [])
    with pytest.raises(ValueError, match="non-zero"):
        equalize(matrix, vocab, np.zeros(DIM), [])


@pytest.mark.shared_data
def test_hard_debias_with_debiaswe_lists(shared_data: Path) -> None:
    """The real debiaswe word lists on random vectors with a planted gender axis."""
    folder = shared_data / "debiaswe" / "data"
    definitional = json.loads((folder / "definitional_pairs.json").read_text(encoding="utf-8"))
    equalize_pairs = json.loads((folder / "equalize_pairs.json").read_text(encoding="utf-8"))
    specific = json.loads((folder / "gender_specific_full.json").read_text(encoding="utf-8"))
    professions = [p[0] for p in json.loads((folder / "professions.json").read_text(encoding="utf-8"))]
    female = {a for a, _ in definitional} | {b for _, b in equalize_pairs}
    male = {b for _, b in definitional} | {a for a, _ in equalize_pairs}
    vocab = sorted(female | male | set(specific) | set(professions))
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(len(vocab), 50))
    for i, word in enumerate(vocab):
        matrix[i, 0] += 3.0 if word in female else -3.0 if word in male else rng.normal()
    # debiaswe's doPCA on these rows as they are (hard_debias normalises them afterwards)
    direction = gender_direction(WordVectors(vocab, matrix), definitional, normalize=False).vector
    out = hard_debias(matrix, vocab, direction, specific, equalize_pairs)
    index = {w: i for i, w in enumerate(vocab)}
    specific_set = set(specific)
    equalized = {case(w) for pair in equalize_pairs for w in pair for case in (str.lower, str.title, str.upper)}
    neutral = [w for w in vocab if w not in specific_set and w not in equalized]
    assert len(neutral) > 100
    assert np.abs(out[[index[w] for w in neutral]] @ direction).max() < 1e-10
    unit = _unit(matrix)
    untouched = [index[w] for w in specific_set - equalized if w in index]
    np.testing.assert_allclose(out[untouched], unit[untouched], atol=1e-12)
    # debiaswe equalizes the lower, title and upper case forms of each pair, not the spelling as given
    # (so ('Catholic_priest', 'nun') is skipped: 'Catholic_Priest' / 'catholic_priest' are not in the vocabulary)
    candidates = {(case(a), case(b)) for a, b in equalize_pairs for case in (str.lower, str.title, str.upper)}
    present = [(a, b) for a, b in sorted(candidates) if a in index and b in index]
    assert len(present) >= 45
    rows = [index[w] for w in neutral]
    for male_word, female_word in present:
        m, f = out[index[male_word]], out[index[female_word]]
        assert f @ direction == pytest.approx(-(m @ direction)), (male_word, female_word)
        np.testing.assert_allclose(out[rows] @ m, out[rows] @ f, atol=1e-10)
