"""Cluster job sizes: derived from measured costs and the config's sizes, one entry per heavy rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from cdaflow.cluster import JobsFileError, load_jobs, rule_items
from cdaflow.config import validate

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, rules: dict, measured: str, sizing: dict | None = None) -> Path:
    sizing = sizing or {"margin": 2, "margin_mem": 1.5, "gpu_speedup": 10, "thread_efficiency": 0.5,
                        "min_runtime": 30, "max_runtime": 2880, "min_mem_mb": 1000}  # fmt: skip
    (tmp_path / "jobs.yaml").write_text(yaml.safe_dump({"sizing": sizing, "rules": rules}))
    (tmp_path / "jobs_measured.tsv").write_text(
        "# a comment\nrule\trun\titems\titems_measured\tjobs_measured\tcpu_s\tpeak_mb\n" + measured
    )
    return tmp_path / "jobs.yaml"


def test_a_job_is_sized_from_its_measured_cost_per_item_and_the_config(tmp_path):
    rules = {"train": {"items": "pairs", "jobs_per_item": 2, "paper_items_per_job": 100_000, "mem_grows": True,
                       "scale_by": [{"key": "studies.x.epochs", "measured": 2}]}}  # fmt: skip
    # 2 jobs over 1,000 items each: 600 CPU s for 2,000 job-items, 0.3 s an item; 500 MB for 1,000 items.
    jobs = load_jobs(write(tmp_path, rules, "train\tvalidation\tpairs\t1000\t2\t600\t500\n"))
    config = {"studies": {"x": {"epochs": 8}}}
    # 0.3 s x 100,000 items x (8/2) epochs = 120,000 s; x2 margin; GPU 10x: 24,000 s = 400 min.
    assert jobs.size("train", config, threads=8, gpu=True) == {"runtime": 400, "mem_mb": 75000}
    # On CPUs, 8 threads at 50 %: 4x.
    assert jobs.size("train", config, threads=8, gpu=False)["runtime"] == 1000
    # Limits: at least min_runtime, at most max_runtime.
    assert jobs.size("train", {"studies": {"x": {"epochs": 0.0001}}}, threads=8, gpu=True)["runtime"] == 30
    assert jobs.size("train", {"studies": {"x": {"epochs": 1000}}}, threads=8, gpu=True)["runtime"] == 2880


def test_fixed_cost_rules_constant_factors_and_defaults(tmp_path):
    rules = {
        "steps": {"items": "-", "scale_by": [
            {"key": "studies.t.onmt.train_steps", "measured": 200, "default": 100_000},
            {"factor": 4, "why": "a bigger pretrained model"},
        ]},  # fmt: skip
    }
    jobs = load_jobs(write(tmp_path, rules, "steps\tdemo\t-\t\t2\t60\t300\n"))
    # 30 s a job x 500 x 4 = 60,000 s; x2 / 10 = 200 min. The key is absent: its default counts.
    assert jobs.size("steps", {"studies": {"t": {"onmt": {}}}}, threads=1, gpu=True) == {"runtime": 200, "mem_mb": 1000}
    assert jobs.size("steps", {"studies": {"t": {"onmt": {"train_steps": 200}}}}, threads=1, gpu=True)["runtime"] == 30


@pytest.mark.parametrize(
    ("rules", "measured", "message"),
    [
        ({"a": {"items": "pairs", "paper_items_per_job": 1}}, "", "rules.a: no measured cost"),
        ({"a": {"items": "pairs", "paper_items_per_job": 1}}, "a\tr\tsentences\t10\t1\t1\t1\n", "rules.a.items"),
        ({"a": {"items": "pairs"}}, "a\tr\tpairs\t10\t1\t1\t1\n", "rules.a: KeyError"),
        ({"a": {"items": "-", "scale_by": [{"factor": 2}]}}, "a\tr\t-\t\t1\t1\t1\n", "needs its 'why'"),
        ({"a": {"items": "-"}}, "a\tr\t-\t1\t1\n", "row 2: 5 fields"),
    ],
)
def test_malformed_files_are_named(tmp_path, rules, measured, message):
    with pytest.raises(JobsFileError, match=re.escape(message)):
        load_jobs(write(tmp_path, rules, measured))


def test_every_heavy_rule_of_the_workflow_has_an_entry_and_a_measured_cost():
    declared = set()
    for path in (ROOT / "workflow/rules").glob("*.smk"):
        declared |= set(re.findall(r'\*\*job_resources\("(\w+)"', path.read_text()))
    jobs = load_jobs()
    assert declared == set(jobs.costs) == set(rule_items())
    paper = validate(yaml.safe_load((ROOT / "config/paper.yaml").read_text()), source="paper")
    sizes = {rule: jobs.size(rule, paper, threads=8, gpu=True) for rule in jobs.costs}
    assert len({size["runtime"] for size in sizes.values()}) > 5  # not one default for all
    items = yaml.safe_load((ROOT / "resources/cross_study/paper.yaml").read_text())["values"]
    assert {cost.items for cost in jobs.costs.values()} - {"-"} <= set(items)
