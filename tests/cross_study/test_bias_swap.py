"""Study D's bias score on swapped and GAP-Subjective sentences (cdaflow.cross_study.bias_swap),
with hand-computed results."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cdaflow.cross_study.bias_swap import (
    bias_scores_of_swapped,
    gap_subjective_bias,
    infersent_scorer,
    transferred_sentence_pairs,
)
from cdaflow.gap_subjective.gap import GapExample
from cdaflow.pipeline.bias_scorer import infersent_scorer_of_rule
from cdaflow.sentence_bias.swap import Swapper


class CountingScorer:
    """f = letters / 100, m = -(count of 'e') / 100, abs = f - m; remembers each batch."""

    def __init__(self):
        self.batches = []

    def __call__(self, sentences):
        self.batches.append(list(sentences))
        f = np.array([sum(c.isalpha() for c in s) / 100 for s in sentences])
        m = np.array([-s.count("e") / 100 for s in sentences])
        return SimpleNamespace(f=f, m=m, abs=f - m)


def test_bias_scores_of_swapped_scores_both_sides_in_one_batch():
    scorer = CountingScorer()
    swapper = Swapper([("woman", "man"), ("she", "he")])
    table = bias_scores_of_swapped(["The man sleeps.", "A dog runs.", "The man sleeps.", "She eats."], swapper, scorer)
    assert table["original"].tolist() == ["The man sleeps.", "She eats."]
    assert table["counterpart"].tolist() == ["The woman sleeps.", "He eats."]
    assert table["words_swapped"].tolist() == [1, 1]
    assert len(scorer.batches) == 1 and len(scorer.batches[0]) == 4
    # "The man sleeps." has 12 letters and 3 e's; "The woman sleeps." 14 and 3.
    row = table.iloc[0]
    assert (row.original_f, row.counterpart_f, row.original_m) == pytest.approx((0.12, 0.14, -0.03))
    assert row.original_net == pytest.approx(0.09)
    assert row.counterpart_abs == pytest.approx(0.17)


def _gap(ident: str, text: str) -> GapExample:
    return GapExample(
        ident, text, "He", text.index("He"), "Bob", text.index("Bob"), True, "Tom", text.index("Tom"), False, ""
    )


def test_transferred_sentence_pairs_and_gap_subjective_bias():
    gap = [
        _gap("test-1", "Bob met Tom. He was a great singer. They left."),
        _gap("test-2", "Bob met Tom. He sang."),
    ]
    released = [
        _gap("test-1", "Bob met Tom. He was a singer. They left."),
        _gap("test-2", "Bob met Tom. He sang."),
    ]
    pairs = transferred_sentence_pairs(gap, released)
    assert pairs.to_dict("records") == [
        {"id": "test-1", "original": "He was a great singer.", "counterpart": "He was a singer."}
    ]
    scored = gap_subjective_bias(gap, released, CountingScorer())
    assert scored.loc[0, "original_f"] == pytest.approx(0.17)  # 17 letters
    assert scored.loc[0, "counterpart_f"] == pytest.approx(0.12)
    with pytest.raises(ValueError, match="GAP's order"):
        transferred_sentence_pairs(gap, released[::-1])


def test_transferred_sentence_pairs_join_a_resplit_transfer():
    gap = [_gap("d-1", "Bob met Tom. He was, sadly, a great singer. They left.")]
    released = [_gap("d-1", "Bob met Tom. He was sad. He sang. They left.")]
    (pair,) = transferred_sentence_pairs(gap, released).to_dict("records")
    assert pair["counterpart"] == "He was sad. He sang."


def test_infersent_scorer_reads_study_d_files_and_scores_as_its_parts(tmp_path):
    from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors
    from cdaflow.sentence_bias.infersent import InferSent
    from cdaflow.sentence_bias.score import encoder_bias_scorer
    from cdaflow.sentence_bias.wordlist import GenderWordList

    rng = np.random.default_rng(0)
    vocab = ["she", "he", "woman", "man", "nurse", "engineer", "is", "a", "the", "<s>", "</s>"]
    glove = tmp_path / "glove.txt"
    glove.write_text("".join(f"{w} {' '.join(f'{x:.4f}' for x in rng.normal(size=4))}\n" for w in vocab))
    prepare_vectors({"path": str(glove)}, glove, tmp_path / "vectors")
    vectors = open_vectors(tmp_path / "vectors")
    InferSent.build(vectors, 6, seed=0).save(tmp_path / "model")
    np.save(tmp_path / "direction.npy", np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32))
    GenderWordList(frozenset({"she", "he", "woman", "man"})).save(tmp_path / "words.txt")

    score = infersent_scorer(
        tmp_path / "vectors", tmp_path / "model", tmp_path / "direction.npy", tmp_path / "words.txt", pretrained=False
    )
    sentences = ["she is a nurse", "the man is an engineer", "he is a nurse"]
    ours = score(sentences)
    direct = encoder_bias_scorer(
        InferSent.load(tmp_path / "model", vectors), vectors, np.array([1.0, 0, 0, 0]), {"she", "he", "woman", "man"}
    )(sentences)
    for name in ("f", "m", "abs"):
        np.testing.assert_allclose(getattr(ours, name), getattr(direct, name), rtol=1e-6)
    assert ours.abs.shape == (3,) and (ours.f >= 0).all() and (ours.m <= 0).all() and ours.abs.max() > 0
    with pytest.raises(FileNotFoundError, match="vectors folder"):
        infersent_scorer(
            tmp_path, tmp_path / "model", tmp_path / "direction.npy", tmp_path / "words.txt", pretrained=False
        )
    # A rule's view of the same files: the encoder as a one-path input list; the member name is
    # read only for pretrained weights; a GPU resource on a machine without CUDA runs on the CPU.
    from types import SimpleNamespace

    rule = SimpleNamespace(
        input=SimpleNamespace(
            vectors=tmp_path / "vectors", encoder=[str(tmp_path / "model")],
            direction=tmp_path / "direction.npy", words=tmp_path / "words.txt",
        ),
        params=SimpleNamespace(pretrained=False, encoder_member="not-read.pkl"),
        resources=SimpleNamespace(gpu=0),
    )  # fmt: skip
    from_rule = infersent_scorer_of_rule(rule)(sentences)
    for name in ("f", "m", "abs"):
        np.testing.assert_array_equal(getattr(from_rule, name), getattr(ours, name))
