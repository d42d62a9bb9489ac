"""Attested inflections: training examples read from treebanks, and the lexicon of their forms.

An :class:`InflectionExample` is one word's ``(lemma, upos, features) -> form``; the
:class:`Lexicon` counts them and answers with the most frequent attested form.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from cdaflow.io.conllu import Sentence, feats_dict, words

__all__ = [
    "DEFAULT_FEATURES",
    "Features",
    "FeaturesLike",
    "InflectionExample",
    "Key",
    "Lexicon",
    "Query",
    "examples_from_sentences",
    "normalize_features",
    "split_heldout",
]

DEFAULT_FEATURES: tuple[str, ...] = ("Gender", "Number", "Person")
Features: TypeAlias = tuple[str, ...]
FeaturesLike: TypeAlias = "Mapping[str, str] | Iterable[str]"
Query: TypeAlias = "tuple[str, str, FeaturesLike]"
Key: TypeAlias = tuple[str, str, Features]


@dataclass(frozen=True, order=True)
class InflectionExample:
    """One attested inflection: ``lemma`` + ``upos`` + ``features`` -> ``form``."""

    lemma: str
    upos: str
    features: Features  # sorted "Feat=Value" strings
    form: str

    @property
    def key(self) -> Key:
        return (self.lemma, self.upos, self.features)


def normalize_features(features: FeaturesLike, keep: Iterable[str] | None = None) -> Features:
    """Sorted ``"Feat=Value"`` tuple from a ``{feat: value}`` mapping or ``"Feat=Value"`` strings.

    With ``keep``, only those feature names are retained.
    """
    if isinstance(features, Mapping):
        items = [f"{name}={value}" for name, value in features.items()]
    elif isinstance(features, str):
        items = [] if features in ("", "_") else features.split("|")
    else:
        items = list(features)
    if keep is not None:
        names = set(keep)
        items = [item for item in items if item.split("=", 1)[0] in names]
    return tuple(sorted(set(items)))


def examples_from_sentences(
    sentences: Iterable[Sentence],
    features: Sequence[str] | None = DEFAULT_FEATURES,
    gendered_only: bool = True,
) -> list[InflectionExample]:
    """One lower-cased example per syntactic word, features restricted to ``features``.

    ``features=None`` keeps the full FEATS of each word.

    Multiword-token ranges, empty nodes, punctuation and words without a lemma are skipped;
    with ``gendered_only``, so are words without a ``Gender`` feature.
    """
    examples: list[InflectionExample] = []
    for sentence in sentences:
        for token in words(sentence):
            lemma = token.get("lemma") or ""
            form = token.get("form") or ""
            upos = token.get("upos") or "_"
            if lemma in ("", "_") or not form or upos == "PUNCT":
                continue
            feats = feats_dict(token)
            if gendered_only and "Gender" not in feats:
                continue
            examples.append(
                InflectionExample(
                    lemma=lemma.lower(),
                    upos=upos,
                    features=normalize_features(feats, keep=features),
                    form=form.lower(),
                )
            )
    return examples


def split_heldout(
    examples: Sequence[InflectionExample], fraction: float = 0.1, seed: int = 0
) -> tuple[list[InflectionExample], list[InflectionExample]]:
    """Split into ``(train, heldout)`` by unique example, so no held-out item is trained on.

    ``train`` keeps every token (duplicates included, so lexicon counts stay meaningful);
    ``heldout`` holds each held-out unique example once, sorted.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    unique = sorted(set(examples))
    random.Random(seed).shuffle(unique)
    n_heldout = int(round(fraction * len(unique)))
    heldout = set(unique[:n_heldout])
    train = [example for example in examples if example not in heldout]
    return train, sorted(heldout)


class Lexicon:
    """Attested ``(lemma, upos, features)`` -> form counts; lookups return the most frequent form.

    Ties are broken alphabetically so that lookups never depend on insertion order.
    """

    def __init__(self) -> None:
        self._counts: dict[Key, Counter[str]] = {}
        self._best: dict[Key, str] = {}

    @classmethod
    def from_examples(cls, examples: Iterable[InflectionExample]) -> Lexicon:
        lexicon = cls()
        for example in examples:
            lexicon.add(example.lemma, example.upos, example.features, example.form)
        return lexicon

    def add(self, lemma: str, upos: str, features: FeaturesLike, form: str, count: int = 1) -> None:
        feats = normalize_features(features)
        key = (lemma, upos, feats)
        self._counts.setdefault(key, Counter())[form] += count
        self._best.pop(key, None)

    @staticmethod
    def _most_frequent(counts: Counter[str]) -> str:
        return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]

    def lookup(self, lemma: str, upos: str, features: FeaturesLike) -> str | None:
        """The most frequent attested form, or None when the triple was never seen."""
        key = (lemma, upos, normalize_features(features))
        best = self._best.get(key)
        if best is None and key in self._counts:
            best = self._best[key] = self._most_frequent(self._counts[key])
        return best

    def __len__(self) -> int:
        return len(self._counts)

    def __contains__(self, key: object) -> bool:
        return key in self._counts

    def entries(self) -> Iterator[tuple[str, str, Features, str, int]]:
        """``(lemma, upos, features, form, count)`` rows in a deterministic order."""
        for key in sorted(self._counts):
            for form, count in sorted(self._counts[key].items()):
                yield (*key, form, count)

    def write_tsv(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            stream.write("lemma\tupos\tfeatures\tform\tcount\n")
            for lemma, upos, feats, form, count in self.entries():
                stream.write(f"{lemma}\t{upos}\t{'|'.join(feats) or '_'}\t{form}\t{count}\n")

    @classmethod
    def read_tsv(cls, path: str | os.PathLike[str]) -> Lexicon:
        lexicon = cls()
        with open(path, encoding="utf-8", newline="\n") as stream:
            header = stream.readline().rstrip("\n")
            if header != "lemma\tupos\tfeatures\tform\tcount":
                raise ValueError(f"{path}: not a lexicon TSV (header {header!r})")
            for number, line in enumerate(stream, start=2):
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 5:
                    raise ValueError(f"{path}:{number}: expected 5 tab-separated fields")
                lemma, upos, feats, form, count = fields
                lexicon.add(lemma, upos, feats, form, int(count))
        return lexicon
