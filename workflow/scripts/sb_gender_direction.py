"""Gender direction from the paper's 10 pairs, checked against debiaswe's equalize pairs (rule sb_gender_direction)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic  # noqa: E402
from cdaflow.runtime import input_path, rule_context  # noqa: E402
from cdaflow.sentence_bias.direction import PAPER_PAIRS, cosine, gender_direction, load_pairs_json  # noqa: E402
from cdaflow.sentence_bias.embeddings import open_vectors  # noqa: E402

# Dolci et al. (2023) §3.2: top component 58 % (10 pairs) and 41 % (50 pairs), cosine > 0.93.
PAPER = {"paper_10_pairs": 0.58, "equalize_pairs": 0.41}

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    vectors = open_vectors(smk.input.vectors)
    # GloVe 6B is lower-cased: fold case when a cased word (Mary) is missing.
    fold = not any(w[:1].isupper() for w in vectors.words[:1000])
    directions = {"paper_10_pairs": gender_direction(vectors, PAPER_PAIRS, fold_case=fold)}
    debiaswe = input_path(smk.input.debiaswe, smk.params.member)
    if debiaswe:
        pairs = load_pairs_json(debiaswe / "equalize_pairs.json", vectors=vectors)
        directions["equalize_pairs"] = gender_direction(vectors, pairs, fold_case=fold)
    main = directions["paper_10_pairs"]
    np.save(smk.output.direction, main.vector.astype(np.float32))
    rows = []
    for name, direction in directions.items():
        for k, share in enumerate(direction.explained_variance_ratio[:10], start=1):
            rows.append(
                {
                    "scale": smk.params.scale,
                    "pairs": name,
                    "pairs_used": len(direction.pairs_used),
                    "component": k,
                    "explained_variance": float(share),
                    "paper_top_component": PAPER[name] if k == 1 else None,
                    "cosine_with_10_pair_direction": float(abs(cosine(direction.vector, main.vector)))
                    if k == 1
                    else None,
                }
            )
        log.info("%s: %d pairs, top component %.3f", name, len(direction.pairs_used), direction.top_share)
    table = pd.DataFrame(rows)
    write_tsv_atomic(table, Path(smk.output.table))
    fig, axes = plt.subplots(1, len(directions), figsize=(5 * len(directions), 3.2), squeeze=False)
    for ax, (name, direction) in zip(axes[0], directions.items()):
        shares = direction.explained_variance_ratio[:10]
        ax.bar(range(1, len(shares) + 1), shares)
        ax.set_title(f"{name} ({len(direction.pairs_used)} pairs)")
        ax.set_xlabel("principal component")
        ax.set_ylabel("explained variance")
    fig.tight_layout()
    with atomic_file(smk.output.plot, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
