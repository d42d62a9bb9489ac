"""The claims ledger: the four papers' headline claims, checked against this run's result tables.

``resources/claims.yaml`` holds the claims, and the papers' own files beside it,
``resources/<study>/paper.yaml`` (:mod:`cdaflow.paper`), their numbers; nothing here knows a number of a paper:

* paper values: every paper number a claim quotes, named ``<study>.<name>``, with its source
  (table, row, column or section); a value is a number or, for findings the paper states only in
  words or in a figure, ``text``.
* ``claims``: one entry per claim: ``id``, ``study``, ``claim`` (in words), ``paper`` (paper
  values to print as the paper's figures), ``check`` and optionally ``missing_table``
  (why its table may be absent, e.g. an optional stage), ``missing`` (why its row, column or
  cell may be absent, e.g. a model that needs a dataset only available at paper scale) and ``inputs``.
* ``inputs``: what each study's numbers grow with, as item keys of ``resources/cross_study/paper.yaml``
  (``{study: [key, ...]}``; a claim's own ``inputs`` overrides its study's, ``[]``: nothing that grows).

A check compares two operands: ``left``, an ``op`` and ``right`` (and ``target`` for
``closer_to``). Operands are a number, ``{paper: <key>}``, or a cell of a result table:
``{table: <path under results/>, where: {column: value, [values] or {prefix: text}},
column: <name>, aggregate: mean|min|max, nonzero: <column>}`` (without ``aggregate`` exactly one
row must match; a prefix match prints the row it found, e.g. which tests a SEAT average covers;
``nonzero`` names a count that must not be 0, e.g. the support behind a recall). Ops:

* ``>``, ``<``: strictly greater / less (a direction claim);
* ``>=``, ``<=``: not less / not more, allowing ``tolerance`` the wrong way;
* ``within``: ``|left - right| <= tolerance`` (magnitudes: "within 1 point", "near 0.685");
* ``closer_to``: ``|left - target| < |right - target|``.

The verdict is computed: ``holds``, ``does not hold``, or ``not computable here`` with the reason
(the missing file, row or cell, and the claim's ``missing`` note). A claim that does not hold gets a
computed reason too, so that a reader can tell a scale effect from a defect: by how much ours misses
(:func:`_miss`), the paper's figures, and the scale it was measured at: the run's count of each of the
claim's inputs against the paper's (:func:`cdaflow.pipeline.scale_notes.measured_items`), and what that makes
likely (a run far below the paper's inputs need not reproduce its finding; one at the paper's should).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cdaflow import paper
from cdaflow.pipeline import scale_notes

__all__ = [
    "HOLDS",
    "NOT_COMPUTABLE",
    "NOT_HOLDS",
    "Claim",
    "ClaimsError",
    "Ledger",
    "evaluate",
    "ledger_table",
    "load_claims",
    "render_section",
]

HOLDS, NOT_HOLDS, NOT_COMPUTABLE = "holds", "does not hold", "not computable here"
INPUTS_STUDY = "cross_study"  # the paper file whose values count each kind of input at paper scale
# A run with less than this share of the paper's inputs is read as a small run (a scale effect is likely).
SMALL_SHARE = 0.5
OPS = (">", "<", ">=", "<=", "within", "closer_to")
AGGREGATES = {"mean": "mean", "min": "min", "max": "max"}
LEDGER_COLUMNS = (
    "id", "study", "claim", "paper_value", "paper_source", "ours", "test", "scale", "verdict", "reason", "tables",
)


class ClaimsError(ValueError):
    """The claims file is malformed; the message names the file, claim and field."""


class NotComputable(Exception):
    """An operand cannot be read from this run's tables (the message says why)."""

    def __init__(self, message: str, *, table_missing: bool = False):
        super().__init__(message)
        self.table_missing = table_missing


