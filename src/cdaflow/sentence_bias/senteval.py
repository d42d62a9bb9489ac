"""SentEval's transfer-task protocol (Conneau & Kiela 2018) on frozen sentence embeddings.

Study D (Dolci et al. 2023, §5.1.2, Tables 8-10) scores its retrained encoders on twelve SentEval tasks.
SentEval itself is unmaintained (its data downloads are broken); this module re-implements the parts the
paper uses, following ``facebookresearch/SentEval`` (``senteval/{binary,sst,trec,mrpc,sick,sts}.py``,
``senteval/tools/{validation,relatedness}.py``) and reading the files that its ``get_transfer_data.bash``
writes.  An encoder is any callable ``encode(list[str]) -> array [n, d]``.

Tasks (SentEval names; folder under ``data_root``, SentEval's ``data/downstream``), files, protocol, metric:

* MR ``MR/rt-polarity.{pos,neg}``, CR ``CR/custrev.{pos,neg}``, SUBJ ``SUBJ/subj.{objective,subjective}``
  (objective = label 1, as SentEval), MPQA ``MPQA/mpqa.{pos,neg}``: no split -- k-fold cross-validation,
  C chosen by an inner k-fold CV in each outer fold (``InnerKFoldClassifier``); accuracy.
* SST2 ``SST/binary/sentiment-{train,dev,test}`` (``text<TAB>label``) and SST5 ``SST/fine/...``
  (``label text``): C chosen on dev, test accuracy (``SplitClassifier``).
* TREC ``TREC/train_5500.label`` + ``TREC_10.label`` (``COARSE:fine question``, 6 coarse classes): C by
  k-fold CV on train, refit on train, test accuracy (``KFoldClassifier``).
* MRPC ``MRPC/msr_paraphrase_{train,test}.txt``: features ``[|u-v|, u*v]``, as TREC; accuracy and F1.
* SICKEntailment ``SICK/SICK_{train,trial,test_annotated}.txt``: ``[|u-v|, u*v]``, C on trial (dev);
  accuracy.  SICKRelatedness (same files) and STSBenchmark ``STS/STSBenchmark/sts-{train,dev,test}.csv``:
  ``[|u-v|, u*v]`` -> softmax regression onto a score distribution (below); Pearson / Spearman.
* STS14 ``STS/STS14-en-test/STS.{input,gs}.<subset>.txt``: cosine vs gold, no training; Pearson / Spearman.

``SST/Binary`` and ``SST/Fine-Grained`` (the names in this project's shared sample) are accepted for
``SST/binary`` and ``SST/fine``, and ``<data_root>/downstream/...`` for ``<data_root>/...``.

What matches SentEval (``usepytorch=False``, i.e. the scikit-learn logistic-regression path):

* file parsing: the same columns, encodings (latin-1 for MR/CR/SUBJ/MPQA/TREC, utf-8 elsewhere), header
  lines skipped (MRPC, SICK), empty gold scores dropped (STS14); SentEval tokenises by ``str.split()`` and
  hands token lists to its batcher -- the encoder here gets ``" ".join(line.split())``.  Empty lines of
  MR/CR/SUBJ/MPQA stay as (empty) samples, as SentEval's ``splitlines`` keeps them (so CR has 3,775 samples).
* the data order SentEval builds before embedding and splitting (stable sort by token length, then label),
  so the stratified folds (``StratifiedKFold(k, shuffle=True, random_state=seed)``) are the same samples.
* the C grids: ``2**-2 .. 2**3`` (MR/CR/SUBJ/MPQA inner CV; SST, SICK-E dev selection) and
  ``2**-1 .. 2**5`` (TREC, MRPC train CV) -- note: not ``2**-2 .. 2**4``; this is what
  ``validation.py`` does (``range(-2, 4)`` and ``range(-1, 6)``).  Per-C scores are rounded to 2 decimals
  (percent) before the arg-max (first maximum wins), the reported accuracies as in SentEval.
* ``LogisticRegression(C=c, random_state=seed)`` with the scikit-learn defaults of SentEval's time
  (0.18-0.21): ``solver="liblinear"``, one-vs-rest for more than two classes (wrapped in
  ``OneVsRestClassifier`` because current scikit-learn's liblinear refuses multi-class), ``tol=1e-4``,
  ``max_iter=100``; convergence warnings are silenced.  ``solver="lbfgs"`` gives today's default
  (multinomial) instead.
* relatedness (SICK-R, STS-B): SentEval's ``RelatednessPytorch`` -- features ``[|u-v|, u*v]``, gold score
  ``y`` encoded as a distribution over the classes 1..5 (Tai et al. 2015: class ``floor(y) + 1`` gets
  ``y - floor(y)``, class ``floor(y)`` gets ``floor(y) - y + 1``), model ``Linear(2d, 5) + Softmax``, MSE loss, Adam
  (lr 1e-3, no weight decay), batch 64, rounds of 50 epochs, early stopping on dev Pearson of ``p @ [1..5]``
  (stop at the 4th round without improvement, cumulative count, at most epoch 1000), best model kept;
  test Pearson, Spearman and MSE of ``p @ [1..5]``.  As in SentEval, STS-B's 0-5 scores go through the
  same 1..5 encoding (a score below 1 has no mass at "0"; SentEval issue #83) -- kept for comparability.
  Run on CPU; the initialisation (``torch.manual_seed(seed)``) and the batch order
  (``RandomState(seed).permutation``) use SentEval's seeds.  The loss is averaged over the batch, which is
  what ``loss_fn.size_average = False`` amounts to on torch >= 1.0 (and Adam is insensitive to the scale).
* STS14: cosine of the two embeddings (``nan_to_num`` as SentEval), Pearson and Spearman per subset
  (deft-forum, deft-news, headlines, images, OnWN, tweet-news), their mean and their mean weighted by the
  number of pairs; ``score`` is the weighted mean Pearson, the mean is reported too.

What does not match:

* Dolci et al. ran SentEval's *PyTorch* classifier (``usepytorch=True``: logistic regression trained with
  Adam, batch 64, tenacity 5, epoch size 4, L2 grid ``10**-5 .. 10**-2``); this module implements the
  scikit-learn path, so absolute scores can differ by a point or so from Tables 8-9.
* SentEval hard-codes ``random_state=1111`` for the MR/CR/SUBJ/MPQA folds; here it is ``seed``
  (default 1111, hence identical by default).  ``kfold`` defaults to 10 as in the paper ("10-fold
  cross-validation"; SentEval's own default is 5).
* SentEval calls the batcher in batches of its ``batch_size`` over the length-sorted data; here the
  encoder is called in chunks of ``batch_size`` too (deterministic encoders give the same vectors).
* Empty or malformed lines: SentEval crashes on some (TREC, SST); here blank lines of the split files are
  skipped and malformed ones raise ``ValueError`` with file and line.
* Bitwise equality with a SentEval run is not guaranteed (library versions, CPU vs CUDA); the protocol,
  folds, grids and selection rules are the same.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "PAPER_TASKS",
    "REGS_INNER_KFOLD",
    "REGS_KFOLD",
    "REGS_SPLIT",
    "STS14_SUBSETS",
    "TASKS",
    "Split",
    "TaskDataMissing",
    "TaskSpec",
    "cv_folds",
    "encode_relatedness_labels",
    "get_task",
    "inner_kfold_eval",
    "kfold_eval",
    "load_binary",
    "load_mrpc",
    "load_sick",
    "load_sst",
    "load_sts14",
    "load_stsb",
    "load_trec",
    "make_logreg",
    "pair_features",
    "relatedness_eval",
    "resolve_task_folder",
    "run_senteval",
    "split_eval",
]

Encoder = Callable[[list[str]], Any]

#: The twelve tasks of Dolci et al. 2023, Tables 8-9 (SentEval names).
log = logging.getLogger(__name__)

PAPER_TASKS = (
    "MR",
    "CR",
    "SUBJ",
    "MPQA",
    "TREC",
    "SST2",
    "SST5",
    "STSBenchmark",
    "SICKRelatedness",
    "SICKEntailment",
    "STS14",
    "MRPC",
)

#: C grids of SentEval's scikit-learn path (``senteval/tools/validation.py``).
REGS_INNER_KFOLD = tuple(2.0**t for t in range(-2, 4))  # InnerKFoldClassifier: MR, CR, SUBJ, MPQA
REGS_KFOLD = tuple(2.0**t for t in range(-1, 6))  # KFoldClassifier: TREC, MRPC
REGS_SPLIT = tuple(2.0**t for t in range(-2, 4))  # SplitClassifier: SST2, SST5, SICK-E

STS14_SUBSETS = ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news")

TREC_COARSE = {"ABBR": 0, "DESC": 1, "ENTY": 2, "HUM": 3, "LOC": 4, "NUM": 5}
SICK_ENTAILMENT = {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}

DEFAULT_SEED = 1111


class TaskDataMissing(FileNotFoundError):
    """A task's data files are not where SentEval's layout puts them."""

    def __init__(self, task: str, folder: str | Path, expected: Sequence[str], missing: Sequence[str]):
        self.task = task
        self.folder = Path(folder)
        self.expected = tuple(expected)
        self.missing = tuple(missing)
        super().__init__(
            f"{task}: data missing in {self.folder} -- expected {', '.join(self.expected)}"
            f" (missing: {', '.join(self.missing)})"
        )


@dataclass
class Split:
    """One split: sentences (``texts``; ``texts_b`` for pair tasks) and labels (int classes or float scores)."""

    texts: list[str]
    labels: np.ndarray
    texts_b: list[str] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def __post_init__(self) -> None:
        self.labels = np.asarray(self.labels)
        if len(self.labels) != len(self.texts) or (self.texts_b is not None and len(self.texts_b) != len(self.texts)):
            raise ValueError("texts, texts_b and labels must have the same length")


# ---------------------------------------------------------------------------------------------------------
# loaders


def _require(task: str, folder: str | Path, names: Sequence[str]) -> list[Path]:
    folder = Path(folder)
    paths = [folder / name for name in names]
    missing = [name for name, path in zip(names, paths) if not path.is_file()]
    if missing:
        raise TaskDataMissing(task, folder, names, missing)
    return paths


def _norm(text: str) -> str:
    """SentEval tokenises by whitespace; the encoder gets the tokens joined by single spaces."""
    return " ".join(text.split())


def _read_lines(path: Path, encoding: str, *, splitlines: bool = False) -> list[str]:
    """The file's lines as SentEval reads them: ``read().splitlines()`` (MR/CR/SUBJ/MPQA, STS14) or
    ``for line in f`` (the others; only newlines split).  Undecodable utf-8 bytes are replaced."""
    with path.open(encoding=encoding, errors="replace") as handle:
        if splitlines:
            return handle.read().splitlines()
        return [line.rstrip("\n") for line in handle]


BINARY_FILES = {
    # task: (file of label 1, file of label 0) -- SentEval's pos/neg (SUBJ: objective = 1, subjective = 0)
    "MR": ("rt-polarity.pos", "rt-polarity.neg"),
    "CR": ("custrev.pos", "custrev.neg"),
    "SUBJ": ("subj.objective", "subj.subjective"),
    "MPQA": ("mpqa.pos", "mpqa.neg"),
}


def load_binary(folder: str | Path, task: str) -> dict[str, Split]:
    """MR, CR, SUBJ or MPQA (``BinaryClassifierEval``): one ``"all"`` split, label 1 first then label 0."""
    if task not in BINARY_FILES:
        raise ValueError(f"unknown binary task {task!r}; one of {sorted(BINARY_FILES)}")
    one, zero = _require(task, folder, BINARY_FILES[task])
    pos = [_norm(line) for line in _read_lines(one, "latin-1", splitlines=True)]
    neg = [_norm(line) for line in _read_lines(zero, "latin-1", splitlines=True)]
    return {"all": Split(pos + neg, np.array([1] * len(pos) + [0] * len(neg)))}


def load_sst(folder: str | Path, n_classes: int = 2) -> dict[str, Split]:
    """SST binary (``text<TAB>label``) or fine-grained (``label text``): train/dev/test."""
    if n_classes not in (2, 5):
        raise ValueError("n_classes must be 2 (SST2) or 5 (SST5)")
    task = "SST2" if n_classes == 2 else "SST5"
    names = ("sentiment-train", "sentiment-dev", "sentiment-test")
    out = {}
    for split, path in zip(("train", "dev", "test"), _require(task, folder, names)):
        texts, labels = [], []
        for lineno, line in enumerate(_read_lines(path, "utf-8"), 1):
            line = line.strip()
            if not line:
                continue
            try:
                if n_classes == 2:
                    text, label = line.split("\t")[:2]
                else:
                    label, text = line.split(" ", 1)
                value = int(label)
            except ValueError as err:
                raise ValueError(f"{path}:{lineno}: not an SST {task} line: {line[:60]!r}") from err
            texts.append(_norm(text))
            labels.append(value)
        if labels and max(labels) != n_classes - 1:  # SentEval asserts this
            raise ValueError(f"{path}: labels go up to {max(labels)}, expected {n_classes - 1} for {task}")
        out[split] = Split(texts, np.array(labels))
    return out


def load_trec(folder: str | Path) -> dict[str, Split]:
    """TREC (``COARSE:fine question``): train (train_5500.label) and test (TREC_10.label), 6 coarse classes."""
    out = {}
    for split, path in zip(("train", "test"), _require("TREC", folder, ("train_5500.label", "TREC_10.label"))):
        texts, labels = [], []
        for lineno, line in enumerate(_read_lines(path, "latin-1"), 1):
            line = line.strip()
            if not line:
                continue
            target, _, rest = line.partition(":")
            if target not in TREC_COARSE or " " not in rest:
                raise ValueError(f"{path}:{lineno}: expected 'COARSE:fine question' with COARSE in {list(TREC_COARSE)}")
            texts.append(_norm(rest.split(" ", 1)[1]))
            labels.append(TREC_COARSE[target])
        out[split] = Split(texts, np.array(labels))
    return out


def load_mrpc(folder: str | Path) -> dict[str, Split]:
    """MRPC (``Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 String``, header line): train/test pairs."""
    out = {}
    names = ("msr_paraphrase_train.txt", "msr_paraphrase_test.txt")
    for split, path in zip(("train", "test"), _require("MRPC", folder, names)):
        a, b, labels = [], [], []
        for lineno, line in enumerate(_read_lines(path, "utf-8")[1:], 2):
            if not line.strip():
                continue
            cols = line.strip().split("\t")
            if len(cols) < 5:
                raise ValueError(f"{path}:{lineno}: expected 5 tab-separated columns, got {len(cols)}")
            labels.append(int(cols[0]))
            a.append(_norm(cols[3]))
            b.append(_norm(cols[4]))
        out[split] = Split(a, np.array(labels), b)
    return out


def load_sick(folder: str | Path, kind: str = "entailment") -> dict[str, Split]:
    """SICK (``pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment``, header line).

    ``kind="entailment"``: labels CONTRADICTION 0, NEUTRAL 1, ENTAILMENT 2; ``"relatedness"``: float scores.
    Splits train (SICK_train), dev (SICK_trial), test (SICK_test_annotated).
    """
    if kind not in ("entailment", "relatedness"):
        raise ValueError("kind must be 'entailment' or 'relatedness'")
    task = "SICKEntailment" if kind == "entailment" else "SICKRelatedness"
    names = ("SICK_train.txt", "SICK_trial.txt", "SICK_test_annotated.txt")
    out = {}
    for split, path in zip(("train", "dev", "test"), _require(task, folder, names)):
        a, b, labels = [], [], []
        for lineno, line in enumerate(_read_lines(path, "utf-8")[1:], 2):
            if not line.strip():
                continue
            cols = line.strip().split("\t")
            if len(cols) < 5:
                raise ValueError(f"{path}:{lineno}: expected 5 tab-separated columns, got {len(cols)}")
            a.append(_norm(cols[1]))
            b.append(_norm(cols[2]))
            if kind == "entailment":
                if cols[4] not in SICK_ENTAILMENT:
                    raise ValueError(f"{path}:{lineno}: unknown entailment label {cols[4]!r}")
                labels.append(SICK_ENTAILMENT[cols[4]])
            else:
                labels.append(float(cols[3]))
        out[split] = Split(a, np.array(labels), b)
    return out


def load_stsb(folder: str | Path) -> dict[str, Split]:
    """STS Benchmark (``genre, file, year, id, score, sentence1, sentence2``, tab-separated, no header)."""
    out = {}
    names = ("sts-train.csv", "sts-dev.csv", "sts-test.csv")
    for split, path in zip(("train", "dev", "test"), _require("STSBenchmark", folder, names)):
        a, b, scores = [], [], []
        for lineno, line in enumerate(_read_lines(path, "utf-8"), 1):
            if not line.strip():
                continue
            cols = line.strip().split("\t")
            if len(cols) < 7:
                raise ValueError(f"{path}:{lineno}: expected >= 7 tab-separated columns, got {len(cols)}")
            scores.append(float(cols[4]))
            a.append(_norm(cols[5]))
            b.append(_norm(cols[6]))
        out[split] = Split(a, np.array(scores), b)
    return out


def load_sts14(folder: str | Path, subsets: Sequence[str] = STS14_SUBSETS) -> dict[str, Split]:
    """STS14 (``STS.input.<subset>.txt``: ``s1<TAB>s2``; ``STS.gs.<subset>.txt``: score or empty line).

    Pairs with an empty gold score are dropped, as SentEval does.
    """
    names = [f"STS.{kind}.{subset}.txt" for subset in subsets for kind in ("input", "gs")]
    _require("STS14", folder, names)
    folder = Path(folder)
    out = {}
    for subset in subsets:
        inputs = _read_lines(folder / f"STS.input.{subset}.txt", "utf-8", splitlines=True)
        gold = _read_lines(folder / f"STS.gs.{subset}.txt", "utf-8", splitlines=True)
        if len(inputs) != len(gold):
            raise ValueError(f"{folder}: STS14 {subset}: {len(inputs)} input lines but {len(gold)} gold lines")
        a, b, scores = [], [], []
        for lineno, (pair, score) in enumerate(zip(inputs, gold), 1):
            if score.strip() == "":
                continue
            cols = pair.split("\t")
            if len(cols) != 2:
                raise ValueError(f"{folder}/STS.input.{subset}.txt:{lineno}: expected 2 tab-separated sentences")
            a.append(_norm(cols[0]))
            b.append(_norm(cols[1]))
            scores.append(float(score))
        out[subset] = Split(a, np.array(scores), b)
    return out


# ---------------------------------------------------------------------------------------------------------
# task registry


@dataclass(frozen=True)
class TaskSpec:
    name: str
    folders: tuple[str, ...]  # candidate folders under data_root, SentEval's first
    loader: Callable[[Path], dict[str, Split]]
    protocol: str  # "inner_kfold" | "kfold" | "split" | "relatedness" | "sts"
    n_classes: int | None = None
    pairs: bool = False
    aliases: tuple[str, ...] = field(default=())


def _binary(task: str) -> Callable[[Path], dict[str, Split]]:
    return lambda folder: load_binary(folder, task)


TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("MR", ("MR",), _binary("MR"), "inner_kfold", 2),
        TaskSpec("CR", ("CR",), _binary("CR"), "inner_kfold", 2),
        TaskSpec("SUBJ", ("SUBJ",), _binary("SUBJ"), "inner_kfold", 2),
        TaskSpec("MPQA", ("MPQA",), _binary("MPQA"), "inner_kfold", 2),
        TaskSpec("SST2", ("SST/binary", "SST/Binary"), lambda f: load_sst(f, 2), "split", 2, aliases=("SST-2",)),
        TaskSpec("SST5", ("SST/fine", "SST/Fine-Grained"), lambda f: load_sst(f, 5), "split", 5, aliases=("SST-5",)),
        TaskSpec("TREC", ("TREC",), load_trec, "kfold", 6),
        TaskSpec("MRPC", ("MRPC",), load_mrpc, "kfold", 2, pairs=True),
        TaskSpec("SICKEntailment", ("SICK",), lambda f: load_sick(f, "entailment"), "split", 3, True, ("SICK-E",)),
        TaskSpec(
            "SICKRelatedness", ("SICK",), lambda f: load_sick(f, "relatedness"), "relatedness", 5, True, ("SICK-R",)
        ),
        TaskSpec("STSBenchmark", ("STS/STSBenchmark",), load_stsb, "relatedness", 5, True, ("STS-B", "STSB")),
        TaskSpec("STS14", ("STS/STS14-en-test",), load_sts14, "sts", None, True),
    )
}


def get_task(name: str) -> TaskSpec:
    """Task by SentEval name (``"SICKEntailment"``) or paper alias (``"SICK-E"``, ``"SST-2"``, ``"STS-B"``)."""
    if name in TASKS:
        return TASKS[name]
    for spec in TASKS.values():
        if name in spec.aliases:
            return spec
    raise ValueError(f"unknown SentEval task {name!r}; known: {', '.join(TASKS)}")


def resolve_task_folder(data_root: str | Path, task: str | TaskSpec) -> Path:
    """The first existing candidate folder of the task under ``data_root`` (or ``data_root/downstream``).

    When none exists, the SentEval-layout folder under ``data_root`` (the loader then raises
    :class:`TaskDataMissing` naming it).
    """
    spec = task if isinstance(task, TaskSpec) else get_task(task)
    root = Path(data_root)
    for base in (root, root / "downstream"):
        for rel in spec.folders:
            if (base / rel).is_dir():
                return base / rel
    return root / spec.folders[0]


# ---------------------------------------------------------------------------------------------------------
# classifiers (SentEval's tools/validation.py, usepytorch=False)


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
        inner = cv_folds(Xtr, ytr, kfold, seed)
        scores = []
        for C in regs:
            reg_scores = [
                _fit_score(C, Xtr[i_tr], ytr[i_tr], Xtr[i_te], ytr[i_te], n_classes, seed, solver)[1]
                for i_tr, i_te in inner
            ]
            scores.append(round(100 * float(np.mean(reg_scores)), 2))
        best = int(np.argmax(scores))
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
    scores = []
    for C in regs:
        fold_scores = [_fit_score(C, Xtr[a], ytr[a], Xtr[b], ytr[b], n_classes, seed, solver)[1] for a, b in folds]
        scores.append(round(100 * float(np.mean(fold_scores)), 2))
    best = int(np.argmax(scores))
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


# ---------------------------------------------------------------------------------------------------------
# relatedness (SentEval's tools/relatedness.py)


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """SentEval's pair features ``[|u - v|, u * v]``."""
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
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


