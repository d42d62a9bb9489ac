"""Candidate segments of the subtitle corpus, filtered, deduplicated and sharded (rule regender_candidates)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.regender.corpus import shard_corpus

with rule_context(snakemake) as (smk, log):  # noqa: F821
    source = input_path(smk.input.corpus, smk.params.member)
    counts = shard_corpus([source], smk.output.shards, max_words=smk.params.max_words)
    table = pd.DataFrame([vars(counts)])
    write_tsv_atomic(table, Path(smk.output.counts))
    log.info("%s: %s", source, vars(counts))
