"""A small spaCy pipeline trained on the language's treebank splits (rule morph_cda_parser)."""

import json
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.morph_cda.parser_training import train_pipeline
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    lang = smk.wildcards.lang
    scores = train_pipeline([Path(p) for p in smk.input.train], lang, Path(smk.output.model), seed=smk.params.seed)
    with atomic_file(smk.output.scores) as handle:
        handle.write(json.dumps(scores, indent=1) + "\n")
    log.info("%s parser on its held-out treebank sentences: %s", lang, scores)
