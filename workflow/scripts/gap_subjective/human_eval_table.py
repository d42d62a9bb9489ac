"""Table 6 from filled rating sheets (rule gap_subjective_human_eval_table)."""

from pathlib import Path

from cdaflow.gap_subjective.human_eval import read_filled_sheet
from cdaflow.gap_subjective.reports import table6
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    key = read_tsv(smk.input.key, text_columns=("item", "group", "source"))
    sheets = [read_filled_sheet(path) for path in smk.input.ratings]
    table = table6(sheets, key)
    write_tsv_atomic(table, Path(smk.output[0]))
    log.info("%d sheets: %s", len(sheets), table[["group", "fluency", "subjectivity"]].to_dict("records"))