@dataclass(frozen=True)
class Claim:
    id: str
    study: str
    claim: str
    check: Mapping[str, Any]
    paper: tuple[str, ...] = ()
    missing: str = ""
    missing_table: str = ""
    inputs: tuple[str, ...] | None = None  # item keys of resources/cross_study/paper.yaml its numbers grow with


@dataclass(frozen=True)
class Ledger:
    paper_values: Mapping[str, Mapping[str, Any]]
    claims: tuple[Claim, ...]
    source: str = ""


def _operand_errors(operand: Any, where: str, paper_values: Mapping[str, Any]) -> list[str]:
    if isinstance(operand, bool):
        return [f"{where}: a boolean is not a number"]
    if isinstance(operand, (int, float)):
        return []
    if not isinstance(operand, Mapping):
        return [f"{where}: expected a number, {{paper: key}} or {{table, where, column}}"]
    if "paper" in operand:
        key = operand["paper"]
        if key not in paper_values:
            return [f"{where}.paper: unknown paper value {key!r}"]
        if not isinstance(paper_values[key].get("value"), (int, float)):
            return [f"{where}.paper: {key!r} has no numeric value"]
        return []
    problems = [f"{where}: field {name} is missing" for name in ("table", "column") if not operand.get(name)]
    unknown = set(operand) - {"table", "where", "column", "aggregate", "nonzero"}
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    if "where" in operand and not isinstance(operand["where"], Mapping):
        problems.append(f"{where}.where: expected a mapping column -> value")
    for column, wanted in (operand.get("where") or {}).items() if isinstance(operand.get("where"), Mapping) else ():
        if isinstance(wanted, Mapping) and set(wanted) != {"prefix"}:
            problems.append(f"{where}.where.{column}: expected a value, a list of values or {{prefix: text}}")
    if "aggregate" in operand and operand["aggregate"] not in AGGREGATES:
        problems.append(f"{where}.aggregate: {operand['aggregate']!r} is not one of {', '.join(AGGREGATES)}")
    return problems


def _input_errors(keys: Any, where: str, paper_values: Mapping[str, Any]) -> list[str]:
    """Problems of an ``inputs`` list: item keys of ``resources/cross_study/paper.yaml``."""
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        return [f"{where}: expected a list of item keys of cross_study/paper.yaml"]
    return [
        f"{where}: unknown item {key!r} (not in cross_study/paper.yaml)"
        for key in keys
        if not isinstance(paper_values.get(f"{INPUTS_STUDY}.{key}", {}).get("value"), (int, float))
    ]


def _inputs(entry: Mapping[str, Any], study_inputs: Mapping[str, Any]) -> tuple[str, ...] | None:
    """A claim's inputs: its own, else its study's; None where neither is declared."""
    if "inputs" in entry:
        return tuple(entry["inputs"])
    return tuple(study_inputs[entry["study"]]) if entry["study"] in study_inputs else None


