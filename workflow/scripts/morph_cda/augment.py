"""Corpus-scale CDA (§5.2): original, naive-swap and MRF corpora, Table 4 counts (rule morph_cda_augment)."""

from collections import Counter
from pathlib import Path

import torch

from cdaflow.io.conllu import read_conllu
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.augment import CORPORA, AugmentCounts, augment_corpus, count_gazetteer_nouns, write_corpora
from cdaflow.morph_cda.model_folder import load_model
from cdaflow.morph_cda.reports import corpus_stats, noun_counts_table
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    lang, settings = smk.wildcards.lang, smk.params.settings
    device = rule_device(smk)
    generator, gazetteer = load_model(Path(smk.input.model), device=device, threads=smk.threads)
    noun_counts: Counter = Counter()
    counts = AugmentCounts()
    sentences = count_gazetteer_nouns(
        (sentence for path in smk.input.parsed for sentence in read_conllu(path)), gazetteer, noun_counts
    )
    augmented = augment_corpus(
        sentences, generator, gazetteer, max_copies=settings["max_copies"], batch_size=settings["batch_size"],
        counts=counts,
    )
    write_corpora(
        augmented, dict(zip(CORPORA, smk.output.corpora, strict=True)),
        progress=lambda n: log.info("%d sentences, %d copies", n, counts.copies),
    )
    stats = corpus_stats(smk.params.scale, lang, len(gazetteer), counts)
    write_tsv_atomic(stats, Path(smk.output.stats))
    write_tsv_atomic(noun_counts_table(noun_counts), Path(smk.output.nouns))
    log.info("%s: %s", lang, stats.to_dict("records")[0])
