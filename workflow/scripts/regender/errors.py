"""Table 3 of Jain et al. (2021): error rates of the rewriters and the rules (rule regender_errors)."""

from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.errors import SYSTEMS, read_outputs
from cdaflow.regender.reports import error_rate_tables, examples_markdown
from cdaflow.regender.testsets import apply_revisions, check_revision_sets, read_revisions, read_tagged_test_set

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    revisions = read_revisions(smk.input.revisions) if smk.input.revisions else {}
    check_revision_sets(revisions, list(p.testsets))
    sets, revised = {}, {}
    for k, (name, path) in enumerate(zip(p.testsets, smk.input.testsets, strict=True)):
        records, revised[name] = apply_revisions(name, read_tagged_test_set(path), revisions)
        outputs = read_outputs({system: getattr(smk.input, system)[k] for system in SYSTEMS}, len(records))
        sets[name] = (records, outputs)
    log.info("hand revisions applied: %s", revised)
    paper, measured = error_rate_tables(sets, p.scale, silver=p.silver, rules_not_applicable=p.rules_not_applicable,
                                        revised=revised)
    write_tsv_atomic(paper, Path(smk.output.table))
    write_tsv_atomic(measured, Path(smk.output.measured))
    with atomic_file(smk.output.examples, "w") as handle:
        handle.write(examples_markdown(sets, silver=p.silver))
    log.info("%d paper-layout rows, %d measured rows", len(paper), len(measured))
