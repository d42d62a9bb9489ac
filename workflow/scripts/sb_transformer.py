"""Bias score for a transformer sentence encoder: direction, Table 12, Table 13, Fig. 7 (rule sb_transformer)."""

import random
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

from cdaflow.io.atomic import atomic_file  # noqa: E402
from cdaflow.io.tables import write_tsv_atomic  # noqa: E402
from cdaflow.runtime import input_path, rule_context  # noqa: E402
from cdaflow.sentence_bias.direction import cosine, pca_direction  # noqa: E402
from cdaflow.sentence_bias.nli import read_snli  # noqa: E402
from cdaflow.sentence_bias.score import score_rows  # noqa: E402
from cdaflow.sentence_bias.swap import Swapper  # noqa: E402
from cdaflow.sentence_bias.transformer import (  # noqa: E402
    PAPER_TABLE13,
    TransformerEncoder,
    contextual_bias_scores,
    sentence_direction,
    sentence_pairs,
)
from cdaflow.sentence_bias.wordlist import GenderWordList  # noqa: E402

# Dolci et al. (2023) §6 on SBERT (BERT-Base NLI, max pooling): 78 % on the top component,
# Table 12's overall female bias of the example sentence, Table 13's F/M bias.
PAPER_TOP_COMPONENT = 0.78
PAPER_TABLE12_F = 0.19664
PAPER_TABLE13_F_M = [(0.16669, 0), (0, -0.02642), (0.08124, 0), (0.21236, 0), (0.05823, -0.00366),
                     (0.16925, 0), (0.14301, 0)]
FIG7_SENTENCE = "A man is playing the saxophone"

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    torch.set_num_threads(smk.threads)
    torch.manual_seed(p.seed)
    device = "cuda" if smk.resources.gpu and torch.cuda.is_available() else "cpu"
    spec = p.spec["model"]
    if "package" in spec:
        encoder = TransformerEncoder.from_package(spec["package"], device=device, max_length=p.spec["max_length"])
    elif "hub" in spec:
        encoder = TransformerEncoder.load(spec["hub"], device=device, max_length=p.spec["max_length"])
    else:
        encoder = TransformerEncoder.load(
            input_path(smk.input.model, p.model_member), device=device, max_length=p.spec["max_length"]
        )
    log.info("encoder %s: %d dimensions, max %d tokens, on %s", spec, encoder.dim, encoder.max_length, device)

    if smk.input.sentences:
        path = input_path(smk.input.sentences, p.sentences_member)
        sentences = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        source = str(path)
    else:
        snli = Path(smk.input.snli)
        sentences = [s for pair in read_snli(snli / "snli_1.0_train.jsonl") for s in (pair.premise, pair.hypothesis)]
        source = "SNLI train"
    # The context rule for her/his (her → his before a noun, him otherwise) keeps the swapped
    # sentences grammatical: the encoder sees whole sentences, not word lists.
    swapper = Swapper.from_tsv(her_rule="context")
    pairs = sentence_pairs(sentences, swapper, n=p.spec["n_sentences"], seed=p.seed)
    log.info("%d (female, male) sentence pairs from %s", len(pairs), source)
    direction = sentence_direction(encoder, pairs)
    np.save(smk.output.direction, direction.vector.astype(np.float32))
    write_tsv_atomic(pd.DataFrame(pairs, columns=["female", "male"]), Path(smk.output.pairs))

    # The paper's stability check: directions from different sentence pairs agree (> 99 %).
    shuffled = random.Random(p.seed + 1).sample(pairs, len(pairs))
    halves = [shuffled[: len(pairs) // 2], shuffled[len(pairs) // 2 :]]
    embedded = [(encoder.encode([f for f, _ in h]), encoder.encode([m for _, m in h])) for h in halves]
    half_cosine = abs(float(cosine(pca_direction(*embedded[0])[0], pca_direction(*embedded[1])[0])))
    rows = [
        {
            "scale": p.scale,
            "model": ", ".join(f"{key}={value}" for key, value in spec.items()),
            "pairs_used": len(pairs),
            "component": k,
            "explained_variance": float(share),
            "paper_top_component": PAPER_TOP_COMPONENT if k == 1 else None,
            "split_half_cosine": half_cosine if k == 1 else None,
        }
        for k, share in enumerate(direction.explained_variance_ratio[:10], start=1)
    ]
    write_tsv_atomic(pd.DataFrame(rows), Path(smk.output.table))
    log.info("top component %.3f, split-half cosine %.4f", direction.top_share, half_cosine)

    words = GenderWordList.load(smk.input.words)
    sentences12 = [p.example, FIG7_SENTENCE] + [s for _, s in PAPER_TABLE13]
    outputs = encoder.encode_tokens(sentences12)
    arrays = contextual_bias_scores(outputs, direction, words)
    scores = score_rows(outputs.tokens, arrays)

    example = scores[0]
    table12 = pd.DataFrame(
        [{"token": r.word, "importance": r.importance, "gender_bias": r.bias, "weighted_bias": r.weighted}
         for r in example.words]
        + [
            {"token": "overall female bias (eq. 1)", "weighted_bias": example.f,
             "paper": PAPER_TABLE12_F if p.example == "She likes the new pink dress" else None},
            {"token": "overall male bias (eq. 2)", "weighted_bias": example.m},
        ]
    )
    table12.insert(0, "scale", p.scale)
    write_tsv_atomic(table12, Path(smk.output.table12))
    table13 = pd.DataFrame(
        [
            {"scale": p.scale, "set": k, "sentence": sentence, "f_bias": s.f, "m_bias": s.m,
             "paper_f_bias": paper[0], "paper_m_bias": paper[1]}
            for (k, sentence), s, paper in zip(PAPER_TABLE13, scores[2:], PAPER_TABLE13_F_M, strict=True)
        ]
    )
    write_tsv_atomic(table13, Path(smk.output.table13))

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    shares = direction.explained_variance_ratio[:10]
    left.bar(range(1, len(shares) + 1), shares)
    left.set_title(f"gender direction: {len(pairs)} sentence pairs")
    left.set_xlabel("principal component")
    left.set_ylabel("explained variance")
    fig7 = scores[1]
    right.bar(range(len(fig7.words)), [r.importance for r in fig7.words])
    right.set_xticks(range(len(fig7.words)), [r.word for r in fig7.words], rotation=45, ha="right")
    right.set_title(f"token importance: {FIG7_SENTENCE}")
    fig.tight_layout()
    with atomic_file(smk.output.figure, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
