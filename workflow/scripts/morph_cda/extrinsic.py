"""Fig. 4 / Table 5, reduction factors, Fig. 5, Tables 4 and 8 of §5.2 (rule morph_cda_extrinsic)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from cdaflow.io.atomic import atomic_file  # noqa: E402
from cdaflow.io.tables import write_tsv_atomic  # noqa: E402
from cdaflow.morph_cda.reports import extrinsic_tables, fig4, fig5  # noqa: E402
from cdaflow.pipeline.runtime import rule_context  # noqa: E402


def save(fig, path):
    fig.tight_layout()
    with atomic_file(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
    plt.close(fig)


with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    tables = extrinsic_tables(
        p.scale, p.langs, smk.input.probes, smk.input.nouns, smk.input.stats, smk.input.lms, p.threshold
    )
    write_tsv_atomic(tables.results, Path(smk.output.table))
    write_tsv_atomic(tables.reductions, Path(smk.output.reduction))
    write_tsv_atomic(tables.groups, Path(smk.output.stereotyped))
    write_tsv_atomic(tables.table4, Path(smk.output.table4))
    write_tsv_atomic(tables.table8, Path(smk.output.table8))
    save(fig4(tables.results, p.scale), smk.output.fig4)
    save(fig5(tables.groups), smk.output.fig5)
    log.info("%s", tables.results.to_dict("records"))
