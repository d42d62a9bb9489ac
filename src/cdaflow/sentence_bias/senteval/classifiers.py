"""SentEval's classification protocols (``tools/validation.py``): inner k-fold, k-fold and dev-split selection
of the regularisation, with either of the toolkit's classifiers.

``usepytorch=False``: scikit-learn's ``LogisticRegression``, the grid is over ``C``.  ``usepytorch=True``
(the toolkit's standard setting): its PyTorch logistic regression or MLP (:mod:`.mlp`), the grid is over the
L2 weight decay ``l2reg``; every fit early-stops on held-out accuracy -- the fold it is scored on while the
grid is searched, a random 5 % of the training data for the final k-fold fits, dev for the split tasks.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from cdaflow.sentence_bias.senteval.mlp import MLP, MLPSettings
from cdaflow.settings import POSITIVE_INT, check_settings, one_of, settings_from

__all__ = [
    "REGS_INNER_KFOLD", "REGS_KFOLD", "REGS_PYTORCH", "REGS_SPLIT", "ClassifierSettings", "cv_folds",
    "inner_kfold_eval", "kfold_eval", "make_logreg", "split_eval",
]

#: C grids of SentEval's scikit-learn path (``senteval/tools/validation.py``).
REGS_INNER_KFOLD = tuple(2.0**t for t in range(-2, 4))  # InnerKFoldClassifier: MR, CR, SUBJ, MPQA
REGS_KFOLD = tuple(2.0**t for t in range(-1, 6))  # KFoldClassifier: TREC, MRPC
REGS_SPLIT = tuple(2.0**t for t in range(-2, 4))  # SplitClassifier: SST2, SST5, SICK-E
#: l2reg grid of SentEval's PyTorch path, every protocol (``[10**t for t in range(-5, -1)]``).
REGS_PYTORCH = tuple(10**t for t in range(-5, -1))

DEFAULT_SEED = 1111
SOLVERS = ("liblinear", "lbfgs")
#: What the final fit of the k-fold protocols holds out for early stopping (PyTorch path).
FINAL_VALIDATION_SPLIT = 0.05


@dataclass(frozen=True)
class ClassifierSettings:
    """SentEval's ``usepytorch`` and ``classifier`` dict (``nhid``, ``optim``, ...: :class:`.mlp.MLPSettings`);
    `solver` is the scikit-learn path's; `device` and `n_jobs` (the grid's fits run in parallel processes,
    each as the toolkit runs it, so the numbers do not change) are where and how the PyTorch path trains.
    The default is the toolkit's own default and the paper's setting, as in the config schema: ``usepytorch=True``."""

    usepytorch: bool = True
    solver: str = field(default="liblinear", metadata=one_of(*SOLVERS))
    mlp: MLPSettings = field(default_factory=MLPSettings)
    device: str = "cpu"
    n_jobs: int = field(default=1, metadata=POSITIVE_INT)

    def __post_init__(self) -> None:
        check_settings(self)  # usepytorch: true or false, as annotated

    @classmethod
    def from_config(cls, config: Mapping[str, Any], *, device: str = "cpu", n_jobs: int = 1) -> ClassifierSettings:
        """From the config's flat ``senteval.classifier`` mapping (``usepytorch``, ``solver`` and the
        :class:`.mlp.MLPSettings` keys); on a GPU the fits run one at a time (`n_jobs` is for the CPU)."""
        own = {"usepytorch", "solver"}
        mlp_keys = {f.name for f in fields(MLPSettings)}
        if unknown := sorted(set(config) - own - mlp_keys):
            raise ValueError(
                f"senteval.classifier: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(own | mlp_keys))}"
            )
        mlp = settings_from(MLPSettings, {k: v for k, v in config.items() if k in mlp_keys}, "senteval.classifier")
        n_jobs = 1 if str(device).startswith("cuda") else n_jobs
        return cls(**{k: v for k, v in config.items() if k in own}, mlp=mlp, device=device, n_jobs=n_jobs)

    def name(self) -> str:
        """The toolkit's name for the classifier (``get_classif_name``)."""
        if not self.usepytorch:
            return "sklearn-LogReg"
        return f"pytorch-MLP-nhid{self.mlp.nhid}-{self.mlp.optim}-bs{self.mlp.batch_size}"


