"""Study B's rule files: a rules folder's POS sequences (``sequences.tsv``, ``sequences_extension.tsv``) and
word rules (``rules.yaml``, ``rules_extension.yaml``), read and checked; errors name the file, line and field."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import yaml

__all__ = ["CATEGORIES", "EXTENSION_FILES", "SEQUENCE_SETS", "RuleFolder", "pattern_regex", "read_rule_folder"]

# The paper's word classes, then the extension's (articles, possessives, quantifiers, pronouns).
CATEGORIES = ("PPC", "DM", "Vadj", "ADJ", "VCL", "ART", "PPO", "QU", "PPX")
SEQUENCE_SETS = ("extended", "paper")
EXTENSION_FILES = ("sequences_extension.tsv", "rules_extension.yaml")
PATTERN_SIGNS = frozenset("[]()|*?+")


class RuleFolder(NamedTuple):
    """What a rules folder holds, for :class:`cdaflow.regender.rules.RuleSet`."""

    sequences: dict[str, tuple[str, str]]
    """Exact tag sequences: {sequence: (label, category)}."""
    rules: dict[str, object]
    """The word rules (``rules.yaml``, with ``rules_extension.yaml`` on top for the extended set)."""
    patterns: list[tuple[str, str, str]]
    """The extension's sequence patterns: [(regex, label, category)], in file order."""


def pattern_regex(pattern: str) -> str:
    """A sequence pattern (``FS*-(ADV|NEG)*-ADJ|Vadj-[CC-ADJ]-FS``) as a regex over ``TAG-TAG-...-``.

    Grammar: seq = item ("-" item)*; item = unit ("|" unit)*; unit = primary [*?+];
    primary = TAG | "(" seq ")" | "[" seq "]" (optional). Raises ValueError on a malformed pattern.
    """
    tokens = re.findall(r"[A-Za-z]+|[-|()\[\]*?+]|\S", pattern)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal position
        token = peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError(f"expected {expected or 'a tag'} at {' '.join(tokens[:position])} <here>")
        position += 1
        return token

    def seq() -> str:
        parts = [item()]
        while peek() == "-":
            take("-")
            parts.append(item())
        return "".join(parts)

    def item() -> str:
        units = [unit()]
        while peek() == "|":
            take("|")
            units.append(unit())
        return units[0] if len(units) == 1 else "(?:" + "|".join(units) + ")"

    def unit() -> str:
        token = take()
        if token == "(":
            body = "(?:" + seq() + ")"
            take(")")
        elif token == "[":
            body = "(?:" + seq() + ")?"
            take("]")
        elif token.isalpha():
            body = token + "-"
        else:
            raise ValueError(f"unexpected {token!r} at {' '.join(tokens[:position])} <here>")
        if peek() in ("*", "?", "+"):
            body = "(?:" + body + ")" + take()
        return body

    regex = seq()
    if peek() is not None:
        raise ValueError(f"unexpected {peek()!r} at {' '.join(tokens[:position])} <here>")
    return regex


def _read_sequences(
    path: Path, patterns_allowed: bool
) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str, str]]]:
    """Exact sequences {sequence: (label, category)} and patterns [(regex, label, category)] of one file."""
    sequences: dict[str, tuple[str, str]] = {}
    patterns: list[tuple[str, str, str]] = []
    with open(path, encoding="utf-8") as handle:
        lines = [(n, line) for n, line in enumerate(handle, start=1) if line.strip() and not line.startswith("#")]
    reader = csv.reader((line for _, line in lines), delimiter="\t")
    header = next(reader, None)
    if header is None or header[:3] != ["sequence", "label", "category"]:
        raise ValueError(f"{path}:{lines[0][0] if lines else 1}: header must start sequence, label, category")
    for (number, _), row in zip(lines[1:], reader, strict=True):
        if len(row) < 3:
            raise ValueError(f"{path}:{number}: expected sequence, label, category")
        sequence, label, category = row[0].strip(), row[1].strip(), row[2].strip()
        if label not in ("G", "N"):
            raise ValueError(f"{path}:{number}: field label: {label!r} is not G or N")
        if not category or any(c not in CATEGORIES for c in category.split(",")):
            raise ValueError(
                f"{path}:{number}: field category: {category!r} is not one of {CATEGORIES} "
                "(or several joined by commas)"
            )
        if not sequence or " " in sequence:
            raise ValueError(f"{path}:{number}: field sequence: {sequence!r} is not TAG-TAG-...")
        if PATTERN_SIGNS & set(sequence):
            if not patterns_allowed:
                raise ValueError(f"{path}:{number}: field sequence: {sequence!r}: patterns belong in the extension, "
                                 "the paper's sequences are exact")
            try:
                patterns.append((pattern_regex(sequence), label, category))
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: field sequence: {exc}") from None
            continue
        if sequence in sequences and sequences[sequence] != (label, category):
            raise ValueError(f"{path}:{number}: sequence {sequence} listed twice with different labels")
        sequences[sequence] = (label, category)
    return sequences, patterns


def _merge_rules(base: Mapping[str, object], extra: Mapping[str, object]) -> dict[str, object]:
    """`base` with `extra` on top: lists joined, mappings merged, anything else replaced."""
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        if isinstance(old, list) and isinstance(value, list):
            merged[key] = [*old, *value]
        elif isinstance(old, dict) and isinstance(value, dict):
            merged[key] = {**old, **value}
        else:
            merged[key] = value
    return merged


def _read_rules(path: Path) -> dict[str, object]:
    try:
        rules = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(rules, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return rules


def read_rule_folder(folder: str | Path, sequences: str = "extended") -> RuleFolder:
    """The rules of `folder`: ``sequences.tsv`` and ``rules.yaml``, and for ``sequences="extended"``
    also ``sequences_extension.tsv`` and ``rules_extension.yaml``; errors name the file, line and field."""
    if sequences not in SEQUENCE_SETS:
        raise ValueError(f"sequence set {sequences!r} is not one of {', '.join(SEQUENCE_SETS)}")
    folder = Path(folder)
    needed = ["sequences.tsv", "rules.yaml"] + (list(EXTENSION_FILES) if sequences == "extended" else [])
    for name in needed:
        if not (folder / name).is_file():
            hint = " (the extended sequences need it; or use the paper's: --sequences paper)"
            hint = hint if name in EXTENSION_FILES else ""
            raise FileNotFoundError(f"rules folder {folder}: missing {name}{hint}")
    exact, _ = _read_sequences(folder / "sequences.tsv", patterns_allowed=False)
    rules = _read_rules(folder / "rules.yaml")
    patterns: list[tuple[str, str, str]] = []
    if sequences == "extended":
        extra, patterns = _read_sequences(folder / EXTENSION_FILES[0], patterns_allowed=True)
        exact = {**extra, **exact}  # a sequence of the paper keeps the paper's label
        extension = _read_rules(folder / EXTENSION_FILES[1])
        try:
            re.compile(str(extension.get("trailing_interjections") or ""))
        except re.error as exc:
            raise ValueError(f"{folder / EXTENSION_FILES[1]}: key trailing_interjections: "
                             f"bad regular expression ({exc})") from None
        rules = _merge_rules(rules, extension)
    return RuleFolder(exact, rules, patterns)
