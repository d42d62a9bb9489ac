"""Sentence-level subjectivity detector of Pant & Dadu (2022), §3.2.1 (Table 2 uses its predictions).

A pretrained transformer is fine-tuned as a binary sentence classifier on the Wiki Neutrality Corpus
(WNC; Pryzant et al. 2019): each biased, pre-neutralisation sentence is *subjective* (label 1) and each
neutralised sentence is *objective* (label 0). The paper "randomly shuffled these sentences and split
this dataset ... in a 90:10 Train-Test split", fine-tuning RoBERTa-base with learning rate 2e-5,
maximum sequence length 50 and weight decay 0.01 (reported: accuracy 70.01 %, precision 0.720,
recall 0.653, F1 0.685, subjective being the positive class). The same detector later removes GAP
sentences that are already subjective (§3.2.3, "Original Attribute").

Choices the paper leaves open, made here and exposed as settings: the number of epochs, the batch
size and a linear warm-up/decay schedule (the usual recipe for RoBERTa fine-tuning). Training is a
plain PyTorch AdamW loop (no HF Trainer), seeded and with deterministic algorithms, so two CPU runs
with the same seed give identical weights. Offline the stand-in encoder is all-MiniLM-L6-v2 with a
fresh classification head (see :func:`resolve_model_source`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sklearn.metrics import accuracy_score, precision_recall_fscore_support
from sklearn.model_selection import train_test_split

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.checkpoints import CheckpointStore, clone_state, digest_texts, restore_rng, rng_state
from cdaflow.io.models import resolve_model_source
from cdaflow.settings import (
    FRACTION,
    NON_EMPTY,
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    check_settings,
    in_range,
    settings_from,
)

__all__ = [
    "OBJECTIVE",
    "SUBJECTIVE",
    "Detector",
    "DetectorSettings",
    "LabelledSplit",
    "evaluate",
    "split_sentences",
    "train_detector",
]

log = logging.getLogger(__name__)

OBJECTIVE, SUBJECTIVE = 0, 1
SETTINGS_FILE = "detector_settings.json"
PROGRESS_EVERY = 50  # prediction batches between progress log lines


@dataclass(frozen=True)
class DetectorSettings:
    """Fine-tuning settings (§3.2.1). Paper values: lr 2e-5, max length 50, weight decay 0.01, 90:10 split.

    `model` is a local folder, an installed package exposing ``get_model_path()`` or a Hub id
    (:func:`resolve_model_source`). `epochs`, `batch_size` and `warmup_ratio` are not given in the
    paper; the defaults are the common RoBERTa fine-tuning recipe.
    """

    model: str = field(default="roberta-base", metadata=NON_EMPTY)
    max_length: int = field(default=50, metadata=POSITIVE_INT)
    learning_rate: float = field(default=2e-5, metadata=POSITIVE)
    weight_decay: float = field(default=0.01, metadata=NON_NEGATIVE)
    epochs: int = field(default=3, metadata=POSITIVE_INT)
    batch_size: int = field(default=32, metadata=POSITIVE_INT)
    warmup_ratio: float = field(default=0.1, metadata=FRACTION)
    test_fraction: float = field(default=0.1, metadata=in_range(0, 1, brackets="()"))
    predict_batch_size: int = field(default=128, metadata=POSITIVE_INT)

    def __post_init__(self) -> None:
        check_settings(self, "detector settings")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> DetectorSettings:
        """Settings from a config mapping; unknown keys are rejected by name (typos must not pass silently)."""
        return settings_from(cls, config, "detector settings")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# Data split
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelledSplit:
    """Sentences with labels (1 = subjective, 0 = objective) on each side of the train/test split."""

    train_texts: list[str]
    train_labels: list[int]
    test_texts: list[str]
    test_labels: list[int]


def _check_sentences(sentences: Sequence[str], name: str) -> None:
    for index, sentence in enumerate(sentences):
        if not isinstance(sentence, str) or not sentence.strip():
            raise ValueError(f"{name}[{index}]: expected a non-empty sentence, got {sentence!r}")


def split_sentences(
    objective: Sequence[str],
    subjective: Sequence[str],
    test_fraction: float = 0.1,
    seed: int = 0,
    *,
    keep_pairs_together: bool = False,
) -> LabelledSplit:
    """The paper's shuffled train/test split of labelled WNC sentences (90:10 by default).

    By default the split is over *sentences*, as the paper describes ("we randomly shuffled these
    sentences"): the neutralised and biased versions of one WNC edit may land on different sides, so
    a test sentence can have its near-identical twin in training. ``keep_pairs_together=True``
    (stricter, not the paper) splits aligned pairs instead: `objective[i]` and `subjective[i]` stay
    together, which requires equally long, aligned lists. The test side holds
    ``ceil(test_fraction * n)`` items (scikit-learn's rule); the split depends only on `seed`.
    """
    _check_sentences(objective, "objective")
    _check_sentences(subjective, "subjective")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction={test_fraction!r} must be in (0, 1)")
    if keep_pairs_together:
        if len(objective) != len(subjective):
            raise ValueError(
                f"keep_pairs_together needs aligned pairs: {len(objective)} objective vs {len(subjective)} subjective"
            )
        if len(objective) < 2:
            raise ValueError("need at least 2 pairs to split")
        train_pairs, test_pairs = train_test_split(
            np.arange(len(objective)), test_size=test_fraction, random_state=seed, shuffle=True
        )
        # Interleave each pair then shuffle within the side, so labels are not in blocks.
        rng = random.Random(seed)

        def side(pairs: np.ndarray) -> tuple[list[str], list[int]]:
            items = [(objective[i], OBJECTIVE) for i in pairs] + [(subjective[i], SUBJECTIVE) for i in pairs]
            rng.shuffle(items)
            return [text for text, _ in items], [label for _, label in items]

        train_texts, train_labels = side(train_pairs)
        test_texts, test_labels = side(test_pairs)
        return LabelledSplit(train_texts, train_labels, test_texts, test_labels)

    texts = list(objective) + list(subjective)
    labels = [OBJECTIVE] * len(objective) + [SUBJECTIVE] * len(subjective)
    if len(texts) < 2:
        raise ValueError("need at least 2 sentences to split")
    train_texts, test_texts, train_labels, test_labels = train_test_split(
        texts, labels, test_size=test_fraction, random_state=seed, shuffle=True
    )
    return LabelledSplit(list(train_texts), list(train_labels), list(test_texts), list(test_labels))


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------
class Detector:
    """A fine-tuned sequence classifier with its tokenizer; ``predict_proba`` gives P(subjective)."""

    def __init__(self, model: Any, tokenizer: Any, settings: DetectorSettings, device: str | torch.device = "cpu"):
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.settings = settings

    def save(self, directory: str | Path) -> None:
        """Write model, tokenizer and settings (HF ``save_pretrained``) to `directory`, atomically."""
        with atomic_directory(directory) as tmp:
            self.model.save_pretrained(tmp)
            self.tokenizer.save_pretrained(tmp)
            (tmp / SETTINGS_FILE).write_text(json.dumps(self.settings.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, directory: str | Path, device: str | torch.device = "cpu") -> Detector:
        """A detector written by :meth:`save`."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        directory = Path(directory)
        settings_path = directory / SETTINGS_FILE
        if not settings_path.is_file():
            raise FileNotFoundError(f"{directory}: no {SETTINGS_FILE} (not a saved subjectivity detector)")
        try:
            settings = DetectorSettings.from_config(json.loads(settings_path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, ValueError, TypeError) as error:
            raise ValueError(f"{settings_path}: bad detector settings: {error}") from error
        model = AutoModelForSequenceClassification.from_pretrained(directory)
        tokenizer = AutoTokenizer.from_pretrained(directory)
        return cls(model, tokenizer, settings, device)

    def predict_proba(self, sentences: Sequence[str], batch_size: int | None = None) -> np.ndarray:
        """P(subjective) of each sentence (float64, input order).

        Batches of `batch_size` (default ``settings.predict_batch_size``) sentences sorted by token
        length (little padding), inputs truncated to ``settings.max_length`` tokens as in training.
        """
        _check_sentences(sentences, "sentences")
        if not len(sentences):
            return np.zeros(0, dtype=np.float64)
        encoded = self.tokenizer(list(sentences), truncation=True, max_length=self.settings.max_length)["input_ids"]
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]), reverse=True)
        probabilities = np.empty(len(encoded), dtype=np.float64)
        self.model.eval()
        size = self.settings.predict_batch_size if batch_size is None else batch_size
        if size < 1:
            raise ValueError(f"batch_size={size} must be positive")
        with torch.no_grad():
            for start in range(0, len(order), size):
                index = order[start : start + size]
                batch = self.tokenizer.pad({"input_ids": [encoded[i] for i in index]}, return_tensors="pt")
                logits = self.model(
                    input_ids=batch["input_ids"].to(self.device),
                    attention_mask=batch["attention_mask"].to(self.device),
                ).logits
                probabilities[index] = torch.softmax(logits.double(), dim=-1)[:, SUBJECTIVE].cpu().numpy()
                if (start // size + 1) % PROGRESS_EVERY == 0:
                    log.info("subjectivity: %d/%d sentences", start + len(index), len(order))
        return probabilities

    def predict(self, sentences: Sequence[str], threshold: float = 0.5, batch_size: int | None = None) -> np.ndarray:
        """1 (subjective) where P(subjective) > `threshold`, else 0; 0.5 matches the arg-max label."""
        return (self.predict_proba(sentences, batch_size) > threshold).astype(np.int64)


@contextlib.contextmanager
def _deterministic() -> Iterator[None]:
    """Deterministic kernels while training, then the caller's setting back (it is process-global)."""
    previous, previous_warn = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
    )
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous, warn_only=previous_warn)


