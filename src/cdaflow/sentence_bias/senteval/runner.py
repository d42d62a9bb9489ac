"""Running an encoder through SentEval tasks: embedding in SentEval's order, one protocol per task."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cdaflow.sentence_bias.senteval.classifiers import (
    DEFAULT_SEED,
    SKLEARN_LIBLINEAR,
    ClassifierSettings,
    inner_kfold_eval,
    kfold_eval,
    split_eval,
)
from cdaflow.sentence_bias.senteval.data import Split, TaskDataMissing
from cdaflow.sentence_bias.senteval.relatedness import pair_features, pearson, relatedness_eval, spearman
from cdaflow.sentence_bias.senteval.tasks import PAPER_TASKS, TaskSpec, get_task, resolve_task_folder

__all__ = ["run_senteval"]

Encoder = Callable[[list[str]], Any]

# The package's logger, as before the split into modules.
log = logging.getLogger(__package__)


def _embed(encode: Encoder, texts: Sequence[str], batch_size: int) -> np.ndarray:
    """The embeddings of `texts` in one array, filled batch by batch.

    Preallocated at its final shape once the first batch gives the width, instead of float64 chunks
    stacked at the end (which held the matrix twice: 2 x 2.2 GB for SST-2 train at 4,096 dimensions).
    It keeps the encoder's float type, as the toolkit's ``np.vstack`` does: InferSent's float32 stays
    float32 (1.1 GB there), which the PyTorch classifier reads as it is and liblinear casts exactly to
    float64; a float64 encoder keeps float64 (rounding it would move the scores).
    """
    if not len(texts):
        raise ValueError("no sentences to encode")
    out: np.ndarray | None = None
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        emb = np.asarray(encode(batch))
        if emb.ndim != 2 or emb.shape[0] != len(batch):
            raise ValueError(f"encoder returned shape {emb.shape} for {len(batch)} sentences; expected [n, d]")
        if out is None:
            out = np.empty((len(texts), emb.shape[1]), dtype=np.result_type(emb.dtype, np.float32))
        elif emb.shape[1] != out.shape[1]:
            raise ValueError(f"encoder returned width {emb.shape[1]} after {out.shape[1]}")
        out[start : start + len(batch)] = emb
    assert out is not None
    return out


def _senteval_order(split: Split) -> Split:
    """SentEval's stable sort before embedding: by token length (of A, then B), then label."""
    if split.texts_b is None:
        keys = [(len(t.split()), y) for t, y in zip(split.texts, split.labels.tolist())]
    else:
        keys = [
            (len(a.split()), len(b.split()), y) for a, b, y in zip(split.texts, split.texts_b, split.labels.tolist())
        ]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return Split(
        [split.texts[i] for i in order],
        split.labels[order],
        None if split.texts_b is None else [split.texts_b[i] for i in order],
    )


def _features(encode: Encoder, split: Split, batch_size: int) -> np.ndarray:
    if split.texts_b is None:
        return _embed(encode, split.texts, batch_size)
    return pair_features(_embed(encode, split.texts, batch_size), _embed(encode, split.texts_b, batch_size))


def _split_features(encode: Encoder, data: dict[str, Split], batch_size: int) -> tuple:
    """(X, y) of train, dev and test in turn, for the tasks with fixed splits."""
    out: list = []
    for name in ("train", "dev", "test"):
        out += [_features(encode, data[name], batch_size), data[name].labels]
    return tuple(out)


