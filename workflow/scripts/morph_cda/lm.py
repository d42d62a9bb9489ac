"""Train the BPE-RNNLM of one language and corpus (rule morph_cda_lm)."""

import json
import random
from pathlib import Path

import pandas as pd
import sentencepiece as spm
import torch

from cdaflow.device import rule_device
from cdaflow.io.atomic import atomic_directory
from cdaflow.morph_cda.lm import LMSettings, sentence_perplexity, train_lm
from cdaflow.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    settings = smk.params.settings
    lines = [line.strip() for line in Path(smk.input[0]).read_text(encoding="utf-8").splitlines() if line.strip()]
    rng = random.Random(smk.params.seed)
    order = list(range(len(lines)))
    rng.shuffle(order)
    n_dev = max(1, int(len(lines) * settings["dev_fraction"]))
    dev_lines = [lines[i] for i in order[:n_dev]]
    train_lines = [lines[i] for i in order[n_dev:]]
    device = rule_device(smk)
    with atomic_directory(Path(smk.output[0])) as tmp:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(train_lines), model_prefix=str(tmp / "bpe"), model_type="bpe",
            vocab_size=settings["bpe_vocab"], hard_vocab_limit=False, character_coverage=1.0,
            num_threads=smk.threads, minloglevel=2,
        )
        bpe = spm.SentencePieceProcessor(model_file=str(tmp / "bpe.model"))

        def ids(texts):
            return [[i + 3 for i in piece_ids] for piece_ids in bpe.encode(texts)]

        lm_settings = LMSettings(**settings["lm"], seed=smk.params.seed)
        model, history = train_lm(ids(train_lines), ids(dev_lines), bpe.get_piece_size(), lm_settings, device=device)
        model.save(tmp)
        pd.DataFrame(history).to_csv(tmp / "history.tsv", sep="\t", index=False)
        dev_ppl = sentence_perplexity(model, ids(dev_lines), device)
        (tmp / "metrics.json").write_text(json.dumps({
            "train_sentences": len(train_lines), "dev_sentences": len(dev_lines), "bpe_pieces": bpe.get_piece_size(),
            "dev_perplexity": dev_ppl, "settings": lm_settings.__dict__,
        }, indent=1))
    log.info("%s %s: %d train / %d dev sentences, dev perplexity %.2f per piece", smk.wildcards.lang,
             smk.wildcards.corpus, len(train_lines), len(dev_lines), dev_ppl)
