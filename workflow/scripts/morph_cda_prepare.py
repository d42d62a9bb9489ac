"""Training/dev trees without annotated sentences, and the annotated sentences (rule morph_cda_prepare)."""

import random
from pathlib import Path

import pandas as pd

from cdaflow.io.conllu import read_conllu, write_conllu_atomic
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.annotations import join, read_annotations
from cdaflow.runtime import rule_context

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    annotations = read_annotations(Path(smk.input.annotations))
    annotated_keys = {a.key for a in annotations}

    def key_of(path: str) -> tuple[str, str]:
        return Path(path).parent.name, Path(path).stem  # (treebank, split)

    def load(paths):
        kept, dropped = [], 0
        for path in paths:
            treebank, split = key_of(path)
            for sentence in read_conllu(path):
                if (treebank, split, sentence.metadata.get("sent_id")) in annotated_keys:
                    dropped += 1
                else:
                    kept.append(sentence)
        return kept, dropped

    train, dropped_train = load(smk.input.train)
    dev, dropped_dev = load(smk.input.dev)
    if not dev:
        # No dev split configured: a fixed tenth of the training trees decides when to stop.
        random.Random(smk.params.seed).shuffle(train)
        cut = max(1, len(train) // 10)
        dev, train = train[:cut], train[cut:]
        log.info("no dev split configured: held out %d of the training trees", len(dev))
    by_key = {}
    for path in smk.input.annotated:
        treebank, split = key_of(path)
        for sentence in read_conllu(path):
            # Where the sentence came from, so later rules can join the annotations again.
            sentence.metadata["cdaflow_source"] = f"{treebank}/{split}"
            by_key[(treebank, split, sentence.metadata.get("sent_id"))] = sentence
    joined = join(annotations, by_key)
    write_conllu_atomic(train, Path(smk.output.train))
    write_conllu_atomic(dev, Path(smk.output.dev))
    write_conllu_atomic([a.sentence for a in joined], Path(smk.output.annotated))
    summary = pd.DataFrame(
        [
            {
                "scale": smk.params.scale,
                "lang": smk.params.lang,
                "part": "train",
                "sentences": len(train),
                "annotated_removed": dropped_train,
            },
            {
                "scale": smk.params.scale,
                "lang": smk.params.lang,
                "part": "dev",
                "sentences": len(dev),
                "annotated_removed": dropped_dev,
            },
            {
                "scale": smk.params.scale,
                "lang": smk.params.lang,
                "part": "annotated_dev",
                "sentences": sum(a.eval_split == "dev" for a in joined),
                "annotated_removed": 0,
            },
            {
                "scale": smk.params.scale,
                "lang": smk.params.lang,
                "part": "annotated_test",
                "sentences": sum(a.eval_split == "test" for a in joined),
                "annotated_removed": 0,
            },
        ]
    )
    write_tsv_atomic(summary, Path(smk.output.summary))
    log.info(
        "train %d (removed %d annotated), dev %d, annotated %d",
        len(train),
        dropped_train,
        len(dev),
        len(joined),
    )
