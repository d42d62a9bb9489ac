"""Train one InferSent on one NLI corpus (rule sentence_bias_train_infersent)."""

from pathlib import Path

import numpy as np
import torch

from cdaflow.io.checkpoints import rule_store
from cdaflow.io.model_card import card_from_rule
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.debias import debiased_vectors
from cdaflow.sentence_bias.embeddings import open_vectors
from cdaflow.sentence_bias.infersent import InferSent
from cdaflow.sentence_bias.nli import NLINet, evaluate, read_snli, train_nli

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    model_name, seed = smk.wildcards.model, smk.params.seed
    vectors = open_vectors(smk.input.vectors)
    if model_name == "hard_debias":
        debiaswe = input_path(smk.input.debiaswe, smk.params.debiaswe_member)
        vectors = debiased_vectors(vectors, np.load(smk.input.direction), debiaswe)
        log.info("hard-debiased the word vectors (neutralise + equalise)")
    folder = Path(smk.input.corpus)
    train, dev, test = (read_snli(folder / f"snli_1.0_{split}.jsonl") for split in ("train", "dev", "test"))
    log.info("%s: %d train, %d dev, %d test pairs from %s", model_name, len(train), len(dev), len(test), folder)
    device = rule_device(smk)
    encoder_settings, training = smk.params.encoder, smk.params.training
    infersent = InferSent.build(
        vectors, encoder_settings["hidden"], zero_pad_in_max=encoder_settings["zero_pad_in_max"],
        seed=seed, device=device,
    )  # fmt: skip
    net = NLINet(infersent, fc_dim=training["fc_dim"], seed=seed)
    schedule = {key: training[key] for key in ("lr", "batch_size", "decay", "shrink", "min_lr", "max_epochs")}
    checkpoints = rule_store(smk)  # a retry after a kill goes on from the last checkpoint
    history = train_nli(net, train, dev, **schedule, seed=seed, device=device, log=log, checkpoints=checkpoints)
    dev_accuracy, test_accuracy = evaluate(net, dev), evaluate(net, test)
    log.info("dev accuracy %.4f, test accuracy %.4f", dev_accuracy, test_accuracy)
    infersent.save(
        smk.output[0],
        extra={
            "model": model_name,
            "vectors": "hard_debias" if model_name == "hard_debias" else "original",
            "pairs": {"train": len(train), "dev": len(dev), "test": len(test)},
            "dev_accuracy": dev_accuracy,
            "test_accuracy": test_accuracy,
            "history": history.to_dict(),
            "training": training,
            "seed": seed,
        },
        card=card_from_rule(
            smk,
            data=[f"NLI corpus {model_name} ({len(train)} training pairs)", f"word vectors {smk.input.vectors}"],
            size={"train_pairs": len(train), "parameters": sum(p.numel() for p in infersent.encoder.parameters())},
            heldout={"metric": "accuracy", "value": round(test_accuracy, 4), "on": f"SNLI test, {len(test)} pairs"},
        ),
    )
    checkpoints.finish()