def _pearson(a, b) -> float:
    from scipy.stats import pearsonr

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(pearsonr(a, b)[0])


def _spearman(a, b) -> float:
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
        pr = _pearson(predict(dev_X), dev_scores)
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
    pearson, spearman = _pearson(yhat, test_scores), _spearman(yhat, test_scores)
    return {
        "devpearson": best_pr,
        "pearson": 0.0 if pearson != pearson else pearson,
        "spearman": 0.0 if spearman != spearman else spearman,
        "mse": float(np.mean((yhat - np.asarray(test_scores, dtype=np.float64)) ** 2)),
        "yhat": yhat,
        "epochs": n_epoch,
    }


# ---------------------------------------------------------------------------------------------------------
# runner


def _embed(encode: Encoder, texts: Sequence[str], batch_size: int) -> np.ndarray:
    chunks = []
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        emb = np.asarray(encode(batch), dtype=np.float64)
        if emb.ndim != 2 or emb.shape[0] != len(batch):
            raise ValueError(f"encoder returned shape {emb.shape} for {len(batch)} sentences; expected [n, d]")
        chunks.append(emb)
    if not chunks:
        raise ValueError("no sentences to encode")
    return np.vstack(chunks)


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
    u, v = np.nan_to_num(u), np.nan_to_num(v)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = (u * v).sum(axis=1) / np.sqrt((u * u).sum(axis=1) * (v * v).sum(axis=1))
    return np.nan_to_num(cos)