def load_claims(path: str | Path) -> Ledger:
    """The claims of `path` with the paper values of the ``<study>/paper.yaml`` files beside it
    (``resources/claims.yaml``: ``resources/<study>/paper.yaml``), checked; a malformed file raises
    :class:`ClaimsError`."""
    path = Path(path)
    data = paper.read_yaml_mapping(
        path, "claims", list, "a mapping with a list `claims`", ClaimsError, encoding="utf-8"
    )
    paper_values: dict[str, dict[str, Any]] = {}
    for study in paper.studies(path.parent):
        try:
            values = paper.load(study, path.parent)
        except paper.PaperError as exc:
            raise ClaimsError(str(exc)) from exc
        paper_values |= {f"{study}.{name}": entry for name, entry in values.items()}
    problems: list[str] = []
    study_inputs = data.get("inputs") or {}
    if not isinstance(study_inputs, Mapping):
        problems.append(f"{path}: field inputs: expected a mapping study -> [item key, ...]")
        study_inputs = {}
    for study, keys in study_inputs.items():
        problems += _input_errors(keys, f"{path}: field inputs.{study}", paper_values)
    claims, seen = [], set()
    for number, entry in enumerate(data["claims"], start=1):
        ident = entry.get("id") if isinstance(entry, Mapping) else None
        where = f"{path}: claim {ident or f'#{number}'}"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: expected a mapping")
            continue
        for name in ("id", "study", "claim", "check"):
            if not entry.get(name):
                problems.append(f"{where}: field {name} is missing")
        if ident in seen:
            problems.append(f"{where}: field id: repeated")
        seen.add(ident)
        unknown = set(entry) - {"id", "study", "claim", "paper", "check", "missing", "missing_table", "inputs"}
        if unknown:
            problems.append(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        for key in entry.get("paper") or ():
            if key not in paper_values:
                problems.append(f"{where}: field paper: unknown paper value {key!r}")
        if "inputs" in entry:
            problems += _input_errors(entry["inputs"], f"{where}: field inputs", paper_values)
        check = entry.get("check") or {}
        if not isinstance(check, Mapping):
            problems.append(f"{where}: field check: expected a mapping")
            continue
        op = check.get("op")
        if op not in OPS:
            problems.append(f"{where}: field check.op: {op!r} is not one of {', '.join(OPS)}")
        operands = ("left", "right", "target") if op == "closer_to" else ("left", "right")
        for name in operands:
            if name not in check:
                problems.append(f"{where}: field check.{name} is missing")
            else:
                problems += _operand_errors(check[name], f"{where}: field check.{name}", paper_values)
        tolerance = check.get("tolerance", 0)
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or tolerance < 0:
            problems.append(f"{where}: field check.tolerance: expected a number >= 0")
        if problems:
            continue
        claims.append(
            Claim(
                id=str(ident), study=str(entry["study"]), claim=" ".join(str(entry["claim"]).split()),
                check=check, paper=tuple(entry.get("paper") or ()),
                missing=" ".join(str(entry.get("missing", "")).split()),
                missing_table=" ".join(str(entry.get("missing_table", "")).split()),
                inputs=_inputs(entry, study_inputs),
            )
        )
    if problems:
        raise ClaimsError("\n".join(problems))
    return Ledger(paper_values, tuple(claims), str(path))


@dataclass
class _Tables:
    """Result tables read once each, as text (numbers are converted where a cell is used)."""

    results_dir: Path
    cache: dict[str, pd.DataFrame | None] = field(default_factory=dict)
    used: list[str] = field(default_factory=list)

    def get(self, relative: str) -> pd.DataFrame:
        if relative not in self.used:
            self.used.append(relative)
        if relative not in self.cache:
            path = self.results_dir / relative
            self.cache[relative] = (
                pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False) if path.is_file() else None
            )
        table = self.cache[relative]
        if table is None:
            raise NotComputable(f"results/{relative} is missing", table_missing=True)
        return table


def _matches(column: pd.Series, wanted: Any) -> pd.Series:
    """Rows whose cell equals `wanted` (or one of a list), or starts with ``{prefix: ...}``."""
    if isinstance(wanted, Mapping):
        return column.str.startswith(str(wanted["prefix"]))
    values = wanted if isinstance(wanted, list) else [wanted]
    return column.isin([str(value) for value in values])


