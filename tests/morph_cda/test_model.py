import math

import pytest
import torch

from cdaflow.io.conllu import words
from cdaflow.morph_cda.bp import log_partition
from cdaflow.morph_cda.model import AgreementMRF, Batch, encode, make_batches, mean_bits, train
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats


def inventory_of(sentences):
    return TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))


@pytest.mark.parametrize("parameterization", ["lin", "nn"])
def test_training_decreases_the_loss(spanish, parameterization):
    torch.manual_seed(0)
    inventory = inventory_of(spanish)
    encoded = [encode(s, inventory) for s in spanish] * 8
    batches = make_batches(encoded, 4)
    model = AgreementMRF(inventory, parameterization, "es")
    before = mean_bits(model, batches)
    result = train(model, batches, batches, lr=0.05, max_epochs=15, seed=1)
    assert result.dev_bits[-1] < before - 1.0
    assert (
        result.train_bits == sorted(result.train_bits, reverse=True)
        or result.train_bits[-1] < result.train_bits[0]
    )


def test_nll_is_log_z_minus_gold_score_and_positive(spanish):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "nn", "es")
    batch = Batch.build([encode(s, inventory) for s in spanish])
    nll = model.nll(batch)
    assert nll.shape == (2,) and bool((nll > 0).all())
    # With ψ ≡ 1 (a fresh LIN model) every assignment is equally likely: NLL = n log K.
    flat = AgreementMRF(inventory, "lin", "es")
    lengths = torch.tensor([len(words(s)) for s in spanish], dtype=torch.float)
    assert torch.allclose(flat.nll(batch), lengths * math.log(inventory.size), atol=1e-4)


def test_training_stops_when_dev_loss_settles(spanish):
    inventory = inventory_of(spanish)
    batches = make_batches([encode(s, inventory) for s in spanish], 2)
    model = AgreementMRF(inventory, "lin", "es")
    result = train(model, batches, batches, lr=0.5, tolerance_bits=1e9, max_epochs=50, patience=1)
    assert result.converged and result.epochs == 1


def test_baseline_makes_determiner_and_adjective_agree(spanish):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "base", "es")
    batch = Batch.build([encode(spanish[0], inventory)])
    fem = inventory.index(("Gender=Fem", "Number=Sing"))
    tags = model.intervene(batch, [[(1, fem)]], log_alpha=1.0)
    new = [inventory.tags[t] for t in tags[0].tolist()]
    # El, alemán and the predicative experto (the head of its nsubj ingeniero): the paper's Fig. 1.
    assert new[0] == new[2] == new[5] == ("Gender=Fem", "Number=Sing")
    assert new[3] == inventory.tags[int(batch.tags[0, 3])]  # the verb keeps its tag


def test_intervention_holds_all_but_gender_fixed(spanish):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "lin", "es")
    with torch.no_grad():
        model.W.normal_()
    batch = Batch.build([encode(s, inventory) for s in spanish])
    fem = inventory.index(("Gender=Fem", "Number=Sing"))
    tags = model.intervene(batch, [[(1, fem)], []], log_alpha=0.5)
    for b, sentence in enumerate(spanish):
        for i, _ in enumerate(words(sentence)):
            old, new = inventory.tags[int(batch.tags[b, i])], inventory.tags[int(tags[b, i])]
            assert [s for s in old if not s.startswith("Gender")] == [
                s for s in new if not s.startswith("Gender")
            ]


def test_large_alpha_changes_nothing_but_the_noun(spanish):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "base", "es")
    batch = Batch.build([encode(spanish[0], inventory)])
    fem = inventory.index(("Gender=Fem", "Number=Sing"))
    tags = model.intervene(batch, [[(1, fem)]], log_alpha=100.0)
    changed = [i for i in range(7) if tags[0, i] != batch.tags[0, i]]
    assert changed == [1]


def test_save_and_load_round_trip(spanish, tmp_path):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "nn", "es")
    batch = Batch.build([encode(s, inventory) for s in spanish])
    model.save(tmp_path / "m", extra={"note": 1})
    loaded = AgreementMRF.load(tmp_path / "m")
    assert torch.allclose(model.nll(batch), loaded.nll(batch))
    with pytest.raises(FileNotFoundError, match="not an MRF model folder"):
        AgreementMRF.load(tmp_path)


def test_unknown_parameterization_and_language(spanish):
    inventory = inventory_of(spanish)
    with pytest.raises(ValueError, match="unknown parameterization"):
        AgreementMRF(inventory, "cubic", "es")
    with pytest.raises(ValueError, match="no hard-coded baseline"):
        AgreementMRF(inventory, "base", "de")


def test_edge_potentials_match_the_definition(spanish):
    inventory = inventory_of(spanish)
    model = AgreementMRF(inventory, "lin", "es")
    with torch.no_grad():
        model.W.normal_()
    batch = Batch.build([encode(spanish[0], inventory)])
    edge = model.edge_potentials(batch)
    hot = inventory.multi_hot()
    j = 0  # "El" ← "ingeniero" (det)
    W = model.W[int(batch.triple[0, j])]
    expected = hot @ W @ hot.T
    assert torch.allclose(edge.table[edge.index[0, j]], expected, atol=1e-5)
    unary = torch.zeros(1, batch.trees.max_len, inventory.size)
    assert torch.isfinite(log_partition(unary, edge, batch.trees)).all()
