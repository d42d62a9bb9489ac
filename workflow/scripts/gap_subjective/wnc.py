"""WNC pairs and the style transfer's train/valid split (rule gap_subjective_wnc)."""

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.wnc import pairs_frame, read_wnc, split_pairs
from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    source = input_path(smk.input.wnc, p.member)
    pairs = read_wnc(source, p.layout)
    log.info("%s (%s): %d pairs", source, p.layout, len(pairs))
    if p.max_pairs and len(pairs) > p.max_pairs:
        pairs = pairs[: p.max_pairs]
        log.info("kept the first %d pairs (wnc_max_pairs)", len(pairs))
    write_tsv_atomic(pairs_frame(pairs), Path(smk.output.pairs))
    # The transfer learns objective (neutralised) → subjective (biased).
    train, valid = split_pairs(pairs, min(p.valid_size, max(1, len(pairs) // 10)), p.seed)
    outputs = iter(smk.output.transfer)  # train.src, train.tgt, valid.src, valid.tgt
    for part in (train, valid):
        for side in ("objective", "subjective"):
            with atomic_file(Path(next(outputs))) as handle:
                handle.writelines(getattr(pair, side) + "\n" for pair in part)
    stats = pd.DataFrame(
        [
            {
                "source": str(source),
                "layout": p.layout,
                "pairs": len(pairs),
                "transfer_train": len(train),
                "transfer_valid": len(valid),
                "sentences": 2 * len(pairs),
            },
        ]
    )
    write_tsv_atomic(stats, Path(smk.output.stats))
    log.info("transfer split: %d train, %d valid pairs", len(train), len(valid))
