"""The rules' output on one tagged test set (rule regender_rules_output)."""

import json
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.rules import RuleSet
from cdaflow.regender.segment_types import Segment

with rule_context(snakemake) as (smk, log):  # noqa: F821
    rules = RuleSet.load(Path(smk.input.rule_files[0]).parent, sequences=smk.params.sequences)
    changed = 0
    with open(smk.input.segments, encoding="utf-8") as source, atomic_file(smk.output[0], "w") as handle:
        for line in source:
            segment = Segment.from_json(json.loads(line))
            decision = rules.decide(segment)
            text = segment.text or " ".join(segment.tokens)
            changed += decision.label == "G"
            handle.write((decision.variant if decision.label == "G" else text) + "\n")
    log.info("%d segments re-gendered by the rules", changed)