def _show(wanted: Any) -> str:
    if isinstance(wanted, Mapping):
        return f"{wanted['prefix']}*"
    return "/".join(map(str, wanted)) if isinstance(wanted, list) else str(wanted)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _operand(operand: Any, tables: _Tables, paper_values: Mapping[str, Mapping[str, Any]]) -> tuple[float, str]:
    """(value, what it is): a constant's label is empty, a cell's names its row and column."""
    if isinstance(operand, (int, float)):
        return float(operand), ""
    if "paper" in operand:
        return float(paper_values[operand["paper"]]["value"]), ""
    relative, column = operand["table"], operand["column"]
    table = tables.get(relative)
    where = operand.get("where") or {}
    selector = ", ".join(f"{k}={_show(v)}" for k, v in where.items()) or "any row"
    nonzero = [operand["nonzero"]] if operand.get("nonzero") else []
    for name in [*where, column, *nonzero]:
        if name not in table.columns:
            raise NotComputable(f"results/{relative} has no column {name}")
    chosen = table
    for name, wanted in where.items():
        chosen = chosen[_matches(chosen[name], wanted)]
    if chosen.empty:
        raise NotComputable(f"results/{relative} has no row {selector}")
    for name in nonzero:
        # A rate over no items (recall of a class absent from the set) says nothing.
        if (chosen[name].map(_number).fillna(0) == 0).any():
            raise NotComputable(
                f"results/{relative}: {name} is 0 at {selector} (no such items), so {column} cannot be judged"
            )
    values = chosen[column].map(_number)
    aggregate = operand.get("aggregate")
    if aggregate is None:
        if len(values) > 1:
            raise NotComputable(f"results/{relative}: {len(values)} rows match {selector}, the claim needs one")
        value = values.iloc[0]
        # A prefix match shows the row it found (e.g. which SEAT tests an average covers).
        label = " ".join(chosen[name].iloc[0] if isinstance(w, Mapping) else _show(w) for name, w in where.items())
    else:
        if values.isna().any():
            raise NotComputable(f"results/{relative}: an empty {column} among the rows {selector}")
        value = getattr(values, AGGREGATES[aggregate])()
        label = aggregate + " " + " ".join(_show(w) for w in where.values())
    if math.isnan(value):
        raise NotComputable(f"results/{relative}: {column} is empty at {selector}")
    return float(value), f"{label} {column}".strip()


def _describe(check: Mapping[str, Any]) -> str:
    op, tolerance = check["op"], check.get("tolerance", 0)
    if op == "within":
        return f"|ours - reference| <= {tolerance:g}"
    if op == "closer_to":
        return "ours closer to the target than the reference"
    slack = f" (tolerance {tolerance:g})" if tolerance and op in (">=", "<=") else ""
    return f"ours {op} reference{slack}"


def _holds(check: Mapping[str, Any], left: float, right: float, target: float | None) -> bool:
    op, tolerance = check["op"], float(check.get("tolerance", 0))
    if op == ">":
        return left > right
    if op == "<":
        return left < right
    if op == ">=":
        return left >= right - tolerance
    if op == "<=":
        return left <= right + tolerance
    if op == "within":
        return abs(left - right) <= tolerance
    assert target is not None
    return abs(left - target) < abs(right - target)


