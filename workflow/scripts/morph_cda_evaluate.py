"""Table 3 (BASE, LIN, NN, SWAP), log α tuning, examples, packaged models (rule morph_cda_evaluate)."""

from pathlib import Path

import pandas as pd
import torch

from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import read_conllu
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.annotations import join, read_annotations
from cdaflow.morph_cda.cda import CounterfactualGenerator, save_model
from cdaflow.morph_cda.evaluation import (
    evaluate,
    evaluate_swap,
    example_markdown,
    relation_rows,
    relation_scores,
    tune_log_alpha,
)
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.runtime import input_path, rule_context

# Table 3 of Zmigrod et al. (2019): tag P, R, F1, accuracy and form accuracy.
PAPER = {
    ("he", "BASE"): (89.04, 40.12, 55.32, 86.88, 83.63),
    ("he", "LIN"): (87.07, 62.35, 72.66, 90.5, 86.75),
    ("he", "NN"): (87.18, 62.96, 73.12, 90.62, 86.25),
    ("es", "BASE"): (96.97, 51.45, 67.23, 90.21, 86.32),
    ("es", "LIN"): (92.74, 73.95, 82.29, 93.79, 89.52),
    ("es", "NN"): (95.34, 72.35, 82.27, 93.91, 89.65),
}
METRICS = ("tag_precision", "tag_recall", "tag_f1", "tag_accuracy", "form_accuracy")

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    torch.set_num_threads(smk.threads)
    lang = smk.params.lang
    sentences = {
        (*s.metadata["cdaflow_source"].split("/"), s.metadata["sent_id"]): s
        for s in read_conllu(smk.input.annotated)
    }
    annotations = join(read_annotations(Path(smk.input.annotations)), sentences)
    dev = [a for a in annotations if a.eval_split == "dev"]
    test = [a for a in annotations if a.eval_split == "test"]
    log.info("%d annotated sentences: %d dev, %d test", len(annotations), len(dev), len(test))
    reinflector = Reinflector.load(Path(smk.input.reinflector), threads=smk.threads)
    trained = {Path(p).name: AgreementMRF.load(Path(p)) for p in smk.input.mrfs}
    inventory = next(iter(trained.values())).inventory
    models = {"BASE": AgreementMRF(inventory, "base", lang)} | {
        p.upper(): trained[p] for p in smk.params.params
    }

    rows, tuning, outputs, by_relation = [], [], {}, []
    for name, mrf in models.items():
        generator = CounterfactualGenerator(mrf, reinflector, lang, smk.params.grid[0])
        best, results = tune_log_alpha(generator, dev, smk.params.grid, smk.params.carry_gender)
        tuning += [{"model": name, "log_alpha": a, "carry_gender": c} | r for a, c, r in results]
        scores, outputs[name] = evaluate(generator, test)
        rows.append({"model": name, "log_alpha": best, "carry_gender": generator.carry_gender} | scores.as_row())
        by_relation += relation_rows(name, relation_scores(test, outputs[name]))
        log.info("%s: log α %.2f, %s", name, best, {m: round(rows[-1][m], 2) for m in METRICS})
        if name.lower() in smk.params.params:
            save_model(
                Path(f"results/morph_cda/{lang}/models/{name.lower()}"),
                mrf,
                Path(smk.input.reinflector),
                input_path(smk.input.gazetteer, smk.params.gazetteer_member),
                best,
                carry_gender=generator.carry_gender,
            )
    rows.append({"model": "SWAP", "log_alpha": None, "carry_gender": None} | evaluate_swap(test).as_row())
    table = pd.DataFrame(rows)
    for i, metric in enumerate(METRICS):
        table[f"paper_{metric}"] = [PAPER.get((lang, m), (None,) * 5)[i] for m in table["model"]]
    table.insert(0, "lang", lang)
    table.insert(0, "scale", smk.params.scale)
    write_tsv_atomic(table, Path(smk.output.table))
    write_tsv_atomic(pd.DataFrame(tuning), Path(smk.output.tuning))
    relations = pd.DataFrame(by_relation)
    relations.insert(0, "lang", lang)
    relations.insert(0, "scale", smk.params.scale)
    write_tsv_atomic(relations, Path(smk.output.by_relation))

    best_model = "LIN" if "LIN" in outputs else next(iter(outputs))
    lines = [
        f"# Study A counterfactuals, {lang} ({smk.params.scale} scale), {best_model} model\n",
        "Changed words in **bold**; every test sentence, errors included (form differs from gold).\n",
    ]
    lines += [example_markdown(a, o) for a, o in zip(test, outputs[best_model])]
    with atomic_file(smk.output.examples) as handle:
        handle.write("\n".join(lines))
