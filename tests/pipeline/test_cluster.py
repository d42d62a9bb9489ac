"""Cluster job sizes: derived from measured costs and the config's sizes, one entry per heavy rule."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from cdaflow.config import validate
from cdaflow.pipeline.cluster import JobsFileError, gpus_requested, load_jobs, rule_items, slurm_resources

ROOT = Path(__file__).resolve().parents[2]


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


def test_a_retry_asks_for_more_time_within_the_cap(tmp_path):
    jobs = load_jobs(write(tmp_path, {"a": {"items": "-"}}, "a\tr\t-\t\t1\t60\t10\n"))
    assert jobs.retry_factor == 2.0  # sizing has no retry_factor: the default
    assert [jobs.runtime_for_attempt(400, attempt) for attempt in (1, 2, 3)] == [400, 800, 1600]
    assert jobs.runtime_for_attempt(2000, 2) == jobs.max_runtime == 2880  # grows up to the cap only
    assert jobs.runtime_for_attempt(2880, 3) == 2880  # a job at the cap resumes from its checkpoints instead
    sizing = {"margin": 2, "margin_mem": 1.5, "gpu_speedup": 10, "thread_efficiency": 0.5, "min_runtime": 30,
              "max_runtime": 2880, "min_mem_mb": 1000, "retry_factor": 1.5}  # fmt: skip
    jobs = load_jobs(write(tmp_path, {"a": {"items": "-"}}, "a\tr\t-\t\t1\t60\t10\n", sizing))
    assert jobs.runtime_for_attempt(100, 2) == 150


SLURM = {
    "gpu": {"partition": "gpu", "account": "lab-gpu", "gres_form": "gpus"},
    "cpu": {"partition": "cpu", "account": None},
    "rules": {"big": {"partition": "bigmem"}, "old_gpu": {"gres_form": "gres", "account": None}},
}


@pytest.mark.parametrize(
    ("rule", "gpus", "expected"),
    [
        ("train", 1, {"slurm_partition": "gpu", "slurm_account": "lab-gpu", "gpu": 1}),
        ("tag", 0, {"slurm_partition": "cpu", "gpu": 0}),  # no account: SLURM's default for the user
        ("big", 0, {"slurm_partition": "bigmem", "gpu": 0}),
        ("big", 2, {"slurm_partition": "bigmem", "slurm_account": "lab-gpu", "gpu": 2}),
        ("old_gpu", 2, {"slurm_partition": "gpu", "slurm_account": "lab-gpu", "gres": "gpu:2"}),  # null: inherited
    ],
)
def test_jobs_are_placed_by_kind_then_by_rule(rule, gpus, expected):
    assert slurm_resources(SLURM, rule, gpus) == expected
    assert gpus_requested(expected) == gpus


def test_no_slurm_block_leaves_placement_to_slurm():
    paper = validate(yaml.safe_load((ROOT / "config/paper.yaml").read_text()), source="paper")
    assert "slurm" not in paper["compute"]  # the validated config is as before: nothing to set, nothing added
    assert slurm_resources({}, "corpus_shard", 1) == {"gpu": 1}
    assert slurm_resources({}, "regender_rules", 0) == {"gpu": 0}
    filled = validate({**paper, "compute": {**paper["compute"], "slurm": {"gpu": {"partition": "g"}}}}, source="x")
    assert slurm_resources(filled["compute"]["slurm"], "corpus_shard", 1) == {"slurm_partition": "g", "gpu": 1}
    assert slurm_resources(filled["compute"]["slurm"], "regender_rules", 0) == {"gpu": 0}


@pytest.mark.parametrize(
    ("resources", "gpus"),
    [({"gpu": 2}, 2), ({"gpu": 0}, 0), ({"gres": "gpu"}, 1), ({"gres": "gpu:a100:3"}, 3), ({"gres": "gpu:a100"}, 1),
     ({"gres": "tmp:10G,gpu:2"}, 2), ({"gres": "tmp:10G"}, 0), ({}, 0)],
)  # fmt: skip
def test_the_gpu_count_is_read_from_either_form(resources, gpus):
    assert gpus_requested(resources) == gpus

    class Namespace:  # a script's snakemake.resources: attributes, not keys
        pass

    attributes = Namespace()
    vars(attributes).update(resources)
    assert gpus_requested(attributes) == gpus


@pytest.mark.parametrize(
    ("slurm", "message"),
    [
        ({"gpu": {"gres_form": "mig"}}, "compute.slurm.gpu.gres_form: 'mig' is not one of"),
        ({"cpu": {"partiton": "x"}}, "compute.slurm.cpu: unknown key 'partiton'"),
        ({"rules": {"tag": {"qos": "x"}}}, "compute.slurm.rules.tag: unknown key 'qos'"),
    ],
)
def test_a_bad_slurm_block_is_named(slurm, message):
    paper = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    paper["compute"]["slurm"] = slurm
    with pytest.raises(ValueError, match=re.escape(message)):
        validate(paper, source="paper")


MEMORY_HEADER = "rule\trun\titems\titems_small\tpeak_small_mb\titems_large\tpeak_large_mb\tfixed_mb\n"


def test_memory_is_sized_from_the_measured_cost_per_item(tmp_path):
    rules = {"lm": {"items": "-", "memory": {"items": "sentences", "per_job": 1_000_000}},
             "eval": {"items": "-", "memory": {"items": "sentences", "per_job": 100_000}},
             "other": {"items": "-"}}  # fmt: skip
    path = write(tmp_path, rules, "lm\tr\t-\t\t1\t60\t700\neval\tr\t-\t\t1\t60\t700\nother\tr\t-\t\t1\t60\t700\n")
    # lm: 400 MB at 10,000 sentences, 600 MB at 50,000: 5 kB a sentence over an intercept of 350 MB, but the
    # paper's model holds 2,000 MB whatever the data. eval: no fixed part, the intercept counts.
    (tmp_path / "jobs_memory.tsv").write_text(
        "# measured\n" + MEMORY_HEADER + "lm\tb\tsentences\t10000\t400\t50000\t600\t2000\n"
        "eval\tb\tsentences\t1000\t300\t3000\t500\t\n"
    )
    jobs = load_jobs(path)
    lm, evaluate = jobs.costs["lm"].memory, jobs.costs["eval"].memory
    assert lm.mb_per_item == pytest.approx(0.005) and lm.base_mb == 2000
    assert evaluate.mb_per_item == pytest.approx(0.1) and evaluate.base_mb == pytest.approx(200)
    # 1.5 x (2,000 + 0.005 x 1M) = 10,500 MB; 1.5 x (200 + 0.1 x 100,000) = 15,300 MB, rounded up to 100 MB.
    assert jobs.size("lm", {}, threads=1, gpu=True)["mem_mb"] == 10500
    assert jobs.size("eval", {}, threads=1, gpu=True)["mem_mb"] == 15300
    assert jobs.size("other", {}, threads=1, gpu=True)["mem_mb"] == 1100  # 1.5 x its measured 700 MB
    assert jobs.costs["other"].memory is None


@pytest.mark.parametrize(
    ("memory_entry", "rows", "message"),
    [
        ({"items": "sentences", "per_job": 10}, "", "rules.lm.memory: no measured memory"),
        ({"items": "pairs", "per_job": 10}, "lm\tb\tsentences\t1\t1\t2\t2\t\n", "rules.lm.memory.items: 'pairs'"),
        ({"items": "sentences"}, "lm\tb\tsentences\t1\t1\t2\t2\t\n", "rules.lm.memory: expected a mapping"),
        (None, "lm\tb\tsentences\t1\t1\t2\t2\t\n", "rows for lm, which"),
        ({"items": "sentences", "per_job": 10}, "lm\tb\tsentences\t5\t1\t2\t2\t\n", "items_large must exceed"),
        ({"items": "sentences", "per_job": 10}, "lm\tb\tsentences\t1\t1\t2\n", "row 2: 6 fields"),
    ],
)
def test_malformed_memory_rows_are_named(tmp_path, memory_entry, rows, message):
    rule = {"items": "-"} if memory_entry is None else {"items": "-", "memory": memory_entry}
    path = write(tmp_path, {"lm": rule}, "lm\tr\t-\t\t1\t60\t700\n")
    (tmp_path / "jobs_memory.tsv").write_text(MEMORY_HEADER + rows)
    with pytest.raises(JobsFileError, match=re.escape(message)):
        load_jobs(path)


def test_the_rules_whose_memory_grows_with_their_data_are_sized_from_measured_memory():
    """morph_cda_lm, sentence_bias_evaluate and regender_parallel: mem_mb from benchmarks/memory_per_item.py's
    rows (resources/jobs_memory.tsv) and the paper's sizes, with the margin."""
    from cdaflow.pipeline.cluster import read_memory

    jobs = load_jobs()
    measured = read_memory(ROOT / "resources/jobs_memory.tsv")
    assert {"morph_cda_lm", "sentence_bias_evaluate", "regender_parallel"} <= set(measured)
    paper = validate(yaml.safe_load((ROOT / "config/paper.yaml").read_text()), source="paper")
    for rule, row in measured.items():
        cost = jobs.costs[rule]
        assert cost.memory is not None
        assert (cost.memory.mb_per_item, cost.memory.base_mb) == (row.mb_per_item, row.base_mb)
        assert row.mb_per_item > 0
        peak = row.base_mb + row.mb_per_item * cost.memory_items_per_job
        mem_mb = jobs.size(rule, paper, threads=8, gpu=True)["mem_mb"]
        assert mem_mb == max(jobs.min_mem_mb, math.ceil(jobs.margin_mem * peak / 100) * 100)
        assert mem_mb >= jobs.margin_mem * row.peak_large_mb  # never below what the larger measured run held


