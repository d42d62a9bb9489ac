"""Bias score of every SNLI sentence; Tables 2-3 and Fig. 5 (rule sb_score_snli)."""

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.runtime import input_path, rule_context
from cdaflow.sentence_bias.corpora import pair_scores, score_histogram, thresholds
from cdaflow.sentence_bias.embeddings import open_vectors
from cdaflow.sentence_bias.infersent import InferSent
from cdaflow.sentence_bias.nli import read_snli
from cdaflow.sentence_bias.score import bias_scores, encoder_bias_scorer, word_importance
from cdaflow.sentence_bias.wordlist import GenderWordList

# Table 2 of Dolci et al. (2023): the example sentence's overall female and male bias.
PAPER_TABLE2 = {"f": 0.07550, "m": -0.01858}
CHUNK = 4096  # sentences per encoding call: bounded memory at SNLI's 600k sentences

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    torch.set_num_threads(smk.threads)
    p = smk.params
    vectors = open_vectors(smk.input.vectors)
    direction = np.load(smk.input.direction)
    gender_words = GenderWordList.load(smk.input.words)
    device = "cuda" if smk.resources.gpu and torch.cuda.is_available() else "cpu"
    encoder_path = input_path(smk.input.encoder, p.encoder_member if p.pretrained else None)
    encoder = InferSent.load_any(encoder_path, vectors, pretrained=p.pretrained, device=device)
    score = encoder_bias_scorer(encoder, vectors, direction, gender_words, chunk=CHUNK)

    pairs = [
        pair
        for split in ("train", "dev", "test")
        for pair in read_snli(Path(smk.input.snli) / f"snli_1.0_{split}.jsonl")
    ]
    sentences = list(dict.fromkeys(s for pair in pairs for s in (pair.premise, pair.hypothesis)))
    log.info("%d pairs, %d distinct sentences", len(pairs), len(sentences))
    scored = score(sentences)
    f, m, absolute = scored.f, scored.m, scored.abs
    row = {s: i for i, s in enumerate(sentences)}
    premise = np.array([row[pair.premise] for pair in pairs])
    hypothesis = np.array([row[pair.hypothesis] for pair in pairs])
    scores = pd.DataFrame(
        {
            "premise": [pair.premise for pair in pairs],
            "hypothesis": [pair.hypothesis for pair in pairs],
            "label": [pair.label for pair in pairs],
            "premise_f": f[premise],
            "premise_m": m[premise],
            "premise_abs": absolute[premise],
            "hypothesis_f": f[hypothesis],
            "hypothesis_m": m[hypothesis],
            "hypothesis_abs": absolute[hypothesis],
        }
    )
    scores["pair_score"] = pair_scores(scores["premise_abs"], scores["hypothesis_abs"])
    write_tsv_atomic(scores, Path(smk.output.scores))

    _, argmax, tokens = encoder.encode_with_argmax([p.example])
    importance = word_importance(torch.from_numpy(argmax), [len(tokens[0])])
    (example,) = bias_scores(tokens, importance, vectors, direction, gender_words)
    table2 = pd.DataFrame(example.table())
    table2 = pd.concat(
        [
            table2,
            pd.DataFrame(
                [
                    {
                        "word": "overall female bias (eq. 1)",
                        "weighted": example.f,
                        "paper": PAPER_TABLE2["f"],
                    },
                    {"word": "overall male bias (eq. 2)", "weighted": example.m, "paper": PAPER_TABLE2["m"]},
                    {"word": "absolute bias (eq. 3)", "weighted": example.abs},
                ]
            ),
        ]
    )
    table2.insert(0, "scale", p.scale)
    write_tsv_atomic(table2, Path(smk.output.table2))

    order = np.argsort(f)[::-1][:5].tolist() + np.argsort(m)[:5].tolist()
    table3 = pd.DataFrame(
        [
            {
                "scale": p.scale,
                "direction": "female" if k < 5 else "male",
                "sentence": sentences[i],
                "bias_score": f[i] if k < 5 else m[i],
            }
            for k, i in enumerate(order)
        ]
    )
    write_tsv_atomic(table3, Path(smk.output.table3))
    cut = thresholds(scores["pair_score"].to_numpy(), p.percentiles)
    score_histogram(scores["pair_score"].to_numpy(), cut, Path(smk.output.histogram))
    log.info("thresholds %s", cut)
