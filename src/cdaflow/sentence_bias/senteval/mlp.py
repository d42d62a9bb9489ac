"""SentEval's PyTorch classifier (``senteval/tools/classifier.py``: ``PyTorchClassifier`` and ``MLP``).

``nhid=0`` is SentEval's logistic regression (``Linear(d, k)``); ``nhid>0`` its MLP
(``Linear(d, nhid)``, ``Dropout``, ``Sigmoid``, ``Linear(nhid, k)``).  Trained as the toolkit trains it:

* seeds: ``np.random.seed(seed)`` and ``torch.manual_seed(seed)`` when the classifier is made, then the
  layers are built, so the initial weights, the validation split (``validation_split``: the first
  ``int(split * n)`` of a permutation are dev) and every epoch's batch order come from those seeds.  Here
  they are a private ``RandomState(seed)`` and a forked torch RNG: the same numbers, and the caller's
  global RNG state is left alone.
* cross-entropy averaged over the batch, Adam (or the ``optim`` string, ``"rmsprop"``, ``"sgd,lr=0.1"``,
  parsed as ``utils.get_optimizer``) with ``weight_decay = l2reg``, batches of ``batch_size``.
  SentEval sets ``loss_fn.size_average = False`` after building the loss; PyTorch ignores that attribute
  from 0.4.1 on, so the toolkit averages today and so do we (on PyTorch 0.4.0 it summed).
* ``epoch_size`` passes over the training data (each with a new permutation), then dev accuracy; the best
  model so far is kept; every round without improvement counts once (never reset) and the round that
  finds the count at ``tenacity`` stops training; at most while ``epochs <= max_epoch``.
* accuracy by ``argmax`` of the logits, in batches of ``batch_size``, features cast to float32.

On the CPU with one thread this gives the toolkit's numbers bit for bit (``tests/sentence_bias/data/``
keeps a run of the toolkit's own code); on a GPU rounding differs slightly, as it does for the toolkit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cdaflow.settings import FRACTION, NON_NEGATIVE_INT, POSITIVE_INT, check_settings

__all__ = ["MLP", "MLPSettings", "parse_optimizer"]

_OPTIMIZERS = {
    "adadelta": "Adadelta", "adagrad": "Adagrad", "adam": "Adam", "adamax": "Adamax", "asgd": "ASGD",
    "rmsprop": "RMSprop", "rprop": "Rprop", "sgd": "SGD",
}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")


def parse_optimizer(spec: str) -> tuple[type, dict[str, float]]:
    """SentEval's optimizer string (``"adam"``, ``"sgd,lr=0.1"``, ``"adagrad,lr=0.1,lr_decay=0.05"``)
    -> (``torch.optim`` class, keyword arguments)."""
    import inspect

    import torch

    method, _, rest = spec.partition(",")
    if method not in _OPTIMIZERS:
        raise ValueError(f"optim {spec!r}: unknown method {method!r} (known: {', '.join(_OPTIMIZERS)})")
    params: dict[str, float] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not _NUMBER.match(value):
            raise ValueError(f"optim {spec!r}: {item!r} is not name=number")
        params[key] = float(value)
    optim_cls = getattr(torch.optim, _OPTIMIZERS[method])
    if method == "sgd" and "lr" not in params:
        raise ValueError(f"optim {spec!r}: sgd needs lr=...")
    accepted = set(inspect.signature(optim_cls).parameters) - {"params"}
    if unknown := sorted(set(params) - accepted):
        raise ValueError(f"optim {spec!r}: {method} takes no {', '.join(unknown)}")
    return optim_cls, params


@dataclass(frozen=True)
class MLPSettings:
    """SentEval's ``classifier`` dict (its defaults; the toolkit's standard setting is ``nhid=0``, Adam,
    batch 64, tenacity 5, epoch size 4)."""

    nhid: int = field(default=0, metadata=NON_NEGATIVE_INT)
    optim: str = "adam"
    batch_size: int = field(default=64, metadata=POSITIVE_INT)
    tenacity: int = field(default=5, metadata=NON_NEGATIVE_INT)
    epoch_size: int = field(default=4, metadata=POSITIVE_INT)
    max_epoch: int = field(default=200, metadata=POSITIVE_INT)
    dropout: float = field(default=0.0, metadata=FRACTION)

    def __post_init__(self) -> None:
        check_settings(self)
        parse_optimizer(self.optim)


class MLP:
    """One SentEval ``MLP``: made with its seed and ``l2reg``, then :meth:`fit` once."""

    def __init__(
        self, settings: MLPSettings, inputdim: int, nclasses: int, *, l2reg: float = 0.0, seed: int = 1111,
        device: Any = "cpu",
    ) -> None:
        import torch
        from torch import nn

        self.settings = settings
        self.device = torch.device(device)
        self._rng = np.random.RandomState(seed)
        self._devices = [self.device] if self.device.type == "cuda" else []
        with torch.random.fork_rng(devices=self._devices):
            torch.manual_seed(seed)
            if settings.nhid == 0:
                self.model = nn.Sequential(nn.Linear(inputdim, nclasses))
            else:
                self.model = nn.Sequential(
                    nn.Linear(inputdim, settings.nhid),
                    nn.Dropout(p=settings.dropout),
                    nn.Sigmoid(),
                    nn.Linear(settings.nhid, nclasses),
                )
            # Dropout draws from where initialisation left the generator(s), as in the toolkit.
            self._torch_state = torch.get_rng_state()
            self._cuda_state = [torch.cuda.get_rng_state(d) for d in self._devices]
        self.model.to(self.device)
        self.loss_fn = nn.CrossEntropyLoss()
        optim_cls, optim_params = parse_optimizer(settings.optim)
        self.optimizer = optim_cls(self.model.parameters(), **optim_params)
        self.optimizer.param_groups[0]["weight_decay"] = l2reg
        self.epochs = 0

    def _tensors(self, X: Any, y: Any) -> tuple[Any, Any]:
        import torch

        # numpy's float64 -> float32 cast rounds as torch's does. Writable float32 features are shared, not
        # copied (SST-2 train: 1.1 GB, fitted once per l2reg); a read-only memmap is copied to be writable.
        X = np.asarray(X)
        X = torch.from_numpy(X.astype(np.float32, copy=not X.flags.writeable)).to(self.device)
        y = torch.from_numpy(np.asarray(y).astype(np.int64)).to(self.device)
        return X, y

    def fit(
        self, X: np.ndarray, y: np.ndarray, *, validation_data: tuple[np.ndarray, np.ndarray] | None = None,
        validation_split: float | None = None,
    ) -> float:
        """Train with early stopping on dev accuracy (``validation_data``, or the toolkit's random
        ``validation_split`` of the training data); keep the best model; return its dev accuracy."""
        import torch

        X, y = np.asarray(X), np.asarray(y)
        if validation_data is not None:
            (train_X, train_y), (dev_X, dev_y) = (X, y), validation_data
        elif validation_split:
            permutation = self._rng.permutation(len(X))
            n_dev = int(validation_split * len(X))
            train_X, train_y = X[permutation[n_dev:]], y[permutation[n_dev:]]
            dev_X, dev_y = X[permutation[:n_dev]], y[permutation[:n_dev]]
        else:
            raise ValueError("fit needs validation_data or a validation_split")
        train_X, train_y = self._tensors(train_X, train_y)
        dev_X, dev_y = self._tensors(dev_X, dev_y)
        s = self.settings
        self.epochs, best_accuracy, best_state, misses, stop = 0, -1.0, None, 0, False
        with torch.random.fork_rng(devices=self._devices):
            torch.set_rng_state(self._torch_state)
            for device, state in zip(self._devices, self._cuda_state):
                torch.cuda.set_rng_state(state, device)
            while not stop and self.epochs <= s.max_epoch:
                self._train_epochs(train_X, train_y)
                accuracy = self._accuracy(dev_X, dev_y)
                if accuracy > best_accuracy:
                    best_accuracy = accuracy
                    best_state = {key: value.clone() for key, value in self.model.state_dict().items()}
                else:
                    stop = misses >= s.tenacity
                    misses += 1
        self.model.load_state_dict(best_state)
        return best_accuracy

    def _train_epochs(self, X: Any, y: Any) -> None:
        import torch

        self.model.train()
        batch_size = self.settings.batch_size
        for _ in range(self.settings.epoch_size):
            permutation = torch.from_numpy(self._rng.permutation(len(X))).to(X.device)
            for start in range(0, len(X), batch_size):
                idx = permutation[start : start + batch_size]
                loss = self.loss_fn(self.model(X[idx]), y[idx])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        self.epochs += self.settings.epoch_size

    def _predict_tensor(self, X: Any) -> Any:
        import torch

        self.model.eval()
        batch_size = self.settings.batch_size
        with torch.no_grad():
            # In batches, as the toolkit scores: a row's logits can differ in the last bit otherwise.
            return torch.cat([self.model(X[i : i + batch_size]).max(1)[1] for i in range(0, len(X), batch_size)])

    def _accuracy(self, X: Any, y: Any) -> float:
        return 1.0 * int((self._predict_tensor(X) == y).sum().item()) / len(X)

    def score(self, X: np.ndarray, y: np.ndarray) -> float:
        """Accuracy on (X, y), a fraction."""
        return self._accuracy(*self._tensors(X, y))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class indices (int64)."""
        X, _ = self._tensors(X, np.zeros(len(X), dtype=np.int64))
        return self._predict_tensor(X).cpu().numpy()
