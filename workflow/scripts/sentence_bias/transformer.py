"""Bias score for a transformer sentence encoder: direction, Tables 12-13, Fig. 7 (rule sentence_bias_transformer)."""

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias import reports, transformer
from cdaflow.sentence_bias.nli import read_snli
from cdaflow.sentence_bias.score import score_rows
from cdaflow.sentence_bias.swap import Swapper
from cdaflow.sentence_bias.wordlist import GenderWordList

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    torch.set_num_threads(smk.threads)
    torch.manual_seed(p.seed)
    device = rule_device(smk)
    spec = p.spec["model"]
    local = input_path(smk.input.model, p.model_member) if smk.input.model else None
    encoder = transformer.TransformerEncoder.from_spec(spec, local, device=device, max_length=p.spec["max_length"])
    log.info("encoder %s: %d dimensions, max %d tokens, on %s", spec, encoder.dim, encoder.max_length, device)
    if smk.input.sentences:
        source = input_path(smk.input.sentences, p.sentences_member)
        sentences = [line.strip() for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        source = "SNLI train"
        snli = read_snli(Path(smk.input.snli) / "snli_1.0_train.jsonl")
        sentences = [s for pair in snli for s in (pair.premise, pair.hypothesis)]
    # The context rule for her/his (her → his before a noun, him otherwise) keeps the swapped
    # sentences grammatical: the encoder sees whole sentences, not word lists.
    swapper = Swapper.from_tsv(her_rule="context")
    pairs = transformer.sentence_pairs(sentences, swapper, n=p.spec["n_sentences"], seed=p.seed)
    log.info("%d (female, male) sentence pairs from %s", len(pairs), source)
    direction = transformer.sentence_direction(encoder, pairs)
    np.save(smk.output.direction, direction.vector.astype(np.float32))
    write_tsv_atomic(pd.DataFrame(pairs, columns=["female", "male"]), Path(smk.output.pairs))
    half_cosine = transformer.split_half_cosine(encoder, pairs, seed=p.seed + 1)
    table = reports.transformer_direction_table(direction, spec, len(pairs), half_cosine, p.scale)
    write_tsv_atomic(table, Path(smk.output.table))
    log.info("top component %.3f, split-half cosine %.4f", direction.top_share, half_cosine)
    outputs = encoder.encode_tokens([p.example, transformer.FIG7_SENTENCE] + [s for _, s in transformer.PAPER_TABLE13])
    words = GenderWordList.load(smk.input.words)
    scores = score_rows(outputs.tokens, transformer.contextual_bias_scores(outputs, direction, words))
    write_tsv_atomic(reports.table12_example(scores[0], p.example, p.scale), Path(smk.output.table12))
    write_tsv_atomic(reports.table13_examples(scores[2:], p.scale), Path(smk.output.table13))
    reports.transformer_figure(direction, len(pairs), scores[1], smk.output.figure)
