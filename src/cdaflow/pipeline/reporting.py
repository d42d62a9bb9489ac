"""results/README.md: every result table and figure, our numbers beside the paper's.

Not one paper's table: this gathers the paper-numbered outputs of all four studies (Study C's
Tables 2, 4, 6, 7 and 8 among them) as `workflow/report/catalogue.yaml` lists them, puts each
table's ``paper*`` columns beside ours, and says at which scale (demo, validation, paper) each file
was produced, loudly when a file's own ``scale`` column disagrees with the run (a stale file).
"""

from __future__ import annotations

import logging
import math
import numbers
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd
import yaml

from cdaflow.io.tables import read_tsv

__all__ = [
    "Catalogue",
    "CatalogueEntry",
    "CatalogueError",
    "comparison_table",
    "format_value",
    "load_catalogue",
    "render_readme",
]

log = logging.getLogger(__name__)

MISSING = "—"
FIGURE_SUFFIXES = frozenset({".png", ".svg", ".pdf", ".jpg", ".jpeg"})
ENTRY_FIELDS = ("path", "study", "title", "paper", "section", "caption", "condition", "keys", "pairs")
# `paper` is required even when null, so that leaving it out is never mistaken for "no number".
REQUIRED_FIELDS = ("path", "study", "title", "paper")
PAPER_REFERENCE = re.compile(r"(Appendix )?(Tables?|Figs?\.) \d+[a-z]?((, | and |-)\d+[a-z]?)*")
WILDCARD = re.compile(r"\{([A-Za-z_]\w*)\}")
SIGNIFICANT_DIGITS = 3


class CatalogueError(ValueError):
    """The catalogue file is malformed; the message names the file, line, entry and field."""


@dataclass(frozen=True)
class CatalogueEntry:
    """One result file (or, with wildcards, one family of files) the README lists."""

    path: str  # relative to results/; "{name}" is a Snakemake wildcard
    study: str
    title: str
    paper: str | None = None  # "Table 2", "Fig. 4", "Tables 6, 7, 11"
    section: str | None = None
    caption: str | None = None  # figures only
    condition: str | None = None  # what switches an optional output on
    keys: tuple[str, ...] = ()  # columns naming a row of the comparison
    pairs: tuple[tuple[str, str], ...] = ()  # (our column, the paper's column)

    @property
    def kind(self) -> str:
        """figure, table (TSV), document (Markdown) or file."""
        suffix = PurePosixPath(self.path).suffix.lower()
        if suffix in FIGURE_SUFFIXES:
            return "figure"
        return {".tsv": "table", ".md": "document"}.get(suffix, "file")

    @property
    def wildcards(self) -> tuple[str, ...]:
        return tuple(WILDCARD.findall(self.path))

    def match(self, relative_path: str) -> dict[str, str] | None:
        """The wildcard values when `relative_path` (under results/) is one of this entry's files."""
        pattern, position = [], 0
        for found in WILDCARD.finditer(self.path):
            pattern += [re.escape(self.path[position : found.start()]), f"(?P<{found.group(1)}>[^/]+)"]
            position = found.end()
        pattern.append(re.escape(self.path[position:]))
        matched = re.fullmatch("".join(pattern), relative_path)
        if matched is None or any(value.startswith(".") for value in matched.groupdict().values()):
            return None  # hidden names are atomic writers' temporary files
        return matched.groupdict()

    def find(self, results_dir: Path) -> list[tuple[str, dict[str, str]]]:
        """The entry's existing files under `results_dir`: (path relative to it, wildcard values)."""
        found = []
        for candidate in sorted(results_dir.glob(WILDCARD.sub("*", self.path))):
            relative = candidate.relative_to(results_dir).as_posix()
            values = self.match(relative)
            if candidate.is_file() and values is not None:
                found.append((relative, values))
        return found


@dataclass(frozen=True)
class Catalogue:
    """The README's studies (in order, with their headings) and their catalogued files."""

    studies: Mapping[str, str]
    entries: tuple[CatalogueEntry, ...]
    source: str = "catalogue"

    def entry_for(self, relative_path: str) -> CatalogueEntry | None:
        """The entry listing `relative_path` (its own pattern, or a concrete file it matches)."""
        for entry in self.entries:
            if entry.path == relative_path:
                return entry
        for entry in self.entries:
            if entry.wildcards and entry.match(relative_path) is not None:
                return entry
        return None


# -- Loading ---------------------------------------------------------------------------------


