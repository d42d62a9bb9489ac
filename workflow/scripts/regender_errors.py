"""Table 3 of Jain et al. (2021): error rates of the rewriters and the rules (rule regender_errors)."""

import json
from pathlib import Path

import pandas as pd

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.regender.errors import closest, error_rates
from cdaflow.runtime import rule_context

TYPES = {"all": ("G", "N"), "neutral": ("N",), "re-genderable": ("G",)}

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    systems = ["nmt", "nmt_t", "nmt_at", "rules"]
    rows, examples = [], ["# Study B: first errors per system and test set\n"]
    for name, path in zip(p.testsets, smk.input.testsets, strict=True):
        records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
        k = p.testsets.index(name)
        outputs = {
            system: Path(getattr(smk.input, system)[k]).read_text(encoding="utf-8").splitlines() for system in systems
        }
        for kind, labels in TYPES.items():
            chosen = [i for i, r in enumerate(records) if r["label"] in labels]
            row = {"scale": p.scale, "test_set": name, "type": kind, "segments": len(chosen)}
            for system in systems:
                rates = error_rates([outputs[system][i] for i in chosen], [records[i]["variants"] for i in chosen])
                row |= {f"{system}_per_sentence": rates["per_sentence"], f"{system}_per_word": rates["per_word"]}
            rows.append(row)
        for system in systems:
            pairs = zip(records, outputs[system], strict=True)
            wrong = [(r, out) for r, out in pairs if closest(out, r["variants"])[0]]
            examples.append(f"\n## {name}, {system}: {len(wrong)} of {len(records)} segments wrong\n\n")
            examples.append("| label | original | correct | output |\n|---|---|---|---|\n")
            for r, out in wrong[:10]:
                cells = [r["label"], r["text"], " / ".join(r["variants"]), out]
                examples.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n")
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
    with atomic_file(smk.output.examples, "w") as handle:
        handle.writelines(examples)
    log.info("%d rows", len(rows))
