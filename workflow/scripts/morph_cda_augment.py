"""Corpus-scale CDA (§5.2): original, naive-swap and MRF corpora, Table 4 counts (rule morph_cda_augment)."""

from collections import Counter
from pathlib import Path

import pandas as pd
import torch

from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import read_conllu, words
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.augment import AugmentCounts, augment_corpus
from cdaflow.morph_cda.cda import load_model
from cdaflow.runtime import rule_context

# Table 4 of Zmigrod et al. (2019): gazetteer pairs and % of animate sentences.
PAPER_TABLE4 = {"he": (95, 20), "es": (259, 20), "it": (150, 10), "fr": (216, 7)}

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    torch.set_num_threads(smk.threads)
    lang, settings = smk.wildcards.lang, smk.params.settings
    device = "cuda" if smk.resources.gpu and torch.cuda.is_available() else "cpu"
    generator, gazetteer = load_model(Path(smk.input.model), device=device, threads=smk.threads)
    noun_counts: Counter = Counter()

    def sentences():
        for path in smk.input.parsed:
            for sentence in read_conllu(path):
                for word in words(sentence):
                    found = gazetteer.counterpart(word)
                    if found is None:
                        continue
                    new_lemma, new_gender = found
                    masculine = new_lemma if new_gender == "Masc" else gazetteer.to_masc.get(new_lemma, new_lemma)
                    noun_counts[(masculine, "Fem" if new_gender == "Masc" else "Masc")] += 1
                yield sentence

    counts = AugmentCounts()
    paths = dict(zip(("original", "swap", "mrf"), smk.output.corpora, strict=True))
    with atomic_file(paths["original"], "w") as original, atomic_file(paths["swap"], "w") as swap, \
            atomic_file(paths["mrf"], "w") as mrf:
        for n, (text, mrf_copies, swap_copies) in enumerate(
            augment_corpus(sentences(), generator, gazetteer, max_copies=settings["max_copies"],
                           batch_size=settings["batch_size"], counts=counts), start=1
        ):
            original.write(text + "\n")
            swap.write(text + "\n" + "".join(c + "\n" for c in swap_copies))
            mrf.write(text + "\n" + "".join(c + "\n" for c in mrf_copies))
            if n % 10000 == 0:
                log.info("%d sentences, %d copies", n, counts.copies)
    paper = PAPER_TABLE4.get(lang, (None, None))
    stats = pd.DataFrame([{
        "scale": smk.params.scale, "lang": lang, "gazetteer_pairs": len(gazetteer), "sentences": counts.sentences,
        "animate_sentences": counts.animate_sentences, "animate_percent": counts.animate_percent,
        "animate_nouns": counts.animate_nouns, "copies": counts.copies,
        "paper_gazetteer_pairs": paper[0], "paper_animate_percent": paper[1],
    }])
    write_tsv_atomic(stats, Path(smk.output.stats))
    pairs = sorted({m for m, _ in noun_counts})
    nouns = pd.DataFrame([{"masculine": m, "masc": noun_counts[(m, "Masc")], "fem": noun_counts[(m, "Fem")]}
                          for m in pairs], columns=["masculine", "masc", "fem"])
    write_tsv_atomic(nouns, Path(smk.output.nouns))
    log.info("%s: %s", lang, stats.to_dict("records")[0])