def _mapping_items(node: yaml.Node | None) -> dict[str, yaml.Node]:
    """Key -> value node of a YAML mapping node (for line numbers); empty for anything else."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(key.value): value for key, value in node.value}


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _where(source: str, line: int | None, entry: str | None = None, field: str | None = None) -> str:
    parts = [source] + ([f"line {line}"] if line else []) + ([entry] if entry else [])
    parts += [f"field {field!r}"] if field else []
    return ", ".join(parts)


def _optional_text(value: Any) -> bool:
    return value is None or (isinstance(value, str) and bool(value.strip()))


def _check_path(path: Any) -> str | None:
    """What is wrong with a catalogue path, or None."""
    if not isinstance(path, str) or not path.strip():
        return "must be a non-empty string"
    if path.startswith("/") or "\\" in path:
        return "must be a relative POSIX path (relative to results/)"
    if path.startswith("results/"):
        return "is relative to results/: drop the leading 'results/'"
    if ".." in PurePosixPath(path).parts:
        return "must stay inside results/ (no '..')"
    if "{" in WILDCARD.sub("", path) or "}" in WILDCARD.sub("", path):
        return "has a brace that is not a wildcard such as {lang}"
    return None


def _parse_entry(
    raw: Any, node: yaml.Node | None, index: int, studies: Mapping[str, str], source: str
) -> CatalogueEntry:
    lines = {name: _line(value) for name, value in _mapping_items(node).items()}
    label = f"files[{index}]" + (
        f" ({raw['path']})" if isinstance(raw, dict) and isinstance(raw.get("path"), str) else ""
    )

    def fail(field: str | None, problem: str) -> CatalogueError:
        return CatalogueError(f"{_where(source, lines.get(field, _line(node)), label, field)}: {problem}")

    if not isinstance(raw, dict):
        raise fail(None, "an entry must be a mapping")
    unknown = sorted(set(raw) - set(ENTRY_FIELDS))
    if unknown:
        raise fail(unknown[0], f"unknown field (allowed: {', '.join(ENTRY_FIELDS)})")
    for name in REQUIRED_FIELDS:
        if name not in raw:
            raise fail(None, f"missing required field {name!r}")
    if problem := _check_path(raw["path"]):
        raise fail("path", problem)
    if not isinstance(raw["study"], str) or raw["study"] not in studies:
        raise fail("study", f"unknown study {raw['study']!r} (catalogued: {', '.join(studies)})")
    if not isinstance(raw["title"], str) or not raw["title"].strip():
        raise fail("title", "must be a non-empty string")
    paper = raw["paper"]
    if paper is not None and not (isinstance(paper, str) and PAPER_REFERENCE.fullmatch(paper)):
        raise fail("paper", f"{paper!r} is not a table or figure number such as 'Table 2' or 'Fig. 4' (or null)")
    for name in ("section", "caption", "condition"):
        if not _optional_text(raw.get(name)):
            raise fail(name, "must be a non-empty string or null")

    entry = CatalogueEntry(
        path=raw["path"],
        study=raw["study"],
        title=raw["title"].strip(),
        paper=paper,
        section=raw.get("section"),
        caption=raw.get("caption"),
        condition=raw.get("condition"),
    )
    if entry.kind == "figure" and not entry.caption:
        raise fail("caption", "a figure needs a caption")
    if entry.kind != "figure" and entry.caption:
        raise fail("caption", "only figures take a caption (tables have a title)")

    if "keys" not in raw and "pairs" not in raw:
        return entry
    if entry.kind != "table":
        raise fail("pairs" if "pairs" in raw else "keys", "keys and pairs apply to TSV tables only")
    if "pairs" not in raw or "keys" not in raw:
        raise fail("keys" if "keys" not in raw else "pairs", "keys and pairs go together (keys may be [])")
    keys, pairs = raw["keys"], raw["pairs"]
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys) or len(set(keys)) != len(keys):
        raise fail("keys", "must be a list of distinct column names")
    if not isinstance(pairs, dict) or not pairs:
        raise fail("pairs", "must map our columns to the paper's columns")
    for ours, theirs in pairs.items():
        if not isinstance(ours, str) or not isinstance(theirs, str):
            raise fail("pairs", f"{ours!r}: {theirs!r}: column names must be strings")
        if not theirs.startswith("paper"):
            raise fail("pairs", f"{ours!r} pairs with {theirs!r}: the paper's column must start with 'paper'")
        if ours.startswith("paper"):
            raise fail("pairs", f"{ours!r} is the paper's column: write ours first (ours: paper_...)")
    if overlap := sorted(set(keys) & (set(pairs) | set(pairs.values()))):
        raise fail("keys", f"{overlap[0]!r} is both a key and a paired column")
    return replace(entry, keys=tuple(keys), pairs=tuple(pairs.items()))


def load_catalogue(path: str | Path) -> Catalogue:
    """Read and validate the catalogue; a CatalogueError names the file, line, entry and field."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogueError(f"{source}: catalogue not found") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise CatalogueError(f"{source}: the top level must be a mapping with 'studies' and 'files'")
    top = _mapping_items(root)
    for name in sorted(set(data) - {"studies", "files"}):
        raise CatalogueError(f"{_where(source, _line(top.get(name)))}: unknown top-level key {name!r}")
    studies = data.get("studies")
    if not isinstance(studies, dict) or not studies:
        raise CatalogueError(
            f"{_where(source, _line(top.get('studies')), field='studies')}: must map study names to headings"
        )
    for name, heading in studies.items():
        if not isinstance(heading, str) or not heading.strip():
            line = _line(_mapping_items(top.get("studies")).get(str(name)))
            raise CatalogueError(f"{_where(source, line, field='studies')}: {name!r} needs a heading")
    files = data.get("files")
    if not isinstance(files, list) or not files:
        raise CatalogueError(f"{_where(source, _line(top.get('files')), field='files')}: must be a non-empty list")
    nodes = top["files"].value if isinstance(top.get("files"), yaml.SequenceNode) else [None] * len(files)
    entries: list[CatalogueEntry] = []
    first_line: dict[str, int | None] = {}
    for index, (raw, node) in enumerate(zip(files, nodes, strict=True)):
        entry = _parse_entry(raw, node, index, studies, source)
        if entry.path in first_line:
            raise CatalogueError(
                f"{_where(source, _line(node), f'files[{index}] ({entry.path})', 'path')}: "
                f"listed twice (first at line {first_line[entry.path]})"
            )
        first_line[entry.path] = _line(node)
        entries.append(entry)
    return Catalogue(studies=dict(studies), entries=tuple(entries), source=source)


