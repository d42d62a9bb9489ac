"""Scale notes: measured cost of every rule and paper-scale CPU/GPU hours per study (rule cross_study_scale_notes)."""

from pathlib import Path

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline import scale_notes
from cdaflow.pipeline.cluster import read_gpu_speedups, rule_items
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    speedup = p.gpu_speedup or scale_notes.DEFAULT_GPU_SPEEDUP
    measured = scale_notes.read_benchmarks(p.benchmarks, p.patterns)
    items = scale_notes.measured_items(p.results)
    log.info("%d benchmark files; item counts of this run: %s", len(measured), items)
    at_paper, sources = scale_notes.paper_items()
    per_rule = scale_notes.scale_by_rule(
        measured, items, at_paper, p.gpu_rules, rule_items=rule_items(smk.input.jobs), gpu_speedup=speedup,
        measured_speedups=read_gpu_speedups(smk.input.speedups),
    )
    per_study = scale_notes.estimate_paper_scale(per_rule, speedup)
    per_rule["items_source"] = per_rule["items"].map(sources).fillna("")
    for table in (measured, per_rule, per_study):
        table.insert(0, "scale", p.scale)
    write_tsv_atomic(measured, Path(smk.output.measured))
    write_tsv_atomic(per_rule, Path(smk.output.rules))
    write_tsv_atomic(per_study, Path(smk.output.estimate))
