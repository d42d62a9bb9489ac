"""Gender direction from the paper's 10 pairs, checked against debiaswe's equalize pairs
(rule sentence_bias_gender_direction)."""

from pathlib import Path

import numpy as np

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.direction import PAPER_PAIRS, gender_direction, load_pairs_json
from cdaflow.sentence_bias.embeddings import open_vectors
from cdaflow.sentence_bias.reports import gender_direction_figure, gender_direction_table

with rule_context(snakemake) as (smk, log):  # noqa: F821
    vectors = open_vectors(smk.input.vectors)
    # GloVe 6B is lower-cased: fold case when a cased word (Mary) is missing.
    fold = not any(w[:1].isupper() for w in vectors.words[:1000])
    directions = {"paper_10_pairs": gender_direction(vectors, PAPER_PAIRS, fold_case=fold)}
    debiaswe = input_path(smk.input.debiaswe, smk.params.member)
    if debiaswe:
        pairs = load_pairs_json(debiaswe / "equalize_pairs.json", vectors=vectors)
        directions["equalize_pairs"] = gender_direction(vectors, pairs, fold_case=fold)
    np.save(smk.output.direction, directions["paper_10_pairs"].vector.astype(np.float32))
    for name, direction in directions.items():
        log.info("%s: %d pairs, top component %.3f", name, len(direction.pairs_used), direction.top_share)
    write_tsv_atomic(gender_direction_table(directions, smk.params.scale), Path(smk.output.table))
    gender_direction_figure(directions, smk.output.plot)
