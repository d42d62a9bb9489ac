"""SNLI data and InferSent's NLI training (Conneau et al. 2017; retrained in Dolci et al. 2023, §4.3).

Training follows InferSent's ``train_nli.py`` defaults: SGD (no momentum) with lr 0.1, batch 64,
the lr multiplied by ``decay`` = 0.99 at the start of every epoch after the first, divided by
``shrink`` = 5 whenever the dev accuracy is not above the best so far, training stops once a
shrink takes the lr under ``min_lr`` = 1e-5 or after ``max_epochs`` (20 in train_nli.py, 8 in
Dolci et al.), and the best-dev model is kept. The loss is summed cross-entropy with the
gradients divided by the batch size (= the mean), and the update is scaled by
``max_norm / ‖g‖`` when the gradient norm ‖g‖ exceeds ``max_norm`` = 5 (InferSent scales the lr
for that step; with plain SGD that is the same as clipping the gradient). The training set is
reshuffled every epoch and cut into consecutive batches (no length bucketing).

The classifier sees ``[u; v; |u − v|; u * v]``. InferSent's default ``nonlinear_fc=0`` makes it
three stacked ``nn.Linear`` layers (8h → 512 → 512 → 3) *without* any nonlinearity (so a linear
map in effect), and dropout is 0; ``nonlinear_fc=True`` gives the Tanh MLP with dropout.

Differences from train_nli.py: dev accuracy is compared unrounded (InferSent rounds it to 0.01 %
first); the shuffle uses NumPy's ``default_rng(seed)``, not the legacy global generator; and the
min-lr stop is tested, as there, only after a shrink (decay alone would need > 900 epochs).
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from cdaflow.io.checkpoints import CheckpointStore, clone_state, digest_texts, restore_rng, rng_state
from cdaflow.sentence_bias.infersent import InferSent

_LOG = logging.getLogger(__name__)

LABELS = ("entailment", "neutral", "contradiction")  # InferSent's label ids 0, 1, 2
LABEL_INDEX = {label: i for i, label in enumerate(LABELS)}
NO_GOLD = "-"  # SNLI pairs without annotator consensus


@dataclass(frozen=True)
class NLIPair:
    premise: str
    hypothesis: str
    label: str  # one of LABELS


# ---------------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------------
def _check_label(label: Any, where: str) -> str:
    if label not in LABEL_INDEX:
        raise ValueError(f"{where}: unknown label {label!r} (expected one of {', '.join(LABELS)})")
    return str(label)


def read_snli_jsonl(path: str | Path) -> list[NLIPair]:
    """Pairs of the official SNLI/MultiNLI ``.jsonl`` (``sentence1``, ``sentence2``, ``gold_label``).

    Pairs whose gold label is ``-`` (no majority among annotators) are dropped, as every SNLI
    user does; blank lines are skipped. Errors name the file and line.
    """
    path = Path(path)
    pairs: list[NLIPair] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
            missing = [key for key in ("sentence1", "sentence2", "gold_label") if key not in record]
            if missing:
                raise ValueError(f"{where}: missing {', '.join(missing)}")
            if record["gold_label"] == NO_GOLD:
                continue
            label = _check_label(record["gold_label"], where)
            pairs.append(NLIPair(str(record["sentence1"]), str(record["sentence2"]), label))
    return pairs


def read_senteval_nli(directory: str | Path, split: str) -> list[NLIPair]:
    """Pairs of SentEval's / InferSent's format: ``s1.<split>``, ``s2.<split>``, ``labels.<split>``.

    The sentences there are already tokenised (space separated); `split` is ``train``, ``dev``
    or ``test``. The three files must have the same number of lines.
    """
    directory = Path(directory)
    files = [directory / f"{name}.{split}" for name in ("s1", "s2", "labels")]
    absent = [str(p) for p in files if not p.is_file()]
    if absent:
        raise FileNotFoundError(f"SentEval NLI split {split!r}: missing {', '.join(absent)}")
    columns = []
    for file in files:
        with open(file, encoding="utf-8") as handle:
            columns.append([line.rstrip("\r\n") for line in handle])
    counts = {str(f): len(c) for f, c in zip(files, columns)}
    if len(set(counts.values())) != 1:
        raise ValueError(f"SentEval NLI split {split!r}: line counts differ: {counts}")
    pairs = []
    for number, (s1, s2, label) in enumerate(zip(*columns), start=1):
        label = _check_label(label.strip(), f"{files[2]}:{number}")
        pairs.append(NLIPair(s1.strip(), s2.strip(), label))
    return pairs


def read_snli(path: str | Path, split: str | None = None) -> list[NLIPair]:
    """A ``.jsonl`` file, or a SentEval folder (then `split` is required)."""
    path = Path(path)
    if path.is_dir():
        if split is None:
            raise ValueError(f"{path}: a SentEval folder needs a split (train, dev or test)")
        return read_senteval_nli(path, split)
    return read_snli_jsonl(path)


SNLI_SPLITS = ("train", "dev", "test")
NLI_FORMATS = ("jsonl", "senteval")


def read_nli_corpus(
    folder: str | Path, fmt: str = "jsonl", *, dev_size: int = 10_000, test_size: int = 10_000, seed: int = 0
) -> dict[str, list[NLIPair]]:
    """An NLI corpus as ``{"train", "dev", "test"}`` pair lists.

    ``jsonl``: the official SNLI layout, ``snli_1.0_{train,dev,test}.jsonl`` in `folder`, splits
    kept. ``senteval``: SentEval's ``s1/s2/labels.<split>`` files; every split present is
    pooled and re-split by premise (no premise in two parts; `dev_size` and `test_size` pairs or
    a premise's few more, seeded), the rest train: a sample without a train split still trains a model.
    """
    folder = Path(folder)
    if fmt == "jsonl":
        files = {split: folder / f"snli_1.0_{split}.jsonl" for split in SNLI_SPLITS}
        absent = [str(f) for f in files.values() if not f.is_file()]
        if absent:
            raise FileNotFoundError(f"SNLI folder {folder}: missing {', '.join(absent)}")
        return {split: read_snli_jsonl(path) for split, path in files.items()}
    if fmt != "senteval":
        raise ValueError(f"unknown NLI format {fmt!r}; use one of {NLI_FORMATS}")
    from cdaflow.sentence_bias.corpora import resplit_by_premise

    present = [split for split in SNLI_SPLITS if (folder / f"labels.{split}").is_file()]
    if not present:
        raise FileNotFoundError(f"SentEval NLI folder {folder}: no labels.{{train,dev,test}} file")
    pooled = [pair for split in present for pair in read_senteval_nli(folder, split)]
    parts = resplit_by_premise(pooled, dev_size, test_size, seed=seed)
    return {"train": list(parts.train), "dev": list(parts.dev), "test": list(parts.test)}


def write_snli_jsonl(pairs: Sequence[NLIPair], path: str | Path) -> None:
    """Pairs as SNLI ``.jsonl`` records (``gold_label``, ``sentence1``, ``sentence2``)."""
    with open(path, "w", encoding="utf-8") as handle:
        for pair in pairs:
            record = {"gold_label": pair.label, "sentence1": pair.premise, "sentence2": pair.hypothesis}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
class NLINet(nn.Module):
    """InferSent's NLINet: a shared sentence encoder and a classifier on [u; v; |u−v|; u*v].

    `sentence_encoder` is an `InferSent` wrapper: its BiLSTM (``self.encoder``, so that the state
    dict keys are ``encoder.enc_lstm.*`` as in InferSent's saved NLINet) is trained, its word
    vectors are fixed. `seed` seeds the classifier's initialisation (PyTorch's default init).
    """

    def __init__(
        self,
        sentence_encoder: InferSent,
        *,
        fc_dim: int = 512,
        n_classes: int = len(LABELS),
        nonlinear_fc: bool = False,
        dropout: float = 0.0,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        self.sentence_encoder = sentence_encoder
        self.encoder = sentence_encoder.encoder
        self.fc_dim, self.n_classes, self.nonlinear_fc, self.dropout = fc_dim, n_classes, nonlinear_fc, dropout
        if seed is None:
            classifier = self._classifier(sentence_encoder, fc_dim, n_classes, nonlinear_fc, dropout)
        else:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                classifier = self._classifier(sentence_encoder, fc_dim, n_classes, nonlinear_fc, dropout)
        first = next(self.encoder.parameters())
        self.classifier = classifier.to(device=first.device, dtype=first.dtype)

    @staticmethod
    def _classifier(
        sentence_encoder: InferSent, fc_dim: int, n_classes: int, nonlinear_fc: bool, dropout: float
    ) -> nn.Sequential:
        inputs = 4 * sentence_encoder.encoder.output_dim
        if nonlinear_fc:
            return nn.Sequential(
                nn.Dropout(dropout),
                nn.Linear(inputs, fc_dim),
                nn.Tanh(),
                nn.Dropout(dropout),
                nn.Linear(fc_dim, fc_dim),
                nn.Tanh(),
                nn.Dropout(dropout),
                nn.Linear(fc_dim, n_classes),
            )
        # InferSent's default: no nonlinearity (and no dropout) between the layers
        return nn.Sequential(nn.Linear(inputs, fc_dim), nn.Linear(fc_dim, fc_dim), nn.Linear(fc_dim, n_classes))

    def forward(self, s1: tuple[Tensor, Tensor], s2: tuple[Tensor, Tensor]) -> Tensor:
        """Logits [B, n_classes] from padded word vectors and lengths of premises and hypotheses."""
        u, _ = self.encoder(*s1)
        v, _ = self.encoder(*s2)
        return self.classifier(torch.cat((u, v, torch.abs(u - v), u * v), dim=1))

    def config(self) -> dict[str, Any]:
        return {
            "fc_dim": self.fc_dim,
            "n_classes": self.n_classes,
            "nonlinear_fc": self.nonlinear_fc,
            "dropout": self.dropout,
        }


class _Encoded:
    """Token ids of every distinct sentence of a pair list, computed once (premises repeat)."""

    def __init__(self, model: NLINet, pairs: Sequence[NLIPair], tokenize_input: bool) -> None:
        wrapper = model.sentence_encoder
        cache: dict[str, np.ndarray] = {}

        def ids(sentence: str) -> np.ndarray:
            if sentence not in cache:
                cache[sentence] = wrapper.token_ids(wrapper.prepare(sentence, tokenize_input=tokenize_input))
            return cache[sentence]

        self.s1 = [ids(p.premise) for p in pairs]
        self.s2 = [ids(p.hypothesis) for p in pairs]
        self.labels = np.array([LABEL_INDEX[_check_label(p.label, "NLI pair")] for p in pairs], dtype=np.int64)
        self.wrapper = wrapper

    def __len__(self) -> int:
        return len(self.labels)

    def batch(self, index: Sequence[int] | np.ndarray) -> tuple[tuple[Tensor, Tensor], tuple[Tensor, Tensor], Tensor]:
        s1 = self.wrapper.embed_ids([self.s1[i] for i in index])
        s2 = self.wrapper.embed_ids([self.s2[i] for i in index])
        target = torch.from_numpy(self.labels[np.asarray(index)]).to(s1[0].device)
        return s1, s2, target


def _accuracy(model: NLINet, data: _Encoded, batch_size: int) -> float:
    if not len(data):
        raise ValueError("cannot evaluate on an empty set of pairs")
    was_training = model.training
    model.eval()
    correct = 0
    try:
        with torch.no_grad():
            for start in range(0, len(data), batch_size):
                s1, s2, target = data.batch(range(start, min(start + batch_size, len(data))))
                correct += int((model(s1, s2).argmax(dim=1) == target).sum())
    finally:
        model.train(was_training)
    return correct / len(data)


def evaluate(model: NLINet, pairs: Sequence[NLIPair], *, batch_size: int = 64, tokenize_input: bool = True) -> float:
    """Accuracy (a fraction in [0, 1]) of `model` on `pairs`."""
    return _accuracy(model, _Encoded(model, pairs, tokenize_input), batch_size)


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
@dataclass
class EpochRecord:
    epoch: int
    lr: float  # the lr used during the epoch
    train_loss: float  # mean cross-entropy per pair
    train_acc: float
    dev_acc: float
    improved: bool  # dev accuracy above the best so far (the model was kept)
    lr_after: float  # the lr after the dev check (shrunk when not improved)
    # No wall time: the history is saved in the model's config.json, which must not change between
    # identical runs; each epoch's seconds go to the log.


@dataclass
class NLIHistory:
    epochs: list[EpochRecord] = field(default_factory=list)
    best_epoch: int = 0
    best_dev_acc: float = -math.inf
    stop_reason: str = ""  # "min_lr" or "max_epochs"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Evaluator = Callable[[NLINet, Sequence[NLIPair]], float]


def train_nli(
    model: NLINet,
    train: Sequence[NLIPair],
    dev: Sequence[NLIPair],
    *,
    lr: float = 0.1,
    batch_size: int = 64,
    decay: float = 0.99,
    shrink: float = 5.0,
    min_lr: float = 1e-5,
    max_epochs: int = 8,
    max_norm: float = 5.0,
    seed: int = 1111,
    device: torch.device | str | None = None,
    log: logging.Logger | None = None,
    tokenize_input: bool = True,
    evaluator: Evaluator | None = None,
    checkpoints: CheckpointStore | None = None,
) -> NLIHistory:
    """Train `model` as InferSent's train_nli.py does (see the module docstring); keep the best-dev model.

    On return `model` holds the weights of the epoch with the best dev accuracy. `seed` fixes the
    shuffling and dropout (it calls ``torch.manual_seed``); the initial weights are the caller's
    (``InferSent.build(seed=...)``). On CPU two runs with the same seed and initial weights are
    identical. `tokenize_input=False` splits sentences on whitespace, as train_nli.py does with
    SentEval's pre-tokenised files. `evaluator(model, dev)` replaces the dev accuracy (tests).

    With `checkpoints`, the whole training state (weights, optimizer, lr, best model, history, RNG
    states, the epoch's shuffled order and position in it) is saved at every epoch's end and when
    the store says it is due, and a run finding a checkpoint made with the same settings and data
    continues from it: the result equals an uninterrupted run's. The caller removes the store's
    folder once the model is saved.
    """
    logger = log or _LOG
    if not len(train):
        raise ValueError("no training pairs")
    if not len(dev):
        raise ValueError("no dev pairs")
    if batch_size < 1 or max_epochs < 1 or lr <= 0 or shrink <= 1 or not 0 < decay <= 1:
        raise ValueError(
            f"bad settings: batch_size={batch_size}, max_epochs={max_epochs}, lr={lr}, shrink={shrink}, decay={decay}"
        )
    if device is not None:
        model.to(device)
    target_device = next(model.parameters()).device
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)

    train_data = _Encoded(model, train, tokenize_input)
    dev_data = None if evaluator is not None else _Encoded(model, dev, tokenize_input)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    history = NLIHistory()
    best_state: dict[str, Tensor] | None = None
    current_lr = lr
    # Where training stands: `epoch` is under way when `permutation` is set (its batches before
    # `position` are done), else it is the next one to start. All of it goes into a checkpoint.
    epoch, step, position = 1, 0, 0
    permutation: np.ndarray | None = None
    loss_sum, correct = 0.0, 0
    if checkpoints is not None:
        settings = dict(lr=lr, batch_size=batch_size, decay=decay, shrink=shrink, min_lr=min_lr,
                        max_epochs=max_epochs, max_norm=max_norm, seed=seed, tokenize_input=tokenize_input)  # fmt: skip
        saved = checkpoints.resume({
            "trainer": "train_nli", "settings": settings, "model": model.config(),
            "shapes": {k: list(v.shape) for k, v in model.state_dict().items()},
            "train": digest_texts(f"{p.premise}\t{p.hypothesis}\t{p.label}" for p in train),
            "dev": digest_texts(f"{p.premise}\t{p.hypothesis}\t{p.label}" for p in dev),
        })  # fmt: skip
        if saved is not None:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            best_state = saved["best"]
            history = NLIHistory(
                [EpochRecord(**record) for record in saved["history"]["epochs"]],
                **{k: v for k, v in saved["history"].items() if k != "epochs"},
            )
            current_lr, epoch, step = saved["lr"], saved["epoch"], saved["step"]
            if saved["permutation"] is not None:
                permutation, position = saved["permutation"].numpy(), saved["position"]
                loss_sum, correct = saved["loss_sum"], saved["correct"]
            restore_rng(saved["rng"], rng)
            where = f"pair {position}" if permutation is not None else "its start"
            logger.info("resumed at epoch %d, %s", epoch, where)

    def checkpoint() -> None:
        assert checkpoints is not None
        checkpoints.save(step, {
            "model": clone_state(model), "optimizer": optimizer.state_dict(), "best": best_state,
            "history": history.to_dict(), "lr": current_lr, "epoch": epoch, "step": step,
            "permutation": None if permutation is None else torch.from_numpy(permutation),
            "position": position, "loss_sum": loss_sum, "correct": correct, "rng": rng_state(rng),
        })  # fmt: skip

    logger.info(
        "NLI training: %d train / %d dev pairs, %d parameters, device %s",
        len(train_data),
        len(dev),
        sum(p.numel() for p in model.parameters()),
        target_device,
    )

    while not history.stop_reason:
        tic = time.perf_counter()
        if permutation is None:  # a new epoch
            if epoch > 1:
                current_lr *= decay
            for group in optimizer.param_groups:
                group["lr"] = current_lr
            permutation, position = rng.permutation(len(train_data)), 0
            loss_sum, correct = 0.0, 0
        model.train()
        while position < len(permutation):
            index = permutation[position : position + batch_size]
            s1, s2, target = train_data.batch(index)
            logits = model(s1, s2)
            loss = F.cross_entropy(logits, target, reduction="sum")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            grads = [p.grad for p in model.parameters() if p.grad is not None]
            for grad in grads:
                grad.div_(len(index))
            total_norm = float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])))
            if total_norm > max_norm:
                for grad in grads:
                    grad.mul_(max_norm / total_norm)
            optimizer.step()
            loss_sum += float(loss.detach())
            correct += int((logits.detach().argmax(dim=1) == target).sum())
            position += len(index)
            step += 1
            if checkpoints is not None and position < len(permutation) and checkpoints.due(step):
                checkpoint()
        train_loss, train_acc = loss_sum / len(train_data), correct / len(train_data)

        if evaluator is not None:
            dev_acc = float(evaluator(model, dev))
        else:
            assert dev_data is not None
            dev_acc = _accuracy(model, dev_data, batch_size)
        improved = dev_acc > history.best_dev_acc
        if improved:
            history.best_dev_acc, history.best_epoch = dev_acc, epoch
            best_state = {key: value.detach().clone() for key, value in model.state_dict().items()}
        else:
            current_lr /= shrink
        record = EpochRecord(
            epoch=epoch,
            lr=optimizer.param_groups[0]["lr"],
            train_loss=train_loss,
            train_acc=train_acc,
            dev_acc=dev_acc,
            improved=improved,
            lr_after=current_lr,
        )
        history.epochs.append(record)
        logger.info(
            "epoch %d: lr %.6g, train loss %.4f, train acc %.4f, dev acc %.4f%s (%.1f s)",
            epoch,
            record.lr,
            train_loss,
            train_acc,
            dev_acc,
            " (best, kept)" if improved else f" (no improvement: lr / {shrink:g} = {current_lr:.3g})",
            time.perf_counter() - tic,
        )
        if not improved and current_lr < min_lr:
            history.stop_reason = "min_lr"
        elif epoch >= max_epochs:
            history.stop_reason = "max_epochs"
        else:
            epoch += 1
        permutation = None
        if checkpoints is not None:  # every epoch's end, the last one too (a retry then skips training)
            checkpoint()

    if best_state is not None:  # None only if every dev accuracy was NaN
        model.load_state_dict(best_state)
    logger.info(
        "NLI training stopped (%s) after %d epochs; best dev acc %.4f at epoch %d",
        history.stop_reason,
        len(history.epochs),
        history.best_dev_acc,
        history.best_epoch,
    )
    return history
