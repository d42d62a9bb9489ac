"""SentEval's relatedness protocol (``tools/relatedness.py``): softmax regression onto score distributions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cdaflow.sentence_bias.senteval.classifiers import DEFAULT_SEED

__all__ = ["encode_relatedness_labels", "pair_features", "pearson", "relatedness_eval", "spearman"]


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's pair features ``[|u - v|, u * v]``, float32 for float32 embeddings (else float64).

    A float32 difference or product of float32 numbers is the float64 one rounded to float32 (a float64
    product is exact, a difference double-rounded harmlessly), so the PyTorch classifier, which casts to
    float32, sees the same features at half the memory.
    """
    dtype = np.float32 if np.asarray(u).dtype == np.asarray(v).dtype == np.float32 else np.float64
    u, v = np.asarray(u, dtype=dtype), np.asarray(v, dtype=dtype)
    return np.c_[np.abs(u - v), u * v]


def encode_relatedness_labels(scores: Sequence[float], n_classes: int = 5) -> np.ndarray:
    """Tai et al. (2015) / SentEval ``encode_labels``: score ``y`` -> distribution over classes ``1..n``.

    ``p[i] = y - floor(y)`` if ``i = floor(y) + 1`` and ``floor(y) - y + 1`` if ``i = floor(y)``
    (1-based ``i``), so ``p @ [1..n] = y`` for ``1 <= y <= n``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    out = np.zeros((len(scores), n_classes), dtype=np.float32)
    for j, y in enumerate(scores):
        fl = math.floor(y)
        for i in range(n_classes):
            if i + 1 == fl + 1:
                out[j, i] = y - fl
            if i + 1 == fl:
                out[j, i] = fl - y + 1
    return out


def pearson(a, b) -> float:
    """Pearson r of `a` and `b`; NaN for fewer than two items or a constant side."""
    from scipy.stats import pearsonr

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(pearsonr(a, b)[0])


def spearman(a, b) -> float:
    """Spearman rho of `a` and `b`; NaN for fewer than two items or a constant side."""
    from scipy.stats import spearmanr

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(spearmanr(a, b)[0])


def relatedness_eval(
    train_X: np.ndarray,
    train_scores: Sequence[float],
    dev_X: np.ndarray,
    dev_scores: Sequence[float],
    test_X: np.ndarray,
    test_scores: Sequence[float],
    *,
    seed: int = DEFAULT_SEED,
    n_classes: int = 5,
    batch_size: int = 64,
    epochs_per_round: int = 50,
    max_epoch: int = 1000,
    tenacity: int = 3,
) -> dict[str, Any]:
    """SentEval ``RelatednessPytorch`` on CPU: softmax regression onto the encoded score distribution.

    Returns ``devpearson`` (best dev Pearson), ``pearson``, ``spearman``, ``mse`` (test, of ``p @ [1..n]``),
    ``yhat`` and ``epochs`` (epochs trained).  NaN correlations are reported as 0, as SentEval does.
    """
    import copy

    import torch
    from torch import nn

    train_X = torch.as_tensor(np.asarray(train_X), dtype=torch.float32)
    dev_X = torch.as_tensor(np.asarray(dev_X), dtype=torch.float32)
    test_X = torch.as_tensor(np.asarray(test_X), dtype=torch.float32)
    train_y = torch.as_tensor(encode_relatedness_labels(train_scores, n_classes))
    r = np.arange(1, n_classes + 1, dtype=np.float64)
    perm_rng = np.random.RandomState(seed)  # SentEval: np.random.seed(seed); np.random.permutation(...)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = nn.Sequential(nn.Linear(train_X.shape[1], n_classes), nn.Softmax(dim=1))
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), weight_decay=0.0)

    def predict(X: torch.Tensor) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            return model(X).double().numpy() @ r

    n_epoch, best_pr, stop, early_stop_count = 0, -1.0, False, 0
    best_state = copy.deepcopy(model.state_dict())
    while not stop and n_epoch <= max_epoch:
        model.train()
        for _ in range(epochs_per_round):
            permutation = torch.as_tensor(perm_rng.permutation(len(train_X)))
            for start in range(0, len(train_X), batch_size):
                idx = permutation[start : start + batch_size]
                loss = loss_fn(model(train_X[idx]), train_y[idx])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        n_epoch += epochs_per_round
        pr = pearson(predict(dev_X), dev_scores)
        pr = 0.0 if pr != pr else pr
        if pr > best_pr:
            best_pr = pr
            best_state = copy.deepcopy(model.state_dict())
        else:
            if early_stop_count >= tenacity:
                stop = True
            early_stop_count += 1
    model.load_state_dict(best_state)
    yhat = predict(test_X)
    test_pr, test_sr = pearson(yhat, test_scores), spearman(yhat, test_scores)
    return {
        "devpearson": best_pr,
        "pearson": 0.0 if test_pr != test_pr else test_pr,
        "spearman": 0.0 if test_sr != test_sr else test_sr,
        "mse": float(np.mean((yhat - np.asarray(test_scores, dtype=np.float64)) ** 2)),
        "yhat": yhat,
        "epochs": n_epoch,
    }
