"""Transfer every sentence of one GAP split through our copy-attention wrapper (rule gap_subjective_transfer)."""

from pathlib import Path

from cdaflow.gap_subjective.transferer import Transferer
from cdaflow.io.tables import read_tsv, write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    device = rule_device(smk)
    sentences = read_tsv(smk.input.sentences, text_columns=("id", "sentence"))
    transferer = Transferer.from_model_dir(smk.input.model, device=device)
    transferred = transferer.transfer(sentences["sentence"].tolist())
    table = sentences[["id", "index"]].assign(original=sentences["sentence"], transferred=transferred)
    write_tsv_atomic(table, Path(smk.output[0]))
    log.info("%d sentences on %s; %d changed", len(table), device, (table["original"] != table["transferred"]).sum())
