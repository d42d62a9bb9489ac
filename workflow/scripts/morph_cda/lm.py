"""Train the BPE-RNNLM of one language and corpus (rule morph_cda_lm)."""

import json
import random
from pathlib import Path

import pandas as pd
import sentencepiece as spm
import torch

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.checkpoints import rule_store
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.language_model import LMSettings, encode_corpus, read_sentences, sentence_perplexity, train_lm

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    settings = smk.params.settings
    lines = read_sentences(smk.input[0])
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

        # One flat array of ids each, encoded in chunks (Python lists of ints took ~36 bytes a piece);
        # the text is not needed past here.
        train_ids, dev_ids = encode_corpus(bpe, train_lines), encode_corpus(bpe, dev_lines)
        del lines, train_lines, dev_lines
        lm_settings = LMSettings(**settings["lm"], seed=smk.params.seed)
        checkpoints = rule_store(smk)  # a retry after a kill goes on from the last checkpoint
        model, history = train_lm(train_ids, dev_ids, bpe.get_piece_size(), lm_settings, device=device,
                                  checkpoints=checkpoints)
        model.save(tmp)
        pd.DataFrame(history).to_csv(tmp / "history.tsv", sep="\t", index=False)
        dev_ppl = sentence_perplexity(model, dev_ids, device)
        (tmp / "metrics.json").write_text(json.dumps({
            "train_sentences": len(train_ids), "dev_sentences": len(dev_ids), "bpe_pieces": bpe.get_piece_size(),
            "dev_perplexity": dev_ppl, "settings": lm_settings.__dict__,
        }, indent=1))
    checkpoints.finish()
    log.info("%s %s: %d train / %d dev sentences, dev perplexity %.2f per piece", smk.wildcards.lang,
             smk.wildcards.corpus, len(train_ids), len(dev_ids), dev_ppl)
