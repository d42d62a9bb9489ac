"""Tables 6-8 across all retrained encoders, Fig. 6, and their NLI accuracy (rule sb_tables)."""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic  # noqa: E402
from cdaflow.runtime import rule_context  # noqa: E402
from cdaflow.sentence_bias.reports import seat_table, senteval_overall, senteval_table  # noqa: E402

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    scale = smk.params.scale
    seat = pd.concat([pd.read_csv(path, sep="\t") for path in smk.input.seat], ignore_index=True)
    senteval = pd.concat([pd.read_csv(path, sep="\t") for path in smk.input.senteval], ignore_index=True)
    for table in (seat, senteval):
        table.insert(0, "scale", scale)
    write_tsv_atomic(seat, Path(smk.output.seat))
    write_tsv_atomic(senteval, Path(smk.output.senteval))
    # The paper's layouts: Tables 6-7 and 11 (SEAT), 8-9 (SentEval), 10 (overall score).
    for table, path in (
        (seat_table(seat, smk.params.models), smk.output.seat_wide),
        (senteval_table(senteval, smk.params.models), smk.output.senteval_wide),
        (senteval_overall(senteval, smk.params.models), smk.output.senteval_overall),
    ):
        table.insert(0, "scale", scale)
        write_tsv_atomic(table, Path(path))
    models = []
    for folder in map(Path, smk.input.models):
        config = json.loads((folder / "config.json").read_text())
        models.append(
            {
                "scale": scale,
                "model": config.get("model", folder.name),
                "vectors": config.get("vectors"),
                **{f"{k}_pairs": v for k, v in config.get("pairs", {}).items()},
                "dev_accuracy": config.get("dev_accuracy"),
                "test_accuracy": config.get("test_accuracy"),
            }
        )
    write_tsv_atomic(pd.DataFrame(models), Path(smk.output.models))
    done = seat.dropna(subset=["effect_size"]) if "effect_size" in seat else seat.iloc[0:0]
    pivot = done.pivot(index="test", columns="model", values="effect_size") if len(done) else pd.DataFrame()
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(smk.params.models) + 3), 3.5))
    if len(pivot):
        pivot[[m for m in smk.params.models if m in pivot.columns]].plot.bar(ax=ax)
    ax.set_ylabel("SEAT effect size d")
    ax.set_title(f"SEAT effect sizes by retrained encoder ({scale})")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    with atomic_file(smk.output.figure, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
    log.info("%d SEAT rows, %d SentEval rows, %d models", len(seat), len(senteval), len(models))
