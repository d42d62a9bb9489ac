"""P(subjective) of every sentence of one GAP split (rule gap_subjective_subjectivity)."""

from pathlib import Path

from cdaflow.gap_subjective.detector import Detector
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    device = rule_device(smk)
    sentences = read_tsv(smk.input.sentences, text_columns=("id", "sentence"))
    detector = Detector.load(smk.input.model, device=device)
    probability = detector.predict_proba(sentences["sentence"].tolist())
    table = sentences[["id", "index"]].copy()
    table["p_subjective"] = probability
    table["subjective"] = probability > smk.params.threshold
    write_tsv_atomic(table, Path(smk.output[0]))
    log.info(
        "%d sentences on %s: %d subjective (%.1f %%)",
        len(table),
        device,
        table["subjective"].sum(),
        100 * table["subjective"].mean() if len(table) else 0.0,
    )
