"""GloVe vectors for Study D, memory-mapped (rule sentence_bias_vectors)."""

from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors

with rule_context(snakemake) as (smk, log):  # noqa: F821
    prepare_vectors(smk.params.spec, input_path(smk.input.source, smk.params.member), smk.output[0])
    vectors = open_vectors(smk.output[0])
    log.info("%d words of dimension %d (%s)", len(vectors), vectors.dim, smk.params.spec)
