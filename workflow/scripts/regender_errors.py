"""Table 3 of Jain et al. (2021): error rates of the rewriters and the rules (rule regender_errors)."""

import json
from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.regender.errors import closest, error_rates_tables
from cdaflow.regender.testsets import apply_revisions, check_revision_sets, read_revisions
from cdaflow.runtime import rule_context

SYSTEMS = ("nmt", "nmt_t", "nmt_at", "rules")

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    revisions = read_revisions(smk.input.revisions) if smk.input.revisions else {}
    check_revision_sets(revisions, list(p.testsets))
    sets, revised = {}, {}
    for k, (name, path) in enumerate(zip(p.testsets, smk.input.testsets, strict=True)):
        records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
        records, revised[name] = apply_revisions(name, records, revisions)
        outputs = {
            system: Path(getattr(smk.input, system)[k]).read_text(encoding="utf-8").splitlines() for system in SYSTEMS
        }
        for system, lines in outputs.items():
            if len(lines) != len(records):
                raise ValueError(f"{getattr(smk.input, system)[k]}: {len(lines)} lines for {len(records)} segments")
        sets[name] = (records, outputs)
    log.info("hand revisions applied: %s", revised)
    paper, measured = error_rates_tables(sets, silver=p.silver, rules_not_applicable=p.rules_not_applicable,
                                         revised=revised)
    for table in (paper, measured):
        table.insert(0, "scale", p.scale)
    examples = ["# Study B: first errors per system and test set\n"]
    for name, (records, outputs) in sets.items():
        reference = "silver: the references are the rules' own output" if name in p.silver else "hand-checked"
        for system in SYSTEMS:
            wrong = [(r, out) for r, out in zip(records, outputs[system], strict=True) if closest(out, r["variants"])[0]]
            examples.append(f"\n## {name} ({reference}), {system}: {len(wrong)} of {len(records)} segments wrong\n\n")
            examples.append("| label | original | correct | output |\n|---|---|---|---|\n")
            for r, out in wrong[:10]:
                cells = [r["label"], r["text"], " / ".join(r["variants"]), out]
                examples.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n")
    write_tsv_atomic(paper, Path(smk.output.table))
    write_tsv_atomic(measured, Path(smk.output.measured))
    with atomic_file(smk.output.examples, "w") as handle:
        handle.writelines(examples)
    log.info("%d paper-layout rows, %d measured rows", len(paper), len(measured))
