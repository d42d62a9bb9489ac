"""The folder `cdaflow subjectivize --model DIR` loads (rule gap_subjective_subjectivizer): the transfer
model, the detector and the fluency LM bundled beside manifest.json and the model card."""

from pathlib import Path

from cdaflow.gap_subjective.subjectivizer import bundle
from cdaflow.io.model_card import card_from_rule
from cdaflow.io.structured import read_mapping
from cdaflow.io.tables import read_tsv
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    fluency = {"backend": p.fluency["backend"]}
    if p.fluency["backend"] == "lstm":
        fluency["path"] = smk.input.lm[0]
    elif "path" in p.fluency["model"] or "dataset" in p.fluency["model"]:
        raise ValueError("a local fluency model folder cannot travel in the manifest; use `hub` or `package`")
    else:
        fluency["model"] = p.fluency["model"].get("hub") or p.fluency["model"]["package"]
    detector = read_tsv(smk.input.detector_table).iloc[0]
    transfer = read_mapping(Path(smk.input.transfer) / "transfer.json", fmt="json")
    card = card_from_rule(
        smk,
        data=[f"WNC: {int(detector['train_sentences'])} detector training sentences; transfer pairs as in "
              "table_transfer.tsv", f"detector base model {detector['model']}"],
        size={"detector_train_sentences": int(detector["train_sentences"])},
        heldout={"metric": "detector accuracy", "value": round(float(detector["accuracy"]), 4),
                 "on": f"{int(detector['test_sentences'])} held-out WNC sentences",
                 "transfer_valid_accuracy": round(transfer["validation"]["accuracy"] / 100, 4)},
    )
    manifest = bundle(
        Path(smk.output[0]).parent,
        transfer=smk.input.transfer,
        detector=smk.input.detector,
        fluency=fluency,
        thresholds=p.thresholds,
        detector_threshold=p.threshold,
        card=card,
    )
    log.info("manifest: %s", manifest)
