"""Morpho-syntactic tags of Study A: bundles of UD agreement features, multi-hot over subtags.

A tag is the tuple of a word's subtags ``Feature=Value`` for the agreement features only
(Zmigrod et al. 2019, §3: "[MSC; SG] has two subtags"). We keep Gender, Number and Person:
the features that agreement targets copy from their controllers in all four languages
(determiners, adjectives and participles copy Gender and Number from nouns; verbs copy Person,
Number and, in Hebrew and for Romance participles, Gender from subjects). Case, Definite and
the like are left out: they are assigned by syntax, not copied from a noun, so they carry no
information about gender agreement. A UD multi-value (Hebrew ``Gender=Fem,Masc``) becomes two
subtags, so its multi-hot vector has both bits on.

The inventory of tags is learned from training data; a tag never seen there is mapped to the
known tag that shares most subtags.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

AGREEMENT_FEATURES: tuple[str, ...] = ("Gender", "Number", "Person")
GENDER_SWAP = {"Masc": "Fem", "Fem": "Masc"}

Tag = tuple[str, ...]


def tag_from_feats(feats: Mapping[str, str] | None, features: Iterable[str] = AGREEMENT_FEATURES) -> Tag:
    """The sorted subtags of a word's FEATS restricted to `features`."""
    if not feats:
        return ()
    subtags = []
    for name in features:
        value = feats.get(name)
        if value:
            subtags.extend(f"{name}={part}" for part in str(value).split(","))
    return tuple(sorted(subtags))


def gender_of(tag: Tag) -> frozenset[str]:
    return frozenset(sub.split("=", 1)[1] for sub in tag if sub.startswith("Gender="))


def flip_gender(tag: Tag) -> Tag:
    """Swap Masc and Fem in a tag (a tag with both or neither is returned unchanged)."""
    genders = gender_of(tag)
    if len(genders) != 1 or next(iter(genders)) not in GENDER_SWAP:
        return tag
    (old,) = genders
    return tuple(sorted(f"Gender={GENDER_SWAP[old]}" if s == f"Gender={old}" else s for s in tag))


def feats_with_tag(
    feats: Mapping[str, str] | None, tag: Tag, features: Iterable[str] = AGREEMENT_FEATURES
) -> dict[str, str]:
    """A FEATS dict whose agreement features are replaced by those of `tag`."""
    out = {k: v for k, v in (feats or {}).items() if k not in set(features)}
    grouped: dict[str, list[str]] = {}
    for sub in tag:
        name, value = sub.split("=", 1)
        grouped.setdefault(name, []).append(value)
    out.update({name: ",".join(sorted(values)) for name, values in grouped.items()})
    return dict(sorted(out.items(), key=lambda kv: kv[0].lower()))


@dataclass
class TagInventory:
    """The tags and subtags of one language, with their multi-hot matrix [K, c]."""

    features: tuple[str, ...]
    subtags: list[str]
    tags: list[Tag]
    counts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._tag_index = {tag: i for i, tag in enumerate(self.tags)}
        self._sub_index = {sub: i for i, sub in enumerate(self.subtags)}
        self._nearest: dict[Tag, int] = {}

    @classmethod
    def from_tags(cls, tags: Iterable[Tag], features: Iterable[str] = AGREEMENT_FEATURES) -> TagInventory:
        counts = Counter(tags)
        counts.setdefault((), 0)  # the empty tag always exists: words with no agreement features
        ordered = sorted(counts, key=lambda t: (len(t), t))
        subtags = sorted({sub for tag in ordered for sub in tag})
        return cls(tuple(features), subtags, ordered, [counts[t] for t in ordered])

    @property
    def size(self) -> int:
        return len(self.tags)

    def multi_hot(self, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        matrix = torch.zeros(len(self.tags), len(self.subtags), dtype=dtype)
        for i, tag in enumerate(self.tags):
            for sub in tag:
                matrix[i, self._sub_index[sub]] = 1
        return matrix

    def index(self, tag: Tag) -> int:
        """Index of `tag`, or of the known tag sharing most subtags (ties: the more frequent)."""
        found = self._tag_index.get(tag)
        if found is not None:
            return found
        if tag not in self._nearest:
            wanted = set(tag)
            self._nearest[tag] = max(
                range(len(self.tags)),
                key=lambda i: (
                    len(wanted & set(self.tags[i])) - len(set(self.tags[i]) - wanted),
                    self.counts[i] if self.counts else 0,
                ),
            )
        return self._nearest[tag]

    def known(self, tag: Tag) -> bool:
        return tag in self._tag_index

    def gender_variants(self) -> torch.Tensor:
        """[K, K] bool: tag j may replace tag i when only the Gender value differs (or j == i).

        This is the intervention's constraint: all subtags but gender are held fixed, and a
        word without a gender subtag cannot gain one.
        """
        k = len(self.tags)
        allowed = torch.eye(k, dtype=torch.bool)
        for i, tag in enumerate(self.tags):
            flipped = flip_gender(tag)
            if flipped != tag and flipped in self._tag_index:
                allowed[i, self._tag_index[flipped]] = True
        return allowed

    def gender_carriers(self) -> torch.Tensor:
        """[K, K] bool: tag j is tag i (which has no gender subtag) plus one gender subtag."""
        k = len(self.tags)
        carriers = torch.zeros(k, k, dtype=torch.bool)
        for i, tag in enumerate(self.tags):
            if gender_of(tag):
                continue
            for gender in GENDER_SWAP:
                j = self._tag_index.get(tuple(sorted((*tag, f"Gender={gender}"))))
                if j is not None:
                    carriers[i, j] = True
        return carriers

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "subtags": self.subtags,
            "tags": [list(t) for t in self.tags],
            "counts": self.counts,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TagInventory:
        return cls(
            tuple(data["features"]),
            list(data["subtags"]),
            [tuple(t) for t in data["tags"]],
            list(data["counts"]),
        )

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> TagInventory:
        return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
