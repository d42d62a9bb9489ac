"""Saved models depend on data, settings and seed only: two identical trainings write identical
folders, byte for byte, and no wall time is stored in them (timings belong in logs and benchmarks)."""

import json
from pathlib import Path

import torch

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.model import AgreementMRF, make_batches, train
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.morph_cda.tree_encoding import encode
from cdaflow.sentence_bias.nli import train_nli
from tests.morph_cda.conftest import SPANISH
from tests.morph_cda.test_cda import LEXICON
from tests.sentence_bias.test_nli import make_model, synthetic_pairs

TIMING_KEYS = {"seconds", "elapsed", "time", "duration", "train_runtime"}


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def timing_keys(node) -> set[str]:
    if isinstance(node, dict):
        return {k for k in node if k in TIMING_KEYS} | {k for v in node.values() for k in timing_keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in timing_keys(v)}
    return set()


def test_reinflector_folders_are_identical_and_timeless(tmp_path):
    torch.set_num_threads(1)
    examples = examples_from_sentences(parse_conllu_string(LEXICON))
    for name in ("first", "second"):
        Reinflector.train(examples, examples[:3], epochs=2, batch_size=4, seed=0).save(tmp_path / name)
    first, second = folder_bytes(tmp_path / "first"), folder_bytes(tmp_path / "second")
    assert first == second
    config = json.loads(first["config.json"])
    assert len(config["train_info"]["history"]) == 2 and timing_keys(config) == set()


def test_reinflector_saved_with_timings_still_loads(tmp_path):
    examples = examples_from_sentences(parse_conllu_string(LEXICON))
    Reinflector.train(examples, epochs=1, batch_size=4, seed=0).save(tmp_path / "r")
    path = tmp_path / "r" / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["train_info"]["seconds"] = 12.5
    config["train_info"]["history"][0]["seconds"] = 12.5
    path.write_text(json.dumps(config), encoding="utf-8")
    info = Reinflector.load(tmp_path / "r").train_info
    assert info.epochs == 1 and info.history == [{"epoch": 1, "loss": config["train_info"]["history"][0]["loss"]}]


def test_mrf_folders_are_identical_and_timeless(tmp_path):
    sentences = parse_conllu_string(SPANISH) + parse_conllu_string(LEXICON)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    batches = make_batches([encode(s, inventory) for s in sentences], 2)
    for name in ("first", "second"):
        model = AgreementMRF(inventory, "lin", "es")
        torch.manual_seed(0)  # the same initial weights, as the rule's seeded run has
        for parameter in model.parameters():
            torch.nn.init.normal_(parameter, std=0.1)
        result = train(model, batches, batches, max_epochs=2, seed=0)
        # The wall time is measured for the log but not kept: the record a model folder saves has no timing.
        assert result.epochs == 2 and timing_keys(result.record()) == set()
        model.save(tmp_path / name, extra={"training": result.record()})
    first, second = folder_bytes(tmp_path / "first"), folder_bytes(tmp_path / "second")
    assert first == second
    assert timing_keys(json.loads(first["config.json"])) == set()


def test_nli_history_saved_with_the_encoder_is_timeless(tmp_path):
    torch.set_num_threads(1)
    train_pairs, dev_pairs = synthetic_pairs(24, seed=1), synthetic_pairs(12, seed=2)
    saved = []
    for _ in range(2):
        model = make_model(seed=5)
        history = train_nli(model, train_pairs, dev_pairs, batch_size=8, max_epochs=2, seed=11)
        saved.append(json.dumps(history.to_dict(), sort_keys=True))
    assert saved[0] == saved[1]
    assert timing_keys(json.loads(saved[0])) == set()
