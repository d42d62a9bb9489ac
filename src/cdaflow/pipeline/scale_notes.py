"""Scale notes: measured cost of every rule and the paper-scale run it implies.

**Measured.** :func:`read_benchmarks` reads the Snakemake ``benchmark:`` files under a
``results/benchmarks`` tree (columns ``s, h:m:s, max_rss, max_vms, max_uss, max_pss, io_in, io_out,
mean_load, cpu_time``; one row per run, several with ``repeat()``) into one row per file: study (the
first folder), rule, wildcards, wall seconds and CPU seconds (means over repeats), peak RSS in MB (the
largest), and the file's modification time (the demo and validation runs share ``results/``, so a file
may be older than the run reading it). Rule and wildcards come from the rules' own benchmark patterns
when given (:func:`match_benchmark`), else from the path (``<study>/<rule>/<wildcards...>.tsv``).

**Extrapolated.** :func:`estimate_paper_scale` scales each rule's measured cost linearly by
``items at paper scale / items measured``, where an item is what the rule's work grows with
(sentences, pairs, examples), declared in ``resources/jobs.yaml`` (:func:`cdaflow.pipeline.cluster.rule_items`;
data, not a rule param, so that editing it reruns nothing but the scale notes). Costs are CPU seconds
(``cpu_time``, else wall seconds): on a shared machine wall time also counts waiting for the other jobs'
cores. The runs
measured are CPU-only, so **GPU hours are derived**: the CPU cost of the rules that ask for a GPU
(``gpu`` resource) divided by their family's speed-up measured on a GPU (``resources/jobs_gpu.tsv``,
``benchmarks/gpu_speedup.py``), or by the assumed ``gpu_speedup`` (default :data:`DEFAULT_GPU_SPEEDUP`)
for a rule not measured; the same rules' CPU-only cost is reported beside it. Linear scaling
ignores fixed start-up costs (model loading: overestimated) and super-linear steps (more training
epochs, longer sentences at paper scale: underestimated); it is an order of magnitude, not a quote.

Paper-scale item counts (:func:`paper_items`, data in ``resources/cross_study/paper.yaml`` with
their sources) and the run's own counts (:func:`measured_items`, read from its outputs) share the
item keys.
"""

from __future__ import annotations

import csv
import logging
import re
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from cdaflow import paper

__all__ = [
    "BENCHMARK_COLUMNS",
    "DEFAULT_GPU_SPEEDUP",
    "STUDY_ITEMS",
    "estimate_paper_scale",
    "match_benchmark",
    "measured_items",
    "paper_items",
    "read_benchmark",
    "read_benchmarks",
    "rule_benchmarks",
    "rule_name",
    "rules_with_gpu",
    "scale_by_rule",
]

log = logging.getLogger(__name__)

BENCHMARK_COLUMNS: tuple[str, ...] = (
    "s", "h:m:s", "max_rss", "max_vms", "max_uss", "max_pss", "io_in", "io_out", "mean_load", "cpu_time",
)  # fmt: skip
# Assumed GPU / one-CPU-core speed-up of the GPU rules (transformer and LSTM training and
# inference, stanza parsing); a round figure for a single modern GPU against one core, not measured.
DEFAULT_GPU_SPEEDUP = 20.0

# A rule's work grows with the item resources/jobs.yaml names for it (a key of paper_items() /
# measured_items(); "-": its cost does not grow with the data, reported unscaled). Rules it does not
# name use their study's.
STUDY_ITEMS: dict[str, str] = {
    "common": "corpus_sentences",
    "morph_cda": "morph_train_sentences",
    "regender": "regender_candidates",
    "sentence_bias": "snli_pairs",
    "gap_subjective": "gap_examples",
    "cross_study": "-",
}


def paper_items(resources: str | Path | None = None) -> tuple[dict[str, float], dict[str, str]]:
    """(count, source) of every item kind at paper scale, from ``resources/cross_study/paper.yaml``."""
    values = paper.load("cross_study", resources)
    return {k: float(v["value"]) for k, v in values.items()}, {k: v["source"] for k, v in values.items()}


