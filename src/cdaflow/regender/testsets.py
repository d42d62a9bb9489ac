"""The hand-checked Spanish test sets of Study B (``resources/regender/es/test_*.tsv``).

Columns: ``id``, ``label`` (G: a gender variant exists; N: neutral), ``segment``, ``variant`` (the
correct other-gender segment; alternatives joined by `` || ``; for N the segment itself) and a free
``note`` (the structured set also has ``structure``, the intended tag sequence). Lines starting
with ``#`` are comments.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from cdaflow.regender.tagset import RESOURCES

__all__ = ["TEST_SETS", "GoldSegment", "read_test_set"]

ALTERNATIVES = " || "
TEST_SETS = {
    "structured": RESOURCES / "es" / "test_structured.tsv",
    "unstructured": RESOURCES / "es" / "test_unstructured.tsv",
}


@dataclass(frozen=True)
class GoldSegment:
    id: str
    label: str
    segment: str
    variants: tuple[str, ...]
    note: str = ""
    structure: str = ""


def read_test_set(path: str | Path) -> list[GoldSegment]:
    """Gold segments of one test set; malformed rows raise ValueError naming file, line and field."""
    path = Path(path)
    with open(path, encoding="utf-8", newline="") as handle:
        numbered = [(n, line) for n, line in enumerate(handle, start=1) if line.strip() and not line.startswith("#")]
    if not numbered:
        raise ValueError(f"{path}: no header and no rows")
    rows = csv.DictReader((line for _, line in numbered), delimiter="\t", quoting=csv.QUOTE_NONE)
    missing = {"id", "label", "segment", "variant"} - set(rows.fieldnames or ())
    if missing:
        raise ValueError(f"{path}:{numbered[0][0]}: header lacks {', '.join(sorted(missing))}")
    out: list[GoldSegment] = []
    seen: set[str] = set()
    for (number, _), row in zip(numbered[1:], rows, strict=True):
        where = f"{path}:{number}"
        ident, label = (row.get("id") or "").strip(), (row.get("label") or "").strip()
        segment, variant = row.get("segment") or "", row.get("variant") or ""
        if not ident or ident in seen:
            raise ValueError(f"{where}: field id: {ident!r} is empty or repeated")
        seen.add(ident)
        if label not in ("G", "N"):
            raise ValueError(f"{where}: field label: {label!r} is not G or N")
        if not segment.strip():
            raise ValueError(f"{where}: field segment is empty")
        variants = tuple(v for v in variant.split(ALTERNATIVES) if v)
        if label == "N" and variants != (segment,):
            raise ValueError(f"{where}: field variant: a neutral segment's variant must be the segment itself")
        if label == "G" and (not variants or segment in variants):
            raise ValueError(f"{where}: field variant: a re-genderable segment needs a different variant")
        out.append(GoldSegment(ident, label, segment, variants, row.get("note") or "", row.get("structure") or ""))
    return out
