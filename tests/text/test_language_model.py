"""The shared BPE-LSTM language model: prefix log-likelihood on a toy LM, training, saving and its settings."""

import math

import pytest
import torch

from cdaflow.text.language_model import BOS, EOS, LMSettings, LSTMLanguageModel, prefix_log_likelihood, train_lm


class Bigram(torch.nn.Module):
    """A toy LM over ids {PAD, BOS, EOS, a=3, b=4}: P(next | previous) from a fixed table."""

    def __init__(self):
        super().__init__()
        table = torch.full((5, 5), 1e-9)
        table[BOS, 3], table[BOS, 4] = 0.75, 0.25
        table[3, 3], table[3, 4], table[3, EOS] = 0.5, 0.25, 0.25
        table[4, 3], table[4, 4], table[4, EOS] = 0.1, 0.1, 0.8
        self.log_table = (table / table.sum(1, keepdim=True)).log()

    def forward(self, inputs):
        return self.log_table[inputs]


def test_prefix_log_likelihood_by_hand():
    lm = Bigram()
    got = prefix_log_likelihood(lm, [[3], [3, 4], [4, 4, 3]])
    expected = [math.log(0.75), math.log(0.75 * 0.25), math.log(0.25 * 0.1 * 0.1)]
    assert got == pytest.approx(expected, rel=1e-5)  # no end-of-sentence factor
    with pytest.raises(ValueError, match="empty phrase"):
        prefix_log_likelihood(lm, [[]])


def test_lstm_lm_learns_and_scores():
    train = [[3, 4, 3], [3, 4, 3, 4], [3, 4]] * 20
    settings = LMSettings(embedding=8, hidden=8, layers=1, dropout=0.0, lr=0.05, batch_size=8, epochs=15, seed=0)
    model, history = train_lm(train, train[:6], vocab_size=2, settings=settings)
    assert history[-1]["dev_ppl"] < history[0]["dev_ppl"]
    likely, unlikely = prefix_log_likelihood(model, [[3, 4], [4, 4]])
    assert likely > unlikely


def test_lm_save_and_load(tmp_path):
    model = LSTMLanguageModel(5, LMSettings(embedding=4, hidden=4, layers=1))
    model.save(tmp_path / "lm")
    again = LSTMLanguageModel.load(tmp_path / "lm")
    x = torch.tensor([[BOS, 3, 4]])
    model.eval()
    assert torch.allclose(model(x), again(x))
    with pytest.raises(FileNotFoundError, match="not a language model folder"):
        LSTMLanguageModel.load(tmp_path)


def test_language_model_settings_refuse_values_out_of_range():
    with pytest.raises(ValueError, match=r"dropout=1\.0 must be in \[0, 1\); epochs=0 must be a positive integer"):
        LMSettings(epochs=0, dropout=1.0)
    with pytest.raises(ValueError, match=r"lr=0 must be > 0"):
        LMSettings(lr=0)
