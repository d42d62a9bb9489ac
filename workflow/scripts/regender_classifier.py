"""Train the re-genderability classifier and score it on every test set, Table 2 (rule regender_classifier)."""

import json
from pathlib import Path

import joblib
import pandas as pd

from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.regender.classifier import build_classifier, frame, scores
from cdaflow.runtime import rule_context


def read_split(folder: Path, name: str):
    def column(suffix):
        return (folder / f"{name}.{suffix}").read_text(encoding="utf-8").splitlines()

    return column("src"), column("label"), [v == "1" for v in column("gendered")]


with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    corpus = Path(smk.input.corpus[0]).parent
    texts, labels, gendered = read_split(corpus, "train")
    model = build_classifier(**p.settings, seed=p.seed)
    model.fit(frame(texts, gendered), labels)
    log.info("trained on %d segments (%d G)", len(texts), labels.count("G"))
    with atomic_file(smk.output.model, "wb") as handle:
        joblib.dump(model, handle)

    rows = []
    evaluations = {}
    evaluations["opensubs_dev"] = read_split(corpus, "dev")
    for name, path in zip(p.testsets, smk.input.testsets, strict=True):
        records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
        evaluations[name] = ([r["text"] for r in records], [r["label"] for r in records],
                             [bool(r["gendered"]) for r in records])
    for (name, (t, y, g)), path in zip(evaluations.items(), smk.output.predictions, strict=True):
        if not path.endswith(f"/{name}.label"):
            raise RuntimeError(f"prediction file {path} does not belong to test set {name}")
        predicted = list(model.predict(frame(t, g))) if t else []
        with atomic_file(path, "w") as handle:
            handle.writelines(label + "\n" for label in predicted)
        rows.append({"scale": p.scale, "test_set": name, **scores(y, predicted)})
        log.info("%s: %s", name, rows[-1])
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
