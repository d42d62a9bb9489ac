"""One GAP split, validated, cut into sentences with offsets (rule gap_subjective_sentences)."""

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.gap import read_gap, write_gap
from cdaflow.gap_subjective.sentences import split_sentences
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    source = input_path(smk.input.gap, p.member) / f"gap-{smk.wildcards.gap_split}.tsv"
    examples = read_gap(source)
    if p.max_contexts:
        examples = examples[: p.max_contexts]
    write_gap(examples, smk.output.gap)
    rows = []
    for example in examples:
        for index, sentence in enumerate(split_sentences(example.text)):
            rows.append(
                {
                    "id": example.id,
                    "index": index,
                    "start": sentence.start,
                    "end": sentence.end,
                    "sentence": sentence.text,
                }
            )
    write_tsv_atomic(
        pd.DataFrame(rows, columns=["id", "index", "start", "end", "sentence"]), Path(smk.output.sentences)
    )
    log.info("%s: %d contexts, %d sentences", source, len(examples), len(rows))
