"""Table 8: the Yang et al. (2019) MLP on GAP and GAP-Subjective test (rule gs_benchmark)."""

from pathlib import Path

import numpy as np
import pandas as pd

from cdaflow.gap_subjective.coref import MLPSettings, predict, train_mlp
from cdaflow.gap_subjective.gap import read_gap
from cdaflow.gap_subjective.scorer import score, write_system_tsv
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.runtime import rule_context

# Pant & Dadu (2022), Table 8: O, P, R, M, F, B.
PAPER = {
    "gap_subjective": (0.789, 0.772, 0.807, 0.786, 0.792, 1.007),
    "gap": (0.796, 0.778, 0.815, 0.802, 0.790, 0.984),
}
DATASET_NAMES = {"gap": "GAP", "gap_subjective": "GAP-Subjective"}

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    loaded = {tuple(key): np.load(path) for key, path in zip(p.sets, smk.input.features)}
    gold = {tuple(key): read_gap(path) for key, path in zip(p.sets, smk.input.gold)}
    for key, data in loaded.items():
        if data["ids"].tolist() != [e.id for e in gold[key]]:
            raise ValueError(f"features of {key} do not list the examples of its GAP file")
    train = loaded[("gap", "development")]
    settings = MLPSettings.from_config(p.mlp)
    model = train_mlp(train["features"], train["labels"], settings, seed=p.seed)
    rows = []
    for (dataset, split), path in zip([("gap", "test"), ("gap_subjective", "test")], smk.output.predictions):
        predicted = dict(
            zip(loaded[(dataset, split)]["ids"].tolist(), predict(model, loaded[(dataset, split)]["features"]))
        )
        write_system_tsv(path, predicted)
        card = score(gold[(dataset, split)], predicted)
        row = {"dataset": DATASET_NAMES[dataset], "split": split, **card.as_row()}
        row.update(zip(("paper_O", "paper_P", "paper_R", "paper_M", "paper_F", "paper_B"), PAPER[dataset]))
        rows.append(row)
        log.info("%s %s:\n%s", dataset, split, card.to_text())
    write_tsv_atomic(
        pd.DataFrame(rows).assign(bias_definition="F/M (official GAP scorer)", scale=p.scale), Path(smk.output.table)
    )
