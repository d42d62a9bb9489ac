"""Validate one treebank split and re-parse it with the configured backend (rule treebank_split)."""

from pathlib import Path

from cdaflow.io.conllu import read_conllu, write_conllu_atomic
from cdaflow.pipeline.cluster import gpus_requested
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.options import parser_options
from cdaflow.text.parsing import get_parser

with rule_context(snakemake) as (smk, log):  # noqa: F821
    source = Path(smk.input[0]) / smk.params.file
    backend, lang = smk.params.backend, smk.params.lang
    options = parser_options(smk.params.parsing, backend, lang, gpu=gpus_requested(smk.resources), rule=smk.rule)
    parser = get_parser(backend, lang, **options)
    log.info("reading %s with backend %s", source, parser.name)
    count = write_conllu_atomic(parser.reparse(read_conllu(source)), Path(smk.output[0]))
    log.info("wrote %s sentences to %s", count, smk.output[0])
