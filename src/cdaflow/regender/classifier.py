"""The re-genderability classifier of Jain et al. (2021, §5.1): is a segment neutral (N) or not (G)?

Features, as the paper (after Habash et al. 2019): TF-IDF of character 4-7-grams (at most
20,000 features), TF-IDF of word 1-3-grams (at most 20,000: the paper's "around 40 000 features" in
all; uncapped, the word trigrams of the 2.2M-segment paper corpus alone run to millions of columns),
and one morphological feature, the presence of a
gender-agreeing word according to the parser (``Segment.gendered``); a linear SVM
(scikit-learn's ``LinearSVC``) on top. Scores (:func:`scores`) are the accuracy and each class's
precision and recall, the layout of the paper's Table 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, precision_recall_fscore_support
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

from cdaflow.io.atomic import atomic_file

__all__ = ["LABELS", "build_classifier", "frame", "read_split", "save_classifier", "scores"]

LABELS = ("G", "N")


def frame(texts: Sequence[str], gendered: Sequence[bool]) -> pd.DataFrame:
    """The classifier's input: one row per segment, its text and its gendered-word flag."""
    if len(texts) != len(gendered):
        raise ValueError(f"{len(texts)} texts but {len(gendered)} gendered flags")
    return pd.DataFrame({"text": list(texts), "gendered": np.asarray(gendered, dtype=float)})


def read_split(folder: str | Path, name: str) -> tuple[list[str], list[str], list[bool]]:
    """Texts, labels and gendered-word flags of one split of the parallel corpus (``<name>.src`` ...)."""
    def column(suffix: str) -> list[str]:
        return (Path(folder) / f"{name}.{suffix}").read_text(encoding="utf-8").splitlines()

    texts, labels, gendered = column("src"), column("label"), column("gendered")
    if not len(texts) == len(labels) == len(gendered):
        raise ValueError(f"{folder}/{name}.*: {len(texts)} segments, {len(labels)} labels, {len(gendered)} flags")
    return texts, labels, [flag == "1" for flag in gendered]


def build_classifier(
    *,
    char_ngrams: Sequence[int] = (4, 7),
    max_char_features: int = 20_000,
    word_ngrams: Sequence[int] = (1, 3),
    max_word_features: int | None = 20_000,
    C: float = 1.0,
    seed: int = 0,
) -> Pipeline:
    """An unfitted pipeline: [char TF-IDF | word TF-IDF | gendered flag] → LinearSVC."""
    features = ColumnTransformer(
        [
            ("chars", TfidfVectorizer(analyzer="char", ngram_range=tuple(char_ngrams),
                                      max_features=max_char_features, lowercase=True), "text"),
            ("words", TfidfVectorizer(analyzer="word", ngram_range=tuple(word_ngrams), lowercase=True,
                                      max_features=max_word_features, token_pattern=r"(?u)\b\w+\b"), "text"),
            ("morph", "passthrough", ["gendered"]),
        ]
    )
    return Pipeline([("features", features), ("svm", LinearSVC(C=C, random_state=seed))])


def save_classifier(model: Pipeline, path: str | Path) -> None:
    """Write a fitted pipeline with joblib, atomically and the same bytes on every run.

    A fitted TfidfVectorizer keeps ``id()`` of its stop-word list (a memory address, different in
    every process) only to skip a repeated check; it is dropped before writing.
    """
    for _, transformer, _ in model.named_steps["features"].transformers_:
        if isinstance(transformer, TfidfVectorizer) and hasattr(transformer, "_stop_words_id"):
            del transformer._stop_words_id
    with atomic_file(Path(path), "wb") as handle:
        joblib.dump(model, handle)


def scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    """Accuracy, and precision / recall / support of G and N (in %), as in Table 2."""
    precision, recall, _, support = precision_recall_fscore_support(
        gold, predicted, labels=list(LABELS), zero_division=0
    )
    out: dict[str, Any] = {"n": len(gold), "accuracy": 100 * accuracy_score(gold, predicted)}
    for label, p, r, s in zip(LABELS, precision, recall, support, strict=True):
        out |= {f"{label}_precision": 100 * p, f"{label}_recall": 100 * r, f"{label}_support": int(s)}
    return out