def _cosine_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    # float64 sums, as before the embeddings became float32 (the STS sets are small)
    u, v = np.nan_to_num(u.astype(np.float64)), np.nan_to_num(v.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = (u * v).sum(axis=1) / np.sqrt((u * u).sum(axis=1) * (v * v).sum(axis=1))
    return np.nan_to_num(cos)


def _evaluate(
    encode, spec: TaskSpec, data: dict[str, Split], *, seed, kfold, batch_size, classifier: ClassifierSettings
) -> dict[str, Any]:
    if spec.protocol == "sts":
        subsets, pearsons, spearmans, sizes = {}, [], [], []
        for name, split in data.items():
            sims = _cosine_rows(_embed(encode, split.texts, batch_size), _embed(encode, split.texts_b, batch_size))
            pr, sr = pearson(sims, split.labels), spearman(sims, split.labels)
            subsets[name] = {"pearson": pr, "spearman": sr, "n": len(split)}
            pearsons.append(pr)
            spearmans.append(sr)
            sizes.append(len(split))
        wmean_pr = float(np.average(pearsons, weights=sizes))
        return {
            "metric": "pearson/spearman (weighted mean over subsets)",
            "score": wmean_pr,
            "pearson": wmean_pr,
            "spearman": float(np.average(spearmans, weights=sizes)),
            "pearson_mean": float(np.mean(pearsons)),
            "spearman_mean": float(np.mean(spearmans)),
            "n": int(sum(sizes)),
            "subsets": subsets,
        }

    data = {key: _senteval_order(split) for key, split in data.items()}
    sizes = {f"n_{key}": len(split) for key, split in data.items()}
    if spec.protocol == "inner_kfold":
        split = data["all"]
        res = inner_kfold_eval(
            _features(encode, split, batch_size), split.labels, kfold=kfold, seed=seed, classifier=classifier
        )
        # The reg chosen inside each outer fold differs from fold to fold: the row names none.
        return _accuracy_row(res, len(split), sizes, classifier, chosen_reg=False, kfold=kfold)
    if spec.protocol == "kfold":
        train, test = data["train"], data["test"]
        res = kfold_eval(
            _features(encode, train, batch_size),
            train.labels,
            _features(encode, test, batch_size),
            test.labels,
            kfold=kfold,
            seed=seed,
            classifier=classifier,
        )
        row = _accuracy_row(res, len(test), sizes, classifier, chosen_reg=True, kfold=kfold)
        if spec.name == "MRPC":
            from sklearn.metrics import f1_score

            row["metric"] = "acc/f1"
            row["f1"] = round(100 * float(f1_score(test.labels, res["yhat"])), 2)
        return row
    if spec.protocol == "split":
        test = data["test"]
        res = split_eval(*_split_features(encode, data, batch_size), seed=seed, classifier=classifier)
        return _accuracy_row(res, len(test), sizes, classifier, chosen_reg=True)
    if spec.protocol == "relatedness":
        test = data["test"]
        res = relatedness_eval(*_split_features(encode, data, batch_size), seed=seed)
        return {
            "metric": "pearson/spearman",
            "score": res["pearson"],
            "pearson": res["pearson"],
            "spearman": res["spearman"],
            "mse": res["mse"],
            "devpearson": res["devpearson"],
            "epochs": res["epochs"],
            "n": len(test),
            **sizes,
        }
    raise AssertionError(spec.protocol)


def _accuracy_row(
    res: dict[str, Any], n: int, sizes: dict[str, int], classifier: ClassifierSettings, *, chosen_reg: bool,
    kfold: int | None = None,
) -> dict[str, Any]:
    """A classification task's result row: accuracy as the score, the classifier's name, the chosen
    regularisation (``C`` or ``l2reg``) with `chosen_reg`, the test size, ``kfold`` where folds were used,
    then the split sizes."""
    row: dict[str, Any] = {"metric": "acc", "score": res["acc"], "acc": res["acc"], "devacc": res["devacc"]}
    row["classifier"] = classifier.name()
    if chosen_reg:
        key = "l2reg" if classifier.usepytorch else "C"
        row[key] = res[key]
    row["n"] = n
    if kfold is not None:
        row["kfold"] = kfold
    return {**row, **sizes}


def run_senteval(
    encode: Encoder,
    data_root: str | Path,
    tasks: Sequence[str] = PAPER_TASKS,
    seed: int = DEFAULT_SEED,
    *,
    kfold: int = 10,
    batch_size: int = 128,
    classifier: ClassifierSettings = SKLEARN_LIBLINEAR,
) -> list[dict[str, Any]]:
    """Evaluate ``encode`` on SentEval tasks; one row per task, in the order asked.

    Every row has ``task`` (SentEval name), ``status`` (``"ok"`` or ``"missing"``), ``metric``, ``score``
    (accuracy in percent for classification tasks -- MRPC also ``f1`` --; Pearson r for SICK-R, STS-B and
    STS14, with ``spearman``), ``n`` (examples scored: all samples for the cross-validated MR/CR/SUBJ/MPQA,
    else the test split) and per-protocol details (``devacc``, ``n_train``/``n_dev``/``n_test``, ...).
    A task whose files are absent is reported with ``status="missing"``, ``score=None`` and a ``reason``
    naming the expected files -- never dropped.  Unknown task names raise ``ValueError`` before any work.
    `classifier` defaults to the toolkit's scikit-learn path; the workflow's default (``senteval.classifier``)
    is its PyTorch standard setting.
    """
    specs = [get_task(name) for name in tasks]
    rows: list[dict[str, Any]] = []
    for spec in specs:
        folder = resolve_task_folder(data_root, spec)
        try:
            data = spec.loader(folder)
        except TaskDataMissing as err:
            rows.append(
                {"task": spec.name, "status": "missing", "metric": None, "score": None, "n": 0, "reason": str(err)}
            )
            continue
        start = time.perf_counter()
        result = _evaluate(
            encode, spec, data, seed=seed, kfold=kfold, batch_size=batch_size, classifier=classifier
        )
        rows.append({"task": spec.name, "status": "ok", **result})
        log.info("SentEval %s: %s %s in %.1f s", spec.name, result.get("metric"), result.get("score"),
                 time.perf_counter() - start)
    return rows
