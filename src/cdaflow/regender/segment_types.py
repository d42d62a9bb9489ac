"""What Study B's rules read and say: a tagged :class:`Segment`, the :class:`Change` of one word and the
:class:`Decision` on a segment (:mod:`cdaflow.regender.rules`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["FINAL", "Change", "Decision", "Segment"]

FINAL = "FS"  # the tag of sentence marks (. ? ! ¿ ¡ ...)


@dataclass(frozen=True)
class Segment:
    """Surface tokens, their tags and, when known, each token's character span in ``text``."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    text: str | None = None
    spans: tuple[tuple[int, int], ...] | None = None
    gendered: bool = False  # a word agreeing in gender (the parser's Gender on a non-noun)

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "tokens": list(self.tokens), "tags": list(self.tags),
                "spans": None if self.spans is None else [list(s) for s in self.spans], "gendered": self.gendered}

    @classmethod
    def from_json(cls, record: Mapping[str, object]) -> Segment:
        spans = record.get("spans")
        return cls(tuple(record["tokens"]), tuple(record["tags"]), record.get("text"),  # type: ignore[arg-type]
                   None if spans is None else tuple(tuple(s) for s in spans),  # type: ignore[union-attr]
                   bool(record.get("gendered", False)))

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.tags):
            raise ValueError(f"{len(self.tokens)} tokens but {len(self.tags)} tags")
        if self.spans is not None and len(self.spans) != len(self.tokens):
            raise ValueError(f"{len(self.tokens)} tokens but {len(self.spans)} spans")

    @property
    def n_words(self) -> int:
        """Untokenized words (whitespace-separated), as the paper's length filter counts them."""
        return len(self.text.split()) if self.text is not None else sum(t != FINAL and t != "CM" for t in self.tags)


@dataclass(frozen=True)
class Change:
    index: int  # token position
    old: str
    new: str


@dataclass(frozen=True)
class Decision:
    """What the rules say about one segment.

    ``label``: ``"G"`` (a variant exists), ``"N"`` (neutral) or ``None`` (not covered by the rules);
    ``category``: the word class that changes or was checked; ``reason``: why, in words;
    ``variant``: the other-gender segment (the original text for N); ``changes``: the words replaced.
    """

    label: str | None
    category: str | None
    sequence: str
    reason: str
    variant: str | None = None
    changes: tuple[Change, ...] = field(default=())
