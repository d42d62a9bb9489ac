"""The Sockeye wrapper: error handling, tags, the BPE round trip and model folders free of wall time."""

import importlib.util
import sys
from pathlib import Path

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


ARGS_YAML = """batch_size: 16
max_seq_len:
- !!python/tuple
  - 20
  - 20
output: {output}
prepared_data: prep
"""
METRICS = (
    "1\tavg-sec-per-sent-val=0.0007\tbleu-val=0.0067\tdecode-walltime-val=0.0041\tperplexity-val=40.75\ttime-elapsed=0.0\n"
    "2\tavg-sec-per-sent-val=0.0006\tbleu-val=0.0080\tdecode-walltime-val=0.0038\tperplexity-val=36.41\ttime-elapsed=0.053\n"
)


def fake_model_folder(folder, metrics=METRICS):
    (folder / "training_state").mkdir(parents=True)
    (folder / "training_state" / "training.pkl").write_bytes(b"wall clock")
    (folder / "args.yaml").write_text(ARGS_YAML.format(output=folder))
    (folder / "metrics").write_text(metrics)
    (folder / "params.best").write_bytes(b"weights")
    return folder


def test_settled_model_folder_keeps_no_wall_time_and_names_its_final_place(tmp_path):
    folder = fake_model_folder(tmp_path / ".model.abc123")
    removed = rewriter.settle_model_folder(folder, "results/regender/es/rewriter/nmt/model")
    assert (folder / "metrics").read_text() == (
        "1\tbleu-val=0.0067\tperplexity-val=40.75\n"
        "2\tbleu-val=0.0080\tperplexity-val=36.41\n"
    )
    assert removed == {
        1: {"avg-sec-per-sent-val": "0.0007", "decode-walltime-val": "0.0041", "time-elapsed": "0.0"},
        2: {"avg-sec-per-sent-val": "0.0006", "decode-walltime-val": "0.0038", "time-elapsed": "0.053"},
    }
    # Only the output line changes; the tuple tags and every other line stay as Sockeye wrote them.
    assert (folder / "args.yaml").read_text() == ARGS_YAML.format(output="results/regender/es/rewriter/nmt/model")
    assert not (folder / "training_state").exists()
    assert (folder / "params.best").read_bytes() == b"weights"


def test_two_settled_folders_of_identical_runs_are_identical(tmp_path):
    first = rewriter.settle_model_folder(fake_model_folder(tmp_path / "a" / ".model.x1"), "model")
    second_metrics = METRICS.replace("time-elapsed=0.053", "time-elapsed=9.5").replace("0.0041", "0.0099")
    second = rewriter.settle_model_folder(fake_model_folder(tmp_path / "b" / ".model.y2", second_metrics), "model")
    assert first != second  # the wall times differed ...
    for name in ("args.yaml", "metrics", "params.best"):  # ... the folders do not
        assert (tmp_path / "a" / ".model.x1" / name).read_bytes() == (tmp_path / "b" / ".model.y2" / name).read_bytes()


def test_settling_refuses_what_is_not_a_finished_model_folder(tmp_path):
    with pytest.raises(SockeyeError, match=r"no metrics"):
        rewriter.settle_model_folder(tmp_path, "model")
    folder = fake_model_folder(tmp_path / "bad", metrics="1\tbleu-val=0.1\n2\tgarbage\n")
    with pytest.raises(SockeyeError, match=r"metrics:2: not a Sockeye metrics line"):
        rewriter.settle_model_folder(folder, "model")
    other = fake_model_folder(tmp_path / "other")
    (other / "args.yaml").write_text(ARGS_YAML.format(output="somewhere/else"))
    with pytest.raises(SockeyeError, match=r"args.yaml: field output is not the training folder"):
        rewriter.settle_model_folder(other, "model")


