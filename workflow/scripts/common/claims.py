"""results/claims.tsv: the papers' headline claims checked against this run's tables (rule claims)."""

from pathlib import Path

from cdaflow.claims import ledger_table, load_claims
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    output = Path(smk.output.ledger)
    table = ledger_table(output.parent, load_claims(smk.input.claims), scale=smk.params.scale)
    write_tsv_atomic(table, output)
    log.info("%d claims: %s", len(table), table["verdict"].value_counts().to_dict())
