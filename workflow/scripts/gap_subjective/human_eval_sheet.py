"""The blinded human-evaluation sheet and its key (rule gap_subjective_human_eval_sheet)."""

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.human_eval import INSTRUCTIONS, rating_sheet
from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    frames = [read_tsv(path, text_columns=("id", "original", "transferred")) for path in smk.input.verdicts]
    verdicts = pd.concat(frames, ignore_index=True)
    kept = verdicts[verdicts["kept"].astype(bool)]
    ids = [f"{row.id}:{row.index}" for row in kept.itertuples()]
    # A small run may keep fewer than 2 x 34 sentences: the sheet then takes what there is, and a
    # run that kept none writes an empty sheet that says so (nothing to rate is a result too).
    per_group = min(p.per_group, len(kept) // 2)
    if per_group < p.per_group:
        log.warning("only %d kept transfers: %d sentences per group instead of %d", len(kept), per_group, p.per_group)
    sheet, key = rating_sheet(
        kept["original"].tolist(), kept["transferred"].tolist(), ids, per_group=per_group, seed=p.seed
    )
    with atomic_file(Path(smk.output.sheet), newline="") as handle:
        handle.write("\n".join(INSTRUCTIONS) + "\n")
        if per_group == 0:
            handle.write(f"# This run kept {len(kept)} transferred sentences: nothing to rate.\n")
        sheet.to_csv(handle, sep="\t", index=False)
    write_tsv_atomic(key, Path(smk.output.key))
    log.info("sheet of %d sentences (%d per group)", len(sheet), per_group)
