"""The Sockeye wrapper's error handling, tags and the BPE round trip."""

import importlib.util
import sys

import pytest

from cdaflow.regender import rewriter
from cdaflow.regender.rewriter import SockeyeError, add_tags, apply_bpe, find_tool, remove_bpe, run_sockeye, train_bpe

HAS_SOCKEYE = importlib.util.find_spec("sockeye") is not None


def test_missing_binary_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SockeyeError, match=r"sockeye-train not found .*pip install --no-deps sockeye"):
        find_tool("sockeye-train")


@pytest.mark.skipif(not HAS_SOCKEYE, reason="sockeye is not installed")
def test_failed_training_is_reported_with_its_log(tmp_path):
    log = tmp_path / "train.log"
    with pytest.raises(SockeyeError) as info:
        run_sockeye("sockeye-train", ["--prepared-data", tmp_path / "missing", "--validation-source", "x",
                                      "--validation-target", "y", "--output", tmp_path / "model", "--use-cpu"],
                    log_path=log)
    message = str(info.value)
    assert "sockeye-train failed with exit code" in message and str(log) in message
    assert log.read_text() and message.splitlines()[-1] in log.read_text()  # the log's end is quoted


def test_tags_and_bpe_round_trip(tmp_path):
    assert add_tags(["Hola.", "Listo."], ["N", "G"]) == ["<N> Hola.", "<G> Listo."]
    with pytest.raises(ValueError, match="tag 'X'"):
        add_tags(["Hola."], ["X"])
    texts = ["Estoy cansado.", "Estoy cansada.", "Lo veo.", "La veo.", "¿Estás lista?"] * 5
    model = train_bpe(texts + add_tags(texts, ["G"] * len(texts)), tmp_path / "bpe", vocab_size=60)
    encoded = apply_bpe(model, ["<G> Estoy cansado.", "¿Estás listo?"])
    assert "<G>" in encoded[0].split()  # the tag stays one piece
    assert remove_bpe(model, encoded) == ["Estoy cansado.", "¿Estás listo?"]


def test_train_command_ties_weights_with_a_shared_vocabulary():
    settings = {"num_layers": 2, "model_size": 32, "attention_heads": 2, "ff_size": 64, "batch_size": 16,
                "batch_type": "sentence", "max_updates": 10, "checkpoint_interval": 5, "max_seq_len": 20,
                "learning_rate": 0.001}
    arguments = rewriter.train_command("prep", "dev.src", "dev.tgt", "out", settings, seed=3, use_cpu=True)
    assert "--shared-vocab" in arguments and "--use-cpu" in arguments
    assert arguments[arguments.index("--weight-tying-type") + 1] == "src_trg_softmax"
    assert arguments[arguments.index("--num-layers") + 1] == "2:2"
    assert arguments[arguments.index("--seed") + 1] == "3"