def _format(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 1e6 else f"{value:.3e}"


def _side(value: float, label: str) -> str:
    return f"{_format(value)} ({label})" if label else _format(value)


def _percent(share: float) -> str:
    percent = 100 * share
    return f"{percent:.0f} %" if percent >= 10 else f"{percent:.2g} %"


def _miss(
    check: Mapping[str, Any], left: float, right: float, target: float | None = None, labels: Sequence[str] = ("", "")
) -> str:
    """How ``left <op> right`` fails, and by how much (beyond the tolerance where the check has one)."""
    op, tolerance = check["op"], float(check.get("tolerance", 0))
    ours, reference, gap = _side(left, labels[0]), _side(right, labels[1]), abs(left - right)
    beyond = f", {_format(gap - tolerance)} beyond the tolerance {_format(tolerance)}" if tolerance else ""
    if op in (">", "<"):
        word, short = ("above", "short") if op == ">" else ("below", "over")
        return f"ours {ours} is not {word} {reference}: " + (f"{_format(gap)} {short}" if gap else "equal")
    if op in (">=", "<="):
        return f"ours {ours} is {_format(gap)} {'below' if op == '>=' else 'above'} {reference}{beyond}"
    if op == "within":
        return f"ours {ours} is {_format(gap)} from {reference}{beyond}"
    assert target is not None
    return (
        f"ours {ours} is {_format(abs(left - target))} from the target {_format(target)}, "
        f"{reference} {_format(abs(right - target))}"
    )


def _scale_note(
    scale: str, inputs: Sequence[str] | None, measured: Mapping[str, float], paper_counts: Mapping[str, float]
) -> str:
    """The scale a claim was measured at: the run's count of each of its `inputs` (item keys) against the
    paper's, and what that makes likely: a scale effect (under :data:`SMALL_SHARE` of the paper's inputs,
    or a run below paper scale whose counts are unknown) or not (at the paper's inputs: a defect to look for).
    `inputs` ``[]``: nothing the claim reads grows with the scale; None: not declared (the scale alone speaks)."""
    at = f"at {scale} scale" if scale else "at an unstated scale"
    if inputs is not None and not inputs:
        return f"measured {at}; none of its inputs grows with the run's scale, so not a scale effect: look for a defect"
    counts, shares, uncounted = [], [], []
    for key in inputs or ():
        have, full, name = measured.get(key), paper_counts.get(key), key.replace("_", " ")
        if have is None or not full:
            uncounted.append(name)
            continue
        shares.append(have / full)
        counts.append(f"{have:,.0f} of the paper's {full:,.0f} {name} ({_percent(have / full)})")
    text = f"measured {at}" + (f" on {'; '.join(counts)}" if counts else "" if inputs else " (inputs not declared)")
    if uncounted:
        text += f" ({', '.join(uncounted)}: not counted in this run's outputs)"
    if shares:
        small = min(shares) < SMALL_SHARE
    elif scale:
        small = scale != "paper"
    else:
        return f"{text}: neither the scale nor the inputs are known, so a scale effect cannot be told from a defect"
    if small:
        return f"{text}: a run this much smaller than the paper's need not reproduce its finding, likely a scale effect"
    return f"{text}: at or near the paper's scale, so not a scale effect: look for a defect or a data difference"


def evaluate(
    claim: Claim,
    results_dir: str | Path,
    ledger: Ledger,
    scale: str = "",
    *,
    measured: Mapping[str, float] | None = None,
) -> dict[str, str]:
    """One ledger row: the claim, the paper's figures, ours, the verdict and its reason.

    `measured`: the run's item counts (:func:`cdaflow.pipeline.scale_notes.measured_items` of `results_dir` when not
    given), for the reason of a claim that does not hold."""
    tables = _Tables(Path(results_dir))
    paper_parts = []
    for key in claim.paper:
        entry = ledger.paper_values[key]
        paper_parts.append(str(entry["value"]) if "value" in entry else str(entry["text"]))
    row = {
        "id": claim.id,
        "study": claim.study,
        "claim": claim.claim,
        "paper_value": " vs ".join(paper_parts),
        "paper_source": "; ".join(str(ledger.paper_values[key]["source"]) for key in claim.paper),
        "ours": "",
        "test": _describe(claim.check),
        "scale": scale,
        "verdict": "",
        "reason": "",
        "tables": "",
    }
    check = claim.check
    failed = ""
    try:
        left, left_label = _operand(check["left"], tables, ledger.paper_values)
        right, right_label = _operand(check["right"], tables, ledger.paper_values)
        target = _operand(check["target"], tables, ledger.paper_values)[0] if check["op"] == "closer_to" else None
    except NotComputable as exc:
        row["verdict"] = NOT_COMPUTABLE
        note = claim.missing_table if exc.table_missing else claim.missing
        row["reason"] = str(exc) + (f": {note}" if note else "")
    else:
        holds = _holds(check, left, right, target)
        row["verdict"] = HOLDS if holds else NOT_HOLDS
        failed = "" if holds else _miss(check, left, right, target, (left_label, right_label))
        ours = f"{_side(left, left_label)} vs {_side(right, right_label)}"
        if target is not None:
            ours += f"; target {_format(target)}"
        row["ours"] = ours
    row["tables"] = ", ".join(tables.used)
    scales = sorted(
        {
            value
            for table in tables.cache.values()
            if table is not None and "scale" in table.columns
            for value in table["scale"].unique()
            if value
        }
    )
    if scales:
        row["scale"] = ",".join(scales)
    if failed:
        if measured is None:
            measured = scale_notes.measured_items(results_dir)
        paper_counts = {
            key.removeprefix(f"{INPUTS_STUDY}."): float(entry["value"])
            for key, entry in ledger.paper_values.items()
            if key.startswith(f"{INPUTS_STUDY}.") and isinstance(entry.get("value"), (int, float))
        }
        paper_says = f"; the paper: {row['paper_value']}" if row["paper_value"] else ""
        row["reason"] = f"{failed}{paper_says}; {_scale_note(row['scale'], claim.inputs, measured, paper_counts)}"
    return row


def ledger_table(results_dir: str | Path, ledger: Ledger, scale: str = "") -> pd.DataFrame:
    """Every claim of `ledger` checked against the tables under `results_dir`; a claim that does not hold
    says why (:func:`evaluate`), from the run's item counts read once here."""
    measured = scale_notes.measured_items(results_dir)
    rows = [evaluate(claim, results_dir, ledger, scale, measured=measured) for claim in ledger.claims]
    return pd.DataFrame(rows, columns=list(LEDGER_COLUMNS))


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ") if text is not None and text == text else ""


def render_section(table: pd.DataFrame, *, link: str = "claims.tsv") -> str:
    """Markdown section "The papers' claims, checked" for the top of results/README.md."""
    counts = table["verdict"].value_counts()
    summary = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in (HOLDS, NOT_HOLDS, NOT_COMPUTABLE))
    lines = [
        "## The papers' claims, checked",
        "",
        f"{len(table)} headline claims of the four papers, each checked against this run's tables "
        f"([`{link}`]({link}); claims, tolerances and the cells they read: `resources/claims.yaml`). "
        f"Verdicts are computed, never typed: {summary}. A claim checked at demo or validation scale "
        "says what these small runs show, not what the paper's full-scale run would.",
    ]
    if "signature" in table and len(table):
        lines += ["", f"Checked on the run signed `{table['signature'].iloc[0]}`."]
    lines += [
        "",
        "| id | claim | paper | ours | scale | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for _, row in table.iterrows():
        reason = _cell(row.get("reason"))  # does not hold / not computable here: why
        verdict = f"{row['verdict']}: {reason}" if row["verdict"] != HOLDS and reason else row["verdict"]
        verdict = f"**{verdict}**" if row["verdict"] == HOLDS else verdict
        lines.append(
            "| "
            + " | ".join(
                _cell(v) for v in (row["id"], row["claim"], row["paper_value"], row["ours"], row["scale"], verdict)
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the papers' claims against a results folder.")
    parser.add_argument("--results", type=Path, default=Path("results"), help="the results folder to read")
    parser.add_argument("--claims", type=Path, default=Path("resources/claims.yaml"))
    parser.add_argument("--scale", default="", help="the run's scale, when a table has no scale column")
    parser.add_argument("--output", type=Path, help="write the ledger TSV here (default: stdout)")
    args = parser.parse_args(argv)
    if not args.results.is_dir():
        print(f"--results {args.results}: no such folder", file=sys.stderr)
        return 2
    try:
        ledger = load_claims(args.claims)
    except ClaimsError as exc:
        print(exc, file=sys.stderr)
        return 2
    table = ledger_table(args.results, ledger, args.scale)
    if args.output:
        from cdaflow.io.tables import write_tsv_atomic

        write_tsv_atomic(table, args.output)
    else:
        table.to_csv(sys.stdout, sep="\t", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
