"""Tables 2, 3, 4 and 7 of Study C (rule gap_subjective_tables)."""

from pathlib import Path

from cdaflow.gap_subjective.reports import table2, table3_markdown, table4, table7
from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    verdicts = {
        split: read_tsv(path, text_columns=("id", "original", "transferred"))
        for split, path in zip(p.splits, smk.input.verdicts)
    }
    for frame in verdicts.values():
        for column in ("within_gleu", "within_perplexity", "objective", "kept"):
            frame[column] = frame[column].astype(bool)
    write_tsv_atomic(table2(verdicts).assign(scale=p.scale), Path(smk.output.table2))

    offsets = {split: read_tsv(path, text_columns=("id",)) for split, path in zip(p.splits, smk.input.offsets)}
    write_tsv_atomic(table4(offsets).assign(scale=p.scale), Path(smk.output.table4))
    write_tsv_atomic(table7(offsets).assign(scale=p.scale), Path(smk.output.table7))

    with atomic_file(Path(smk.output.table3)) as handle:
        handle.write(table3_markdown(verdicts, p.seed, p.scale))
    kept = sum(int(frame["kept"].sum()) for frame in verdicts.values())
    log.info("kept %d of %d sentences", kept, sum(len(f) for f in verdicts.values()))
