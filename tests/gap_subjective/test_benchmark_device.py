"""The benchmark's MLP (rule gap_subjective_benchmark) trains and predicts on the device it is given."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cdaflow.gap_subjective import coref
from cdaflow.gap_subjective.coref import MLPSettings, predict, predict_proba, train_mlp


def separable(count: int, dim: int = 6, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    random = np.random.default_rng(seed)
    labels = [("A", "B", "NEITHER")[i % 3] for i in range(count)]
    features = random.normal(scale=0.1, size=(count, 3, dim)).astype(np.float32)
    for row, label in enumerate(labels):
        features[row, 1, ("A", "B", "NEITHER").index(label)] += 4.0
    return features, labels


def test_the_device_reaches_training_and_prediction(monkeypatch: pytest.MonkeyPatch) -> None:
    features, labels = separable(40)
    moved: list[torch.device] = []
    original = coref.CorefMLP.to

    def to(self, *args, **kwargs):  # records where train_mlp puts the model
        moved.append(torch.device(args[0] if args else kwargs["device"]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(coref.CorefMLP, "to", to)
    model = train_mlp(features, labels, MLPSettings(epochs=30), seed=2, device=torch.device("cpu"))
    assert moved == [torch.device("cpu")]
    assert {parameter.device for parameter in model.parameters()} == {torch.device("cpu")}
    seen: list[torch.device] = []
    model.register_forward_pre_hook(lambda module, inputs: seen.append(inputs[0].device))
    probabilities = predict_proba(model, features)
    assert seen == [torch.device("cpu")] and isinstance(probabilities, np.ndarray)
    # The device is a placement, not a different model: a string names the same one, bit for bit.
    again = train_mlp(features, labels, MLPSettings(epochs=30), seed=2, device="cpu")
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values()))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_training_on_cuda_matches_the_cpu_model_and_keeps_the_cuda_rng() -> None:
    features, labels = separable(90)
    state = torch.cuda.get_rng_state()
    model = train_mlp(features, labels, MLPSettings(epochs=60), seed=3, device="cuda")
    assert torch.equal(state, torch.cuda.get_rng_state())
    assert {parameter.device.type for parameter in model.parameters()} == {"cuda"}
    cpu_model = train_mlp(features, labels, MLPSettings(epochs=60), seed=3, device="cpu")
    expected = [(label == "A", label == "B") for label in labels]
    assert predict(model, features) == predict(cpu_model, features) == expected
