"""A killed LSTM LM training (rule morph_cda_lm, gap_subjective_fluency_lm) resumes to the uninterrupted result."""

import random

import numpy as np
import pytest
import torch

from cdaflow.io.checkpoints import CheckpointStore
from cdaflow.text.language_model import LMSettings, train_lm


class Killed(Exception):
    """Stands for the wall-time kill of a cluster job."""


def kill_after(saves):
    done = []

    def on_save(step, path):
        done.append(step)
        if len(done) == saves:
            raise Killed

    return on_save


def corpus(n, seed):
    rng = random.Random(seed)
    return [[rng.randint(3, 9) for _ in range(rng.randint(1, 6))] for _ in range(n)]


# dropout and two layers: the torch RNG and Adam's moments must come back too
SETTINGS = LMSettings(embedding=8, hidden=8, layers=2, dropout=0.2, lr=0.01, batch_size=4, epochs=3, seed=7)
TRAIN, DEV = corpus(22, 1), corpus(6, 2)  # 6 steps per epoch (the last batch short)


# saves at steps 2, 4, 6 (epoch 1 ends), 8: killed mid-epoch 1, at epoch 1's end, mid-epoch 2
@pytest.mark.parametrize("saves", [1, 3, 4])
def test_a_killed_lm_training_resumes_to_the_uninterrupted_result(tmp_path, saves):
    torch.set_num_threads(1)
    reference, expected = train_lm(TRAIN, DEV, 7, SETTINGS)
    killed = CheckpointStore(tmp_path, {"job": 1}, every_steps=2, every_seconds=None, on_save=kill_after(saves))
    with pytest.raises(Killed):
        train_lm(TRAIN, DEV, 7, SETTINGS, checkpoints=killed)
    [(killed_at, _)] = killed.checkpoints()
    torch.manual_seed(123)  # a new process: other global RNG states
    np.random.seed(123)
    later = []
    store = CheckpointStore(tmp_path, {"job": 1}, every_steps=2, every_seconds=None,
                            on_save=lambda s, p: later.append(s))  # fmt: skip
    model, history = train_lm(TRAIN, DEV, 7, SETTINGS, checkpoints=store)
    assert later[0] > killed_at and later[-1] == 18  # went on from the checkpoint to 3 × 6 steps
    assert history == expected
    assert all(torch.equal(value, reference.state_dict()[key]) for key, value in model.state_dict().items())


def test_other_data_does_not_resume(tmp_path):
    store = CheckpointStore(tmp_path, {"job": 1}, every_seconds=None)
    train_lm(TRAIN, DEV, 7, SETTINGS, checkpoints=store)
    assert [step for step, _ in store.checkpoints()] == [18]
    saved = []
    again = CheckpointStore(tmp_path, {"job": 1}, every_seconds=None, on_save=lambda s, p: saved.append(s))
    train_lm(corpus(22, 3), DEV, 7, SETTINGS, checkpoints=again)
    assert saved == [6, 12, 18]  # trained afresh (a resumed finished training would save nothing)
