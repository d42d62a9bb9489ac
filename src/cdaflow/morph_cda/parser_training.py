"""A small spaCy pipeline trained on a language's UD treebank splits, for raw text where no pipeline
is installed (Italian here: ``cdaflow cda --lang it`` then reads text, not only CoNLL-U).

The treebank's multiword tokens are merged into the surface token a raw-text tokenizer sees (it
*della* = *di* + *la*), as spaCy's CoNLL-U converter does, and a tenth of the sentences (every
tenth) is kept apart for spaCy's choice of the best epoch. The pipeline has a tok2vec, a tagger, a
morphologizer, an edit-tree lemmatizer and a dependency parser, CPU-sized; training is seeded.

Hebrew is trained on the treebank's syntactic words instead, multiword tokens not merged: its treebank
splits prefixes and suffixes off words (*בבית* = *ב* + *ה_* + *בית*), which a spaCy tokenizer cannot
learn (a merged token's lemma is several words, *כ מתנדב*, that no gazetteer holds), so raw text is
split by hspell first (:mod:`cdaflow.text.hebrew`) and the pipeline parses the words. A language file
with ``multiword.segmentation`` is trained this way.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_SETTINGS", "segmented_language", "train_pipeline", "treebank_docs"]

log = logging.getLogger(__name__)

DEFAULT_SETTINGS: dict[str, Any] = {
    "max_epochs": 30,
    "patience": 800,  # steps without a better dev score before stopping
    "width": 96,
    "depth": 4,
    "dev_every": 10,  # every tenth sentence is a dev sentence
}
PIPELINE = ["tok2vec", "tagger", "morphologizer", "trainable_lemmatizer", "parser"]


def treebank_docs(paths: Iterable[Path], lang: str, merge_multiword: bool | None = None) -> list:
    """spaCy Docs of the sentences of CoNLL-U files, multiword tokens merged into surface tokens, or
    (`merge_multiword` False; by default where the language file has a segmenter) the syntactic words."""
    from spacy.training.converters import conllu_to_docs

    if merge_multiword is None:
        merge_multiword = not segmented_language(lang)
    docs = []
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        docs.extend(conllu_to_docs(text, n_sents=1, merge_subtokens=merge_multiword, no_print=True))
    return docs


def segmented_language(lang: str) -> bool:
    """Whether raw text of `lang` is split into syntactic words before parsing (he.yaml's
    ``multiword.segmentation``), so its pipeline learns the words, not the surface tokens."""
    from cdaflow.text import language as languages

    return lang in languages.available() and bool(languages.load(lang).multiword.get("segmentation"))


def train_pipeline(
    paths: Iterable[Path], lang: str, output: Path, settings: Mapping[str, Any] | None = None, seed: int = 0
) -> dict[str, float]:
    """Train the pipeline on the sentences of `paths` and write it to `output` (its best epoch on
    the held-out sentences); returns spaCy's scores of that epoch on them (from its meta.json)."""
    from spacy.cli.init_config import init_config
    from spacy.cli.train import train
    from spacy.tokens import DocBin

    chosen = {**DEFAULT_SETTINGS, **(settings or {})}
    segmented = segmented_language(lang)
    docs = treebank_docs(paths, lang, merge_multiword=not segmented)
    if len(docs) < 20:
        raise ValueError(f"{len(docs)} treebank sentences are too few to train a parser")
    every = int(chosen["dev_every"])
    dev = [doc for i, doc in enumerate(docs) if i % every == every - 1]
    train_docs = [doc for i, doc in enumerate(docs) if i % every != every - 1]
    config = init_config(lang=lang, pipeline=PIPELINE, optimize="efficiency")
    config["system"]["seed"] = seed
    config["training"]["max_epochs"] = int(chosen["max_epochs"])
    config["training"]["patience"] = int(chosen["patience"])
    config["components"]["tok2vec"]["model"]["encode"]["width"] = int(chosen["width"])
    config["components"]["tok2vec"]["model"]["encode"]["depth"] = int(chosen["depth"])
    if segmented:
        # the words, not spaCy's tokenizer on the text: the text glues a word's parts (ובה_בית), so the
        # tokenizer's tokens would not align with the words and most would teach nothing
        for corpus in ("train", "dev"):
            config["corpora"][corpus]["gold_preproc"] = True
    with tempfile.TemporaryDirectory(prefix="cdaflow-parser-") as tmp:
        folder = Path(tmp)
        DocBin(docs=train_docs).to_disk(folder / "train.spacy")
        DocBin(docs=dev).to_disk(folder / "dev.spacy")
        config["paths"]["train"] = str(folder / "train.spacy")
        config["paths"]["dev"] = str(folder / "dev.spacy")
        config.to_disk(folder / "config.cfg")
        log.info("%s: %d training and %d dev sentences", lang, len(train_docs), len(dev))
        train(folder / "config.cfg", folder / "out", use_gpu=-1)
        best = folder / "out" / "model-best"
        scores = json.loads((best / "meta.json").read_text(encoding="utf-8")).get("performance", {})
        if output.exists():
            shutil.rmtree(output)
        shutil.copytree(best, output)
    keys = ("pos_acc", "morph_acc", "lemma_acc", "dep_uas", "dep_las", "sents_f")
    return {key: round(float(scores[key]), 4) for key in keys if scores.get(key) is not None}
