"""SentEval's task files, read as SentEval reads them: one loader per task family, splits of sentences and labels."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "STS14_SUBSETS", "Split", "TaskDataMissing", "load_binary", "load_mrpc", "load_sick", "load_sst",
    "load_sts14", "load_stsb", "load_trec",
]

STS14_SUBSETS = ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news")

TREC_COARSE = {"ABBR": 0, "DESC": 1, "ENTY": 2, "HUM": 3, "LOC": 4, "NUM": 5}
SICK_ENTAILMENT = {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}


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


def _tab_rows(
    path: Path, columns: int, *, header: bool, expected: str | None = None
) -> Iterator[tuple[int, list[str]]]:
    """(line number, tab-separated fields) of each non-blank UTF-8 line, with at least `columns` fields.

    `header`: the first line is skipped. `expected` words the error's demand (default
    ``expected <columns>``), which names the file and line.
    """
    lines = _read_lines(path, "utf-8")
    first = 2 if header else 1
    for lineno, line in enumerate(lines[first - 1 :], first):
        if not line.strip():
            continue
        cols = line.strip().split("\t")
        if len(cols) < columns:
            demand = expected or f"expected {columns}"
            raise ValueError(f"{path}:{lineno}: {demand} tab-separated columns, got {len(cols)}")
        yield lineno, cols


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
        for _, cols in _tab_rows(path, 5, header=True):
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
        for lineno, cols in _tab_rows(path, 5, header=True):
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
        for _, cols in _tab_rows(path, 7, header=False, expected="expected >= 7"):
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
