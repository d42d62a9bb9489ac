"""Parse one shard of a raw-text corpus (rule corpus_shard)."""

from pathlib import Path

from cdaflow.io.conllu import write_conllu_atomic
from cdaflow.io.text import read_shard
from cdaflow.pipeline.cluster import gpus_requested
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.options import parser_options
from cdaflow.text.parsing import get_parser, parse_numbered_lines

with rule_context(snakemake) as (smk, log):  # noqa: F821
    corpus = smk.params.corpus
    shard, shards = int(smk.wildcards.shard), corpus["shards"]
    source = Path(smk.input[0]) / corpus["file"]
    backend, lang = smk.params.backend, corpus["lang"]
    options = parser_options(smk.params.parsing, backend, lang, gpu=gpus_requested(smk.resources), rule=smk.rule)
    if backend == "spacy":  # spaCy parses in the rule's threads as worker processes
        options["processes"] = smk.threads
    parser = get_parser(backend, lang, **options)
    log.info("parsing %s shard %d of %d with %s", source, shard, shards, parser.name)
    lines = read_shard(source, shard, shards, max_lines=corpus["max_lines"], text_column=corpus["text_column"])
    sentences = parse_numbered_lines(
        parser,
        lines,
        sent_id_prefix=smk.wildcards.corpus,
        batch_size=smk.params.parsing["batch_size"],
        path=str(source),
    )
    count = write_conllu_atomic(sentences, Path(smk.output[0]))
    log.info("wrote %s sentences to %s", count, smk.output[0])
