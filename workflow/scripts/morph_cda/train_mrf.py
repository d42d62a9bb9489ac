"""Train one MRF parameterization (rule morph_cda_train_mrf)."""

import json
from pathlib import Path

import torch

from cdaflow.io.conllu import read_conllu, words
from cdaflow.morph_cda.model import AgreementMRF, make_batches, train
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.morph_cda.tree_encoding import encode
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.language import load as load_language

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    settings = smk.params.settings
    features = tuple(smk.params.features)
    device = rule_device(smk)
    train_trees = list(read_conllu(smk.input.train))
    dev_trees = list(read_conllu(smk.input.dev))
    inventory = TagInventory.from_tags(
        (tag_from_feats(w["feats"], features) for s in train_trees for w in words(s)), features
    )
    log.info("%d training trees, %d dev trees, %d tags over %d subtags",
             len(train_trees), len(dev_trees), inventory.size, len(inventory.subtags))
    model = AgreementMRF(
        inventory,
        smk.wildcards.param,
        smk.wildcards.lang,
        n1=settings["n1"],
        n2=settings["n2"],
        nn_link=settings["nn_link"],
        tag_prior=settings["tag_prior"],
        arc_frames=settings["arc_frames"],
        symmetric_gender=settings["symmetric_gender"],
    ).to(device)
    be = load_language(smk.wildcards.lang).be_lemmas
    train_batches = make_batches([encode(s, inventory, be) for s in train_trees], settings["batch_size"], device)
    dev_batches = make_batches([encode(s, inventory, be) for s in dev_trees], settings["batch_size"], device)
    result = train(
        model,
        train_batches,
        dev_batches,
        lr=settings["lr"],
        weight_decay=settings["weight_decay"],
        tolerance_bits=settings["tolerance_bits"],
        max_epochs=settings["max_epochs"],
        patience=settings["patience"],
        seed=smk.params.seed,
        progress=lambda epoch, tr, dv: log.info("epoch %d: train %.4f bits, dev %.4f bits", epoch, tr, dv),
    )
    stopped = "converged" if result.converged else "stopped at max_epochs"
    log.info("%s after %d epochs (%.1f s)", stopped, result.epochs, result.seconds)
    # No wall time in the record: the log above has it.
    record = {**result.record(), "settings": settings, "seed": smk.params.seed}
    model.cpu().save(Path(smk.output[0]), extra={"training": record})
    log.info("saved %s", json.dumps({"epochs": result.epochs, "dev_bits": result.dev_bits[-1]}))