def _evaluate(encode, spec: TaskSpec, data: dict[str, Split], *, seed, kfold, batch_size, solver) -> dict[str, Any]:
    if spec.protocol == "sts":
        subsets, pearsons, spearmans, sizes = {}, [], [], []
        for name, split in data.items():
            sims = _cosine_rows(_embed(encode, split.texts, batch_size), _embed(encode, split.texts_b, batch_size))
            pr, sr = _pearson(sims, split.labels), _spearman(sims, split.labels)
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
            _features(encode, split, batch_size), split.labels, kfold=kfold, seed=seed, solver=solver
        )
        return {
            "metric": "acc",
            "score": res["acc"],
            "acc": res["acc"],
            "devacc": res["devacc"],
            "n": len(split),
            "kfold": kfold,
            **sizes,
        }
    if spec.protocol == "kfold":
        train, test = data["train"], data["test"]
        res = kfold_eval(
            _features(encode, train, batch_size),
            train.labels,
            _features(encode, test, batch_size),
            test.labels,
            kfold=kfold,
            seed=seed,
            solver=solver,
        )
        row = {
            "metric": "acc",
            "score": res["acc"],
            "acc": res["acc"],
            "devacc": res["devacc"],
            "C": res["C"],
            "n": len(test),
            "kfold": kfold,
            **sizes,
        }
        if spec.name == "MRPC":
            from sklearn.metrics import f1_score

            row["metric"] = "acc/f1"
            row["f1"] = round(100 * float(f1_score(test.labels, res["yhat"])), 2)
        return row
    if spec.protocol == "split":
        test = data["test"]
        res = split_eval(*_split_features(encode, data, batch_size), seed=seed, solver=solver)
        return {
            "metric": "acc",
            "score": res["acc"],
            "acc": res["acc"],
            "devacc": res["devacc"],
            "C": res["C"],
            "n": len(test),
            **sizes,
        }
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