# -- Rendering -------------------------------------------------------------------------------


def format_value(value: Any) -> str:
    """A table cell: "—" when missing, whole numbers in full, other numbers to 3 significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isinf(number):
            return "∞" if number > 0 else "-∞"
        if number.is_integer() and abs(number) < 1e15:
            return str(int(number))  # counts stay exact
        if abs(number) < 1e-3 or abs(number) >= 1e15:
            return f"{number:.{SIGNIFICANT_DIGITS}g}"  # p-values: 1e-05, not 0.00001
        return np.format_float_positional(
            number, precision=SIGNIFICANT_DIGITS, unique=False, fractional=False, trim="-"
        )
    text = str(value)
    return text if text else MISSING


def _cell(value: Any) -> str:
    return format_value(value).replace("|", "\\|").replace("\n", " ")


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def comparison_table(table: pd.DataFrame, keys: tuple[str, ...], pairs: tuple[tuple[str, str], ...]) -> str:
    """Markdown "ours vs paper": the key columns, then each of our columns beside the paper's.

    Rows where the paper gives none of the paired numbers are left out (and counted), so a
    ten-component spectrum with one paper value shows one row.
    """
    paper_columns = [theirs for _, theirs in pairs]
    with_paper = table[paper_columns].notna().any(axis=1)
    # Each of our columns is followed by the paper's: "final_pct | paper" reads as a pair.
    header = list(keys) + [column for ours, _ in pairs for column in (ours, "paper")]
    rows = [
        [_cell(row[k]) for k in keys] + [_cell(row[c]) for ours, theirs in pairs for c in (ours, theirs)]
        for _, row in table[with_paper].iterrows()
    ]
    if not rows:
        return "The paper gives no numbers for these rows."
    text = _markdown_table(header, rows)
    left_out = int((~with_paper).sum())
    if left_out:
        text += f"\n\n{left_out} row(s) without a paper number left out."
    return text


def _link(relative: str) -> str:
    return f"[`{relative}`](<{relative}>)" if " " in relative else f"[`{relative}`]({relative})"


def _reference(entry: CatalogueEntry) -> str:
    parts = [p for p in (entry.paper, entry.section) if p]
    if not parts:
        return "Paper: no table or figure."
    return f"Paper: {parts[0]}" + (f" ({parts[1]})" if len(parts) == 2 else "") + "."


def _header(path: Path) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.readline().rstrip("\r\n").split("\t")


def _read_table(path: Path) -> pd.DataFrame:
    try:
        return read_tsv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read as a TSV table: {exc}") from exc


def _scale_note(table: pd.DataFrame | None, scale: str) -> tuple[str, str | None]:
    """The file's scale line, and a problem when its `scale` column disagrees with the run."""
    if table is None or "scale" not in table.columns or table["scale"].isna().all():
        return "Scale: not recorded in the file.", None
    found = sorted({str(value) for value in table["scale"].dropna()})
    if found == [scale]:
        return f"Scale: `{scale}` (its `scale` column).", None
    said = ", ".join(f"`{value}`" for value in found)
    problem = f"its `scale` column says {said}, but this run is `{scale}`: a stale file from another run"
    return f"**STALE: {problem}.**", problem


