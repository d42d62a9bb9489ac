"""Table 3 (BASE, LIN, NN, SWAP), log α tuning, examples, packaged models (rule morph_cda_evaluate)."""

from pathlib import Path

import torch

from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import read_conllu
from cdaflow.io.model_card import card_from_rule
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.annotations import read_joined
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.model_folder import save_model
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.reports import examples_markdown, intrinsic_tables
from cdaflow.pipeline.runtime import input_path, rule_context

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
    trees = sum(1 for _ in read_conllu(smk.input.train, validate=False))
    gazetteer = input_path(smk.input.gazetteer, smk.params.gazetteer_member)
    for param, folder in zip(params, smk.output.models, strict=True):
        log_alpha, carry_gender = tables.tuned[param.upper()]
        row = tables.table.set_index("model").loc[param.upper()]
        card = card_from_rule(
            smk, data=[f"{trees} training trees ({Path(smk.input.train).name})", f"gazetteer {gazetteer}"],
            size={"train_trees": trees, "parameters": sum(p.numel() for p in models[param.upper()].parameters())},
            heldout={"metric": "form accuracy", "value": round(float(row["form_accuracy"]) / 100, 4),
                     "on": f"{int(row['sentences'])} annotated test sentences (Table 3)",
                     "tag_f1": round(float(row["tag_f1"]) / 100, 4)},
        )
        save_model(Path(folder), models[param.upper()], Path(smk.input.reinflector), gazetteer, log_alpha,
                   carry_gender=carry_gender, card=card)
    write_tsv_atomic(tables.table, Path(smk.output.table))
    write_tsv_atomic(tables.tuning, Path(smk.output.tuning))
    write_tsv_atomic(tables.by_relation, Path(smk.output.by_relation))
    with atomic_file(smk.output.examples) as handle:
        handle.write(examples_markdown(scale, lang, test, tables.outputs))
