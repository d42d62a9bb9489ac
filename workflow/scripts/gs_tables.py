"""Tables 2, 3, 4 and 7 of Study C (rule gs_tables)."""

import random
from pathlib import Path

from cdaflow.gap_subjective.offsets import table4, table7
from cdaflow.gap_subjective.thresholds import table2
from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.runtime import rule_context

EXAMPLES = 10

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
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

    kept = [(split, row) for split, frame in verdicts.items() for row in frame[frame["kept"]].to_dict("records")]
    sample = random.Random(p.seed).sample(kept, min(EXAMPLES, len(kept)))
    with atomic_file(Path(smk.output.table3)) as handle:
        handle.write(f"# Table 3: kept transfers ({len(sample)} drawn at random of {len(kept)}; scale: {p.scale})\n\n")
        handle.write(
            "| split | original (objective) | transferred (subjective) | GLEU | perplexity change |\n"
            "|---|---|---|---|---|\n"
        )
        for split, row in sample:
            cells = [
                split,
                row["original"],
                row["transferred"],
                f"{row['gleu']:.3f}",
                f"{row['ppl_transferred'] - row['ppl_original']:+.1f}",
            ]
            handle.write("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |\n")
    log.info("kept %d of %d sentences", len(kept), sum(len(f) for f in verdicts.values()))