def test_a_gpu_job_is_sized_from_its_measured_speed_up(tmp_path):
    rules = {"train": {"items": "pairs", "paper_items_per_job": 100_000},
             "decode": {"items": "pairs", "paper_items_per_job": 100_000}}  # fmt: skip
    sizing = {"margin": 2, "margin_mem": 1.5, "gpu_speedup": 10, "measured_gpu_share": 0.5, "thread_efficiency": 0.5,
              "min_runtime": 1, "max_runtime": 100_000, "min_mem_mb": 1000}  # fmt: skip
    path = write(tmp_path, rules, "train\tv\tpairs\t1000\t1\t600\t500\ndecode\tv\tpairs\t1000\t1\t600\t500\n", sizing)
    gpu = tmp_path / "jobs_gpu.tsv"
    gpu.write_text("# measured\nfamily\trules\titem\tcpu_s_per_item\tgpu_s_per_item\tspeedup\n"
                   "lstm\ttrain\tsentence\t2.0\t0.05\t40.0\n")  # fmt: skip
    jobs = load_jobs(path, gpu=gpu)
    # 0.6 s x 100,000 = 60,000 CPU s, x2 margin; train: measured 40x, half of it counted: 6,000 s = 100 min;
    # decode: no measurement, the assumed 10x: 12,000 s = 200 min. Without a GPU neither changes.
    assert jobs.size("train", {}, threads=8, gpu=True)["runtime"] == 100
    assert jobs.size("decode", {}, threads=8, gpu=True)["runtime"] == 200
    assert jobs.size("train", {}, threads=8, gpu=False)["runtime"] == jobs.size("decode", {}, threads=8, gpu=False)[
        "runtime"] == 500  # fmt: skip
    for rows, message in [
        ("lstm\ttrain\tsentence\t2.0\t0.05\t4.0\n", "not cpu_s_per_item / gpu_s_per_item"),
        ("lstm\tnope\tsentence\t2.0\t0.05\t40.0\n", "nope, which .* does not size"),
        ("a\ttrain\tsentence\t2.0\t0.05\t40.0\nb\ttrain\tsentence\t1.0\t0.1\t10.0\n", "train is in two families"),
        ("lstm\ttrain\tsentence\t2.0\t0.05\n", "3 fields|5 fields"),
    ]:
        gpu.write_text("family\trules\titem\tcpu_s_per_item\tgpu_s_per_item\tspeedup\n" + rows)
        with pytest.raises(JobsFileError, match=message):
            load_jobs(path, gpu=gpu)


def test_the_measured_gpu_speed_ups_name_gpu_rules_of_the_workflow():
    """resources/jobs_gpu.tsv (benchmarks/gpu_speedup.py on an H100) covers the GPU rule families; every rule
    it names is sized, holds a GPU at paper scale, and is sized from it."""
    jobs = load_jobs()
    measured = {rule for rule, cost in jobs.costs.items() if cost.gpu_speedup is not None}
    assert {"morph_cda_lm", "sentence_bias_train_infersent", "regender_train", "gap_subjective_transfer_train",
            "gap_subjective_detector", "corpus_shard", "regender_tag"} <= measured  # fmt: skip
    assert not any(jobs.costs[rule].cpu_bound for rule in measured)
    assert jobs.costs["gap_subjective_transfer_train"].gpu_speedup < 10 < jobs.costs["morph_cda_lm"].gpu_speedup