def run_senteval(
    encode: Encoder,
    data_root: str | Path,
    tasks: Sequence[str] = PAPER_TASKS,
    seed: int = DEFAULT_SEED,
    *,
    kfold: int = 10,
    batch_size: int = 128,
    solver: str = "liblinear",
) -> list[dict[str, Any]]:
    """Evaluate ``encode`` on SentEval tasks; one row per task, in the order asked.

    Every row has ``task`` (SentEval name), ``status`` (``"ok"`` or ``"missing"``), ``metric``, ``score``
    (accuracy in percent for classification tasks -- MRPC also ``f1`` --; Pearson r for SICK-R, STS-B and
    STS14, with ``spearman``), ``n`` (examples scored: all samples for the cross-validated MR/CR/SUBJ/MPQA,
    else the test split) and per-protocol details (``devacc``, ``n_train``/``n_dev``/``n_test``, ...).
    A task whose files are absent is reported with ``status="missing"``, ``score=None`` and a ``reason``
    naming the expected files -- never dropped.  Unknown task names raise ``ValueError`` before any work.
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
        result = _evaluate(encode, spec, data, seed=seed, kfold=kfold, batch_size=batch_size, solver=solver)
        rows.append({"task": spec.name, "status": "ok", **result})
        log.info("SentEval %s: %s %s in %.1f s", spec.name, result.get("metric"), result.get("score"),
                 time.perf_counter() - start)
    return rows
