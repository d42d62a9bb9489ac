"""Training/dev trees without annotated sentences, and the annotated sentences (rule morph_cda_prepare)."""

from pathlib import Path

from cdaflow.io.conllu import write_conllu_atomic
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.annotations import hold_out_dev, join, read_annotations, sentences_by_key, without_annotated
from cdaflow.morph_cda.reports import prepare_summary
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    annotations = read_annotations(Path(smk.input.annotations))
    annotated_keys = {a.key for a in annotations}
    train, dropped_train = without_annotated(smk.input.train, annotated_keys)
    dev, dropped_dev = without_annotated(smk.input.dev, annotated_keys)
    if not dev:
        # No dev split configured: a fixed tenth of the training trees decides when to stop.
        train, dev = hold_out_dev(train, smk.params.seed)
        log.info("no dev split configured: held out %d of the training trees", len(dev))
    # Each annotated sentence carries its source, so later rules can join the annotations again.
    joined = join(annotations, sentences_by_key(smk.input.annotated))
    write_conllu_atomic(train, Path(smk.output.train))
    write_conllu_atomic(dev, Path(smk.output.dev))
    write_conllu_atomic([a.sentence for a in joined], Path(smk.output.annotated))
    p = smk.params
    summary = prepare_summary(p.scale, p.lang, len(train), dropped_train, len(dev), dropped_dev, joined)
    write_tsv_atomic(summary, Path(smk.output.summary))
    log.info("train %d (removed %d annotated), dev %d, annotated %d", len(train), dropped_train, len(dev), len(joined))
