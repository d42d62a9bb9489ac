import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.infersent import (
    BOS,
    EOS,
    LSTM_KEYS,
    BiLSTMMaxEncoder,
    InferSent,
    VectorsLike,
    read_state_dict,
    senteval_batcher,
)
from cdaflow.sentence_bias.score import word_importance
from cdaflow.sentence_bias.tokenizer import tokenize

torch.set_num_threads(1)


class ToyVectors:
    """The WordVectors API (vocab, matrix, dim, `in`) over a handful of random vectors."""

    def __init__(self, words, dim=4, seed=0, with_boundaries=True):
        words = list(words) + ([BOS, EOS] if with_boundaries else [])
        self.vocab = {w: i for i, w in enumerate(words)}
        self.matrix = np.random.default_rng(seed).normal(size=(len(words), dim)).astype(np.float32)
        self.dim = dim

    def __contains__(self, word):
        return word in self.vocab


WORDS = "a man is playing the saxophone she likes pink dress . , n't 's woman".split()


# -- encoder ---------------------------------------------------------------------------------
def make_encoder(word_dim=4, hidden=6, seed=0, **kwargs):
    torch.manual_seed(seed)
    return BiLSTMMaxEncoder(word_dim, hidden, **kwargs).double()


def random_batch(lengths, word_dim=4, seed=1):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max(lengths) + 2, word_dim, generator=generator, dtype=torch.float64)
    for i, n in enumerate(lengths):
        x[i, n:] = 1e3  # garbage in the padding must not matter
    return x


def test_argmax_indexes_the_max_over_real_steps():
    encoder = make_encoder()
    lengths = [5, 1, 3, 7]
    x = random_batch(lengths)
    emb, argmax = encoder(x, torch.tensor(lengths))
    assert emb.shape == (4, 12) and argmax.shape == (4, 12) and argmax.dtype == torch.long
    with torch.no_grad():
        for i, n in enumerate(lengths):
            states, _ = encoder.enc_lstm(x[i, :n].unsqueeze(1))  # unbatched run, no padding at all
            states = states.squeeze(1)  # [n, 12]
            best, where = states.max(dim=0)
            torch.testing.assert_close(emb[i], best)
            assert torch.equal(argmax[i], where)
            assert int(argmax[i].max()) < n  # padding never wins
            torch.testing.assert_close(states.gather(0, argmax[i].unsqueeze(0)).squeeze(0), emb[i])


def test_padding_never_wins_even_when_all_states_are_negative():
    encoder = make_encoder()
    with torch.no_grad():  # a large negative bias drives every hidden state below zero
        for name in ("bias_ih_l0", "bias_ih_l0_reverse"):
            bias = getattr(encoder.enc_lstm, name)
            bias.zero_()
            bias[6:12] = 20.0  # forget gate
            bias[12:18] = -20.0  # cell candidate: tanh → -1
            bias[18:24] = 20.0  # output gate
    x = random_batch([2, 6])
    emb, argmax = encoder(x, [2, 6])
    assert bool((emb < 0).all())
    assert int(argmax[0].max()) < 2
    v1 = make_encoder(zero_pad_in_max=True)
    v1.load_state_dict(encoder.state_dict())
    emb_v1, argmax_v1 = v1(x, [2, 6])
    # InferSent v1 pools over zero padding: the short sentence gets 0 and argmax -1 there
    assert torch.equal(emb_v1[0], torch.zeros(12, dtype=torch.float64))
    assert bool((argmax_v1[0] == -1).all())
    torch.testing.assert_close(emb_v1[1], emb[1])  # the longest sentence of the batch is unpadded


def test_batched_equals_one_by_one_and_order_is_kept():
    encoder = make_encoder()
    lengths = [3, 8, 1, 5, 8]
    x = random_batch(lengths)
    emb, argmax = encoder(x, lengths)
    for i, n in enumerate(lengths):
        one, one_arg = encoder(x[i : i + 1, :n], [n])
        torch.testing.assert_close(one[0], emb[i])
        assert torch.equal(one_arg[0], argmax[i])


