"""Tests for the §3.2.3 fluency threshold: HF causal-LM and LSTM perplexity scorers, and the keep rule."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.gap_subjective.fluency import (
    HFCausalLMScorer,
    LSTMScorer,
    LSTMScorerSettings,
    PerplexityScorer,
    train_lstm_scorer,
)
from cdaflow.gap_subjective.threshold import fluency_keep
from cdaflow.text.language_model import LMSettings, sentence_perplexity

torch.set_num_threads(1)

WORDS = ["the", "a", "cat", "dog", "saw", "chased", "big", "small", "red", "house", "in", "garden", "."]


# ---------------------------------------------------------------------------------------------
# Hugging Face causal LM (a tiny random GPT-2 with a word-level tokenizer, built offline)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<s>": 1, "<unk>": 2} | {word: i + 3 for i, word in enumerate(WORDS)}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<s>", pad_token="<pad>", unk_token="<unk>")
    config = GPT2Config(
        vocab_size=len(vocab), n_positions=16, n_embd=32, n_layer=1, n_head=2, bos_token_id=1, eos_token_id=1
    )
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():  # sharper next-token distributions than the tiny default init gives
        model.lm_head.weight.mul_(20.0)
    folder = tmp_path_factory.mktemp("gpt2")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def hand_perplexity(folder: Path, words: list[str]) -> float:
    """exp(mean NLL) of each word given <s> and the words before it, straight from the logits."""
    from transformers import AutoModelForCausalLM

    vocab = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    ids = [vocab["<s>"]] + [vocab[w] for w in words]
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    nll = [-torch.log_softmax(logits[t], dim=-1)[ids[t + 1]].item() for t in range(len(words))]
    return math.exp(sum(nll) / len(nll))


SENTENCES = ["the cat saw a dog .", "a red house", "the big small dog chased the red cat in a garden .", "dog"]


def test_hf_scorer_matches_the_hand_computed_perplexity(tiny_gpt2: Path) -> None:
    scorer = HFCausalLMScorer.load(str(tiny_gpt2), batch_size=4)
    assert isinstance(scorer, PerplexityScorer)
    got = scorer.perplexities(SENTENCES)
    assert got.shape == (4,) and got.dtype == np.float64
    expected = [hand_perplexity(tiny_gpt2, sentence.split()) for sentence in SENTENCES]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert len(set(np.round(got, 6))) == 4  # the sentences really score differently


def test_hf_scorer_batching_and_padding_do_not_change_numbers(tiny_gpt2: Path) -> None:
    batched = HFCausalLMScorer.load(str(tiny_gpt2), batch_size=3).perplexities(SENTENCES)
    single = HFCausalLMScorer.load(str(tiny_gpt2), batch_size=1).perplexities(SENTENCES)
    np.testing.assert_allclose(batched, single, rtol=1e-5)
    reordered = HFCausalLMScorer.load(str(tiny_gpt2), batch_size=3).perplexities(SENTENCES[::-1])[::-1]
    np.testing.assert_allclose(reordered, single, rtol=1e-5)


def test_hf_scorer_rejects_bad_sentences(tiny_gpt2: Path) -> None:
    scorer = HFCausalLMScorer.load(str(tiny_gpt2))
    with pytest.raises(ValueError, match=r"sentences\[1\]"):
        scorer.perplexities(["the cat", "   "])
    with pytest.raises(ValueError, match=r"sentences\[0\].*context of 16"):
        scorer.perplexities([" ".join(["cat"] * 16)])
    assert scorer.perplexities([]).shape == (0,)


# ---------------------------------------------------------------------------------------------
# LSTM scorer (offline stand-in)
# ---------------------------------------------------------------------------------------------
def grammar_sentences(n: int, seed: int) -> list[str]:
    """Short sentences with a fixed word order: determiner adjective noun verb determiner noun ."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(['the', 'a'])} {rng.choice(['big', 'small', 'red'])} {rng.choice(['cat', 'dog', 'bird'])} "
        f"{rng.choice(['saw', 'chased', 'liked'])} {rng.choice(['the', 'a'])} "
        f"{rng.choice(['house', 'garden', 'tree'])} ."
        for _ in range(n)
    ]


LSTM_SETTINGS = LSTMScorerSettings(
    bpe_vocab=60,
    dev_fraction=0.1,
    lm=LMSettings(embedding=32, hidden=32, layers=1, dropout=0.0, lr=0.01, batch_size=16, epochs=6),
)


@pytest.fixture(scope="module")
def lstm_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lstm") / "scorer"
    train_lstm_scorer(grammar_sentences(200, seed=0), folder, LSTM_SETTINGS, seed=0)
    return folder


