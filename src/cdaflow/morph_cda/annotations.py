"""Stand-off annotations of Study A's intrinsic test sets, joined with treebank sentences.

Format: resources/morph_cda/annotations/README.md. Each row names a sentence by (treebank,
file_split, sent_id), the intervened noun and every other word whose gender must flip, as
``ID:original>new``. The original forms are checked against the treebank, so a misaligned
annotation fails with its file, line and field.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cdaflow.io.conllu import Sentence, read_conllu, words

COLUMNS = ("treebank", "file_split", "sent_id", "eval_split", "noun", "changes", "comment")


class AnnotationError(ValueError):
    """A malformed or misaligned annotation: names the file, line and field."""


@dataclass(frozen=True)
class Change:
    word_id: int
    original: str
    new: str


@dataclass
class Annotation:
    treebank: str
    file_split: str
    sent_id: str
    eval_split: str
    noun: Change
    changes: tuple[Change, ...]
    comment: str
    source: str  # "file:line", for error messages
    sentence: Sentence | None = field(default=None, repr=False)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.treebank, self.file_split, self.sent_id)

    def gold_forms(self) -> list[str]:
        """Every syntactic word's form after the intervention (the noun included)."""
        if self.sentence is None:
            raise ValueError(f"{self.source}: annotation not joined with its sentence")
        forms = [w["form"] for w in words(self.sentence)]
        for change in (self.noun, *self.changes):
            forms[change.word_id - 1] = change.new
        return forms


def _parse_change(text: str, where: str, field_name: str) -> Change:
    try:
        word_id, rest = text.split(":", 1)
        original, new = rest.split(">", 1)
        return Change(int(word_id), original, new)
    except ValueError:
        raise AnnotationError(
            f"{where}: field {field_name}: expected ID:original>new, got {text!r}"
        ) from None


def read_annotations(path: Path) -> list[Annotation]:
    """Read one annotation file (comments `#` and blank lines skipped)."""
    rows: list[Annotation] = []
    with open(path, encoding="utf-8-sig", newline="") as handle:  # a byte-order mark is not part of the header
        lines = [(n, line) for n, line in enumerate(handle, 1) if line.strip() and not line.startswith("#")]
    if not lines:
        raise AnnotationError(f"{path}: no header")
    header_line, header = lines[0]
    names = header.rstrip("\r\n").split("\t")
    if tuple(names) != COLUMNS:
        expected = " ".join(COLUMNS)
        raise AnnotationError(
            f"{path}:{header_line}: header must be the tab-separated {expected}, got {names}"
        )
    for number, line in lines[1:]:
        where = f"{path}:{number}"
        values = next(csv.reader([line.rstrip("\r\n")], delimiter="\t", quoting=csv.QUOTE_NONE))
        if len(values) != len(COLUMNS):
            raise AnnotationError(f"{where}: expected {len(COLUMNS)} tab-separated fields, got {len(values)}")
        row = dict(zip(COLUMNS, values))
        if row["eval_split"] not in ("dev", "test"):
            raise AnnotationError(
                f"{where}: field eval_split: must be dev or test, got {row['eval_split']!r}"
            )
        changes = tuple(
            _parse_change(part, where, "changes") for part in row["changes"].split(";") if part.strip()
        )
        rows.append(
            Annotation(
                row["treebank"],
                row["file_split"],
                row["sent_id"],
                row["eval_split"],
                _parse_change(row["noun"], where, "noun"),
                changes,
                row["comment"],
                where,
            )
        )
    return rows


def join(
    annotations: Iterable[Annotation], sentences: Mapping[tuple[str, str, str], Sentence]
) -> list[Annotation]:
    """Attach each annotation's sentence, checking ids and original forms."""
    joined = []
    for annotation in annotations:
        sentence = sentences.get(annotation.key)
        if sentence is None:
            raise AnnotationError(
                f"{annotation.source}: field sent_id: {annotation.sent_id!r} not found in "
                f"{annotation.treebank}/{annotation.file_split}"
            )
        forms = [w["form"] for w in words(sentence)]
        for field_name, change in [("noun", annotation.noun)] + [("changes", c) for c in annotation.changes]:
            if not 1 <= change.word_id <= len(forms):
                raise AnnotationError(
                    f"{annotation.source}: field {field_name}: word {change.word_id} out of range 1..{len(forms)}"
                )
            if forms[change.word_id - 1] != change.original:
                raise AnnotationError(
                    f"{annotation.source}: field {field_name}: word {change.word_id} is "
                    f"{forms[change.word_id - 1]!r} in the treebank, not {change.original!r}"
                )
        annotation.sentence = sentence
        joined.append(annotation)
    return joined


def annotated_keys(paths: Iterable[Path]) -> set[tuple[str, str, str]]:
    """(treebank, file_split, sent_id) of every annotated sentence: kept out of training."""
    return {a.key for path in paths for a in read_annotations(path)}


# The metadata field that names where an annotated sentence came from ("treebank/split"), so a
# later stage joins the annotations to the sentences of the prepared file again.
SOURCE_FIELD = "cdaflow_source"


def split_source(path: str | Path) -> tuple[str, str]:
    """(treebank, split) of a treebank split file ``.../<treebank>/<split>.conllu``."""
    return Path(path).parent.name, Path(path).stem


def without_annotated(paths: Iterable[str | Path], keys: set[tuple[str, str, str]]) -> tuple[list[Sentence], int]:
    """The sentences of the split files, less the annotated ones; and how many were left out."""
    kept, dropped = [], 0
    for path in paths:
        treebank, split = split_source(path)
        for sentence in read_conllu(path):
            if (treebank, split, sentence.metadata.get("sent_id")) in keys:
                dropped += 1
            else:
                kept.append(sentence)
    return kept, dropped


def hold_out_dev(train: list[Sentence], seed: int) -> tuple[list[Sentence], list[Sentence]]:
    """(train, dev) with a fixed tenth of the training trees (at least one) as dev, shuffled by `seed`."""
    train = list(train)
    random.Random(seed).shuffle(train)
    cut = max(1, len(train) // 10)
    return train[cut:], train[:cut]


def sentences_by_key(paths: Iterable[str | Path]) -> dict[tuple[str, str, str], Sentence]:
    """Every sentence of the split files by (treebank, split, sent_id), its source in its metadata."""
    by_key = {}
    for path in paths:
        treebank, split = split_source(path)
        for sentence in read_conllu(path):
            sentence.metadata[SOURCE_FIELD] = f"{treebank}/{split}"
            by_key[(treebank, split, sentence.metadata.get("sent_id"))] = sentence
    return by_key


def read_joined(annotations_path: Path, prepared: str | Path) -> list[Annotation]:
    """The annotations joined with the sentences of a prepared file (written with their source)."""
    sentences = {
        (*s.metadata[SOURCE_FIELD].split("/"), s.metadata["sent_id"]): s for s in read_conllu(prepared)
    }
    return join(read_annotations(annotations_path), sentences)
