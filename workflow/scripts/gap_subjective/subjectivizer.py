"""The manifest that `cdaflow subjectivize --model DIR` loads (rule gap_subjective_subjectivizer)."""

from cdaflow.gap_subjective.subjectivizer import write_manifest
from cdaflow.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    fluency = {"backend": p.fluency["backend"]}
    if p.fluency["backend"] == "lstm":
        fluency["path"] = smk.input.lm[0]
    elif "path" in p.fluency["model"] or "dataset" in p.fluency["model"]:
        raise ValueError("a local fluency model folder cannot travel in the manifest; use `hub` or `package`")
    else:
        fluency["model"] = p.fluency["model"].get("hub") or p.fluency["model"]["package"]
    manifest = write_manifest(
        smk.output[0],
        transfer=smk.input.transfer,
        detector=smk.input.detector,
        fluency=fluency,
        thresholds=p.thresholds,
        detector_threshold=p.threshold,
    )
    log.info("manifest: %s", manifest)