def test_mean_pooling_and_bad_lengths():
    encoder = make_encoder(pool="mean")
    x = random_batch([2, 4])
    emb, argmax = encoder(x, [2, 4])
    states, _ = encoder.enc_lstm(x[0, :2].unsqueeze(1))
    torch.testing.assert_close(emb[0], states.squeeze(1).mean(dim=0))
    assert bool((argmax == -1).all())
    with pytest.raises(ValueError, match="lengths"):
        encoder(x, [0, 4])
    with pytest.raises(ValueError, match="lengths"):
        encoder(x, [2])
    with pytest.raises(ValueError, match="pool"):
        BiLSTMMaxEncoder(4, 6, pool="last")


def test_state_dict_keys_are_infersents():
    encoder = BiLSTMMaxEncoder(4, 6)
    assert sorted(encoder.state_dict()) == sorted(LSTM_KEYS)
    assert encoder.state_dict()["enc_lstm.weight_ih_l0"].shape == (24, 4)


# -- the official weights (a scaled-down fake infersent1.pkl) --------------------------------
def fake_infersent_pkl(path, word_dim=4, hidden=6, seed=3):
    torch.manual_seed(seed)
    lstm = torch.nn.LSTM(word_dim, hidden, 1, bidirectional=True)
    state = {f"enc_lstm.{key}": value for key, value in lstm.state_dict().items()}
    assert sorted(state) == sorted(LSTM_KEYS)
    torch.save(state, path)
    return state


def test_load_fake_infersent1_pkl(tmp_path):
    state = fake_infersent_pkl(tmp_path / "infersent1.pkl")
    encoder = BiLSTMMaxEncoder(4, 6)
    encoder.load_infersent_state(tmp_path / "infersent1.pkl")
    for key in LSTM_KEYS:
        assert torch.equal(encoder.state_dict()[key], state[key])
    sized = BiLSTMMaxEncoder.from_infersent_state(tmp_path / "infersent1.pkl")
    assert (sized.word_dim, sized.hidden) == (4, 6)
    # an NLINet-style state dict (encoder.-prefixed keys, a classifier) loads too
    torch.save(
        {**{f"encoder.{k}": v for k, v in state.items()}, "classifier.0.weight": torch.zeros(2, 2)},
        tmp_path / "nlinet.pt",
    )
    BiLSTMMaxEncoder(4, 6).load_infersent_state(tmp_path / "nlinet.pt")


def test_wrong_shapes_and_keys_give_clear_errors(tmp_path):
    fake_infersent_pkl(tmp_path / "infersent1.pkl", word_dim=4, hidden=6)
    with pytest.raises(ValueError, match=r"enc_lstm.weight_ih_l0 has shape \(24, 4\), expected \(32, 4\).*hidden=6"):
        BiLSTMMaxEncoder(4, 8).load_infersent_state(tmp_path / "infersent1.pkl")
    with pytest.raises(ValueError, match="word_dim=4, hidden=6; this encoder has word_dim=5"):
        BiLSTMMaxEncoder(5, 6).load_infersent_state(tmp_path / "infersent1.pkl")
    torch.save({"enc_lstm.weight_ih_l0": torch.zeros(24, 4)}, tmp_path / "partial.pkl")
    with pytest.raises(ValueError, match="missing enc_lstm.weight_hh_l0"):
        BiLSTMMaxEncoder(4, 6).load_infersent_state(tmp_path / "partial.pkl")
    with pytest.raises(FileNotFoundError, match="infersent1.pkl"):
        BiLSTMMaxEncoder(4, 6).load_infersent_state(tmp_path / "absent.pkl")


class _NotWeights:  # a pickled object weights_only=True refuses
    pass


def test_non_state_dict_pickle_is_refused_unless_trusted(tmp_path):
    torch.save({"x": _NotWeights()}, tmp_path / "model.pickle")
    with pytest.raises(ValueError, match="weights_only=True.*trust_pickle=True"):
        read_state_dict(tmp_path / "model.pickle")
    assert isinstance(read_state_dict(tmp_path / "model.pickle", trust_pickle=True)["x"], _NotWeights)
    torch.save(BiLSTMMaxEncoder(4, 6), tmp_path / "whole_module.pickle")  # a whole pickled model
    with pytest.raises(ValueError, match="plain state dict"):
        BiLSTMMaxEncoder(4, 6).load_infersent_state(tmp_path / "whole_module.pickle")
    BiLSTMMaxEncoder(4, 6).load_infersent_state(tmp_path / "whole_module.pickle", trust_pickle=True)


