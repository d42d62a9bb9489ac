"""SentEval's logistic-regression protocols (``tools/validation.py``, ``usepytorch=False``): inner k-fold,
k-fold and dev-split selection of C."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "REGS_INNER_KFOLD", "REGS_KFOLD", "REGS_SPLIT", "cv_folds", "inner_kfold_eval", "kfold_eval", "make_logreg",
    "split_eval",
]

#: C grids of SentEval's scikit-learn path (``senteval/tools/validation.py``).
REGS_INNER_KFOLD = tuple(2.0**t for t in range(-2, 4))  # InnerKFoldClassifier: MR, CR, SUBJ, MPQA
REGS_KFOLD = tuple(2.0**t for t in range(-1, 6))  # KFoldClassifier: TREC, MRPC
REGS_SPLIT = tuple(2.0**t for t in range(-2, 4))  # SplitClassifier: SST2, SST5, SICK-E

DEFAULT_SEED = 1111


def make_logreg(C: float, n_classes: int, seed: int = DEFAULT_SEED, solver: str = "liblinear"):
    """SentEval's ``LogisticRegression(C=C, random_state=seed)`` with the scikit-learn defaults of its time.

    ``solver="liblinear"`` (0.18-0.21 default; one-vs-rest for more than two classes) or ``"lbfgs"``.
    """
    from sklearn.linear_model import LogisticRegression

    if solver == "liblinear":
        clf = LogisticRegression(C=C, solver="liblinear", random_state=seed, tol=1e-4, max_iter=100)
        if n_classes > 2:
            from sklearn.multiclass import OneVsRestClassifier

            return OneVsRestClassifier(clf)
        return clf
    if solver == "lbfgs":
        return LogisticRegression(C=C, solver="lbfgs", random_state=seed, max_iter=100)
    raise ValueError(f"solver must be 'liblinear' or 'lbfgs', got {solver!r}")


def _fit_score(C, Xtr, ytr, Xte, yte, n_classes, seed, solver):
    from sklearn.exceptions import ConvergenceWarning

    clf = make_logreg(C, n_classes, seed, solver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Xtr, ytr)
    return clf, float(clf.score(Xte, yte))


def cv_folds(X: Any, y: Any, kfold: int = 10, seed: int = DEFAULT_SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    """SentEval's folds: ``StratifiedKFold(kfold, shuffle=True, random_state=seed).split(X, y)``."""
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=kfold, shuffle=True, random_state=seed).split(np.asarray(X), np.asarray(y)))


def _select_c(
    X: np.ndarray, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]], regs: Sequence[float],
    n_classes: int, seed: int, solver: str,
) -> tuple[list[float], int]:
    """Mean cross-validated accuracy of each C (percent, 2 decimals, as SentEval) and the first best C's index."""
    scores = []
    for C in regs:
        fold_scores = [_fit_score(C, X[a], y[a], X[b], y[b], n_classes, seed, solver)[1] for a, b in folds]
        scores.append(round(100 * float(np.mean(fold_scores)), 2))
    return scores, int(np.argmax(scores))


def inner_kfold_eval(
    X: np.ndarray,
    y: np.ndarray,
    *,
    kfold: int = 10,
    seed: int = DEFAULT_SEED,
    regs: Sequence[float] = REGS_INNER_KFOLD,
    solver: str = "liblinear",
) -> dict[str, Any]:
    """SentEval ``InnerKFoldClassifier``: outer stratified k-fold; in each, C chosen by inner k-fold CV.

    Returns ``devacc`` (mean best inner score), ``acc`` (mean outer test accuracy, percent, 2 decimals),
    ``fold_sizes`` (outer test-fold sizes) and ``C`` (chosen per fold).
    """
    X, y = np.asarray(X), np.asarray(y)
    n_classes = len(np.unique(y))
    dev_results, test_results, fold_sizes, chosen = [], [], [], []
    for train_idx, test_idx in cv_folds(X, y, kfold, seed):
        Xtr, ytr = X[train_idx], y[train_idx]
        scores, best = _select_c(Xtr, ytr, cv_folds(Xtr, ytr, kfold, seed), regs, n_classes, seed, solver)
        dev_results.append(scores[best])
        _, acc = _fit_score(regs[best], Xtr, ytr, X[test_idx], y[test_idx], n_classes, seed, solver)
        test_results.append(round(100 * acc, 2))
        fold_sizes.append(len(test_idx))
        chosen.append(regs[best])
    return {
        "devacc": round(float(np.mean(dev_results)), 2),
        "acc": round(float(np.mean(test_results)), 2),
        "fold_sizes": fold_sizes,
        "C": chosen,
    }


def kfold_eval(
    Xtr: np.ndarray,
    ytr: np.ndarray,
    Xte: np.ndarray,
    yte: np.ndarray,
    *,
    kfold: int = 10,
    seed: int = DEFAULT_SEED,
    regs: Sequence[float] = REGS_KFOLD,
    solver: str = "liblinear",
) -> dict[str, Any]:
    """SentEval ``KFoldClassifier`` (TREC, MRPC): C by stratified k-fold CV on train, refit on all of train.

    Returns ``devacc`` (best CV accuracy), ``acc`` (test accuracy), ``C``, ``yhat`` (test predictions),
    ``fold_sizes`` (CV validation-fold sizes).
    """
    Xtr, ytr, Xte, yte = map(np.asarray, (Xtr, ytr, Xte, yte))
    n_classes = len(np.unique(ytr))
    folds = cv_folds(Xtr, ytr, kfold, seed)
    scores, best = _select_c(Xtr, ytr, folds, regs, n_classes, seed, solver)
    clf, acc = _fit_score(regs[best], Xtr, ytr, Xte, yte, n_classes, seed, solver)
    return {
        "devacc": scores[best],
        "acc": round(100 * acc, 2),
        "C": regs[best],
        "yhat": clf.predict(Xte),
        "fold_sizes": [len(b) for _, b in folds],
    }


def split_eval(
    Xtr: np.ndarray,
    ytr: np.ndarray,
    Xdev: np.ndarray,
    ydev: np.ndarray,
    Xte: np.ndarray,
    yte: np.ndarray,
    *,
    seed: int = DEFAULT_SEED,
    regs: Sequence[float] = REGS_SPLIT,
    solver: str = "liblinear",
) -> dict[str, Any]:
    """SentEval ``SplitClassifier`` (SST, SICK-E): C chosen on dev, the train-fitted model scored on test."""
    Xtr, ytr, Xdev, ydev, Xte, yte = map(np.asarray, (Xtr, ytr, Xdev, ydev, Xte, yte))
    n_classes = len(np.unique(ytr))
    fitted, scores = [], []
    for C in regs:
        clf, acc = _fit_score(C, Xtr, ytr, Xdev, ydev, n_classes, seed, solver)
        fitted.append(clf)
        scores.append(round(100 * acc, 2))
    best = int(np.argmax(scores))
    # SentEval refits with the best C on the same data and seed: the same model as fitted[best].
    return {"devacc": scores[best], "acc": round(100 * float(fitted[best].score(Xte, yte)), 2), "C": regs[best]}
