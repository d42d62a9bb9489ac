"""Study D's bias score of GAP sentences vs their GAP-Subjective counterparts (rule cross_study_gap_subjective_bias)."""

from pathlib import Path

import pandas as pd

from cdaflow.cross_study.bias_swap import gap_subjective_bias
from cdaflow.cross_study.statistics import bias_summary
from cdaflow.gap_subjective.gap import read_gap
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.bias_scorer import infersent_scorer_of_rule
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    score = infersent_scorer_of_rule(smk)
    tables = []
    for split, gap_path, subjective_path in zip(p.splits, smk.input.gap, smk.input.subjective, strict=True):
        table = gap_subjective_bias(read_gap(gap_path), read_gap(subjective_path), score, source=subjective_path)
        table.insert(0, "split", split)
        tables.append(table)
        log.info("%s: %d transferred sentences", split, len(table))
    scores = pd.concat(tables, ignore_index=True)
    write_tsv_atomic(scores, Path(smk.output.scores))
    summaries = [bias_summary(scores, comparison="all", seed=p.seed)]
    summaries += [bias_summary(t, comparison=split, seed=p.seed) for split, t in zip(p.splits, tables)]
    summary = pd.concat(summaries, ignore_index=True).rename(columns={"comparison": "split"})
    summary.insert(0, "scale", p.scale)
    write_tsv_atomic(summary, Path(smk.output.summary))