# -- the wrapper -----------------------------------------------------------------------------
SENTENCES = [
    "A man is playing the saxophone.",
    "She likes the pink dress.",
    "A woman isn't playing.",
    "Zebra quux.",  # nothing but OOV words and a period
    "A man is playing the saxophone, a woman is playing the saxophone, she likes the pink dress.",
]


def test_vectors_protocol():
    assert isinstance(ToyVectors(WORDS), VectorsLike)


def test_prepare_adds_boundaries_and_drops_oov():
    model = InferSent.build(ToyVectors(WORDS), hidden=6, seed=0)
    # An uncased vocabulary (GloVe 6B, this toy one) gets lower-cased words: "A" is kept as "a".
    assert model.prepare("A man isn't playing Zebra.") == [BOS, "a", "man", "is", "n't", "playing", ".", EOS]
    assert model.prepare("Zebra") == [BOS, EOS]
    assert model.prepare("a man .", tokenize_input=False) == [BOS, "a", "man", ".", EOS]


def test_senteval_batcher_splits_senteval_text_on_whitespace():
    """SentEval's text is tokenised already (real lines of its TREC, CR and MPQA files below): the batcher
    encodes it as given, as SentEval's InferSent example does; tokenising again would change the tokens."""
    sentences = [
        "How many Beatles records went #1 ?",
        "*holds a lot of diapers -- a full week of toddler diapers ! .",
        "peaceful reunification and 'one country two systems",
        "a man is playing the saxophone .",
    ]
    words = {word.lower() for s in sentences for word in s.split() + tokenize(s)}
    model = InferSent.build(ToyVectors(sorted(words)), hidden=6, seed=0, zero_pad_in_max=True)
    assert tokenize(sentences[0])[-3:] == ["#", "1", "?"] and model.prepare(sentences[0])[-4:-1] == ["#", "1", "?"]
    assert model.prepare(sentences[0], tokenize_input=False)[-3:-1] == ["#1", "?"]
    batched = senteval_batcher(model)(sentences)
    np.testing.assert_array_equal(batched, model.encode(sentences, tokenize_input=False))
    retokenised = model.encode(sentences)
    changed = [not np.array_equal(a, b) for a, b in zip(batched, retokenised)]
    assert changed == [True, True, True, False]


def test_encode_batched_by_length_equals_one_by_one():
    model = InferSent.build(ToyVectors(WORDS), hidden=6, seed=0)
    emb, argmax, tokens = model.encode_with_argmax(SENTENCES, batch_size=2)
    assert emb.shape == (5, 12) and emb.dtype == np.float32 and argmax.shape == (5, 12)
    for i, sentence in enumerate(SENTENCES):
        one, one_arg, one_tokens = model.encode_with_argmax([sentence], batch_size=1)
        np.testing.assert_allclose(one[0], emb[i], rtol=1e-5, atol=1e-6)
        assert one_tokens[0] == tokens[i]
        assert tokens[i][0] == BOS and tokens[i][-1] == EOS
        assert 0 <= argmax[i].min() and argmax[i].max() < len(tokens[i])
        assert np.array_equal(one_arg[0], argmax[i])
    np.testing.assert_allclose(model.encode(SENTENCES, batch_size=128), emb, rtol=1e-5, atol=1e-6)
    importance = word_importance(torch.from_numpy(argmax[:1]), [len(tokens[0])], absolute=True)[0]
    assert importance.sum() == 12 and len(importance) == len(tokens[0])


def test_argmax_of_encode_matches_the_raw_lstm():
    vectors = ToyVectors(WORDS)
    model = InferSent.build(vectors, hidden=6, seed=0)
    emb, argmax, tokens = model.encode_with_argmax(["She likes the pink dress."])
    x = torch.from_numpy(vectors.matrix[[vectors.vocab[t] for t in tokens[0]]]).unsqueeze(1)
    with torch.no_grad():
        states = model.encoder.enc_lstm(x)[0].squeeze(1)
    best, where = states.max(dim=0)
    np.testing.assert_allclose(emb[0], best.numpy(), rtol=1e-5, atol=1e-6)
    assert np.array_equal(argmax[0], where.numpy())


