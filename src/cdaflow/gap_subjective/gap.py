"""GAP coreference tsv files (Webster et al. 2018): read, validate, write.

GAP-Subjective (Pant & Dadu 2022, §4.1) keeps GAP's exact columns and splits, so one reader
and one writer serve both; every span's offset is checked against the text on the way in and on
the way out (a GAP-Subjective file whose offsets do not point at their spans is worse than none).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cdaflow.io.atomic import atomic_file

__all__ = [
    "COLUMNS",
    "GapError",
    "GapExample",
    "PRONOUN_GENDER",
    "SPLITS",
    "read_gap",
    "write_gap",
]

COLUMNS: tuple[str, ...] = (
    "ID",
    "Text",
    "Pronoun",
    "Pronoun-offset",
    "A",
    "A-offset",
    "A-coref",
    "B",
    "B-offset",
    "B-coref",
    "URL",
)
SPLITS: tuple[str, ...] = ("development", "validation", "test")
# The official scorer's map (gap_scorer.py): the gender of an example is its pronoun's.
PRONOUN_GENDER: dict[str, str] = {
    "she": "feminine",
    "her": "feminine",
    "hers": "feminine",
    "he": "masculine",
    "his": "masculine",
    "him": "masculine",
}
_BOOLEANS = {"TRUE": True, "FALSE": False}


class GapError(ValueError):
    """A malformed GAP row; the message names the file, line and field."""


@dataclass(frozen=True)
class GapExample:
    """One GAP row: a context, its ambiguous pronoun and the two candidate names."""

    id: str
    text: str
    pronoun: str
    pronoun_offset: int
    a: str
    a_offset: int
    a_coref: bool
    b: str
    b_offset: int
    b_coref: bool
    url: str

    @property
    def gender(self) -> str:
        """``masculine`` or ``feminine``, from the pronoun (as the official scorer)."""
        return PRONOUN_GENDER[self.pronoun.lower()]

    @property
    def label(self) -> str:
        """``A``, ``B`` or ``NEITHER`` (GAP never marks both)."""
        return "A" if self.a_coref else "B" if self.b_coref else "NEITHER"

    def spans(self) -> dict[str, tuple[str, int]]:
        """The three mentions by column name: text and character offset."""
        return {
            "Pronoun": (self.pronoun, self.pronoun_offset),
            "A": (self.a, self.a_offset),
            "B": (self.b, self.b_offset),
        }

    def mismatched_spans(self) -> list[str]:
        """Columns whose offset does not point at their text."""
        return [name for name, (span, offset) in self.spans().items() if self.text[offset : offset + len(span)] != span]

    def row(self) -> list[str]:
        return [
            self.id,
            self.text,
            self.pronoun,
            str(self.pronoun_offset),
            self.a,
            str(self.a_offset),
            _format_bool(self.a_coref),
            self.b,
            str(self.b_offset),
            _format_bool(self.b_coref),
            self.url,
        ]


def _format_bool(value: bool) -> str:
    return "TRUE" if value else "FALSE"


def _parse_row(fields: dict[str, str], where: str) -> GapExample:
    def integer(name: str) -> int:
        try:
            value = int(fields[name])
        except ValueError:
            raise GapError(f"{where}: field {name}: {fields[name]!r} is not an integer offset") from None
        if value < 0:
            raise GapError(f"{where}: field {name}: negative offset {value}")
        return value

    def boolean(name: str) -> bool:
        value = fields[name].strip().upper()
        if value not in _BOOLEANS:
            raise GapError(f"{where}: field {name}: {fields[name]!r} is not TRUE or FALSE")
        return _BOOLEANS[value]

    example = GapExample(
        id=fields["ID"],
        text=fields["Text"],
        pronoun=fields["Pronoun"],
        pronoun_offset=integer("Pronoun-offset"),
        a=fields["A"],
        a_offset=integer("A-offset"),
        a_coref=boolean("A-coref"),
        b=fields["B"],
        b_offset=integer("B-offset"),
        b_coref=boolean("B-coref"),
        url=fields["URL"],
    )
    if not example.id:
        raise GapError(f"{where}: field ID: empty")
    if example.pronoun.lower() not in PRONOUN_GENDER:
        raise GapError(f"{where}: field Pronoun: {example.pronoun!r} is not one of {sorted(PRONOUN_GENDER)}")
    if example.a_coref and example.b_coref:
        raise GapError(f"{where}: fields A-coref, B-coref: both TRUE")
    for name in example.mismatched_spans():
        span, offset = example.spans()[name]
        found = example.text[offset : offset + len(span)]
        raise GapError(f"{where}: field {name}-offset: {offset} points at {found!r}, not {span!r}")
    return example


def read_gap(path: str | os.PathLike[str]) -> list[GapExample]:
    """All rows of a GAP (or GAP-Subjective) tsv file, validated."""
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as handle:
        # GAP's texts hold bare double quotes: no quoting, tab is the only separator.
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None:
            raise GapError(f"{path}: line 1: empty file, expected GAP's header {list(COLUMNS)}")
        if tuple(header) != COLUMNS:
            raise GapError(f"{path}: line 1: header {header} is not GAP's {list(COLUMNS)}")
        examples: list[GapExample] = []
        seen: set[str] = set()
        for values in reader:
            where = f"{path}: line {reader.line_num}"
            if len(values) != len(COLUMNS):
                raise GapError(f"{where}: {len(values)} fields, expected {len(COLUMNS)}")
            example = _parse_row(dict(zip(COLUMNS, values)), where)
            if example.id in seen:
                raise GapError(f"{where}: field ID: duplicate {example.id!r}")
            seen.add(example.id)
            examples.append(example)
    return examples


def write_gap(examples: Iterable[GapExample], path: str | os.PathLike[str]) -> int:
    """Write GAP's exact layout atomically; refuses rows whose offsets do not match their text."""
    rows: list[Sequence[str]] = []
    for example in examples:
        if bad := example.mismatched_spans():
            raise GapError(f"{path}: example {example.id}: offsets of {', '.join(bad)} do not match the text")
        if any(("\t" in value or "\n" in value) for value in example.row()):
            raise GapError(f"{path}: example {example.id}: a field holds a tab or a newline")
        rows.append(example.row())
    with atomic_file(Path(path)) as handle:
        handle.write("\t".join(COLUMNS) + "\n")
        for row in rows:
            handle.write("\t".join(row) + "\n")
    return len(rows)