def _file_block(
    results_dir: Path, relative: str, values: Mapping[str, str], entry: CatalogueEntry, scale: str
) -> tuple[str, list[str]]:
    """Markdown of one existing file, and its problems (stale scale, columns missing)."""
    problems: list[str] = []
    title = entry.title + (" (" + ", ".join(f"{k} = {v}" for k, v in values.items()) + ")" if values else "")
    lines = [f"### {_link(relative)}", "", f"{title}. {_reference(entry)}"]
    if entry.kind == "figure":
        lines += ["", f"*{' '.join(str(entry.caption).split())}*"]
    table = None
    # Read a table only for what the README shows: large data files such as the GAP-Subjective
    # release (free text, quotes) are never parsed when they carry no `scale` and no pairs.
    if entry.kind == "table" and (entry.pairs or "scale" in _header(results_dir / relative)):
        table = _read_table(results_dir / relative)
    scale_line, stale = _scale_note(table, scale)
    lines[-1] += f" {scale_line}"
    if stale:
        problems.append(stale)
    if table is not None and entry.pairs:
        wanted = list(entry.keys) + [c for pair in entry.pairs for c in pair]
        absent = [column for column in wanted if column not in table.columns]
        if absent:
            problem = (
                f"columns {', '.join(f'`{c}`' for c in absent)} named by the catalogue are missing "
                "(a stale file, or the catalogue is out of date)"
            )
            problems.append(problem)
            lines += ["", f"**{problem[0].upper()}{problem[1:]}.**"]
        else:
            lines += ["", comparison_table(table, entry.keys, entry.pairs)]
    return "\n".join(lines), problems


def _missing_line(entry: CatalogueEntry, study_disabled: bool) -> str:
    reason = (
        "study disabled in this config"
        if study_disabled
        else (f"optional: {entry.condition}" if entry.condition else "not found")
    )
    paper = f" ({entry.paper})" if entry.paper else ""
    return f"- `{entry.path}`: {entry.title}{paper}. *{reason}*"


def render_readme(
    results_dir: str | Path,
    catalogue: Catalogue,
    *,
    scale: str,
    config_name: str,
    disabled_studies: Collection[str] = (),
    claims: pd.DataFrame | None = None,
    signature: str | None = None,
) -> str:
    """Markdown of results/README.md for the files under `results_dir` (read, never written).

    `claims`, the ledger of :mod:`cdaflow.pipeline.claims`, becomes the README's first section; `signature`
    (:func:`cdaflow.pipeline.signature.signature_string`) is printed under the scale.

    Per study: each catalogued file that exists (link relative to `results_dir`, title, the paper's
    table or figure, the scale its `scale` column records, "ours vs paper" for paired columns,
    captions of figures), then the catalogued files not produced in this run.
    """
    results_dir = Path(results_dir)
    sections: list[str] = []
    problems: list[tuple[str, str]] = []
    present = missing = 0
    for study, heading in catalogue.studies.items():
        entries = [entry for entry in catalogue.entries if entry.study == study]
        if not entries:
            continue
        disabled = study in disabled_studies
        blocks, not_produced = [], []
        for entry in entries:
            found = entry.find(results_dir)
            if not found:
                not_produced.append(_missing_line(entry, disabled))
                missing += 1
            for relative, values in found:
                block, file_problems = _file_block(results_dir, relative, values, entry, scale)
                blocks.append(block)
                problems += [(relative, problem) for problem in file_problems]
                present += 1
        parts = [f"## {heading}" + (" (disabled in this config)" if disabled else "")]
        parts += blocks
        if not_produced:
            parts.append("### Not produced in this run\n\n" + "\n".join(not_produced))
        sections.append("\n\n".join(parts))

    header = [
        "# Results",
        "",
        f"Generated by the workflow's `results_readme` rule from `{catalogue.source}`; do not edit by hand.",
        "Each table and figure is listed with the paper's table or figure number; where the paper gives",
        "numbers, they stand beside ours (whole numbers in full, others to 3 significant digits, "
        f"{MISSING} where missing).",
        "",
        f"- Scale of this run: **{scale}**",
        f"- Config: `{config_name}`",
        f"- Files listed: {present}; catalogued entries not produced: {missing}",
    ]
    if signature:
        header.insert(-2, f"- Run signature (`signature.json`): `{signature}`")
    if problems:
        for relative, problem in problems:
            log.warning("%s: %s", relative, problem)
        header += ["", f"> **WARNING: {len(problems)} problem(s) in files of this folder:**", ">"]
        header += [f"> - `{relative}`: {problem}" for relative, problem in problems]
    if claims is not None:
        from cdaflow.pipeline.claims import render_section

        sections.insert(0, render_section(claims).rstrip("\n"))
    return "\n".join(header) + "\n\n" + "\n\n".join(sections) + "\n"
