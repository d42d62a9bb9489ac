"""Prefix log-likelihoods of the probe phrases under each corpus's LM (rule morph_cda_probes)."""

from pathlib import Path

import pandas as pd
import sentencepiece as spm
import torch

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.probes import ProbeLanguage
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.language_model import LSTMLanguageModel, prefix_log_likelihood

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    lang = smk.wildcards.lang
    gazetteer = Gazetteer.read(Path(smk.input.model) / "gazetteer.tsv")
    language = ProbeLanguage.read(smk.input.probes)
    probes = language.probes(sorted(gazetteer.to_fem.items()))
    table = pd.DataFrame([vars(p) for p in probes])
    for folder in map(Path, smk.input.lms):
        corpus = folder.name
        bpe = spm.SentencePieceProcessor(model_file=str(folder / "bpe.model"))
        model = LSTMLanguageModel.load(folder)
        phrases = [[i + 3 for i in piece_ids] for piece_ids in bpe.encode([p.phrase for p in probes])]
        table[corpus] = prefix_log_likelihood(model, phrases)
        log.info("%s: scored %d phrases", corpus, len(probes))
    table.insert(0, "lang", lang)
    write_tsv_atomic(table, Path(smk.output[0]))
