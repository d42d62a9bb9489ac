import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.io.checkpoints import (
    CheckpointStore,
    digest,
    digest_texts,
    inputs_key,
    restore_rng,
    rng_state,
    rule_store,
)


def draws(generator, rng):
    return (torch.rand(3).tolist(), np.random.rand(2).tolist(), random.random(), generator.random(), rng.random())


def test_rng_state_round_trip_through_a_checkpoint(tmp_path):
    generator, rng = np.random.default_rng(1), random.Random(2)
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    draws(generator, rng)
    store = CheckpointStore(tmp_path, every_seconds=None)
    store.save(7, {"rng": rng_state(generator, rng)})
    expected = draws(generator, rng)
    draws(generator, rng)  # move every generator on
    other_generator, other_rng = np.random.default_rng(9), random.Random(9)
    restore_rng(CheckpointStore(tmp_path).resume()["rng"], other_generator, other_rng)
    assert draws(other_generator, other_rng) == expected


def test_latest_kept_key_checked_and_damaged_files_skipped(tmp_path):
    store = CheckpointStore(tmp_path / "ck", {"a": 1}, every_steps=3, every_seconds=None, keep=2)
    assert store.resume() is None and not store.due(2) and store.due(3)
    for step in (3, 6, 9):
        store.save(step, {"w": torch.full((2,), float(step))})
    assert [step for step, _ in store.checkpoints()] == [6, 9]  # keep=2
    assert not store.due(11) and store.due(12)
    (tmp_path / "ck" / "step-000000000009.pt").write_bytes(b"cut short by a kill")
    state = CheckpointStore(tmp_path / "ck", {"a": 1}).resume()
    assert torch.equal(state["w"], torch.full((2,), 6.0))  # the damaged latest one is skipped
    # trainer keys are added to the job's: another value is another training, and its states go
    assert CheckpointStore(tmp_path / "ck", {"a": 1}).resume({"lr": 0.1}) is None
    assert not (tmp_path / "ck").exists()


def test_a_failed_write_keeps_the_previous_checkpoint(tmp_path):
    store = CheckpointStore(tmp_path, every_seconds=None)
    store.save(1, {"x": torch.ones(1)})

    class Unpicklable:
        def __reduce__(self):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        store.save(2, {"x": Unpicklable()})
    assert [p.name for p in tmp_path.iterdir()] == ["step-000000000001.pt"]  # no temporary file left
    assert torch.equal(CheckpointStore(tmp_path).resume()["x"], torch.ones(1))


def test_a_process_killed_while_saving_leaves_a_readable_checkpoint(tmp_path):
    script = (
        "import sys, torch\n"
        "from cdaflow.io.checkpoints import CheckpointStore\n"
        "store = CheckpointStore(sys.argv[1], {'job': 1}, every_seconds=None)\n"
        "step = 0\n"
        "while True:\n"
        "    step += 1\n"
        "    store.save(step, {'step': step, 'w': torch.full((200_000,), float(step))})\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
    try:
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("step-*.pt")):  # the first checkpoint
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.05)
        time.sleep(0.3)  # many saves later: killed while writing one, most likely
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    state = CheckpointStore(tmp_path, {"job": 1}).resume()
    assert state["step"] >= 1 and torch.equal(state["w"], torch.full((200_000,), float(state["step"])))


def test_keys(tmp_path):
    assert digest({"b": 1, "a": [1, 2]}) == digest({"a": [1, 2], "b": 1}) != digest({"a": [1, 2], "b": 2})
    assert digest_texts(["ab", "c"]) != digest_texts(["a", "bc"])
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.txt").write_text("1")
    before = inputs_key([tmp_path / "d"])
    assert before == inputs_key([tmp_path / "d"])
    (tmp_path / "d" / "x.txt").write_text("22")
    assert before != inputs_key([tmp_path / "d"])
    with pytest.raises(ValueError):
        CheckpointStore(tmp_path, every_steps=0)


def test_sigterm_saves_a_checkpoint_then_ends_the_process(tmp_path):
    """SLURM's time limit sends SIGTERM before SIGKILL: the step under way ends, a checkpoint is saved, the
    job stops."""
    script = (
        "import sys, time\n"
        "from cdaflow.io.checkpoints import CheckpointStore\n"
        "store = CheckpointStore(sys.argv[1], {'job': 1}, every_seconds=None, save_on_sigterm=True)\n"
        "step = 0\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    step += 1\n"
        "    time.sleep(0.01)\n"
        "    if store.due(step):\n"
        "        store.save(step, {'step': step})\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "ready\n"
    time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == -signal.SIGTERM  # stopped by the signal, as without the handler
    [(step, _)] = CheckpointStore(tmp_path).checkpoints()
    assert step > 1 and CheckpointStore(tmp_path, {"job": 1}).resume()["step"] == step


def test_rule_store_keys_params_and_inputs(tmp_path):
    class Names(dict):
        def __getattr__(self, name):
            return self[name]

    class Job:
        rule = "sentence_bias_train_infersent"
        wildcards = Names(model="original")

        def __init__(self, params, inputs):
            self.params, self.input = Names(params), inputs

    data = tmp_path / "corpus.txt"
    data.write_text("a")
    folder = str(tmp_path / ".checkpoints" / "original")
    store = rule_store(Job({"seed": 1, "checkpoints": folder}, [str(data), ""]))
    assert store.folder == Path(folder) and store.key["inputs"] == inputs_key([data])
    store.save(1, {"x": 1})
    store.release()
    same, other = (rule_store(Job({"seed": seed, "checkpoints": folder}, [str(data)])) for seed in (1, 2))
    other.release(), same.release()  # rule scripts' stores take SIGTERM over, not pytest's (last first)
    assert same.resume() == {"x": 1}
    assert other.resume() is None  # another config: the checkpoint is not this training's


def test_finished_resume_folders_leave_no_empty_parents(tmp_path):
    from cdaflow.io.checkpoints import remove_resume_folder

    root = tmp_path / "results" / "sentence_bias" / ".checkpoints"
    first, second = root / "train_infersent" / "original", root / "train_infersent" / "cda"
    for folder in (first, second):
        CheckpointStore(folder, every_seconds=None).save(1, {"x": 1})
    CheckpointStore(first).finish()
    assert not first.exists() and second.exists()  # the other job's state stays, and so do its parents
    remove_resume_folder(second)
    assert not root.exists() and (tmp_path / "results" / "sentence_bias").is_dir()
    (tmp_path / "elsewhere" / "state").mkdir(parents=True)
    remove_resume_folder(tmp_path / "elsewhere" / "state")  # outside a .checkpoints folder: parents kept
    assert (tmp_path / "elsewhere").is_dir()
