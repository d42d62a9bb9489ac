"""The LM's encoded corpus: one flat array of piece ids and offsets, encoded in chunks, trains as the lists did."""

import random

import numpy as np
import pytest
import sentencepiece as spm
import torch

from cdaflow.text.language_model import (
    EncodedCorpus,
    LMSettings,
    encode_corpus,
    read_sentences,
    sentence_perplexity,
    train_lm,
)

WORDS = "el la los las niño niña perro gata casa come corre duerme grande pequeña rojo verde y con en".split()


def sentences(n, seed):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(n)]


@pytest.fixture(scope="module")
def bpe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bpe")
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences(300, 0)), model_prefix=str(folder / "bpe"), model_type="bpe", vocab_size=60,
        hard_vocab_limit=False, character_coverage=1.0, num_threads=1, minloglevel=2,
    )  # fmt: skip
    return spm.SentencePieceProcessor(model_file=str(folder / "bpe.model"))


def as_lists(bpe, texts):
    """What the rule held before: a Python list of shifted ids per sentence."""
    return [[i + 3 for i in pieces] for pieces in bpe.encode(texts)]


def test_encoded_corpus_holds_the_same_sequences_compactly(bpe):
    texts = sentences(103, 1)
    lists = as_lists(bpe, texts)
    corpus = encode_corpus(bpe, texts, chunk=10)  # chunks of 10: the last one short
    assert len(corpus) == len(lists) and [list(map(int, s)) for s in corpus] == lists
    assert corpus.ids.dtype == np.uint16 and corpus.ids.ndim == 1 and len(corpus.ids) == sum(map(len, lists))
    assert [list(map(int, s)) for s in corpus[5:9]] == lists[5:9]
    assert corpus.nbytes < 3 * len(corpus.ids) + 8 * (len(corpus) + 1) + 1
    assert [list(map(int, s)) for s in EncodedCorpus.from_sequences(lists)] == lists
    assert encode_corpus(bpe, iter(texts), chunk=7).ids.tolist() == corpus.ids.tolist()  # an iterator streams
    assert len(encode_corpus(bpe, [])) == 0
    wide = EncodedCorpus.from_sequences([[70000, 3], [4]])  # more pieces than uint16 holds
    assert wide.ids.dtype == np.int32 and [list(map(int, s)) for s in wide] == [[70000, 3], [4]]


@pytest.mark.parametrize("layers", [1, 2])
def test_training_on_the_compact_corpus_equals_training_on_lists(bpe, layers):
    torch.set_num_threads(1)
    train_texts, dev_texts = sentences(90, 2), sentences(12, 3)
    settings = LMSettings(embedding=12, hidden=16, layers=layers, dropout=0.2, lr=0.01, batch_size=8, epochs=2, seed=5)
    vocab = bpe.get_piece_size()
    listed, listed_history = train_lm(as_lists(bpe, train_texts), as_lists(bpe, dev_texts), vocab, settings)
    compact, compact_history = train_lm(encode_corpus(bpe, train_texts, chunk=16), encode_corpus(bpe, dev_texts),
                                        vocab, settings)
    assert compact_history == listed_history  # the same losses and perplexities, to the last bit
    assert listed.state_dict().keys() == compact.state_dict().keys()
    assert all(torch.equal(value, listed.state_dict()[key]) for key, value in compact.state_dict().items())
    assert sentence_perplexity(compact, encode_corpus(bpe, dev_texts)) == sentence_perplexity(
        listed, as_lists(bpe, dev_texts))


def test_read_sentences_reads_the_lines_read_text_splitlines_gave(tmp_path):
    path = tmp_path / "corpus.txt"
    text = "uno dos\r\ntres\rcuatro\n\n  \ncinco\u2028seis\x85siete\x0cocho\x1cnueve \n\tdiez\n último"
    path.write_bytes(text.encode("utf-8"))
    before = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert read_sentences(path) == before and len(before) == 10
