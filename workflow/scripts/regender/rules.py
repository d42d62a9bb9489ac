"""The POS-sequence rules on one tagged shard (rule regender_rules)."""

import csv
import json
from collections import Counter
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.rules import RuleSet
from cdaflow.regender.segment_types import Segment

with rule_context(snakemake) as (smk, log):  # noqa: F821
    rules = RuleSet.load(Path(smk.input.rule_files[0]).parent, sequences=smk.params.sequences)
    labels = Counter()
    with open(smk.input.segments, encoding="utf-8") as source, atomic_file(smk.output[0], "w", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\", lineterminator="\n")
        writer.writerow(["segment", "label", "variant", "category", "sequence", "reason", "gendered"])
        for number, line in enumerate(source, start=1):
            try:
                segment = Segment.from_json(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{smk.input.segments}:{number}: not a tagged segment ({exc})") from None
            decision = rules.decide(segment)
            labels[decision.label] += 1
            writer.writerow([segment.text or " ".join(segment.tokens), decision.label or "", decision.variant or "",
                             decision.category or "", decision.sequence, decision.reason, int(segment.gendered)])
    log.info("G %d, N %d, not covered %d", labels["G"], labels["N"], labels[None])
