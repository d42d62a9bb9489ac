"""Bias score of every SNLI sentence; Tables 2-3 and Fig. 5 (rule sentence_bias_score_snli)."""

from pathlib import Path

import numpy as np
import torch

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.corpora import score_histogram, thresholds
from cdaflow.sentence_bias.embeddings import open_vectors
from cdaflow.sentence_bias.infersent import InferSent
from cdaflow.sentence_bias.nli import read_snli
from cdaflow.sentence_bias.reports import snli_score_table, table2_example, table3_top_sentences
from cdaflow.sentence_bias.score import encoder_bias_scorer, encoder_bias_scores
from cdaflow.sentence_bias.wordlist import GenderWordList

CHUNK = 4096  # sentences per encoding call: bounded memory at SNLI's 600k sentences

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    p = smk.params
    vectors = open_vectors(smk.input.vectors)
    direction = np.load(smk.input.direction)
    gender_words = GenderWordList.load(smk.input.words)
    device = rule_device(smk)
    encoder_path = input_path(smk.input.encoder, p.encoder_member if p.pretrained else None)
    encoder = InferSent.load_any(encoder_path, vectors, pretrained=p.pretrained, device=device)
    score = encoder_bias_scorer(encoder, vectors, direction, gender_words, chunk=CHUNK)

    pairs = [
        pair
        for split in ("train", "dev", "test")
        for pair in read_snli(Path(smk.input.snli) / f"snli_1.0_{split}.jsonl")
    ]
    sentences = list(dict.fromkeys(s for pair in pairs for s in (pair.premise, pair.hypothesis)))
    log.info("%d pairs, %d distinct sentences", len(pairs), len(sentences))
    scored = score(sentences)
    scores = snli_score_table(pairs, sentences, scored)
    write_tsv_atomic(scores, Path(smk.output.scores))
    (example,) = encoder_bias_scores(encoder, [p.example], vectors, direction, gender_words)
    write_tsv_atomic(table2_example(example, p.scale), Path(smk.output.table2))
    write_tsv_atomic(table3_top_sentences(sentences, scored, p.scale), Path(smk.output.table3))
    cut = thresholds(scores["pair_score"].to_numpy(), p.percentiles)
    score_histogram(scores["pair_score"].to_numpy(), cut, Path(smk.output.histogram))
    log.info("thresholds %s", cut)
