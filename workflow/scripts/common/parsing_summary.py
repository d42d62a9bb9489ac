"""Counts of every parsed treebank split and corpus shard (rule parsing_summary)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.conllu import read_conllu
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.stats import conllu_stats

with rule_context(snakemake) as (smk, log):  # noqa: F821
    rows = []
    for kind, paths, backend in (
        ("treebank", smk.input.treebanks, smk.params.parsing["treebanks"]),
        ("corpus", smk.input.corpora, smk.params.parsing["corpora"]),
    ):
        for path in map(Path, paths):
            stats = conllu_stats(read_conllu(path))
            rows.append(
                {"kind": kind, "source": path.parent.name, "part": path.stem, "backend": backend} | stats
            )
            log.info("%s %s/%s: %s", kind, path.parent.name, path.stem, stats)
    table = pd.DataFrame(rows)
    table.insert(0, "scale", smk.params.scale)
    write_tsv_atomic(table, Path(smk.output[0]))