@pytest.mark.skipif(not HAS_SOCKEYE, reason="sockeye is not installed")
def test_identical_trainings_give_identical_model_folders_that_translate(tmp_path, monkeypatch):
    """A tiny transformer trained twice on CPU: the settled folders match byte for byte and load."""
    import filecmp

    monkeypatch.chdir(tmp_path)
    swaps = {"Estoy cansado.": "Estoy cansada.", "Lo veo.": "La veo.", "Está listo.": "Está lista."}
    sources = [*swaps, "Hola a todos.", "Es perfecto."] * 8
    targets = [swaps.get(text, text) for text in sources]
    bpe = train_bpe(sources + targets, tmp_path / "bpe", vocab_size=50)
    for name, lines in (("train.src", sources), ("train.tgt", targets), ("dev.src", sources[:5]),
                        ("dev.tgt", targets[:5])):
        (tmp_path / f"{name}.bpe").write_text("".join(line + "\n" for line in apply_bpe(bpe, lines)))
    run_sockeye("sockeye-prepare-data", ["--source", "train.src.bpe", "--target", "train.tgt.bpe", "--output",
                                         "prepared", "--shared-vocab", "--max-seq-len", "20:20", "--seed", 1,
                                         "--max-processes", 1], log_path=tmp_path / "prepare.log")
    settings = {"num_layers": 1, "model_size": 16, "attention_heads": 2, "ff_size": 32, "batch_size": 8,
                "batch_type": "sentence", "max_updates": 4, "checkpoint_interval": 2, "max_seq_len": 20,
                "learning_rate": 0.001}
    for run in ("first", "second"):  # as the workflow reruns: same folder names, new temporary ones
        (tmp_path / run).mkdir()
        monkeypatch.chdir(tmp_path / run)
        temporary = f".model.{run}tmp"
        arguments = rewriter.train_command("../prepared", "../dev.src.bpe", "../dev.tgt.bpe", temporary, settings,
                                           seed=1, use_cpu=True)
        run_sockeye("sockeye-train", arguments, log_path="train.log", env={"OMP_NUM_THREADS": "1"})
        assert "time-elapsed" in Path(temporary, "metrics").read_text()
        rewriter.settle_model_folder(temporary, "model")
        Path(temporary).rename("model")
    monkeypatch.chdir(tmp_path)
    comparison = filecmp.dircmp("first/model", "second/model")
    assert not comparison.left_only and not comparison.right_only and not comparison.subdirs
    _, mismatch, errors = filecmp.cmpfiles("first/model", "second/model", comparison.common_files, shallow=False)
    assert not mismatch and not errors, mismatch + errors
    assert "time-elapsed" not in Path("first/model/metrics").read_text()
    assert "output: model\n" in Path("first/model/args.yaml").read_text()
    (tmp_path / "input.bpe").write_text("".join(line + "\n" for line in apply_bpe(bpe, ["Lo veo.", "Hola a todos."])))
    run_sockeye("sockeye-translate", ["--models", "first/model", "--input", "input.bpe", "--output", "output.bpe",
                                      "--beam-size", 2, "--use-cpu"], log_path=tmp_path / "translate.log")
    assert len((tmp_path / "output.bpe").read_text().splitlines()) == 2


