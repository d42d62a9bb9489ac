"""SEAT and SentEval for one trained encoder (rule sentence_bias_evaluate)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.debias import debiased_vectors
from cdaflow.sentence_bias.embeddings import open_vectors
from cdaflow.sentence_bias.infersent import InferSent, senteval_batcher
from cdaflow.sentence_bias.seat import SEAT_FILES, read_seat, run_seat
from cdaflow.sentence_bias.senteval import ClassifierSettings, run_senteval

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    p = smk.params
    model_dir = Path(smk.input.model)
    vectors = open_vectors(smk.input.vectors)
    if json.loads((model_dir / "config.json").read_text()).get("vectors") == "hard_debias":
        vectors = debiased_vectors(
            vectors, np.load(smk.input.direction), input_path(smk.input.debiaswe, p.debiaswe_member)
        )
    device = rule_device(smk)
    encoder = InferSent.load(model_dir, vectors, device=device)

    def encode(sentences):  # SEAT's raw sentences: InferSent's tokenizer
        return encoder.encode(list(sentences))

    tests, missing = [], []
    for name in p.seat["names"]:
        path = input_path(smk.input.seat, p.seat_member) / f"{SEAT_FILES.get(name, name)}.jsonl"
        (tests.append(read_seat(path, name=name)) if path.is_file() else missing.append(name))
    seat_rows = run_seat(encode, tests, n_samples=p.seat["samples"], seed=p.seed)
    seat_rows += [{"test": name, "status": "missing"} for name in missing]
    seat = pd.DataFrame(seat_rows)
    seat.insert(0, "model", smk.wildcards.model)
    write_tsv_atomic(seat, Path(smk.output.seat))
    log.info(
        "SEAT: %s",
        seat[["test", "effect_size", "p_value"]].to_dict("records") if "effect_size" in seat else seat,
    )
    root = input_path(smk.input.senteval, p.senteval_member)
    if root is None:
        reason = "no SentEval data folder configured (studies.sentence_bias.senteval.root)"
        senteval = pd.DataFrame([{"task": task, "status": "missing", "reason": reason} for task in p.tasks])
    else:
        classifier = ClassifierSettings.from_config(p.classifier, device=device, n_jobs=smk.threads)
        rows = run_senteval(senteval_batcher(encoder), root, p.tasks, seed=p.seed, kfold=p.kfold, classifier=classifier)
        senteval = pd.DataFrame(rows)
    senteval.insert(0, "model", smk.wildcards.model)
    write_tsv_atomic(senteval, Path(smk.output.senteval))
    log.info("SentEval: %s", senteval.reindex(columns=["task", "status", "score"]).to_dict("records"))