SKLEARN_LIBLINEAR = ClassifierSettings(usepytorch=False)


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


def _fit(
    settings: ClassifierSettings, reg: float, X: np.ndarray, y: np.ndarray, n_classes: int, seed: int,
    validation: tuple[np.ndarray, np.ndarray] | None,
):
    """One classifier fitted as the toolkit fits it; `validation` (held-out data) only steers the PyTorch
    path's early stopping, which without it holds out a random 5 % of (X, y)."""
    if settings.usepytorch:
        clf = MLP(settings.mlp, X.shape[1], n_classes, l2reg=reg, seed=seed, device=settings.device)
        if validation is None:
            clf.fit(X, y, validation_split=FINAL_VALIDATION_SPLIT)
        else:
            clf.fit(X, y, validation_data=validation)
        return clf
    from sklearn.exceptions import ConvergenceWarning

    clf = make_logreg(reg, n_classes, seed, settings.solver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    return clf


def _fit_scores(settings: ClassifierSettings, jobs: list[tuple], n_classes: int, seed: int) -> list[float]:
    """Accuracy on its held-out part of each ``(reg, X_train, y_train, X_held, y_held)`` job."""

    def run(reg, Xa, ya, Xb, yb, threads):
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
        return float(_fit(settings, reg, Xa, ya, n_classes, seed, (Xb, yb)).score(Xb, yb))

    # A scikit-learn fit takes milliseconds: starting processes for it costs more than it saves.
    if settings.n_jobs == 1 or not settings.usepytorch or len(jobs) == 1:
        return [run(*job, None) for job in jobs]
    from joblib import Parallel, delayed

    # One thread per worker process: the fits are small, and n_jobs of them share the cores.
    return Parallel(n_jobs=settings.n_jobs)(delayed(run)(*job, 1) for job in jobs)


def _regs(settings: ClassifierSettings, sklearn_regs: Sequence[float], regs: Sequence[float] | None):
    return tuple(regs) if regs is not None else REGS_PYTORCH if settings.usepytorch else tuple(sklearn_regs)


def _reg_key(settings: ClassifierSettings) -> str:
    return "l2reg" if settings.usepytorch else "C"


def cv_folds(X: Any, y: Any, kfold: int = 10, seed: int = DEFAULT_SEED) -> list[tuple[np.ndarray, np.ndarray]]:
    """SentEval's folds: ``StratifiedKFold(kfold, shuffle=True, random_state=seed).split(X, y)``."""
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(n_splits=kfold, shuffle=True, random_state=seed).split(np.asarray(X), np.asarray(y)))


def _select_reg(
    settings: ClassifierSettings, X: np.ndarray, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]],
    regs: Sequence[float], n_classes: int, seed: int,
) -> tuple[list[float], int]:
    """Mean cross-validated accuracy of each reg (percent, 2 decimals, as SentEval) and the first best's index."""
    jobs = [(reg, X[a], y[a], X[b], y[b]) for reg in regs for a, b in folds]
    accuracies = np.array(_fit_scores(settings, jobs, n_classes, seed)).reshape(len(regs), len(folds))
    scores = [round(100 * float(np.mean(row)), 2) for row in accuracies]
    return scores, int(np.argmax(scores))


