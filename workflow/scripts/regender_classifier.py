"""Train the re-genderability classifier and score it on every test set, Table 2 (rule regender_classifier)."""

import json
from pathlib import Path

import joblib
import pandas as pd

from cdaflow.io.atomic import atomic_directory, atomic_file
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
    corpus = Path(smk.input.corpus)
    texts, labels, gendered = read_split(corpus, "train")
    model = build_classifier(**p.settings, seed=p.seed)
    model.fit(frame(texts, gendered), labels)
    log.info("trained on %d segments (%d G)", len(texts), labels.count("G"))
    with atomic_file(smk.output.model, "wb") as handle:
        joblib.dump(model, handle)

    rows = []
    evaluations = {}
    for name in ("dev", "test"):
        t, y, g = read_split(corpus, name)
        evaluations[f"opensubs_{name}"] = (t, y, g)
    for name, path in zip(p.testsets, smk.input.testsets, strict=True):
        records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
        evaluations[name] = ([r["text"] for r in records], [r["label"] for r in records],
                             [bool(r["gendered"]) for r in records])
    with atomic_directory(Path(smk.output.predictions)) as tmp:
        for name, (t, y, g) in evaluations.items():
            predicted = list(model.predict(frame(t, g))) if t else []
            (tmp / f"{name}.label").write_text("".join(label + "\n" for label in predicted), encoding="utf-8")
            rows.append({"scale": p.scale, "test_set": name, **scores(y, predicted)})
            log.info("%s: %s", name, rows[-1])
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
