"""Table 3 (BASE, LIN, NN, SWAP), log α tuning, examples, packaged models (rule morph_cda_evaluate)."""

from pathlib import Path

import torch

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.annotations import read_joined
from cdaflow.morph_cda.cda import save_model
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.reports import examples_markdown, intrinsic_tables
from cdaflow.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    torch.set_num_threads(smk.threads)
    lang, scale, params = smk.params.lang, smk.params.scale, smk.params.params
    annotations = read_joined(Path(smk.input.annotations), smk.input.annotated)
    dev = [a for a in annotations if a.eval_split == "dev"]
    test = [a for a in annotations if a.eval_split == "test"]
    log.info("%d annotated sentences: %d dev, %d test", len(annotations), len(dev), len(test))
    reinflector = Reinflector.load(Path(smk.input.reinflector), threads=smk.threads)
    trained = {Path(p).name: AgreementMRF.load(Path(p)) for p in smk.input.mrfs}
    inventory = next(iter(trained.values())).inventory
    models = {"BASE": AgreementMRF(inventory, "base", lang)} | {p.upper(): trained[p] for p in params}
    tables = intrinsic_tables(
        scale, lang, models, reinflector, dev, test, smk.params.grid, smk.params.carry_gender, log=log.info
    )
    for param, folder in zip(params, smk.output.models, strict=True):
        log_alpha, carry_gender = tables.tuned[param.upper()]
        save_model(
            Path(folder),
            models[param.upper()],
            Path(smk.input.reinflector),
            input_path(smk.input.gazetteer, smk.params.gazetteer_member),
            log_alpha,
            carry_gender=carry_gender,
        )
    write_tsv_atomic(tables.table, Path(smk.output.table))
    write_tsv_atomic(tables.tuning, Path(smk.output.tuning))
    write_tsv_atomic(tables.by_relation, Path(smk.output.by_relation))
    with atomic_file(smk.output.examples) as handle:
        handle.write(examples_markdown(scale, lang, test, tables.outputs))