@pytest.mark.skipif(not HAS_SOCKEYE, reason="sockeye is not installed")
def test_a_killed_training_resumes_to_the_uninterrupted_model(tmp_path, monkeypatch):
    """sockeye-train killed (SIGKILL) after a checkpoint, run again by train_rewriter: the same weights and
    metrics as a training never stopped, and a finished training is not run again."""
    import os
    import shutil
    import signal
    import subprocess
    import time

    import torch

    monkeypatch.chdir(tmp_path)
    swaps = {"Estoy cansado.": "Estoy cansada.", "Lo veo.": "La veo.", "Está listo.": "Está lista."}
    sources = [*swaps, "Hola a todos.", "Es perfecto.", "Lo sé."] * 6
    targets = [swaps.get(text, text) for text in sources]
    bpe = train_bpe(sources + targets, tmp_path / "bpe", vocab_size=50)
    for name, lines in (("train.src", sources), ("train.tgt", targets), ("dev.src", sources[:5]),
                        ("dev.tgt", targets[:5])):
        (tmp_path / f"{name}.bpe").write_text("".join(line + "\n" for line in apply_bpe(bpe, lines)))
    run_sockeye("sockeye-prepare-data", ["--source", "train.src.bpe", "--target", "train.tgt.bpe", "--output",
                                         "prepared", "--shared-vocab", "--max-seq-len", "20:20", "--seed", 1,
                                         "--max-processes", 1], log_path=tmp_path / "prepare.log")
    settings = {"num_layers": 1, "model_size": 16, "attention_heads": 2, "ff_size": 32, "batch_size": 4,
                "batch_type": "sentence", "max_updates": 12, "checkpoint_interval": 3, "max_seq_len": 20,
                "learning_rate": 0.001}
    common = dict(seed=1, use_cpu=True, env={"OMP_NUM_THREADS": "1"})
    reference = rewriter.train_rewriter("prepared", "dev.src.bpe", "dev.tgt.bpe", "plain", settings,
                                        log_path="plain.log", **common)

    script = (
        "from cdaflow.regender import rewriter\n"
        f"rewriter.train_rewriter('prepared', 'dev.src.bpe', 'dev.tgt.bpe', 'killed', {settings!r}, seed=1,\n"
        "                       use_cpu=True, log_path='killed.log', env={'OMP_NUM_THREADS': '1'})\n"
    )
    job = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        state = tmp_path / "killed" / "model" / rewriter.RESUME_STATE
        while not state.is_dir():  # Sockeye renames a complete state into place at a checkpoint
            assert job.poll() is None and time.monotonic() < deadline, "training ended or stalled before a checkpoint"
            time.sleep(0.02)
    finally:
        os.killpg(job.pid, signal.SIGKILL)  # sockeye-train too, as a wall-time kill
        job.wait()
    assert not (tmp_path / "killed" / rewriter.TRAINED).exists()
    done = len((tmp_path / "killed" / "model" / "metrics").read_text().splitlines())
    assert done < 4  # killed before its last checkpoint

    resumed = rewriter.train_rewriter("prepared", "dev.src.bpe", "dev.tgt.bpe", "killed", settings,
                                      log_path="resumed.log", **common)
    assert "Found partial training in 'killed/model/training_state'. Resuming" in Path("resumed.log").read_text()
    for name in ("params.best", f"params.{4:05d}"):
        expected, got = (torch.load(folder / name, map_location="cpu", weights_only=True)
                         for folder in (reference, resumed))  # fmt: skip
        assert expected.keys() == got.keys() and all(torch.equal(got[k], expected[k]) for k in expected), name
    settled = {}
    for folder in (reference, resumed):
        copy = tmp_path / f"settled-{folder.parent.name}"
        shutil.copytree(folder, copy)
        rewriter.settle_model_folder(copy, "model", trained_in=folder)
        settled[folder.parent.name] = (copy / "metrics").read_text()
    assert settled["plain"] == settled["killed"]  # the same dev BLEU and perplexity at every checkpoint
    assert "output: model\n" in (tmp_path / "settled-killed" / "args.yaml").read_text()
    # stopped (max_updates, which Sockeye lets a continuation change) on an epoch's end (9 batches an epoch)
    for stop in (9,):
        for updates in (stop, 12):
            arguments = rewriter.train_command("prepared", "dev.src.bpe", "dev.tgt.bpe", f"stopped{stop}",
                                               {**settings, "max_updates": updates}, seed=1, use_cpu=True)
            run_sockeye("sockeye-train", arguments, log_path=f"stopped{stop}.log", env={"OMP_NUM_THREADS": "1"})
        assert "Resuming from saved state" in Path(f"stopped{stop}.log").read_text()
        expected = torch.load(reference / "params.best", map_location="cpu", weights_only=True)
        got = torch.load(Path(f"stopped{stop}") / "params.best", map_location="cpu", weights_only=True)
        assert all(torch.equal(got[k], expected[k]) for k in expected), stop
    # finished: a rerun (the job failed after training) does not train again
    Path("again.log").unlink(missing_ok=True)
    assert rewriter.train_rewriter("prepared", "dev.src.bpe", "dev.tgt.bpe", "killed", settings,
                                   log_path="again.log", **common) == resumed
    assert not Path("again.log").exists()


def test_a_killed_trainings_folder_is_repaired_or_started_over(tmp_path):
    import torch

    def folder(name):
        model = tmp_path / name / "model"
        model.mkdir(parents=True)
        torch.save({"w": torch.ones(1)}, model / "params.00002")
        (model / "params.best").symlink_to("params.00002")
        return model

    def state(model, into, target="params.00002"):
        (model / into).mkdir()
        (model / into / "params").symlink_to(f"../{target}")

    between_renames = folder("a")  # killed between Sockeye's two renames: the previous state comes back
    state(between_renames, "delete.training_state")
    rewriter._repair_state(between_renames)
    assert (between_renames / "training_state" / "params").is_file()
    dangling = folder("b")  # the state links to parameters never written
    state(dangling, "training_state", target="params.00003")
    rewriter._repair_state(dangling)
    assert not dangling.exists()
    half_written = folder("c")
    (half_written / "params.00003").write_bytes(b"PK\x03\x04 cut short")
    state(half_written, "training_state", target="params.00003")
    rewriter._repair_state(half_written)
    assert not half_written.exists()
    refused = folder("d")  # parameters but no state: sockeye-train would refuse the folder
    rewriter._repair_state(refused)
    assert not refused.exists()
    fine = folder("e")
    state(fine, "training_state")
    rewriter._repair_state(fine)
    assert (fine / "training_state").is_dir()