def _check_labels(labels: Sequence[int], n: int, name: str) -> list[int]:
    if len(labels) != n:
        raise ValueError(f"{name}: {len(labels)} labels for {n} sentences")
    out = []
    for index, label in enumerate(labels):
        if label not in (OBJECTIVE, SUBJECTIVE) or isinstance(label, bool):
            raise ValueError(f"{name}[{index}]: label {label!r} is not 0 (objective) or 1 (subjective)")
        out.append(int(label))
    return out


def train_detector(
    train_texts: Sequence[str],
    train_labels: Sequence[int],
    settings: DetectorSettings,
    seed: int = 0,
    device: str | torch.device = "cpu",
    *,
    log_every: int = 50,
    checkpoints: CheckpointStore | None = None,
) -> Detector:
    """Fine-tune ``settings.model`` with a fresh 2-way head on the labelled sentences (§3.2.1).

    AdamW (weight decay on all weights except biases and LayerNorm, the usual BERT/RoBERTa recipe),
    linear warm-up over ``warmup_ratio`` of the steps then linear decay to 0, cross-entropy on
    batches shuffled by `seed`. `seed` also fixes the head's initialisation and dropout.

    With `checkpoints` the training state (weights, AdamW, schedule, RNG states, the epoch's order and
    the position in it) is saved at each epoch's end and whenever the store says it is due; a run that
    finds a checkpoint of the same training continues from it, to an uninterrupted run's weights. The
    caller removes the store's folder once the detector is saved.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    _check_sentences(train_texts, "train_texts")
    labels = _check_labels(train_labels, len(train_texts), "train_labels")
    if not labels:
        raise ValueError("no training sentences")
    source = resolve_model_source(settings.model)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    with _deterministic():
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForSequenceClassification.from_pretrained(
            source,
            num_labels=2,
            id2label={OBJECTIVE: "objective", SUBJECTIVE: "subjective"},
            label2id={"objective": OBJECTIVE, "subjective": SUBJECTIVE},
        ).to(device)
        encoded = tokenizer(list(train_texts), truncation=True, max_length=settings.max_length)["input_ids"]

        no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "norm.weight")
        groups = [
            {
                "params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
                "weight_decay": settings.weight_decay,
            },
            {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)], "weight_decay": 0.0},
        ]
        optimizer = torch.optim.AdamW(groups, lr=settings.learning_rate)
        steps_per_epoch = math.ceil(len(encoded) / settings.batch_size)
        total_steps = steps_per_epoch * settings.epochs
        scheduler = get_linear_schedule_with_warmup(optimizer, round(settings.warmup_ratio * total_steps), total_steps)
        generator = torch.Generator().manual_seed(seed)
        target = torch.tensor(labels, dtype=torch.long)
        log.info(
            "fine-tuning %s on %d sentences: %d epochs x %d steps (batch %d, max length %d)",
            settings.model,
            len(encoded),
            settings.epochs,
            steps_per_epoch,
            settings.batch_size,
            settings.max_length,
        )
        # `epoch` is under way while `permutation` is set (its sentences before `position` done).
        epoch, step, processed, started = 1, 0, 0, time.perf_counter()
        permutation: list[int] | None = None
        position, running, seen = 0, 0.0, 0
        if checkpoints is not None:
            saved = checkpoints.resume({
                "trainer": "train_detector", "settings": settings.to_dict(), "seed": seed,
                "data": digest_texts(f"{label}\t{text}" for text, label in zip(train_texts, labels)),
            })  # fmt: skip
            if saved is not None:
                model.load_state_dict(saved["model"])
                optimizer.load_state_dict(saved["optimizer"])
                scheduler.load_state_dict(saved["scheduler"])
                generator.set_state(saved["generator"])
                restore_rng(saved["rng"])
                epoch, step, processed, position = saved["epoch"], saved["step"], saved["processed"], saved["position"]
                running, seen = saved["running"], saved["seen"]
                permutation = None if saved["permutation"] is None else saved["permutation"].tolist()
                log.info("resumed at epoch %d, step %d", epoch, step)

        def checkpoint() -> None:
            assert checkpoints is not None
            checkpoints.save(step, {
                "model": clone_state(model), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "generator": generator.get_state(), "rng": rng_state(),
                "epoch": epoch, "step": step, "processed": processed, "position": position,
                "running": running, "seen": seen,
                "permutation": None if permutation is None else torch.tensor(permutation, dtype=torch.long),
            })  # fmt: skip

        while epoch <= settings.epochs:
            model.train()
            if permutation is None:  # a new epoch
                permutation = torch.randperm(len(encoded), generator=generator).tolist()
                position, running, seen = 0, 0.0, 0
            while position < len(permutation):
                index = permutation[position : position + settings.batch_size]
                position += len(index)
                batch = tokenizer.pad({"input_ids": [encoded[i] for i in index]}, return_tensors="pt")
                logits = model(
                    input_ids=batch["input_ids"].to(device), attention_mask=batch["attention_mask"].to(device)
                ).logits
                loss = torch.nn.functional.cross_entropy(logits, target[index].to(device))
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                scheduler.step()
                step += 1
                running, seen = running + float(loss.detach()) * len(index), seen + len(index)
                processed += len(index)
                if step % log_every == 0 or step == total_steps:
                    elapsed = time.perf_counter() - started
                    log.info(
                        "epoch %d step %d/%d: mean loss %.4f (%.1f sentences/s)",
                        epoch,
                        step,
                        total_steps,
                        running / seen,
                        processed / elapsed if elapsed else float("nan"),
                    )
                if checkpoints is not None and position < len(permutation) and checkpoints.due(step):
                    checkpoint()
            epoch, permutation = epoch + 1, None
            if checkpoints is not None:  # the last epoch's too: a retry then skips training
                checkpoint()
    return Detector(model, tokenizer, settings, device)


def evaluate(
    detector: Detector, texts: Sequence[str], labels: Sequence[int], threshold: float = 0.5
) -> dict[str, float | int]:
    """Accuracy, precision, recall and F1 with subjective (1) as the positive class (scikit-learn)."""
    gold = _check_labels(labels, len(texts), "labels")
    if not gold:
        raise ValueError("no sentences to evaluate")
    predicted = detector.predict(texts, threshold)
    precision, recall, f1, _ = precision_recall_fscore_support(
        gold, predicted, average="binary", pos_label=SUBJECTIVE, zero_division=0
    )
    return {
        "accuracy": float(accuracy_score(gold, predicted)),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "n": len(gold),
        "n_subjective": int(sum(gold)),
    }
