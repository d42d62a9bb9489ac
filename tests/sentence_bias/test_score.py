"""Bias score (eq. 1-3) and max-pooling word importance, checked on hand-computed examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.direction import Direction
from cdaflow.sentence_bias.embeddings import WordVectors
from cdaflow.sentence_bias.score import bias_score_arrays, score_rows, word_bias, word_importance

torch.set_num_threads(1)

# Toy 3-d space; the direction (2, 0, 0) is normalised to g = (1, 0, 0), so cos = x / |v|.
TOY = {
    "nurse": (3.0, 4.0, 0.0),  # cos +0.6
    "football": (-4.0, 0.0, 3.0),  # cos -0.8
    "the": (0.0, 1.0, 0.0),  # cos 0
    "dress": (5.0, 0.0, 12.0),  # cos 5/13
    "she": (5.0, 0.0, 0.0),  # cos 1, but a gender word
    "zero": (0.0, 0.0, 0.0),  # a zero vector has cosine 0
}
VECTORS = WordVectors(list(TOY), np.array(list(TOY.values())))
DIRECTION = np.array([2.0, 0.0, 0.0])
L = {"she", "She", "he", "He"}


def test_word_bias_hand_computed() -> None:
    words = ["nurse", "football", "the", "dress", "she", "blorp", "zero", "nurse", "Nurse"]
    expected = [0.6, -0.8, 0.0, 5 / 13, 0.0, 0.0, 0.0, 0.6, 0.0]  # she: in L; blorp, Nurse: OOV
    np.testing.assert_allclose(word_bias(words, VECTORS, DIRECTION, L), expected, atol=1e-12)
    direction = Direction(np.array([1.0, 0, 0]), np.array([1.0]), (), ())
    np.testing.assert_allclose(word_bias(words, VECTORS, direction, L), expected, atol=1e-12)
    # Gender words are zeroed even when the vectors have them; the empty list keeps their bias.
    assert word_bias(["she"], VECTORS, DIRECTION, set())[0] == pytest.approx(1.0)


def test_case_fallback_for_uncased_vectors() -> None:
    words = ["Nurse", "SHE", "She", "Football"]
    np.testing.assert_allclose(word_bias(words, VECTORS, DIRECTION, L, case_fallback=True), [0.6, 0, 0, -0.8])
    with pytest.raises(ValueError, match="dimensions"):
        word_bias(["nurse"], VECTORS, np.ones(4), L)
    with pytest.raises(ValueError, match="zero vector"):
        word_bias(["nurse"], VECTORS, np.zeros(3), L)


def bias_scores(tokens, importance, vectors, direction, gender_words, *, rows=True):
    return score_rows(tokens, bias_score_arrays(tokens, importance, vectors, direction, gender_words), rows=rows)


def test_word_importance_from_argmax() -> None:
    # Sentence 0 (6 steps, D = 10): step 0 wins 1 dim, 1: 1, 2: 3, 3: 2, 4: 2, 5: 1.
    # Sentence 1 (3 steps): 0 wins 5, 1 wins 1, 2 wins 4.
    argmax = torch.tensor([[2, 0, 2, 3, 1, 4, 2, 3, 4, 5], [0, 0, 2, 0, 1, 2, 0, 2, 0, 2]])
    imp = word_importance(argmax, torch.tensor([6, 3]))
    assert imp.dtype == torch.float32 and imp.shape == (2, 6)
    torch.testing.assert_close(imp[0], torch.tensor([0.1, 0.1, 0.3, 0.2, 0.2, 0.1]))
    torch.testing.assert_close(imp[1], torch.tensor([0.5, 0.1, 0.4, 0, 0, 0]))
    torch.testing.assert_close(imp.sum(dim=1), torch.ones(2))
    counts = word_importance(argmax, [6, 3], absolute=True)
    assert counts[0].tolist() == [1, 1, 3, 2, 2, 1] and counts.sum().item() == 20
    assert word_importance(argmax).shape == (2, 6)  # T from the largest index
    with pytest.raises(ValueError, match="sentence 1: argmax points at a step >= its length 2"):
        word_importance(argmax, [6, 2])
    with pytest.raises(ValueError, match=r"\[B, D\]"):
        word_importance(argmax[0])
    with pytest.raises(ValueError, match="2 lengths for a batch of 1"):
        word_importance(argmax[:1], [6, 3])


def test_word_importance_matches_per_sentence_bincount() -> None:
    generator = torch.Generator().manual_seed(0)
    lengths = torch.tensor([7, 1, 4, 12])
    argmax = torch.stack([torch.randint(0, int(n), (4096,), generator=generator) for n in lengths])
    imp = word_importance(argmax, lengths)
    for b, n in enumerate(lengths.tolist()):
        expected = np.bincount(argmax[b].numpy(), minlength=n) / 4096
        np.testing.assert_allclose(imp[b, :n].numpy(), expected, rtol=1e-6)
        assert float(imp[b, n:].sum()) == 0


def test_bias_scores_hand_computed() -> None:
    tokens = [["<s>", "she", "nurse", "football", "blorp", "</s>"], ["nurse", "the", "dress"]]
    argmax = torch.tensor([[2, 0, 2, 3, 1, 4, 2, 3, 4, 5], [0, 0, 2, 0, 1, 2, 0, 2, 0, 2]])
    importance = word_importance(argmax, [len(t) for t in tokens])
    first, second = bias_scores(tokens, importance, VECTORS, DIRECTION, L)
    # Sentence 0: nurse 0.6 × 0.3 = 0.18; football −0.8 × 0.2 = −0.16; she (L), blorp/<s>/</s> (OOV) 0.
    assert first.f == pytest.approx(0.18) and first.m == pytest.approx(-0.16) and first.abs == pytest.approx(0.34)
    # Sentence 1: nurse 0.6 × 0.5 + dress 5/13 × 0.4; the 0.
    assert second.f == pytest.approx(0.3 + 0.4 * 5 / 13) and second.m == 0.0
    assert second.abs == pytest.approx(second.f)
    rows = {r.word: r for r in first.words}
    assert [r.word for r in first.words] == tokens[0]
    assert rows["she"].bias == 0.0 and rows["she"].importance == pytest.approx(0.1)
    assert rows["football"].weighted == pytest.approx(-0.16) and rows["football"].bias == pytest.approx(-0.8)
    assert rows["blorp"].bias == 0.0 and rows["blorp"].importance == pytest.approx(0.2)
    assert first.table()[2] == {"word": "nurse", "importance": pytest.approx(0.3), "bias": pytest.approx(0.6),
                                "weighted": pytest.approx(0.18)}  # fmt: skip
    # Vectorised over the batch == one sentence at a time; rows=False skips the rows only.
    alone = bias_scores(tokens[1:], importance[1:, :3], VECTORS, DIRECTION, L)[0]
    assert alone.f == pytest.approx(second.f) and alone.abs == pytest.approx(second.abs)
    lean = bias_scores(tokens, importance.numpy(), VECTORS, DIRECTION, L, rows=False)
    assert lean[0].words == () and lean[0].f == pytest.approx(first.f)
    arrays = bias_score_arrays(tokens, importance, VECTORS, DIRECTION, L)
    assert arrays.bias.shape == (2, 6) and arrays.lengths.tolist() == [6, 3]
    np.testing.assert_allclose(arrays.abs, [0.34, second.abs])


def test_paper_table_2() -> None:
    """Regenerate Table 2 ("She likes the new pink dress") from its word biases and importances."""
    table = [("She", 0.1213, None), ("likes", 0.1748, -0.05719), ("the", 0.0835, -0.10195),
             ("new", 0.1470, -0.00051), ("pink", 0.1284, 0.25705), ("dress", 0.1487, 0.28579)]  # fmt: skip
    words = [w for w, _, c in table if c is not None]
    vectors = WordVectors(words, np.array([[c, math.sqrt(1 - c * c), 0.0] for _, _, c in table if c is not None]))
    tokens = [["<s>", *(w for w, _, _ in table), "</s>"]]
    rest = (1 - sum(i for _, i, _ in table)) / 2  # the boundary tokens take the remaining 19.63 %
    importance = np.array([[rest, *(i for _, i, _ in table), rest]])
    (score,) = bias_scores(tokens, importance, vectors, np.array([1.0, 0, 0]), {"She", "she"})
    assert score.f == pytest.approx(0.07550, abs=1e-5)
    assert score.m == pytest.approx(-0.01858, abs=1e-5)
    weighted = {r.word: round(r.weighted, 5) for r in score.words}
    assert weighted == {"<s>": 0, "She": 0, "likes": -0.01, "the": -0.00851, "new": -0.00007, "pink": 0.03301,
                        "dress": 0.0425, "</s>": 0}  # fmt: skip
    # (The paper prints −0.00008 and 0.04249: its products were rounded from unrounded inputs.)


def test_misalignment_errors() -> None:
    tokens = [["nurse", "the"]]
    with pytest.raises(ValueError, match="importance beyond its 2 tokens"):
        bias_scores(tokens, np.array([[0.5, 0.3, 0.2]]), VECTORS, DIRECTION, L)
    with pytest.raises(ValueError, match="has 2 tokens but importance has only 1"):
        bias_scores(tokens, np.array([[1.0]]), VECTORS, DIRECTION, L)
    with pytest.raises(ValueError, match=r"\[B=1, T\]"):
        bias_scores(tokens, np.array([0.5, 0.5]), VECTORS, DIRECTION, L)
    with pytest.raises(ValueError, match="non-negative"):
        bias_scores(tokens, np.array([[1.5, -0.5]]), VECTORS, DIRECTION, L)
    # Padding with zero importance is fine.
    (score,) = bias_scores(tokens, np.array([[0.5, 0.5, 0.0]]), VECTORS, DIRECTION, L)
    assert score.f == pytest.approx(0.3)