def inner_kfold_eval(
    X: np.ndarray,
    y: np.ndarray,
    *,
    kfold: int = 10,
    seed: int = DEFAULT_SEED,
    regs: Sequence[float] | None = None,
    classifier: ClassifierSettings = SKLEARN_LIBLINEAR,
) -> dict[str, Any]:
    """SentEval ``InnerKFoldClassifier``: outer stratified k-fold; in each, the reg chosen by inner k-fold CV.

    Returns ``devacc`` (mean best inner score), ``acc`` (mean outer test accuracy, percent, 2 decimals),
    ``fold_sizes`` (outer test-fold sizes) and the reg chosen per fold (``C`` or ``l2reg``).
    """
    X, y = np.asarray(X), np.asarray(y)
    regs = _regs(classifier, REGS_INNER_KFOLD, regs)
    n_classes = len(np.unique(y))
    dev_results, test_results, fold_sizes, chosen = [], [], [], []
    for train_idx, test_idx in cv_folds(X, y, kfold, seed):
        Xtr, ytr = X[train_idx], y[train_idx]
        scores, best = _select_reg(classifier, Xtr, ytr, cv_folds(Xtr, ytr, kfold, seed), regs, n_classes, seed)
        dev_results.append(scores[best])
        clf = _fit(classifier, regs[best], Xtr, ytr, n_classes, seed, None)
        test_results.append(round(100 * float(clf.score(X[test_idx], y[test_idx])), 2))
        fold_sizes.append(len(test_idx))
        chosen.append(regs[best])
    return {
        "devacc": round(float(np.mean(dev_results)), 2),
        "acc": round(float(np.mean(test_results)), 2),
        "fold_sizes": fold_sizes,
        _reg_key(classifier): chosen,
    }


def kfold_eval(
    Xtr: np.ndarray,
    ytr: np.ndarray,
    Xte: np.ndarray,
    yte: np.ndarray,
    *,
    kfold: int = 10,
    seed: int = DEFAULT_SEED,
    regs: Sequence[float] | None = None,
    classifier: ClassifierSettings = SKLEARN_LIBLINEAR,
) -> dict[str, Any]:
    """SentEval ``KFoldClassifier`` (TREC, MRPC): the reg by stratified k-fold CV on train, refit on train.

    Returns ``devacc`` (best CV accuracy), ``acc`` (test accuracy), the reg (``C`` or ``l2reg``), ``yhat``
    (test predictions), ``fold_sizes`` (CV validation-fold sizes).
    """
    Xtr, ytr, Xte, yte = map(np.asarray, (Xtr, ytr, Xte, yte))
    regs = _regs(classifier, REGS_KFOLD, regs)
    n_classes = len(np.unique(ytr))
    folds = cv_folds(Xtr, ytr, kfold, seed)
    scores, best = _select_reg(classifier, Xtr, ytr, folds, regs, n_classes, seed)
    clf = _fit(classifier, regs[best], Xtr, ytr, n_classes, seed, None)
    return {
        "devacc": scores[best],
        "acc": round(100 * float(clf.score(Xte, yte)), 2),
        _reg_key(classifier): regs[best],
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
    regs: Sequence[float] | None = None,
    classifier: ClassifierSettings = SKLEARN_LIBLINEAR,
) -> dict[str, Any]:
    """SentEval ``SplitClassifier`` (SST, SICK-E): the reg chosen on dev, the train-fitted model scored on test."""
    Xtr, ytr, Xdev, ydev, Xte, yte = map(np.asarray, (Xtr, ytr, Xdev, ydev, Xte, yte))
    regs = _regs(classifier, REGS_SPLIT, regs)
    n_classes = len(np.unique(ytr))
    fitted = [_fit(classifier, reg, Xtr, ytr, n_classes, seed, (Xdev, ydev)) for reg in regs]
    scores = [round(100 * float(clf.score(Xdev, ydev)), 2) for clf in fitted]
    best = int(np.argmax(scores))
    # SentEval refits with the best reg on the same data and seed: the same model as fitted[best].
    return {
        "devacc": scores[best],
        "acc": round(100 * float(fitted[best].score(Xte, yte)), 2),
        _reg_key(classifier): regs[best],
    }
