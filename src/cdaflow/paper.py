"""The papers' own numbers, kept as data: ``resources/<study>/paper.yaml``.

One file per study holds every number its paper prints that the workflow compares against, each
with the table, row and column (or section) it comes from::

    citation: Zmigrod, Mielke, Wallach and Cotterell (ACL 2019)
    values:
      es_lin_tag_f1: {value: 82.29, source: "Table 3, Spanish, LIN, tag F1"}
      table1_accuracy: {value: {es: 97.78, fr: 93.17}, source: "Table 1, accuracy per language"}
      grammaticality_kept: {text: "not lower", source: "Abstract, Fig. 4"}

``value`` is a number or a mapping (a table's rows) of numbers or further mappings; ``text`` is a
finding the paper states only in words or a figure. Report modules, rule scripts and the claims
ledger all read these files, so no paper number lives in code.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["PaperError", "STUDIES", "load", "paper_file", "read_yaml_mapping", "studies", "value"]

# The four papers; cross_study holds the paper-scale item counts of the scale notes.
STUDIES = ("morph_cda", "regender", "gap_subjective", "sentence_bias", "cross_study")
RESOURCES = Path(__file__).resolve().parents[2] / "resources"


class PaperError(ValueError):
    """A malformed paper file or an unknown name; the message names the file and the entry."""


def paper_file(study: str, resources: str | Path | None = None) -> Path:
    return Path(resources or RESOURCES) / study / "paper.yaml"


def studies(resources: str | Path | None = None) -> list[str]:
    """The studies that have a paper file under `resources`."""
    return sorted(path.parent.name for path in Path(resources or RESOURCES).glob("*/paper.yaml"))


def _check_value(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Mapping)):
        raise PaperError(f"{where}: expected a number or a mapping of numbers, got {value!r}")
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _check_value(inner, f"{where}.{key}")


def read_yaml_mapping(
    path: Path, key: str, kind: type, expected: str, error: type[Exception], *, encoding: str = "utf-8-sig"
) -> Mapping[str, Any]:
    """The YAML mapping of `path`, whose `key` holds a `kind`; else `error` naming the file
    (``cannot read: ...``, or ``expected <expected>``)."""
    try:
        data = yaml.safe_load(path.read_text(encoding=encoding))
    except (OSError, yaml.YAMLError) as exc:
        raise error(f"{path}: cannot read: {exc}") from exc
    if not isinstance(data, Mapping) or not isinstance(data.get(key), kind):
        raise error(f"{path}: expected {expected}")
    return data


def _load(path: Path) -> dict[str, dict[str, Any]]:
    data = read_yaml_mapping(path, "values", Mapping, "a mapping with `citation` and `values`", PaperError)
    values = {}
    for name, entry in data["values"].items():
        where = f"{path}: values.{name}"
        if not isinstance(entry, Mapping) or not entry.get("source") or ("value" in entry) == ("text" in entry):
            raise PaperError(f"{where}: needs `source` and one of `value` or `text`")
        if "value" in entry:
            _check_value(entry["value"], f"{where}.value")
        values[str(name)] = dict(entry)
    return values


def load(study: str, resources: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """Every entry of a study's paper file: name -> {value or text, source}."""
    return _load(paper_file(study, resources))


def value(study: str, name: str, resources: str | Path | None = None) -> Any:
    """One paper number (or table of numbers) by name."""
    values = load(study, resources)
    if name not in values or "value" not in values[name]:
        raise PaperError(f"{paper_file(study, resources)}: no number named {name!r}")
    return values[name]["value"]