def rule_name(study: str, stage: str) -> str:
    """A rule's name from its study and stage: ``<study>_<stage>`` (shared rules: ``<stage>``)."""
    return stage if study == "common" else f"{study}_{stage}"


def rule_benchmarks(rules: Iterable[Any]) -> dict[str, str]:
    """Rule name -> its ``benchmark:`` pattern, for naming the benchmark files (Snakemake's ``workflow.rules``)."""
    return {rule.name: str(rule.benchmark) for rule in rules if rule.benchmark is not None}


def rules_with_gpu(rules: Iterable[Any]) -> list[str]:
    """The rules that ask for a GPU (a ``gpu`` resource, or a ``gres`` of gpu in compute.slurm's gres form):
    where the paper-scale run would use one."""

    def asks_for_a_gpu(resources) -> bool:
        gres = str(resources.get("gres") or "").split(",")
        return "gpu" in resources or any(part.strip().startswith("gpu") for part in gres)

    return sorted(rule.name for rule in rules if rule.resources is not None and asks_for_a_gpu(rule.resources))


def read_benchmark(path: str | Path) -> dict[str, float]:
    """One benchmark file: mean wall and CPU seconds over its rows, largest RSS (MB), row count."""
    path = Path(path)
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    if not rows or "s" not in rows[0] or "max_rss" not in rows[0]:
        raise ValueError(f"{path}:1: not a Snakemake benchmark file (header lacks s / max_rss)")
    header, body = rows[0], [r for r in rows[1:] if r]
    if not body:
        raise ValueError(f"{path}: benchmark file without measurements")

    def number(row: list[str], number_: int, name: str) -> float:
        if name not in header:
            return float("nan")
        cell = row[header.index(name)] if header.index(name) < len(row) else ""
        if cell in ("", "-", "NA"):  # Snakemake writes "-" where psutil could not measure
            return float("nan")
        try:
            return float(cell)
        except ValueError:
            raise ValueError(f"{path}:{number_}: field {name}: {cell!r} is not a number") from None

    walls = [number(r, n, "s") for n, r in enumerate(body, 2)]
    cpus = [number(r, n, "cpu_time") for n, r in enumerate(body, 2)]
    rss = [number(r, n, "max_rss") for n, r in enumerate(body, 2)]
    return {
        "wall_s": float(pd.Series(walls).mean()),
        "cpu_s": float(pd.Series(cpus).mean()),
        "peak_rss_mb": float(pd.Series(rss).max()),
        "runs": len(body),
    }


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A Snakemake path pattern as a regex; ``{name}`` / ``{name,regex}`` match within one folder."""
    out, position = [], 0
    for match in re.finditer(r"\{([A-Za-z_]\w*)(?:,([^{}]+))?\}", pattern):
        out.append(re.escape(pattern[position : match.start()]))
        out.append(f"(?P<{match.group(1)}>{match.group(2) or '[^/]+?'})")
        position = match.end()
    out.append(re.escape(pattern[position:]))
    return re.compile("".join(out))


def match_benchmark(relative: str, patterns: Mapping[str, str]) -> tuple[str, dict[str, str]] | None:
    """(rule, wildcards) of a benchmark path (relative to the project) from the rules' patterns."""
    for rule, pattern in patterns.items():
        found = _pattern_regex(pattern).fullmatch(relative)
        if found:
            return rule, found.groupdict()
    return None


