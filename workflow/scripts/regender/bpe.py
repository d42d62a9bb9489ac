"""SentencePiece BPE model for the rewriter (rule regender_bpe)."""

from pathlib import Path

from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.corpus import iter_lines
from cdaflow.regender.rewriter import train_bpe

with rule_context(snakemake) as (smk, log):  # noqa: F821
    texts = [line for path in smk.input for line in iter_lines(path)]
    prefix = Path(smk.output.model).with_suffix("")
    model = train_bpe(texts, prefix, smk.params.vocab_size, threads=smk.threads)
    log.info("BPE model %s from %d lines (requested vocabulary %d)", model, len(texts), smk.params.vocab_size)
