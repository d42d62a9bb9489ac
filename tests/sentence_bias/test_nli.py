import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.infersent import BOS, EOS, InferSent
from cdaflow.sentence_bias.nli import (
    LABELS,
    NLINet,
    NLIPair,
    evaluate,
    read_nli_corpus,
    read_senteval_nli,
    read_snli,
    read_snli_jsonl,
    train_nli,
    write_snli_jsonl,
)

torch.set_num_threads(1)


class ToyVectors:
    def __init__(self, words, dim=8, seed=0):
        words = list(words) + [BOS, EOS]
        self.vocab = {w: i for i, w in enumerate(words)}
        self.matrix = np.random.default_rng(seed).normal(size=(len(words), dim)).astype(np.float32)
        self.dim = dim

    def __contains__(self, word):
        return word in self.vocab


NOUNS = "cat dog bird fish tree car boat house".split()
CUE = {"yes": "entailment", "maybe": "neutral", "no": "contradiction"}
VECTORS = ToyVectors(NOUNS + list(CUE) + ["."])


def synthetic_pairs(n, seed):
    """The label is given by the hypothesis's cue word; premises are noise."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        cue = rng.choice(sorted(CUE))
        premise = " ".join(rng.choices(NOUNS, k=rng.randint(2, 6))) + " ."
        hypothesis = " ".join([*rng.choices(NOUNS, k=rng.randint(0, 3)), cue, *rng.choices(NOUNS, k=2)])
        pairs.append(NLIPair(premise, hypothesis, CUE[cue]))
    return pairs


def make_model(seed=0, hidden=8, **kwargs):
    return NLINet(InferSent.build(VECTORS, hidden=hidden, seed=seed), fc_dim=16, seed=seed, **kwargs)


# -- the model -------------------------------------------------------------------------------
def test_classifier_is_infersents_default():
    model = make_model()
    layers = list(model.classifier)
    assert [type(m).__name__ for m in layers] == ["Linear", "Linear", "Linear"]  # nonlinear_fc=0
    assert layers[0].in_features == 4 * 16 and layers[-1].out_features == 3
    assert any(k.startswith("encoder.enc_lstm.weight_ih_l0") for k in model.state_dict())
    nonlinear = make_model(nonlinear_fc=True, dropout=0.1)
    assert "Tanh" in [type(m).__name__ for m in nonlinear.classifier]


def test_features_are_u_v_absdiff_product():
    model = make_model()
    wrapper = model.sentence_encoder
    s1 = wrapper.embed_ids([wrapper.token_ids(wrapper.prepare("cat dog ."))])
    s2 = wrapper.embed_ids([wrapper.token_ids(wrapper.prepare("yes tree"))])
    with torch.no_grad():
        u, v = model.encoder(*s1)[0], model.encoder(*s2)[0]
        expected = model.classifier(torch.cat([u, v, (u - v).abs(), u * v], dim=1))
        torch.testing.assert_close(model(s1, s2), expected)


# -- training ------------------------------------------------------------------------------------
def test_training_learns_a_synthetic_task():
    train, dev = synthetic_pairs(150, seed=1), synthetic_pairs(60, seed=2)
    model = make_model(seed=0, hidden=16)
    before = evaluate(model, train)
    # lr 0.1 is InferSent's for 4096-d embeddings and 550k pairs; this toy model needs a larger one
    history = train_nli(model, train, dev, lr=0.5, batch_size=8, max_epochs=12, seed=3)
    losses = [e.train_loss for e in history.epochs]
    assert losses[-1] < losses[0] * 0.25
    assert history.best_dev_acc >= 0.9
    assert evaluate(model, dev) == pytest.approx(history.best_dev_acc)  # the best model is kept
    assert evaluate(model, train) >= 0.9 > before


def test_training_is_deterministic_on_cpu():
    train, dev = synthetic_pairs(40, seed=1), synthetic_pairs(20, seed=2)
    runs = []
    for _ in range(2):
        model = make_model(seed=5)
        history = train_nli(model, train, dev, batch_size=8, max_epochs=2, seed=11)
        runs.append((history, model.state_dict()))
    (h1, s1), (h2, s2) = runs
    assert [(e.train_loss, e.dev_acc) for e in h1.epochs] == [(e.train_loss, e.dev_acc) for e in h2.epochs]
    assert all(torch.equal(s1[k], s2[k]) for k in s1)
    other = make_model(seed=5)
    h3 = train_nli(other, train, dev, batch_size=8, max_epochs=2, seed=12)
    assert [e.train_loss for e in h3.epochs] != [e.train_loss for e in h1.epochs]


class StubDev:
    """Dev accuracies read from a list; remembers the weights seen at each call."""

    def __init__(self, accuracies):
        self.accuracies = list(accuracies)
        self.states = []

    def __call__(self, model, pairs):
        self.states.append({k: v.clone() for k, v in model.state_dict().items()})
        return self.accuracies[len(self.states) - 1]


def test_lr_schedule_decay_and_shrink_with_stubbed_dev():
    train, dev = synthetic_pairs(16, seed=1), synthetic_pairs(4, seed=2)
    stub = StubDev([0.50, 0.60, 0.55, 0.70, 0.70, 0.80])
    model = make_model()
    history = train_nli(model, train, dev, batch_size=8, max_epochs=6, evaluator=stub)
    lrs = [e.lr for e in history.epochs]
    # epoch 1: 0.1; later epochs: × 0.99; after a non-improving epoch (3 and 5): ÷ 5
    expected = [0.1]
    for epoch in range(2, 7):
        shrunk = epoch - 1 in (3, 5)
        expected.append(expected[-1] / (5 if shrunk else 1) * 0.99)
    assert lrs == pytest.approx(expected)
    assert [e.improved for e in history.epochs] == [True, True, False, True, False, True]
    assert history.stop_reason == "max_epochs" and len(history.epochs) == 6
    assert history.best_epoch == 6 and history.best_dev_acc == 0.80


def test_stop_under_min_lr_and_keep_the_best_model():
    train, dev = synthetic_pairs(16, seed=1), synthetic_pairs(4, seed=2)
    stub = StubDev([0.5, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])
    model = make_model()
    history = train_nli(model, train, dev, batch_size=8, max_epochs=10, min_lr=1e-4, evaluator=stub)
    # lr after epoch 2 (best): 0.099; then ÷5 per epoch (and ×0.99): under 1e-4 after epoch 7
    assert history.stop_reason == "min_lr"
    assert len(history.epochs) == 7
    assert history.epochs[-1].lr_after < 1e-4 <= history.epochs[-2].lr_after
    assert history.best_epoch == 2 and history.best_dev_acc == 0.9
    kept = stub.states[1]  # the weights evaluated after epoch 2
    assert all(torch.equal(v, kept[k]) for k, v in model.state_dict().items())
    assert not all(torch.equal(v, stub.states[-1][k]) for k, v in model.state_dict().items())


def test_gradient_clipping_bounds_the_update():
    train, dev = synthetic_pairs(8, seed=1), synthetic_pairs(4, seed=2)
    model = make_model()
    before = [p.detach().clone() for p in model.parameters()]
    train_nli(model, train, dev, lr=1.0, batch_size=8, max_epochs=1, max_norm=1e-3, evaluator=StubDev([0.5]))
    step = math.sqrt(sum(float(((p.detach() - b) ** 2).sum()) for p, b in zip(model.parameters(), before)))
    assert step == pytest.approx(1e-3, rel=1e-3)  # one step of lr 1 with the gradient clipped to norm 1e-3


def test_bad_settings_are_refused():
    model = make_model()
    pairs = synthetic_pairs(4, seed=1)
    with pytest.raises(ValueError, match="no training pairs"):
        train_nli(model, [], pairs)
    with pytest.raises(ValueError, match="no dev pairs"):
        train_nli(model, pairs, [])
    with pytest.raises(ValueError, match="bad settings"):
        train_nli(model, pairs, pairs, shrink=1)
    with pytest.raises(ValueError, match="unknown label"):
        evaluate(model, [NLIPair("cat", "dog", "maybe")])


# -- readers ---------------------------------------------------------------------------------
def test_read_snli_jsonl(tmp_path):
    records = [
        {"sentence1": "A man plays.", "sentence2": "A man plays music.", "gold_label": "neutral", "pairID": "1"},
        {"sentence1": "A man plays.", "sentence2": "Nobody plays.", "gold_label": "contradiction"},
        {"sentence1": "A man plays.", "sentence2": "Someone plays.", "gold_label": "-"},
        {"sentence1": "A man plays.", "sentence2": "A person plays.", "gold_label": "entailment"},
    ]
    path = tmp_path / "snli_1.0_dev.jsonl"
    path.write_text(
        "\n".join(json.dumps(r) for r in records[:2]) + "\n\n" + "\n".join(json.dumps(r) for r in records[2:]) + "\n"
    )
    pairs = read_snli_jsonl(path)
    assert pairs == [
        NLIPair("A man plays.", "A man plays music.", "neutral"),
        NLIPair("A man plays.", "Nobody plays.", "contradiction"),
        NLIPair("A man plays.", "A person plays.", "entailment"),
    ]
    assert read_snli(path) == pairs


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not valid JSON"),
        ('{"sentence1": "a", "gold_label": "neutral"}', "missing sentence2"),
        ('{"sentence1": "a", "sentence2": "b", "gold_label": "maybe"}', "unknown label 'maybe'"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_read_snli_jsonl_errors_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"sentence1": "a", "sentence2": "b", "gold_label": "neutral"})
    path.write_text(f"{good}\n{good}\n{line}\n")
    with pytest.raises(ValueError, match=f"bad.jsonl:3: {message}"):
        read_snli_jsonl(path)


def test_read_senteval_nli(tmp_path):
    (tmp_path / "s1.dev").write_text("A man plays . \nA man plays . \n")
    (tmp_path / "s2.dev").write_text("A man plays music . \nNobody plays . \n")
    (tmp_path / "labels.dev").write_text("neutral\ncontradiction\n")
    assert read_senteval_nli(tmp_path, "dev") == [
        NLIPair("A man plays .", "A man plays music .", "neutral"),
        NLIPair("A man plays .", "Nobody plays .", "contradiction"),
    ]
    assert read_snli(tmp_path, "dev") == read_senteval_nli(tmp_path, "dev")
    with pytest.raises(ValueError, match="needs a split"):
        read_snli(tmp_path)
    with pytest.raises(FileNotFoundError, match="s1.train"):
        read_senteval_nli(tmp_path, "train")
    (tmp_path / "labels.dev").write_text("neutral\nhmm\n")
    with pytest.raises(ValueError, match=r"labels.dev:2: unknown label 'hmm'"):
        read_senteval_nli(tmp_path, "dev")
    (tmp_path / "labels.dev").write_text("neutral\n")
    with pytest.raises(ValueError, match="line counts differ"):
        read_senteval_nli(tmp_path, "dev")


def test_nli_corpus_in_both_formats(tmp_path):
    pairs = [NLIPair(f"A man plays {i} .", f"Someone plays {i} .", LABELS[i % 3]) for i in range(12)]
    jsonl = tmp_path / "jsonl"
    jsonl.mkdir()
    for split, part in (("train", pairs[:8]), ("dev", pairs[8:10]), ("test", pairs[10:])):
        write_snli_jsonl(part, jsonl / f"snli_1.0_{split}.jsonl")
    kept = read_nli_corpus(jsonl)
    assert kept == {"train": pairs[:8], "dev": pairs[8:10], "test": pairs[10:]}
    senteval = tmp_path / "senteval"
    senteval.mkdir()
    for split, part in (("dev", pairs[:6]), ("test", pairs[6:])):  # no train split, as in the sample
        for name, column in (("s1", [p.premise for p in part]), ("s2", [p.hypothesis for p in part]),
                             ("labels", [p.label for p in part])):
            (senteval / f"{name}.{split}").write_text("\n".join(column) + "\n")
    pooled = read_nli_corpus(senteval, "senteval", dev_size=2, test_size=3, seed=5)
    assert [len(pooled[s]) for s in ("train", "dev", "test")] == [7, 2, 3]
    assert sorted(p.premise for part in pooled.values() for p in part) == sorted(p.premise for p in pairs)
    # premises with several hypotheses (SNLI has ~3), across SentEval's dev and test files: one part each
    shared = tmp_path / "shared"
    shared.mkdir()
    many = [NLIPair(f"Premise {i % 5} .", f"Hypothesis {i} .", LABELS[i % 3]) for i in range(20)]
    for split, part in (("dev", many[:10]), ("test", many[10:])):
        for name, column in (("s1", [p.premise for p in part]), ("s2", [p.hypothesis for p in part]),
                             ("labels", [p.label for p in part])):
            (shared / f"{name}.{split}").write_text("\n".join(column) + "\n")
    grouped = read_nli_corpus(shared, "senteval", dev_size=4, test_size=4, seed=0)
    owners = {}
    for name, part in grouped.items():
        for pair in part:
            assert owners.setdefault(pair.premise, name) == name, f"{pair.premise} in {owners[pair.premise]} and {name}"
    assert [len(grouped[s]) for s in ("train", "dev", "test")] == [12, 4, 4]
    assert pooled == read_nli_corpus(senteval, "senteval", dev_size=2, test_size=3, seed=5)
    with pytest.raises(ValueError, match="too small"):
        read_nli_corpus(senteval, "senteval", dev_size=6, test_size=6)
    with pytest.raises(FileNotFoundError, match="snli_1.0_train.jsonl"):
        read_nli_corpus(senteval)
    with pytest.raises(FileNotFoundError, match="no labels"):
        read_nli_corpus(jsonl, "senteval")
    with pytest.raises(ValueError, match="unknown NLI format"):
        read_nli_corpus(jsonl, "csv")


@pytest.mark.shared_data
def test_real_snli_jsonl(shared_data: Path):
    folder = shared_data / "snli_1.0-partial"
    for path, records in [
        (folder / "Deltaus_sBiMPM__snli_1.0_dev.jsonl", 1289),
        (folder / "Deltaus_sBiMPM__snli_1.0_test.jsonl__ACTUALLY_DEV_SUBSET.jsonl", 1277),
    ]:
        pairs = read_snli_jsonl(path)
        no_gold = sum(json.loads(line)["gold_label"] == "-" for line in path.open(encoding="utf-8") if line.strip())
        assert len(pairs) == records - no_gold and no_gold > 0
        assert {p.label for p in pairs} == set(LABELS)
    first = read_snli_jsonl(folder / "Deltaus_sBiMPM__snli_1.0_dev.jsonl")[0]
    assert first == NLIPair(
        "Two women are embracing while holding to go packages.",
        "The sisters are hugging goodbye while holding to go packages after just eating lunch.",
        "neutral",
    )


@pytest.mark.shared_data
def test_real_senteval_snli(shared_data: Path):
    folder = shared_data / "senteval-downstream" / "SNLI"
    dev, test = read_senteval_nli(folder, "dev"), read_senteval_nli(folder, "test")
    assert (len(dev), len(test)) == (9842, 9824)
    assert {p.label for p in dev} == set(LABELS)
    assert dev[0] == NLIPair(
        "Two women are embracing while holding to go packages .",
        "The sisters are hugging goodbye while holding to go packages after just eating lunch .",
        "neutral",
    )


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_training_on_cuda():
    train, dev = synthetic_pairs(40, seed=1), synthetic_pairs(20, seed=2)
    model = make_model(seed=0)
    history = train_nli(model, train, dev, batch_size=8, max_epochs=2, device="cuda")
    assert next(model.parameters()).device.type == "cuda"
    assert model.sentence_encoder.device.type == "cuda"
    assert len(history.epochs) == 2
    assert 0.0 <= evaluate(model, dev) <= 1.0


@pytest.mark.shared_data
def test_senteval_snli_sample_resplits_without_shared_premises(shared_data):
    """The validation config's SNLI (SentEval's dev + test files pooled): no premise in two parts."""
    folder = shared_data / "senteval-downstream" / "SNLI"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    splits = read_nli_corpus(folder, "senteval", dev_size=1000, test_size=1000, seed=20190728)
    premises = {name: {" ".join(p.premise.split()) for p in part} for name, part in splits.items()}
    assert not premises["train"] & premises["dev"]
    assert not premises["train"] & premises["test"]
    assert not premises["dev"] & premises["test"]
    assert sum(map(len, splits.values())) == 9842 + 9824
    assert 1000 <= len(splits["dev"]) < 1020 and 1000 <= len(splits["test"]) < 1020


# -- resuming after a kill -------------------------------------------------------------------------
class Killed(Exception):
    """Stands for the wall-time kill of a cluster job."""


def kill_after(saves):
    count = []

    def on_save(step, path):
        count.append(step)
        if len(count) == saves:
            raise Killed(f"killed after the checkpoint of step {step}")

    return on_save


@pytest.mark.parametrize("saves", [1, 3, 4])  # mid-epoch 1, mid-epoch 2, end of epoch 2
def test_a_killed_training_resumes_to_the_uninterrupted_result(tmp_path, saves):
    from cdaflow.io.checkpoints import CheckpointStore

    train, dev = synthetic_pairs(40, seed=1), synthetic_pairs(20, seed=2)
    settings = dict(lr=0.5, batch_size=8, max_epochs=3, seed=11)
    reference = make_model(seed=5, nonlinear_fc=True, dropout=0.2)  # dropout: the torch RNG matters
    expected = train_nli(reference, train, dev, **settings)

    folder = tmp_path / "checkpoints"
    model = make_model(seed=5, nonlinear_fc=True, dropout=0.2)
    killed = CheckpointStore(folder, {"job": 1}, every_steps=2, every_seconds=None, on_save=kill_after(saves))
    with pytest.raises(Killed):
        train_nli(model, train, dev, **settings, checkpoints=killed)
    assert len(killed.checkpoints()) == 1  # only the latest is kept
    # the retry starts from fresh weights (and other global RNG states) in a new process
    torch.manual_seed(999)
    np.random.seed(999)
    random.seed(999)
    retried = make_model(seed=5, nonlinear_fc=True, dropout=0.2)
    [(killed_at, _)] = killed.checkpoints()
    later = []
    store = CheckpointStore(folder, {"job": 1}, every_steps=2, every_seconds=None, on_save=lambda s, p: later.append(s))
    history = train_nli(retried, train, dev, **settings, checkpoints=store)
    assert later[0] > killed_at and later[-1] == 15  # it went on from the checkpoint, to 3 epochs × 5 steps
    assert history.to_dict() == expected.to_dict()
    assert all(torch.equal(value, reference.state_dict()[key]) for key, value in retried.state_dict().items())


def test_a_finished_training_resumes_without_training_and_other_settings_start_afresh(tmp_path):
    from cdaflow.io.checkpoints import CheckpointStore

    train, dev = synthetic_pairs(24, seed=1), synthetic_pairs(8, seed=2)
    store = CheckpointStore(tmp_path / "ck", {"job": 1}, every_seconds=None)
    first = make_model(seed=5)
    done = train_nli(first, train, dev, batch_size=8, max_epochs=2, seed=3, checkpoints=store)
    assert [step for step, _ in store.checkpoints()] == [6]  # 3 steps per epoch, the end of epoch 2 kept
    again = make_model(seed=5)
    stub = StubDev([])  # would fail if any epoch were trained and evaluated again
    history = train_nli(again, train, dev, batch_size=8, max_epochs=2, seed=3, checkpoints=store, evaluator=stub)
    assert history.to_dict() == done.to_dict() and not stub.states
    assert all(torch.equal(v, first.state_dict()[k]) for k, v in again.state_dict().items())
    # another seed: the checkpoint does not belong to this training; it is removed and training starts over
    other = train_nli(make_model(seed=5), train, dev, batch_size=8, max_epochs=1, seed=4,
                      checkpoints=CheckpointStore(tmp_path / "ck", {"job": 1}, every_seconds=None))
    assert len(other.epochs) == 1 and [step for step, _ in store.checkpoints()] == [3]
    store.finish()
    assert not (tmp_path / "ck").exists()
