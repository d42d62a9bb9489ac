"""SubNN and AugNN corpora from the SNLI bias scores (rule sb_corpora)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.runtime import input_path, rule_context
from cdaflow.sentence_bias.corpora import Pair, augment, resplit, subtract, thresholds
from cdaflow.sentence_bias.nli import write_snli_jsonl
from cdaflow.sentence_bias.swap import Swapper, read_ssa_names


def write_corpus(split, destination: Path) -> None:
    """SNLI-format jsonl files, written into a temporary folder and renamed into place."""
    with atomic_directory(destination) as tmp:
        for name, pairs in (("train", split.train), ("dev", split.dev), ("test", split.test)):
            write_snli_jsonl(pairs, tmp / f"snli_1.0_{name}.jsonl")


with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    table = pd.read_csv(smk.input.scores, sep="\t", keep_default_na=False)
    pairs = [Pair(r.premise, r.hypothesis, r.label) for r in table.itertuples()]
    scores = table["pair_score"].to_numpy()
    ssa = input_path(smk.input.names, p.ssa_member)
    female, male = read_ssa_names(ssa, n=p.names) if ssa else ([], [])
    swapper = Swapper.from_tsv(female_names_by_rank=female, male_names_by_rank=male, n_names=p.names)
    log.info("%d pairs; swapping %d names of each gender", len(pairs), swapper.n_names)
    cut = thresholds(scores, p.percentiles)
    rows = []
    for percentile, threshold in cut.items():
        tag = int(percentile) if float(percentile).is_integer() else percentile
        kept = subtract(pairs, scores, threshold)
        augmented, counts = augment(pairs, scores, threshold, swapper)
        for name, corpus, extra in (
            (f"sub{tag}", kept, {}),
            (
                f"aug{tag}",
                augmented,
                {
                    "duplicated": counts.n_duplicated,
                    "above_threshold_without_gender_words": counts.n_no_gender,
                },
            ),
        ):
            split = resplit(corpus, p.split["dev"], p.split["test"], seed=p.seed)
            write_corpus(split, Path(p.out) / name)
            rows.append(
                {
                    "scale": p.scale,
                    "corpus": name,
                    "percentile": percentile,
                    "threshold": threshold,
                    "pairs": len(corpus),
                    "train": len(split.train),
                    "dev": len(split.dev),
                    "test": len(split.test),
                }
                | extra
            )
            log.info("%s: %s", name, rows[-1])
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
