"""GLEU, perplexity change and original attribute of one split's transfers; verdicts (rule gap_subjective_threshold)."""

from pathlib import Path

from cdaflow.gap_subjective.subjectivizer import load_fluency_scorer
from cdaflow.gap_subjective.threshold import Thresholds, score_transfers
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import model_source, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    device = rule_device(smk)
    transfers = read_tsv(smk.input.transfer, text_columns=("id", "original", "transferred"))
    detected = read_tsv(smk.input.subjectivity, text_columns=("id",))
    if transfers[["id", "index"]].values.tolist() != detected[["id", "index"]].values.tolist():
        raise ValueError(f"{smk.input.transfer} and {smk.input.subjectivity} do not list the same sentences")
    fluency = p.fluency
    source = smk.input.lm if fluency["backend"] == "lstm" else model_source(fluency["model"], smk.input.lm, p.lm_member)
    scorer = load_fluency_scorer(fluency["backend"], str(source), device=device, batch_size=fluency["batch_size"])
    scores = score_transfers(
        transfers["original"].tolist(),
        transfers["transferred"].tolist(),
        detected["p_subjective"].tolist(),
        scorer=scorer,
        thresholds=Thresholds.from_config(p.thresholds),
        detector_threshold=p.detector_threshold,
    )
    scores.insert(0, "index", transfers["index"])
    scores.insert(0, "id", transfers["id"])
    write_tsv_atomic(scores, Path(smk.output[0]))
    log.info(
        "%d sentences: %d within GLEU, %d within perplexity, %d objective, %d kept",
        len(scores),
        scores["within_gleu"].sum(),
        scores["within_perplexity"].sum(),
        scores["objective"].sum(),
        scores["kept"].sum(),
    )
