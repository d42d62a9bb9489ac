"""Fine-tune the subjectivity detector on WNC sentences (rule gap_subjective_detector, §3.2.1)."""

from pathlib import Path

import pandas as pd

from cdaflow.gap_subjective.detector import DetectorSettings, evaluate, split_sentences, train_detector
from cdaflow.gap_subjective.reports import detector_table
from cdaflow.io.atomic import atomic_directory
from cdaflow.io.checkpoints import rule_store
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import model_source, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    device = rule_device(smk)
    spec = dict(p.settings)
    threshold = spec.pop("threshold")
    model_ref = spec.pop("model")
    settings = DetectorSettings.from_config({**spec, "model": model_source(model_ref, smk.input.model, p.model_member)})
    pairs = read_tsv(smk.input.pairs, text_columns=("id", "objective", "subjective"))
    split = split_sentences(
        pairs["objective"].tolist(), pairs["subjective"].tolist(), settings.test_fraction, seed=p.seed
    )
    log.info(
        "detector %s on %s: %d train, %d test sentences",
        settings.model,
        device,
        len(split.train_texts),
        len(split.test_texts),
    )
    checkpoints = rule_store(smk)  # a retry after a kill goes on from the last checkpoint
    detector = train_detector(
        split.train_texts, split.train_labels, settings, seed=p.seed, device=device, checkpoints=checkpoints
    )
    with atomic_directory(Path(smk.output.model)) as tmp:
        detector.save(tmp)
    metrics = evaluate(detector, split.test_texts, split.test_labels, threshold=threshold)
    log.info("held-out: %s", metrics)
    probability = detector.predict_proba(split.test_texts)
    write_tsv_atomic(
        pd.DataFrame({"sentence": split.test_texts, "subjective": split.test_labels, "p_subjective": probability}),
        Path(smk.output.predictions),
    )
    table = detector_table(model_ref, device, len(split.train_texts), len(split.test_texts), metrics, p.scale)
    write_tsv_atomic(table, Path(smk.output.table))
    checkpoints.finish()
