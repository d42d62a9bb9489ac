"""Table 8: the Yang et al. (2019) MLP on GAP and GAP-Subjective test (rule gap_subjective_benchmark)."""

from pathlib import Path

import numpy as np

from cdaflow.gap_subjective.coref import MLPSettings, predict, train_mlp
from cdaflow.gap_subjective.gap import read_gap
from cdaflow.gap_subjective.reports import table8
from cdaflow.gap_subjective.scorer import score, write_system_tsv
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    loaded = {tuple(key): np.load(path) for key, path in zip(p.sets, smk.input.features)}
    gold = {tuple(key): read_gap(path) for key, path in zip(p.sets, smk.input.gold)}
    for key, data in loaded.items():
        if data["ids"].tolist() != [e.id for e in gold[key]]:
            raise ValueError(f"features of {key} do not list the examples of its GAP file")
    train = loaded[("gap", "development")]
    settings = MLPSettings.from_config(p.mlp)
    device = rule_device(smk)
    model = train_mlp(train["features"], train["labels"], settings, seed=p.seed, device=device)
    log.info("MLP trained on %s", device)
    scores = []
    for (dataset, split), path in zip([("gap", "test"), ("gap_subjective", "test")], smk.output.predictions):
        predicted = dict(
            zip(loaded[(dataset, split)]["ids"].tolist(), predict(model, loaded[(dataset, split)]["features"]))
        )
        write_system_tsv(path, predicted)
        card = score(gold[(dataset, split)], predicted)
        scores.append((dataset, split, card.as_row()))
        log.info("%s %s:\n%s", dataset, split, card.to_text())
    write_tsv_atomic(table8(scores, p.scale), Path(smk.output.table))
