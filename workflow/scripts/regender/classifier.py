"""Train the re-genderability classifier and score it on every test set, Table 2 (rule regender_classifier)."""

from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.classifier import build_classifier, frame, read_split, save_classifier
from cdaflow.regender.reports import classifier_table
from cdaflow.regender.testsets import read_tagged_test_set

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    corpus = Path(smk.input.corpus[0]).parent
    texts, labels, gendered = read_split(corpus, "train")
    model = build_classifier(**p.settings, seed=p.seed)
    model.fit(frame(texts, gendered), labels)
    log.info("trained on %d segments (%d G)", len(texts), labels.count("G"))
    save_classifier(model, smk.output.model)

    evaluations = {"opensubs_dev": read_split(corpus, "dev")}
    for name, path in zip(p.testsets, smk.input.testsets, strict=True):
        records = read_tagged_test_set(path)
        evaluations[name] = ([r["text"] for r in records], [r["label"] for r in records],
                             [bool(r["gendered"]) for r in records])
    predictions = []
    for (name, (t, y, g)), path in zip(evaluations.items(), smk.output.predictions, strict=True):
        if not path.endswith(f"/{name}.label"):
            raise RuntimeError(f"prediction file {path} does not belong to test set {name}")
        predicted = list(model.predict(frame(t, g))) if t else []
        with atomic_file(path, "w") as handle:
            handle.writelines(label + "\n" for label in predicted)
        predictions.append((name, y, predicted))
        log.info("%s: %d segments predicted", name, len(predicted))
    table = classifier_table(predictions, p.scale)
    log.info("scores:\n%s", table.to_string(index=False))
    write_tsv_atomic(table, Path(smk.output.table))
