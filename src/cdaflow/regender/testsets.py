"""The hand-checked Spanish test sets of Study B (``resources/regender/es/test_*.tsv``).

Columns: ``id``, ``label`` (G: a gender variant exists; N: neutral), ``segment``, ``variant`` (the
correct other-gender segment; alternatives joined by `` || ``; for N the segment itself) and a free
``note`` (the structured set also has ``structure``, the intended tag sequence; the chat challenge
``kind``, the construction). Lines starting
with ``#`` are comments. ``resources/regender/es/README.md`` gives the labelling rules.

Hand revisions (:func:`read_revisions`, :func:`apply_revisions`): the OpenSubtitles dev/test
references are the rules' own output (*silver*); the paper revised their rewritten part by hand.
A revision file corrects single segments before scoring: TSV with the header
``test_set  id  variant  note``, one row per segment (``test_set`` as in the workflow, e.g.
``opensubs_test``; ``id`` the segment's id there, e.g. ``t000042``; ``variant`` the correct
other-gender segment, alternatives joined by `` || ``, or the segment itself when it is neutral).
The label follows from the variant: the segment itself means N, anything else G.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from cdaflow.regender.tagset import RESOURCES

__all__ = [
    "TEST_SETS",
    "GoldSegment",
    "Revision",
    "apply_revisions",
    "check_revision_sets",
    "read_revisions",
    "read_tagged_test_set",
    "read_test_set",
]

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
    kind: str = ""  # the construction a challenge line exercises (tests/regender/challenge/chat.tsv)


def _numbered_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of the non-empty, non-comment lines of `path`."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [(n, line) for n, line in enumerate(handle, start=1) if line.strip() and not line.startswith("#")]


def read_test_set(path: str | Path) -> list[GoldSegment]:
    """Gold segments of one test set; malformed rows raise ValueError naming file, line and field."""
    path = Path(path)
    numbered = _numbered_lines(path)
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
        out.append(GoldSegment(ident, label, segment, variants, row.get("note") or "", row.get("structure") or "",
                               (row.get("kind") or "").strip()))
    return out


@dataclass(frozen=True)
class Revision:
    """One hand-corrected reference: `variants` replace those of segment `id` of `test_set`."""

    test_set: str
    id: str
    variants: tuple[str, ...]
    note: str = ""
    where: str = ""  # "file:line", for messages


REVISION_FIELDS = ("test_set", "id", "variant")


def read_revisions(path: str | Path) -> dict[tuple[str, str], Revision]:
    """Revisions keyed by (test_set, id); an empty file (header only, or nothing) has none."""
    path = Path(path)
    numbered = _numbered_lines(path)
    if not numbered:
        return {}
    rows = csv.DictReader((line for _, line in numbered), delimiter="\t", quoting=csv.QUOTE_NONE)
    missing = set(REVISION_FIELDS) - set(rows.fieldnames or ())
    if missing:
        raise ValueError(f"{path}:{numbered[0][0]}: header lacks {', '.join(sorted(missing))}")
    out: dict[tuple[str, str], Revision] = {}
    for (number, _), row in zip(numbered[1:], rows, strict=True):
        where = f"{path}:{number}"
        for field in REVISION_FIELDS:
            if not (row.get(field) or "").strip():
                raise ValueError(f"{where}: field {field} is empty")
        key = (row["test_set"].strip(), row["id"].strip())
        if key in out:
            raise ValueError(f"{where}: field id: {key[1]!r} of {key[0]} is revised twice (also {out[key].where})")
        variants = tuple(v for v in row["variant"].split(ALTERNATIVES) if v.strip())
        out[key] = Revision(key[0], key[1], variants, (row.get("note") or "").strip(), where)
    return out


def apply_revisions(
    test_set: str, records: list[dict], revisions: dict[tuple[str, str], Revision]
) -> tuple[list[dict], int]:
    """`records` (dicts with id, text, label, variants) with this set's revisions applied, and their count.

    A revision naming an id the set does not have is an error (a typo would otherwise be ignored).
    """
    mine = {ident: revision for (name, ident), revision in revisions.items() if name == test_set}
    by_id = {record["id"]: record for record in records}
    for ident, revision in mine.items():
        if ident not in by_id:
            raise ValueError(f"{revision.where}: field id: {ident!r} is not a segment of test set {test_set}")
    revised = []
    for record in records:
        revision = mine.get(record["id"])
        if revision is None:
            revised.append(record)
            continue
        neutral = revision.variants == (record["text"],)
        if not neutral and record["text"] in revision.variants:
            raise ValueError(f"{revision.where}: field variant: a re-genderable segment needs a different variant")
        revised.append(record | {"label": "N" if neutral else "G", "variants": list(revision.variants)})
    return revised, len(mine)


def check_revision_sets(revisions: dict[tuple[str, str], Revision], test_sets: list[str]) -> None:
    """Every revision names a test set of this run (a misspelt set would otherwise do nothing)."""
    for (name, _), revision in revisions.items():
        if name not in test_sets:
            raise ValueError(f"{revision.where}: field test_set: {name!r} is not one of {', '.join(test_sets)}")


TAGGED_FIELDS = ("id", "text", "label", "variants")


def read_tagged_test_set(path: str | Path) -> list[dict]:
    """The records of a tagged test set (JSON lines of rule regender_tag_testset: id, text, tokens,
    label, variants, ...); a malformed line raises ValueError naming file, line and field."""
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not a JSON record ({exc})") from None
            missing = [field for field in TAGGED_FIELDS if not isinstance(record, dict) or field not in record]
            if missing:
                raise ValueError(f"{path}:{number}: field {missing[0]} is missing")
            records.append(record)
    return records