def test_lstm_scorer_prefers_normal_word_order(lstm_folder: Path) -> None:
    scorer = LSTMScorer.load(lstm_folder)
    assert isinstance(scorer, PerplexityScorer)
    held_out = grammar_sentences(40, seed=1)
    rng = random.Random(2)
    shuffled = []
    for sentence in held_out:
        words = sentence.split()
        while " ".join(words) == sentence:
            rng.shuffle(words)
        shuffled.append(" ".join(words))
    normal_ppl, shuffled_ppl = scorer.perplexities(held_out), scorer.perplexities(shuffled)
    assert np.all(np.isfinite(normal_ppl)) and np.all(normal_ppl >= 1)
    assert shuffled_ppl.mean() > 2 * normal_ppl.mean()


def test_lstm_scorer_folder_and_per_sentence_definition(lstm_folder: Path) -> None:
    assert {"bpe.model", "lm.pt", "metrics.json"} <= {p.name for p in lstm_folder.iterdir()}
    metrics = json.loads((lstm_folder / "metrics.json").read_text())
    assert (metrics["train_sentences"], metrics["dev_sentences"], metrics["seed"]) == (180, 20, 0)
    scorer = LSTMScorer.load(lstm_folder)
    sentences = grammar_sentences(5, seed=3)
    got = scorer.perplexities(sentences)
    # One sentence's perplexity is the LM's own per-piece perplexity of that sentence (EOS included).
    expected = [sentence_perplexity(scorer.model, scorer.piece_ids([s])) for s in sentences]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(scorer.perplexities(sentences[::-1])[::-1], got, rtol=1e-6)


def test_lstm_scorer_training_is_seeded(lstm_folder: Path, tmp_path: Path) -> None:
    again = train_lstm_scorer(grammar_sentences(200, seed=0), tmp_path / "again", LSTM_SETTINGS, seed=0)
    sentences = grammar_sentences(5, seed=4)
    assert np.array_equal(again.perplexities(sentences), LSTMScorer.load(lstm_folder).perplexities(sentences))


def test_a_killed_lstm_scorer_training_resumes_to_the_uninterrupted_model(lstm_folder: Path, tmp_path: Path) -> None:
    from cdaflow.io.checkpoints import CheckpointStore

    class Killed(Exception):
        pass

    def kill(step: int, path: Path) -> None:
        if step == 17:  # 12 steps per epoch, saves every 5 steps and at its end: mid-epoch 2
            raise Killed

    folder, checkpoints = tmp_path / "scorer", tmp_path / "checkpoints"
    texts = grammar_sentences(200, seed=0)
    store = CheckpointStore(checkpoints, {"job": 1}, every_steps=5, every_seconds=None, on_save=kill)
    with pytest.raises(Killed):
        train_lstm_scorer(texts, folder, LSTM_SETTINGS, seed=0, checkpoints=store)
    assert not folder.exists() and [step for step, _ in store.checkpoints()] == [17]
    resumed = []
    store = CheckpointStore(checkpoints, {"job": 1}, every_steps=5, every_seconds=None,
                            on_save=lambda step, path: resumed.append(step))  # fmt: skip
    again = train_lstm_scorer(texts, folder, LSTM_SETTINGS, seed=0, checkpoints=store)
    assert resumed[0] == 22 and not checkpoints.exists()  # went on from step 17; the store is emptied at the end
    reference = LSTMScorer.load(lstm_folder)
    assert all(torch.equal(v, reference.model.state_dict()[k]) for k, v in again.model.state_dict().items())
    saved, expected = (json.loads((f / "metrics.json").read_text()) for f in (folder, lstm_folder))
    assert saved == expected


def test_lstm_settings_from_config() -> None:
    settings = LSTMScorerSettings.from_config({"bpe_vocab": 100, "lm": {"hidden": 16, "epochs": 2}})
    assert (settings.bpe_vocab, settings.lm.hidden, settings.lm.epochs, settings.lm.layers) == (100, 16, 2, 2)
    with pytest.raises(ValueError, match="unknown key.*vocab"):
        LSTMScorerSettings.from_config({"vocab": 100})
    with pytest.raises(ValueError, match="lm: unknown key.*hiden"):
        LSTMScorerSettings.from_config({"lm": {"hiden": 16}})


def test_lstm_scorer_load_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="bpe.model"):
        LSTMScorer.load(tmp_path)


# ---------------------------------------------------------------------------------------------
# Threshold
# ---------------------------------------------------------------------------------------------
def test_fluency_keep_at_and_around_the_boundary() -> None:
    original = [10.0, 10.0, 10.0, 10.0, 200.0, math.nan, math.inf]
    transferred = [110.0, 110.001, 109.999, 5.0, 50.0, 20.0, 30.0]
    kept = fluency_keep(original, transferred)
    assert kept.dtype == np.bool_
    assert kept.tolist() == [True, False, True, True, True, False, True]
    assert fluency_keep([10.0, 10.0], [10.0, 10.5], max_increase=0.0).tolist() == [True, False]
    with pytest.raises(ValueError, match="shape"):
        fluency_keep([1.0, 2.0], [1.0])