def test_missing_boundary_vectors_become_zeros():
    vectors = ToyVectors(WORDS, with_boundaries=False)
    model = InferSent.build(vectors, hidden=6, seed=0)
    assert model.prepare("a man") == [BOS, "a", "man", EOS]
    embedded, lengths = model.embed_ids([model.token_ids(model.prepare("a man"))])
    assert lengths.tolist() == [4]
    assert torch.equal(embedded[0, 0], torch.zeros(4)) and torch.equal(embedded[0, 3], torch.zeros(4))
    torch.testing.assert_close(embedded[0, 1], torch.from_numpy(vectors.matrix[vectors.vocab["a"]]))
    assert model.config()["boundary_vectors"] == {BOS: "zeros", EOS: "zeros"}
    assert model.encode(["Zebra"]).shape == (1, 12)


def test_dimension_mismatch_is_refused():
    with pytest.raises(ValueError, match="expects 5"):
        InferSent(BiLSTMMaxEncoder(5, 6), ToyVectors(WORDS))


def test_save_and_load_roundtrip(tmp_path):
    vectors = ToyVectors(WORDS)
    model = InferSent.build(vectors, hidden=6, seed=4, zero_pad_in_max=True)
    target = tmp_path / "models" / "infersent"
    model.save(target, extra={"trained_on": "toy"})
    model.save(target)  # overwriting is atomic too
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "encoder.pt"]
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]  # no temp folder left
    loaded = InferSent.load(target, vectors)
    assert loaded.encoder.config() == model.encoder.config()
    np.testing.assert_array_equal(loaded.encode(SENTENCES), model.encode(SENTENCES))
    # the saved state dict is an infersent1.pkl look-alike
    assert sorted(torch.load(target / "encoder.pt", weights_only=True)) == sorted(LSTM_KEYS)
    with pytest.raises(FileNotFoundError, match="missing"):
        InferSent.load(tmp_path / "nothing", vectors)
    # load_any: the same folder when not pretrained; the official pickle's layout when pretrained
    np.testing.assert_array_equal(InferSent.load_any(target, vectors, pretrained=False).encode(SENTENCES),
                                  model.encode(SENTENCES))
    with pytest.raises(FileNotFoundError, match="infersent1.pkl"):
        InferSent.load_any(target, vectors, pretrained=True)  # a folder is no infersent1.pkl


def test_build_is_seeded():
    a = InferSent.build(ToyVectors(WORDS), hidden=6, seed=7)
    b = InferSent.build(ToyVectors(WORDS), hidden=6, seed=7)
    for key, value in a.encoder.state_dict().items():
        assert torch.equal(value, b.encoder.state_dict()[key])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu():
    vectors = ToyVectors(WORDS)
    cpu = InferSent.build(vectors, hidden=6, seed=0)
    expected, expected_arg, _ = cpu.encode_with_argmax(SENTENCES)
    gpu = InferSent.build(vectors, hidden=6, seed=0, device="cuda")
    assert gpu.device.type == "cuda"
    emb, arg, _ = gpu.encode_with_argmax(SENTENCES)
    np.testing.assert_allclose(emb, expected, rtol=1e-4, atol=1e-5)
    assert (arg == expected_arg).mean() > 0.99


def test_works_with_the_projects_word_vectors():
    embeddings = pytest.importorskip("cdaflow.sentence_bias.embeddings")
    toy = ToyVectors(WORDS)
    words = sorted(toy.vocab, key=toy.vocab.__getitem__)
    vectors = embeddings.WordVectors(words, toy.matrix)
    assert isinstance(vectors, VectorsLike)
    expected = InferSent.build(toy, hidden=6, seed=0).encode(SENTENCES)
    np.testing.assert_array_equal(InferSent.build(vectors, hidden=6, seed=0).encode(SENTENCES), expected)


def test_vectors_without_a_row_mapping_are_refused():
    class NoMapping:
        matrix = np.zeros((2, 4), dtype=np.float32)
        dim = 4

        def __contains__(self, word):
            return False

    with pytest.raises(TypeError, match="'vocab' or 'index'"):
        InferSent(BiLSTMMaxEncoder(4, 6), NoMapping())
