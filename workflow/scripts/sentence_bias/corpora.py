"""SubNN and AugNN corpora from the SNLI bias scores (rule sentence_bias_corpora)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.corpora import Pair, derived_corpora
from cdaflow.sentence_bias.nli import write_snli_jsonl
from cdaflow.sentence_bias.swap import Swapper, read_ssa_names

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    table = pd.read_csv(smk.input.scores, sep="\t", keep_default_na=False)
    pairs = [Pair(r.premise, r.hypothesis, r.label) for r in table.itertuples()]
    ssa = input_path(smk.input.names, p.ssa_member)
    female, male = read_ssa_names(ssa, n=p.names) if ssa else ([], [])
    swapper = Swapper.from_tsv(female_names_by_rank=female, male_names_by_rank=male, n_names=p.names)
    log.info("%d pairs; swapping %d names of each gender", len(pairs), swapper.n_names)
    rows = []
    for name, split, row in derived_corpora(
        pairs, table["pair_score"].to_numpy(), p.percentiles, swapper,
        dev_size=p.split["dev"], test_size=p.split["test"], seed=p.seed,
    ):  # fmt: skip
        # SNLI-format jsonl files, written into a temporary folder and renamed into place.
        with atomic_directory(Path(p.out) / name) as tmp:
            for part, part_pairs in (("train", split.train), ("dev", split.dev), ("test", split.test)):
                write_snli_jsonl(part_pairs, tmp / f"snli_1.0_{part}.jsonl")
        rows.append({"scale": p.scale} | row)
        log.info("%s: %s", name, rows[-1])
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
