"""Contextual features of pronoun, A and B, one GAP / GAP-Subjective split (rule gap_subjective_benchmark_features)."""

from pathlib import Path

import numpy as np

from cdaflow.gap_subjective.coref import SpanEncoder
from cdaflow.gap_subjective.gap import read_gap
from cdaflow.io.atomic import atomic_file
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import model_source, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    device = rule_device(smk)
    examples = read_gap(smk.input.gap)
    source = model_source(p.settings["encoder"], smk.input.encoder, p.encoder_member)
    encoder = SpanEncoder.load(source, max_length=p.settings["max_length"])
    encoder.model.to(device)
    features = encoder.features(examples, batch_size=p.settings["batch_size"])
    with atomic_file(Path(smk.output[0]), "wb") as handle:
        np.savez(
            handle,
            features=features,
            ids=np.array([e.id for e in examples]),
            labels=np.array([e.label for e in examples]),
        )
    log.info(
        "%s: %d examples, features %s, encoder %s on %s", smk.input.gap, len(examples), features.shape, source, device
    )
