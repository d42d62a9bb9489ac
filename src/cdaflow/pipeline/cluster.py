"""SLURM job sizes of the heavy rules at paper scale, from measured costs and the paper config's sizes.

Two data files:

- ``resources/jobs_measured.tsv``, written by ``python -m cdaflow.pipeline.cluster measure <results>`` from a
  finished run's benchmark files and item counts (the scale notes' reading): per heavy rule, the item its
  work grows with, how many items and jobs the run had, the CPU seconds of all its jobs and the largest
  peak memory of one;
- ``resources/jobs.yaml``, by hand: per rule the item key (the scale notes read it there, not from the
  rule's params, so editing it reruns nothing), how many of the rule's jobs each item feeds
  (``jobs_per_item``: two MRFs per language, three language models per corpus...), the items of the
  largest job at paper scale (``paper_items_per_job``, with its source), whether its memory grows with
  the items (data held in memory) and how the paper config's settings multiply the work of one item
  (``scale_by``: a config key, the value the measured run had, a power: epochs 1, a hidden size 2...).

One paper-scale job then costs::

    cpu_s = cpu_s / (items_measured × jobs_per_item) × paper_items_per_job × Π (value / measured) ** power

and asks for ``runtime = margin × cpu_s / speed / 60`` minutes, where speed, for a job holding a GPU, is
its rule family's measured speed-up (``resources/jobs_gpu.tsv``, ``benchmarks/gpu_speedup.py``: a GPU
against one core of the same node, at the paper's model sizes) times ``measured_gpu_share``, or the
assumed ``gpu_speedup`` for a rule not measured, and ``threads × thread_efficiency`` otherwise, within
``[min_runtime, max_runtime]``; and
``mem_mb = margin_mem × peak`` (the peak scaled by the items per job where memory grows), at least
``min_mem_mb``. A rule with a ``memory`` entry (``items``, ``per_job``) is sized from
``resources/jobs_memory.tsv`` instead (``benchmarks/memory_per_item.py``: the peak at two input sizes, and
the fixed part at the paper's model sizes where the measured run used a smaller one): ``peak = fixed (or
the intercept) + MB per item × per_job``, per item being the slope between the two sizes. Orders of
magnitude with a margin, not quotes: a user with measured paper-scale times sets
``--set-resources rule:runtime=...``. A retry (the profile's ``retries``) asks for ``retry_factor`` times
the time of the attempt before (:meth:`JobsFile.runtime_for_attempt`), within ``max_runtime``: a job
already at the cap gets no more, it resumes from its checkpoints instead.

Where the jobs go (:func:`slurm_resources`): config ``compute.slurm`` gives a partition and account for
jobs holding GPUs and for the others, the form of the GPU request (``--gpus`` or ``--gres=gpu:N``), and
per-rule exceptions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "JOBS_FILE", "JobCost", "JobsFile", "JobsFileError", "MemoryCost", "Scale", "config_value", "gpus_requested",
    "load_jobs", "measure", "read_gpu_speedups", "read_memory", "rule_items", "slurm_resources",
]

JOBS_FILE = Path(__file__).resolve().parents[3] / "resources" / "jobs.yaml"


class JobsFileError(ValueError):
    """resources/jobs.yaml is malformed; the message names the rule and the key."""


def config_value(config: Mapping[str, Any], key: str) -> Any:
    """The value at a dotted key of a validated config (``studies.morph_cda.mrf.max_epochs``)."""
    value: Any = config
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise KeyError(f"config has no {key!r} (missing at {part!r})")
        value = value[part]
    return value


@dataclass(frozen=True)
class Scale:
    """One multiplier of a job's work: ``(config value / measured) ** power``, or a constant ``factor``
    where no config key says it (a pretrained model the paper uses that the measured run did not)."""

    key: str | None = None
    measured: float = 1.0
    power: float = 1.0
    default: float | None = None  # the value when the config has no such key (a settings class's default)
    factor: float = 1.0
    why: str = ""

    def value(self, config: Mapping[str, Any]) -> float:
        if self.key is None:
            return self.factor
        try:
            now = config_value(config, self.key)
        except KeyError:
            if self.default is None:
                raise
            now = self.default
        return (float(now) / self.measured) ** self.power if now is not None else 1.0


@dataclass(frozen=True)
class JobCost:
    """What a rule's jobs cost in the measured run, and how one job's work grows at paper scale."""

    rule: str
    items: str  # a key of resources/cross_study/paper.yaml, or "-" (does not grow with the data)
    cpu_s: float  # CPU seconds of all the rule's jobs in the measured run
    peak_mb: float  # the largest peak resident memory of one of them
    items_measured: float  # the run's count of `items` (NaN for "-")
    jobs_measured: int
    jobs_per_item: float = 1.0
    paper_items_per_job: float = float("nan")
    mem_grows: bool = False
    cpu_bound: bool = False  # its work is CPU work even when the job holds a GPU (scikit-learn fits)
    scale_by: tuple[Scale, ...] = ()
    memory: MemoryCost | None = None  # the measured memory per item (jobs_memory.tsv), with
    memory_items_per_job: float = float("nan")  # the items of the largest job it applies to
    gpu_speedup: float | None = None  # its family's measured GPU speed-up (jobs_gpu.tsv); None: not measured

    def work_factor(self, config: Mapping[str, Any]) -> float:
        return math.prod(scale.value(config) for scale in self.scale_by)

    def items_per_job_measured(self) -> float:
        return self.items_measured * self.jobs_per_item / self.jobs_measured

    def job_cpu_s(self, config: Mapping[str, Any]) -> float:
        """CPU seconds of the largest job at paper scale under `config`."""
        if self.items == "-":
            per_job = self.cpu_s / self.jobs_measured
        else:
            per_job = self.cpu_s / (self.items_measured * self.jobs_per_item) * self.paper_items_per_job
        return per_job * self.work_factor(config)

    def job_peak_mb(self) -> float:
        if self.memory is not None:
            return self.memory.peak_mb(self.memory_items_per_job)
        if self.items == "-" or not self.mem_grows:
            return self.peak_mb
        return self.peak_mb * self.paper_items_per_job / self.items_per_job_measured()


@dataclass(frozen=True)
class JobsFile:
    margin: float
    margin_mem: float
    gpu_speedup: float
    thread_efficiency: float
    min_runtime: int
    max_runtime: int
    min_mem_mb: int
    costs: dict[str, JobCost] = field(default_factory=dict)
    retry_factor: float = 2.0  # sizing.retry_factor: a wall-time kill is an underestimate, not noise
    measured_gpu_share: float = 1.0  # sizing.measured_gpu_share: the share of a measured speed-up counted on

    def runtime_for_attempt(self, runtime: int, attempt: int) -> int:
        """Minutes for try number `attempt` (1, 2, ...) of a job sized `runtime` for its first try."""
        grown = math.ceil(runtime * self.retry_factor ** (max(1, attempt) - 1))
        return int(min(max(runtime, self.max_runtime), grown))

    def size(self, rule: str, config: Mapping[str, Any], *, threads: int, gpu: bool) -> dict[str, int]:
        """``{"runtime": minutes, "mem_mb": MB}`` of one paper-scale job of `rule`."""
        cost = self.costs[rule]
        speed = max(1.0, threads * self.thread_efficiency)
        if gpu and not cost.cpu_bound:
            measured = cost.gpu_speedup
            speed = self.gpu_speedup if measured is None else max(1.0, measured * self.measured_gpu_share)
        runtime = self.margin * cost.job_cpu_s(config) / speed / 60
        return {
            "runtime": int(min(self.max_runtime, max(self.min_runtime, math.ceil(runtime)))),
            "mem_mb": int(max(self.min_mem_mb, math.ceil(self.margin_mem * cost.job_peak_mb() / 100) * 100)),
        }


def slurm_resources(slurm: Mapping[str, Any], rule: str, gpus: int) -> dict[str, Any]:
    """The SLURM resources placing one job of `rule` that holds `gpus` GPUs (config ``compute.slurm``).

    ``slurm_partition`` and ``slurm_account`` (read by the SLURM executor plugin) from the ``gpu`` block for a
    job holding GPUs, else the ``cpu`` block, each key overridden by ``rules.<rule>``; unset keys are left
    out, so the plugin's own choice stands. The GPU request: ``gpu: N`` (``--gpus=N``), or ``gres: gpu:N``
    (``--gres=gpu:N``) where ``gres_form`` is ``gres``, for clusters whose SLURM refuses ``--gpus``; a job
    without GPUs gets ``gpu: 0``, which requests none. Read the count back with :func:`gpus_requested`.
    """
    placement = dict(slurm.get("gpu" if gpus else "cpu") or {})
    placement.update({key: value for key, value in ((slurm.get("rules") or {}).get(rule) or {}).items()
                      if value is not None})  # fmt: skip
    resources: dict[str, Any] = {}
    for key, resource in (("partition", "slurm_partition"), ("account", "slurm_account")):
        if placement.get(key):
            resources[resource] = str(placement[key])
    if gpus and placement.get("gres_form", "gpus") == "gres":
        resources["gres"] = f"gpu:{gpus}"  # `gpu` too would add --gpus, which such clusters refuse
    else:
        resources["gpu"] = gpus
    return resources


def gpus_requested(resources: Any) -> int:
    """GPUs a job asked for: its ``gpu`` resource, else the count in a ``gres`` of ``gpu[:type][:N]``.

    `resources` is a job's resources (``snakemake.resources`` in a script) or a mapping.
    """
    get = resources.get if isinstance(resources, Mapping) else (lambda name, default: getattr(resources, name, default))
    gpu = get("gpu", None)
    if gpu:
        return int(gpu)
    for part in str(get("gres", None) or "").split(","):
        name, *rest = part.strip().split(":")
        if name == "gpu":  # gpu, gpu:N, gpu:type or gpu:type:N (SLURM's default count is 1)
            return int(rest[-1]) if rest and rest[-1].isdigit() else 1
    return 0


MEASURED_COLUMNS = ("rule", "run", "items", "items_measured", "jobs_measured", "cpu_s", "peak_mb")


def read_measured(path: str | Path) -> dict[str, dict[str, Any]]:
    """resources/jobs_measured.tsv: ``{rule: row}`` (comment lines start with ``#``)."""
    path = Path(path)
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    if not rows or tuple(rows[0]) != MEASURED_COLUMNS:
        raise JobsFileError(f"{path}: expected the header {' '.join(MEASURED_COLUMNS)}")
    found: dict[str, dict[str, Any]] = {}
    for number, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(MEASURED_COLUMNS):
            raise JobsFileError(f"{path}: row {number}: {len(cells)} fields, expected {len(MEASURED_COLUMNS)}")
        row = dict(zip(MEASURED_COLUMNS, cells))
        try:
            found[row["rule"]] = {"items": row["items"], "items_measured": float(row["items_measured"] or "nan"),
                                  "jobs_measured": int(row["jobs_measured"]), "cpu_s": float(row["cpu_s"]),
                                  "peak_mb": float(row["peak_mb"])}  # fmt: skip
        except ValueError as error:
            raise JobsFileError(f"{path}: row {number}: {error}") from None
    return found


GPU_COLUMNS = ("family", "rules", "item", "cpu_s_per_item", "gpu_s_per_item", "speedup")


def read_gpu_speedups(path: str | Path) -> dict[str, float]:
    """resources/jobs_gpu.tsv: ``{rule: measured speed-up}`` of every rule its families list (comment lines
    start with ``#``); a rule in two families, or a speed-up that is not the ratio of its row, is refused."""
    path = Path(path)
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    if not rows or tuple(rows[0]) != GPU_COLUMNS:
        raise JobsFileError(f"{path}: expected the header {' '.join(GPU_COLUMNS)}")
    found: dict[str, float] = {}
    for number, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(GPU_COLUMNS):
            raise JobsFileError(f"{path}: row {number}: {len(cells)} fields, expected {len(GPU_COLUMNS)}")
        row = dict(zip(GPU_COLUMNS, cells))
        try:
            cpu, gpu, speedup = (float(row[c]) for c in ("cpu_s_per_item", "gpu_s_per_item", "speedup"))
        except ValueError as error:
            raise JobsFileError(f"{path}: row {number}: {error}") from None
        if not (cpu > 0 and gpu > 0 and math.isclose(speedup, cpu / gpu, rel_tol=0.01, abs_tol=0.05)):
            raise JobsFileError(f"{path}: row {number} ({row['family']}): speedup {row['speedup']} is not "
                                f"cpu_s_per_item / gpu_s_per_item ({cpu} / {gpu})")  # fmt: skip
        for rule in filter(None, row["rules"].split(",")):
            if rule in found:
                raise JobsFileError(f"{path}: row {number} ({row['family']}): rule {rule} is in two families")
            found[rule] = speedup
    return found


MEMORY_COLUMNS = ("rule", "run", "items", "items_small", "peak_small_mb", "items_large", "peak_large_mb", "fixed_mb")


@dataclass(frozen=True)
class MemoryCost:
    """A rule's peak memory measured at two input sizes (and, where its model differs at paper scale, the
    fixed part measured at the paper's settings): a straight line through the two peaks."""

    run: str
    items: str
    items_small: float
    peak_small_mb: float
    items_large: float
    peak_large_mb: float
    fixed_mb: float = float("nan")  # what the job holds whatever its data, at the paper's model sizes

    @property
    def mb_per_item(self) -> float:
        return max(0.0, (self.peak_large_mb - self.peak_small_mb) / (self.items_large - self.items_small))

    @property
    def base_mb(self) -> float:
        if not math.isnan(self.fixed_mb):
            return self.fixed_mb
        return self.peak_large_mb - self.mb_per_item * self.items_large

    def peak_mb(self, items: float) -> float:
        return self.base_mb + self.mb_per_item * items


def read_memory(path: str | Path) -> dict[str, MemoryCost]:
    """resources/jobs_memory.tsv: ``{rule: MemoryCost}`` (comment lines start with ``#``)."""
    path = Path(path)
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    if not rows or tuple(rows[0]) != MEMORY_COLUMNS:
        raise JobsFileError(f"{path}: expected the header {' '.join(MEMORY_COLUMNS)}")
    found = {}
    for number, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(MEMORY_COLUMNS):
            raise JobsFileError(f"{path}: row {number}: {len(cells)} fields, expected {len(MEMORY_COLUMNS)}")
        row = dict(zip(MEMORY_COLUMNS, cells))
        try:
            cost = MemoryCost(row["run"], row["items"], *(float(row[c]) for c in MEMORY_COLUMNS[3:7]),
                              fixed_mb=float(row["fixed_mb"] or "nan"))  # fmt: skip
        except ValueError as error:
            raise JobsFileError(f"{path}: row {number}: {error}") from None
        if not cost.items_large > cost.items_small > 0:
            raise JobsFileError(f"{path}: row {number}: items_large must exceed items_small (> 0)")
        found[row["rule"]] = cost
    return found


def _memory(entry: Any, cost: MemoryCost | None, where: str, memory_path: Path) -> dict[str, Any]:
    """JobCost's memory fields from a rule's ``memory`` entry and its measured row."""
    if entry is None:
        return {}
    if not isinstance(entry, Mapping) or not {"items", "per_job"} <= set(entry):
        raise JobsFileError(f"{where}.memory: expected a mapping with 'items' and 'per_job'")
    if cost is None:
        raise JobsFileError(f"{where}.memory: no measured memory in {memory_path}")
    if str(entry["items"]) != cost.items:
        raise JobsFileError(f"{where}.memory.items: {entry['items']!r}, but {memory_path} measured {cost.items!r}")
    try:
        per_job = float(entry["per_job"])
    except (TypeError, ValueError):
        raise JobsFileError(f"{where}.memory.per_job: {entry['per_job']!r} is not a number") from None
    return {"memory": cost, "memory_items_per_job": per_job}


def _scale(item: Mapping[str, Any]) -> Scale:
    if "factor" in item:
        if not item.get("why"):
            raise ValueError("a constant factor needs its 'why'")
        return Scale(factor=float(item["factor"]), why=str(item["why"]))
    default = item.get("default")
    return Scale(key=str(item["key"]), measured=float(item["measured"]), power=float(item.get("power", 1.0)),
                 default=None if default is None else float(default), why=str(item.get("why", "")))


def load_jobs(path: str | Path = JOBS_FILE, measured: str | Path | None = None,
              memory: str | Path | None = None, gpu: str | Path | None = None) -> JobsFile:
    """resources/jobs.yaml with the measured costs of resources/jobs_measured.tsv (and the measured memory per
    item of resources/jobs_memory.tsv, the measured GPU speed-ups of resources/jobs_gpu.tsv), checked."""
    path = Path(path)
    measured_path = Path(measured) if measured is not None else path.with_name("jobs_measured.tsv")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    sizing, rules = data.get("sizing"), data.get("rules")
    if not isinstance(sizing, Mapping) or not isinstance(rules, Mapping):
        raise JobsFileError(f"{path}: expected the mappings 'sizing' and 'rules'")
    runs = read_measured(measured_path)
    memory_path = Path(memory) if memory is not None else path.with_name("jobs_memory.tsv")
    memories = read_memory(memory_path) if memory_path.is_file() else {}
    if unused := sorted(set(memories) - {rule for rule, entry in rules.items() if "memory" in entry}):
        raise JobsFileError(f"{memory_path}: rows for {', '.join(unused)}, which {path} gives no 'memory' entry")
    gpu_path = Path(gpu) if gpu is not None else path.with_name("jobs_gpu.tsv")
    speedups = read_gpu_speedups(gpu_path) if gpu_path.is_file() else {}
    if unknown := sorted(set(speedups) - set(rules)):
        raise JobsFileError(f"{gpu_path}: speed-ups for {', '.join(unknown)}, which {path} does not size")
    costs = {}
    for rule, entry in rules.items():
        where = f"{path}: rules.{rule}"
        if rule not in runs:
            raise JobsFileError(f"{where}: no measured cost in {measured_path}")
        run = runs[rule]
        if str(entry.get("items")) != run["items"]:
            raise JobsFileError(f"{where}.items: {entry.get('items')!r}, but {measured_path} measured {run['items']!r}")
        memory_fields = _memory(entry.get("memory"), memories.get(rule), where, memory_path)
        try:
            scale_by = tuple(_scale(item) for item in entry.get("scale_by", []))
            costs[rule] = JobCost(
                rule=rule, items=run["items"], cpu_s=run["cpu_s"], peak_mb=run["peak_mb"],
                items_measured=run["items_measured"], jobs_measured=run["jobs_measured"],
                jobs_per_item=float(entry.get("jobs_per_item", 1)),
                paper_items_per_job=float(entry["paper_items_per_job"]) if run["items"] != "-" else float("nan"),
                mem_grows=bool(entry.get("mem_grows", False)), cpu_bound=bool(entry.get("cpu_bound", False)),
                scale_by=scale_by, gpu_speedup=speedups.get(rule), **memory_fields,
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as error:
            raise JobsFileError(f"{where}: {type(error).__name__}: {error}") from None
    try:
        return JobsFile(
            margin=float(sizing["margin"]), margin_mem=float(sizing["margin_mem"]),
            gpu_speedup=float(sizing["gpu_speedup"]), thread_efficiency=float(sizing["thread_efficiency"]),
            min_runtime=int(sizing["min_runtime"]), max_runtime=int(sizing["max_runtime"]),
            min_mem_mb=int(sizing["min_mem_mb"]), costs=costs, retry_factor=float(sizing.get("retry_factor", 2.0)),
            measured_gpu_share=float(sizing.get("measured_gpu_share", 1.0)),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError) as error:
        raise JobsFileError(f"{path}: sizing: {type(error).__name__}: {error}") from None


def rule_items(path: str | Path = JOBS_FILE) -> dict[str, str]:
    """Rule name -> the item its work grows with (what the scale notes extrapolate by)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return {rule: str(entry["items"]) for rule, entry in (data.get("rules") or {}).items()}


def measure(results: str | Path, patterns: Mapping[str, str], items: Mapping[str, str], run: str = ""
            ) -> list[dict[str, Any]]:
    """Rows of resources/jobs_measured.tsv from a finished run's ``results/`` (benchmarks and item counts)."""
    from cdaflow.pipeline import scale_notes

    results = Path(results)
    table = scale_notes.read_benchmarks(results / "benchmarks", patterns, project=results.parent)
    counts = scale_notes.measured_items(results)
    rows = []
    for rule, group in table.groupby("rule", sort=True):
        if rule not in items:
            continue
        cost = group["cpu_s"].where(group["cpu_s"].notna() & (group["cpu_s"] > 0), group["wall_s"])
        key = items[rule]
        have = "" if key == "-" else counts.get(key, "")
        rows.append({"rule": rule, "run": run, "items": key, "items_measured": have, "jobs_measured": len(group),
                     "cpu_s": round(float(cost.sum()), 2), "peak_mb": round(float(group["peak_rss_mb"].max()), 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m cdaflow.pipeline.cluster", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("measure", help="write jobs_measured.tsv rows from a finished run's results/")
    run.add_argument("results", type=Path)
    run.add_argument("--run", default="", help="what the run was (config, commit), written in the run column")
    args = parser.parse_args(argv)

    from cdaflow.pipeline.environments import snakemake_rules

    patterns = {rule.name: str(rule.benchmark) for rule in snakemake_rules() if rule.benchmark is not None}
    rows = measure(args.results, patterns, rule_items(), args.run)
    out = sys.stdout
    out.write("\t".join(MEASURED_COLUMNS) + "\n")
    for row in rows:
        out.write("\t".join(str(row[c]) for c in MEASURED_COLUMNS) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
