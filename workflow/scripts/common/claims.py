"""results/claims.tsv: the papers' headline claims checked against this run's tables, with the run's
signature (results/signature.json) cited on every row (rule claims)."""

import json
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.claims import ledger_table, load_claims
from cdaflow.pipeline.runtime import rule_context
from cdaflow.pipeline.signature import run_signature, signature_string

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    signature = run_signature(p.scale, p.config_sha256, project=Path.cwd(), logs="logs")
    with atomic_file(smk.output.signature) as handle:
        json.dump(signature, handle, indent=1)
        handle.write("\n")
    log.info("run signature: %s", signature_string(signature))
    output = Path(smk.output.ledger)
    table = ledger_table(output.parent, load_claims(smk.input.claims), scale=p.scale)
    table["signature"] = signature_string(signature)
    write_tsv_atomic(table, output)
    log.info("%d claims: %s", len(table), table["verdict"].value_counts().to_dict())
