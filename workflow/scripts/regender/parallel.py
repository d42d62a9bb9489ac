"""The gender-parallel corpus and its statistics, Table 1 of the appendix (rule regender_parallel)."""

import csv
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.corpus import parallel_pairs, split_pairs
from cdaflow.regender.reports import corpus_table
from cdaflow.regender.testsets import read_test_set


def decisions(paths):
    for path in paths:
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\"):
                yield row["segment"], row["label"] or None, row["variant"] or None, row["gendered"] == "1"


with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    test_segments = {text for path in smk.input.test_sets for row in read_test_set(path)
                     for text in (row.segment, *row.variants)}
    # A function, not a generator: the decisions are streamed twice instead of held (parallel_pairs).
    pairs, counts = parallel_pairs(lambda: decisions(smk.input.decided), neutral_ratio=p.neutral_ratio,
                                   exclude=test_segments, seed=p.seed)
    log.info("%d pairs: %s", len(pairs), counts)
    splits = split_pairs(pairs, p.split["dev"], p.split["test"])
    folder = Path(smk.output.test_set).parent
    for name, members in splits.items():
        columns = {"src": [p.source for p in members], "tgt": [p.target for p in members],
                   "label": [p.label for p in members], "gendered": [str(int(p.gendered)) for p in members]}
        for suffix, values in columns.items():
            with atomic_file(folder / f"{name}.{suffix}", "w") as handle:
                handle.writelines(value + "\n" for value in values)
    # The OpenSubtitles test split as a test set of its own (the format of the hand-checked ones).
    with atomic_file(smk.output.test_set, "w") as handle:
        handle.write("id\tlabel\tsegment\tvariant\n")
        for i, pair in enumerate(splits["test"], start=1):
            handle.write(f"t{i:06d}\t{pair.label}\t{pair.source}\t{pair.target}\n")
    write_tsv_atomic(corpus_table(splits, p.scale), Path(smk.output.stats))
    log.info("splits: %s", {name: len(members) for name, members in splits.items()})
