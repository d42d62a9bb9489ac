"""Probe phrases (appendix C), prefix log-likelihood on a toy LM, and both metrics by hand."""

import math

import pytest
import torch

from cdaflow.morph_cda.lm import BOS, EOS, LMSettings, LSTMLanguageModel, prefix_log_likelihood, train_lm
from cdaflow.morph_cda.probes import (
    ADJECTIVES,
    Probe,
    ProbeLanguage,
    grammaticality,
    stereotyped_nouns,
    stereotyping,
)


def test_spanish_phrases_are_the_papers_table_8():
    probes = ProbeLanguage.load("es").probes([("ingeniero", "ingeniera")])
    assert len(probes) == 16
    good = [p.phrase for p in probes if p.adjective == "good"]
    assert good == ["El ingeniero bueno", "La ingeniera buena", "El ingeniera bueno", "La ingeniero buena"]
    assert {p.adjective for p in probes} == set(ADJECTIVES)


@pytest.mark.parametrize(
    ("lang", "pair", "adjective", "masc", "fem"),
    [
        ("fr", ("ingénieur", "ingénieure"), "smart", "L'ingénieur intelligent", "L'ingénieure intelligente"),
        ("fr", ("acteur", "actrice"), "beautiful", "Le bel acteur", "La belle actrice"),
        ("fr", ("danseur", "danseuse"), "good", "Le bon danseur", "La bonne danseuse"),
        ("it", ("studente", "studentessa"), "bad", "Lo studente cattivo", "La studentessa cattiva"),
        ("it", ("maestro", "maestra"), "good", "Il maestro buono", "La maestra buona"),
        ("he", ("מורה", "מורה"), "good", "המורה הטוב", "המורה הטובה"),
    ],
)
def test_word_order_elision_and_articles(lang, pair, adjective, masc, fem):
    probes = {p.kind: p.phrase for p in ProbeLanguage.load(lang).probes([pair]) if p.adjective == adjective}
    assert (probes["masc"], probes["fem"]) == (masc, fem)


def test_bad_probe_specs(tmp_path):
    with pytest.raises(FileNotFoundError, match="no probe phrases for 'xx'"):
        ProbeLanguage.load("xx", tmp_path)
    with pytest.raises(ValueError, match="missing or malformed field"):
        ProbeLanguage({"lang": "es", "articles": {"Masc": [{"form": "el"}]}})


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


def test_metrics_by_hand():
    # The paper's Table 5, original corpus: LL of the four "ingeniero bueno" phrases.
    lls = {"masc": -27.6, "fem": -31.3, "*masc": -32.2, "*fem": -33.2}
    probes = [Probe("ingeniero", "good", kind, "") for kind in lls]
    assert stereotyping(probes, list(lls.values()))[("ingeniero", "good")] == pytest.approx(3.7)
    assert grammaticality(probes, list(lls.values()))[("ingeniero", "good")] == pytest.approx(3.25)
    with pytest.raises(ValueError, match="4 probes but 3 scores"):
        stereotyping(probes, [1.0, 2.0, 3.0])


def test_stereotyped_nouns_at_75_percent():
    counts = {"ingeniero": (80, 20), "enfermero": (10, 30), "maestro": (60, 40), "rey": (0, 0)}
    assert stereotyped_nouns(counts) == {"ingeniero": "Masc", "enfermero": "Fem"}
    assert stereotyped_nouns(counts, min_count=50) == {"ingeniero": "Masc"}


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
    with pytest.raises(ValueError, match=r"epochs=0 must be a positive integer; dropout=1\.0 must be in \[0, 1\)"):
        LMSettings(epochs=0, dropout=1.0)
    with pytest.raises(ValueError, match=r"lr=0 must be > 0"):
        LMSettings(lr=0)
