"""Tables 6-10 across all retrained encoders, Fig. 6, and their NLI accuracy (rule sentence_bias_tables)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context
from cdaflow.sentence_bias.reports import models_table, seat_figure, seat_table, senteval_overall, senteval_table

with rule_context(snakemake) as (smk, log):  # noqa: F821
    scale, models = smk.params.scale, smk.params.models
    seat = pd.concat([pd.read_csv(path, sep="\t") for path in smk.input.seat], ignore_index=True)
    senteval = pd.concat([pd.read_csv(path, sep="\t") for path in smk.input.senteval], ignore_index=True)
    for table in (seat, senteval):
        table.insert(0, "scale", scale)
    write_tsv_atomic(seat, Path(smk.output.seat))
    write_tsv_atomic(senteval, Path(smk.output.senteval))
    # The paper's layouts: Tables 6-7 and 11 (SEAT), 8-9 (SentEval), 10 (overall score).
    for table, path in (
        (seat_table(seat, models), smk.output.seat_wide),
        (senteval_table(senteval, models), smk.output.senteval_wide),
        (senteval_overall(senteval, models), smk.output.senteval_overall),
    ):
        table.insert(0, "scale", scale)
        write_tsv_atomic(table, Path(path))
    accuracy = models_table(smk.input.models, scale)
    write_tsv_atomic(accuracy, Path(smk.output.models))
    seat_figure(seat, models, scale, smk.output.figure)
    log.info("%d SEAT rows, %d SentEval rows, %d models", len(seat), len(senteval), len(accuracy))
