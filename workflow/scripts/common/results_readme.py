"""results/README.md: the claims ledger, then every catalogued table and figure, ours beside the paper's.

Rule results_readme.
"""

import json
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import read_tsv
from cdaflow.pipeline.reporting import load_catalogue, render_readme
from cdaflow.pipeline.runtime import rule_context
from cdaflow.pipeline.signature import signature_string

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    catalogue = load_catalogue(smk.input.catalogue)
    readme = Path(smk.output.readme)
    # Links in the README are relative to the folder it lands in (results/).
    claims = read_tsv(smk.input.claims, text_columns=("ours", "reason", "paper_value", "scale", "signature"))
    text = render_readme(
        readme.parent,
        catalogue,
        scale=p.scale,
        config_name=p.config_name,
        disabled_studies=p.disabled_studies,
        claims=claims,
        signature=signature_string(json.loads(Path(smk.input.signature).read_text(encoding="utf-8"))),
    )
    with atomic_file(readme) as handle:
        handle.write(text)
    log.info("%s: %d catalogued entries, %d lines", readme, len(catalogue.entries), text.count("\n"))