def read_benchmarks(
    root: str | Path, patterns: Mapping[str, str] | None = None, *, project: str | Path = "."
) -> pd.DataFrame:
    """One row per benchmark file under `root`.

    Columns: study, rule, wildcards, wall_s, cpu_s, peak_rss_mb, runs, path, modified.

    `patterns` maps a rule name to its ``benchmark:`` pattern relative to `project` (e.g.
    ``results/benchmarks/common/treebank_split/{treebank}/{split}.tsv``); a file no pattern matches
    is named from its path, ``<study>/<stage>/<wildcards>.tsv`` (:func:`rule_name`:
    ``sentence_bias/score_snli.tsv`` is rule ``sentence_bias_score_snli``).
    """
    root, project = Path(root), Path(project)
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        parts = path.relative_to(root).with_suffix("").parts
        try:
            relative = path.resolve().relative_to(project.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        matched = match_benchmark(relative, patterns or {})
        if matched:
            rule, wildcards = matched[0], ",".join(f"{k}={v}" for k, v in matched[1].items())
        elif len(parts) == 1:
            rule, wildcards = parts[0], ""
        else:
            rule, wildcards = rule_name(parts[0], parts[1]), "/".join(parts[2:])
        rows.append(
            {
                "study": parts[0] if len(parts) > 1 else "",
                "rule": rule,
                "wildcards": wildcards,
                **read_benchmark(path),
                "path": relative,
                "modified": datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    columns = ["study", "rule", "wildcards", "wall_s", "cpu_s", "peak_rss_mb", "runs", "path", "modified"]
    return pd.DataFrame(rows, columns=columns)


def _count_lines(path: Path) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip())


def measured_items(results: str | Path) -> dict[str, float]:
    """Item counts of the run whose outputs are under `results`, for the keys of :func:`paper_items`.

    Read from: ``common/parsing_summary.tsv`` (treebank and corpus sentences),
    ``morph_cda/*/prepare/summary.tsv`` (train sentences), ``regender/es/candidates/counts.tsv``
    (candidate lines) and ``regender/es/tableA1_parallel_stats.tsv`` (train segments),
    ``sentence_bias/snli/*.jsonl`` (pairs), ``sentence_bias/vectors/vocab.txt`` (GloVe words converted),
    ``gap_subjective/wnc_stats.tsv`` (pairs) and
    ``gap_subjective/sentences/gap-*.tsv`` (examples). A missing output leaves its key out.
    """
    results = Path(results)
    items: dict[str, float] = {}
    summary = results / "common" / "parsing_summary.tsv"
    if summary.is_file():
        table = pd.read_csv(summary, sep="\t")
        for kind, key in (("treebank", "treebank_sentences"), ("corpus", "corpus_sentences")):
            chosen = table[table["kind"] == kind]
            if len(chosen):
                items[key] = float(chosen["sentences"].sum())
    train = [pd.read_csv(path, sep="\t") for path in sorted(results.glob("morph_cda/*/prepare/summary.tsv"))]
    if train:
        items["morph_train_sentences"] = float(sum(t.loc[t["part"] == "train", "sentences"].sum() for t in train))
    counts = results / "regender" / "es" / "candidates" / "counts.tsv"
    if counts.is_file():
        items["regender_candidates"] = float(pd.read_csv(counts, sep="\t")["lines"].sum())
    parallel = results / "regender" / "es" / "tableA1_parallel_stats.tsv"
    if parallel.is_file():
        table = pd.read_csv(parallel, sep="\t")
        items["regender_train_pairs"] = float(
            table.loc[(table["set"] == "train") & (table["type"] == "all"), "segments"].sum()
        )
    snli = sorted((results / "sentence_bias" / "snli").glob("*.jsonl"))
    if snli:
        items["snli_pairs"] = float(sum(_count_lines(path) for path in snli))
    wnc = results / "gap_subjective" / "wnc_stats.tsv"
    if wnc.is_file():
        items["wnc_pairs"] = float(pd.read_csv(wnc, sep="\t")["pairs"].sum())
    vocab = results / "sentence_bias" / "vectors" / "vocab.txt"  # a GloVe text file converted here
    if vocab.is_file():
        items["glove_words"] = float(_count_lines(vocab))
    gap = sorted((results / "gap_subjective" / "sentences").glob("gap-*.tsv"))
    if gap:
        items["gap_examples"] = float(sum(_count_lines(path) - 1 for path in gap))  # minus the header
    return items


def _item_key(rule: str, study: str, rule_items: Mapping[str, str]) -> str:
    return rule_items.get(rule, STUDY_ITEMS.get(study, "-"))


def scale_by_rule(
    measured: pd.DataFrame,
    items_measured: Mapping[str, float],
    items_paper: Mapping[str, float],
    gpu_rules: Collection[str] = (),
    *,
    rule_items: Mapping[str, str] | None = None,
    gpu_speedup: float = DEFAULT_GPU_SPEEDUP,
    measured_speedups: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Paper-scale CPU and GPU hours of each rule, extrapolated linearly from its measured cost.

    `measured` is :func:`read_benchmarks`' table; `items_measured` / `items_paper` map an item key
    to its count in the measured run / at paper scale; `rule_items` maps a rule to its item key
    (``resources/jobs.yaml``; else :data:`STUDY_ITEMS`); `gpu_rules` are the
    rules that get a GPU at paper scale. A rule's cost is ``cpu_s`` (``wall_s`` where missing) summed
    over its files, times ``factor = items_paper / items_measured`` (1 for key ``-``; NaN when a count
    is missing). A GPU rule's cost goes to ``gpu_hours`` divided by its speed-up (``gpu_speedup``
    column): `measured_speedups` of the rule (``resources/jobs_gpu.tsv``), else the assumed `gpu_speedup`;
    undivided, to ``gpu_rules_cpu_hours``.
    """
    measured_speedups = dict(measured_speedups or {})
    for rule, speedup in [("gpu_speedup", gpu_speedup), *measured_speedups.items()]:
        if not speedup > 0:
            raise ValueError(f"{rule}: a speed-up must be positive, got {speedup}")
    cost = measured["cpu_s"].where(measured["cpu_s"].notna() & (measured["cpu_s"] > 0), measured["wall_s"])
    grouped = measured.assign(cost=cost).groupby(["study", "rule"], sort=True)["cost"].sum().reset_index()
    rows = []
    for row in grouped.itertuples(index=False):
        key = _item_key(row.rule, row.study, rule_items or {})
        if key == "-":
            have, paper, factor = float("nan"), float("nan"), 1.0
        else:
            have, paper = float(items_measured.get(key, float("nan"))), float(items_paper.get(key, float("nan")))
            factor = paper / have if have > 0 else float("nan")
        hours = row.cost * factor / 3600
        gpu = row.rule in gpu_rules
        speedup = measured_speedups.get(row.rule, gpu_speedup) if gpu else float("nan")
        rows.append(
            {
                "study": row.study,
                "rule": row.rule,
                "items": key,
                "items_measured": have,
                "items_paper": paper,
                "factor": factor,
                "measured_cpu_s": row.cost,
                "gpu": gpu,
                "cpu_hours": 0.0 if gpu else hours,
                "gpu_speedup": speedup,
                "gpu_speedup_measured": gpu and row.rule in measured_speedups,
                "gpu_hours": hours / speedup if gpu else 0.0,
                "gpu_rules_cpu_hours": hours if gpu else 0.0,
            }
        )
    columns = ["study", "rule", "items", "items_measured", "items_paper", "factor", "measured_cpu_s", "gpu",
               "gpu_speedup", "gpu_speedup_measured", "cpu_hours", "gpu_hours", "gpu_rules_cpu_hours"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def estimate_paper_scale(per_rule: pd.DataFrame, gpu_speedup: float = DEFAULT_GPU_SPEEDUP) -> pd.DataFrame:
    """Per study: paper-scale CPU hours, GPU hours (measured or assumed speed-ups), GPU rules' CPU hours.

    The sums of :func:`scale_by_rule`'s table `per_rule`; `gpu_speedup`, the assumed speed-up that table
    was computed with (for its GPU rules without a measured one), is recorded beside them. Rules whose
    item count is missing cannot be scaled: they are left out of the sums and named in ``unscaled_rules``.
    """
    rows = []
    for study, group in per_rule.groupby("study", sort=True):
        scaled = group[group["factor"].notna()]
        rows.append(
            {
                "study": study,
                "rules": len(group),
                "measured_cpu_s": float(group["measured_cpu_s"].sum()),
                "cpu_hours": float(scaled["cpu_hours"].sum()),
                "gpu_hours": float(scaled["gpu_hours"].sum()),
                "gpu_rules_cpu_hours": float(scaled["gpu_rules_cpu_hours"].sum()),
                "gpu_speedup": gpu_speedup,
                "unscaled_rules": ",".join(group.loc[group["factor"].isna(), "rule"]),
            }
        )
    columns = ["study", "rules", "measured_cpu_s", "cpu_hours", "gpu_hours", "gpu_rules_cpu_hours", "gpu_speedup",
               "unscaled_rules"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)
