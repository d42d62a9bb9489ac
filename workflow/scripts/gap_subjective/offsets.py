"""GAP-Subjective, one split: contexts rebuilt from kept transfers, offsets found anew (rule gap_subjective_offsets)."""

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.gap import read_gap, write_gap
from cdaflow.gap_subjective.offsets import rebuild_example
from cdaflow.gap_subjective.sentences import split_sentences
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    examples = read_gap(smk.input.gap)
    sentences = read_tsv(smk.input.sentences, text_columns=("id", "sentence"))
    verdicts = read_tsv(smk.input.verdicts, text_columns=("id", "original", "transferred"))
    kept = verdicts[verdicts["kept"].astype(bool)]
    replacements: dict[str, dict[int, str]] = {}
    for row in kept.itertuples():
        replacements.setdefault(row.id, {})[int(row.index)] = row.transferred
    expected = sentences.groupby("id")["sentence"].apply(list).to_dict()

    released, rows = [], []
    for example in examples:
        split = split_sentences(example.text)
        # The sentences the transfer saw must be the ones cut here (same splitter, same text).
        if [s.text for s in split] != expected.get(example.id, []):
            raise ValueError(f"{smk.input.sentences}: the sentences of {example.id} differ from its GAP text")
        rebuilt = rebuild_example(example, split, replacements.get(example.id, {}))
        released.append(rebuilt.example)
        rows.append({**rebuilt.record(), "id": example.id, "sentences": len(split)})
    write_gap(released, smk.output.gap)
    table = pd.DataFrame(rows)
    write_tsv_atomic(table, Path(smk.output.offsets))
    log.info(
        "%d contexts: %d with a kept transfer, %d released changed, %d fell back to GAP's",
        len(table),
        (table["replaced"] > 0).sum(),
        table["changed"].sum(),
        ((table["replaced"] > 0) & ~table["all_found"]).sum(),
    )
