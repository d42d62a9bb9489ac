"""Reinflection: example extraction, lexicon, case restoration and the hard-attention transducer."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
import torch

from cdaflow.io.conllu import parse_conllu_string, read_conllu
from cdaflow.morph_cda.reinflection import (
    CharTransducer,
    CharVocab,
    InflectionExample,
    Lexicon,
    Reinflector,
    ReinflectorLoadError,
    TransducerConfig,
    examples_from_sentences,
    normalize_features,
    split_heldout,
)

SENTENCE = """\
# sent_id = t1
# text = Los Ingenieros del pueblo son expertos, dijo él.
1\tLos\tel\tDET\t_\tDefinite=Def|Gender=Masc|Number=Plur|PronType=Art\t2\tdet\t_\t_
2\tIngenieros\tingeniero\tNOUN\t_\tGender=Masc|Number=Plur\t6\tnsubj\t_\t_
3-4\tdel\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tel\tel\tDET\t_\tDefinite=Def|Gender=Masc|Number=Sing|PronType=Art\t5\tdet\t_\t_
5\tpueblo\tpueblo\tNOUN\t_\tGender=Masc|Number=Sing\t2\tnmod\t_\t_
6\tson\tser\tAUX\t_\tMood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin\t7\tcop\t_\t_
7\texpertos\texperto\tADJ\t_\tGender=Masc|Number=Plur\t0\troot\t_\tSpaceAfter=No
8\t,\t,\tPUNCT\t_\tGender=Masc\t9\tpunct\t_\t_
9\tdijo\t_\tVERB\t_\tGender=Masc|Mood=Ind\t7\tparataxis\t_\t_
10\tél\tél\tPRON\t_\tCase=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs\t9\tnsubj\t_\tSpaceAfter=No
11\t.\t.\tPUNCT\t_\t_\t7\tpunct\t_\t_

"""


def ex(lemma: str, upos: str, feats: str, form: str) -> InflectionExample:
    return InflectionExample(lemma, upos, normalize_features(feats), form)


# ---------------------------------------------------------------------------
# examples, lexicon, case


def test_examples_from_sentences_gendered_only() -> None:
    sentences = parse_conllu_string(SENTENCE)
    got = examples_from_sentences(sentences)
    assert got == [
        ex("el", "DET", "Gender=Masc|Number=Plur", "los"),
        ex("ingeniero", "NOUN", "Gender=Masc|Number=Plur", "ingenieros"),
        ex("el", "DET", "Gender=Masc|Number=Sing", "el"),  # the word inside "del", not the range
        ex("pueblo", "NOUN", "Gender=Masc|Number=Sing", "pueblo"),
        ex("experto", "ADJ", "Gender=Masc|Number=Plur", "expertos"),
        ex("él", "PRON", "Gender=Masc|Number=Sing|Person=3", "él"),  # Case, PronType dropped
    ]
    assert all(e.features == tuple(sorted(e.features)) for e in got)


def test_examples_from_sentences_all_words_and_custom_features() -> None:
    sentences = parse_conllu_string(SENTENCE)
    got = examples_from_sentences(sentences, features=("Number",), gendered_only=False)
    assert [e.form for e in got] == ["los", "ingenieros", "de", "el", "pueblo", "son", "expertos", "él"]
    assert got[2] == ex("de", "ADP", "_", "de")
    assert got[5] == ex("ser", "AUX", "Number=Plur", "son")


def test_normalize_features_accepts_mappings_strings_and_iterables() -> None:
    expected = ("Gender=Fem", "Number=Sing")
    assert normalize_features({"Number": "Sing", "Gender": "Fem"}) == expected
    assert normalize_features("Number=Sing|Gender=Fem") == expected
    assert normalize_features(["Number=Sing", "Gender=Fem", "Tense=Past"], keep=("Gender", "Number")) == expected
    assert normalize_features("_") == ()


def test_lexicon_most_frequent_and_alphabetical_ties() -> None:
    lexicon = Lexicon.from_examples(
        [
            ex("este", "DET", "Gender=Masc|Number=Sing", "éste"),
            ex("este", "DET", "Gender=Masc|Number=Sing", "este"),
            ex("este", "DET", "Gender=Masc|Number=Sing", "este"),
            ex("rey", "NOUN", "Gender=Masc|Number=Plur", "reyes"),
            ex("rey", "NOUN", "Gender=Masc|Number=Plur", "reies"),
            ex("rey", "PROPN", "Gender=Masc|Number=Plur", "reyes"),
        ]
    )
    assert lexicon.lookup("este", "DET", ("Number=Sing", "Gender=Masc")) == "este"
    assert lexicon.lookup("rey", "NOUN", "Gender=Masc|Number=Plur") == "reies"  # 1-1 tie
    assert lexicon.lookup("rey", "ADJ", "Gender=Masc|Number=Plur") is None
    # Ties do not depend on insertion order.
    reverse = Lexicon()
    reverse.add("rey", "NOUN", "Gender=Masc|Number=Plur", "reyes")
    reverse.add("rey", "NOUN", "Gender=Masc|Number=Plur", "reies")
    assert reverse.lookup("rey", "NOUN", "Gender=Masc|Number=Plur") == "reies"
    reverse.add("rey", "NOUN", "Gender=Masc|Number=Plur", "reyes")
    assert reverse.lookup("rey", "NOUN", "Gender=Masc|Number=Plur") == "reyes"


def test_lexicon_tsv_round_trip(tmp_path: Path) -> None:
    lexicon = Lexicon.from_examples(
        [ex("el", "DET", "_", "el"), ex("el", "DET", "_", "él"), ex("a", "X", "Gender=Fem", "a")]
    )
    lexicon.write_tsv(tmp_path / "lex.tsv")
    again = Lexicon.read_tsv(tmp_path / "lex.tsv")
    assert list(again.entries()) == list(lexicon.entries())
    assert again.lookup("el", "DET", ()) == "el"


def test_split_heldout_is_disjoint_and_deterministic() -> None:
    examples = [ex(f"l{i}", "NOUN", "Gender=Masc", f"f{i}") for i in range(50)] * 3
    train, heldout = split_heldout(examples, fraction=0.2, seed=3)
    assert len(heldout) == 10 and len(set(heldout)) == 10
    assert not set(train) & set(heldout)
    assert len(train) == 120  # duplicates of training items are kept
    assert split_heldout(examples, fraction=0.2, seed=3) == (train, heldout)
    assert split_heldout(examples, fraction=0.2, seed=4)[1] != heldout


# ---------------------------------------------------------------------------
# the transducer on a synthetic Spanish-like task


def synthetic_spanish(n_stems: int, seed: int = 0) -> list[InflectionExample]:
    """-o/-a/-os/-as, -or/-ora/-ores/-oras and accented -ín/-ina/-ines/-inas over random stems."""
    rng = random.Random(seed)
    onsets = ["b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "ch", "br", "tr", "pl"]
    vowels = ["a", "e", "i", "o", "u", "á", "é"]
    stems: set[str] = set()
    while len(stems) < n_stems:
        syllables = "".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(1, 3)))
        stems.add(syllables + rng.choice(onsets))
    paradigms = [
        ("o", ("o", "a", "os", "as")),
        ("or", ("or", "ora", "ores", "oras")),
        ("ín", ("ín", "ina", "ines", "inas")),
    ]
    cells = ["Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing", "Gender=Masc|Number=Plur", "Gender=Fem|Number=Plur"]
    examples = []
    for i, stem in enumerate(sorted(stems)):
        lemma_suffix, suffixes = paradigms[i % 3]
        for cell, suffix in zip(cells, suffixes):
            examples.append(ex(stem + lemma_suffix, "NOUN", cell, stem + suffix))
    return examples


@pytest.fixture(scope="module")
def synthetic() -> tuple[list[InflectionExample], list[InflectionExample]]:
    return split_heldout(synthetic_spanish(100), fraction=0.2, seed=1)


@pytest.fixture(scope="module")
def trained(synthetic: tuple[list[InflectionExample], list[InflectionExample]]) -> Reinflector:
    train, _ = synthetic
    return Reinflector.train(train, epochs=15, batch_size=16, seed=0, threads=1)


def test_transducer_learns_synthetic_task(
    trained: Reinflector, synthetic: tuple[list[InflectionExample], list[InflectionExample]]
) -> None:
    train, heldout = synthetic
    accuracy = trained.accuracy(heldout)
    print(f"synthetic held-out accuracy {accuracy:.3f} ({len(heldout)} items)")
    assert accuracy >= 0.9
    assert set(heldout).isdisjoint(train)
    history = trained.train_info.history
    assert len(history) == 15 and history[-1]["loss"] < history[0]["loss"]


def test_transducer_generalises_to_new_stems_and_unknown_characters(trained: Reinflector) -> None:
    # Neither stem nor "ñ"/"x" were seen: the stem must be copied (UNKs via hard attention).
    forms = trained.inflect(
        [
            ("bapredo", "NOUN", "Gender=Fem|Number=Plur"),
            ("gañotor", "NOUN", {"Gender": "Fem", "Number": "Sing"}),
            ("xelín", "NOUN", ("Gender=Masc", "Number=Plur", "Tense=Past")),  # Tense ignored
        ]
    )
    assert sum(a == b for a, b in zip(forms, ["bapredas", "gañotora", "xelines"])) >= 2, forms


def test_lexicon_is_consulted_before_the_model(trained: Reinflector) -> None:
    example = next(iter(trained.lexicon.entries()))
    lemma, upos, feats, form, _ = example
    assert trained.inflect([(lemma, upos, feats)]) == [form]
    assert trained.inflect([(lemma.upper(), upos, feats)]) == [form]  # queries are lower-cased


def test_inflect_like_restores_case(trained: Reinflector) -> None:
    lemma, upos, feats, form, _ = next(iter(trained.lexicon.entries()))
    assert trained.inflect_like(form.upper(), lemma, upos, feats) == form.upper()
    assert trained.inflect_like(form.capitalize(), lemma, upos, feats) == form.capitalize()


def test_batched_inflect_equals_one_at_a_time(
    trained: Reinflector, synthetic: tuple[list[InflectionExample], list[InflectionExample]]
) -> None:
    _, heldout = synthetic
    queries = [e.key for e in heldout] + [("plitrano", "NOUN", ("Gender=Fem", "Number=Plur"))]
    trained.clear_cache()
    batched = trained.inflect(queries, use_lexicon=False)
    singles = []
    for query in queries:
        trained.clear_cache()
        singles.append(trained.inflect([query], use_lexicon=False)[0])
    assert batched == singles
    # Cached answers agree too.
    assert trained.inflect(queries, use_lexicon=False) == batched


def test_cache_is_bounded(trained: Reinflector) -> None:
    previous = trained.cache_size
    trained.cache_size = 3
    try:
        trained.clear_cache()
        trained.inflect([(f"trano{c}", "NOUN", "Gender=Fem|Number=Sing") for c in "abcde"], use_lexicon=False)
        assert len(trained._cache) == 3
    finally:
        trained.cache_size = previous
        trained.clear_cache()


def test_save_load_round_trip(
    trained: Reinflector, synthetic: tuple[list[InflectionExample], list[InflectionExample]], tmp_path: Path
) -> None:
    _, heldout = synthetic
    target = trained.save(tmp_path / "model")
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "lexicon.tsv", "model.pt"]
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no temp folder left behind
    loaded = Reinflector.load(target, threads=1)
    queries = [e.key for e in heldout] + [("ñuvor", "NOUN", "Gender=Fem|Number=Plur")]
    trained.clear_cache()
    assert loaded.inflect(queries, use_lexicon=False) == trained.inflect(queries, use_lexicon=False)
    assert list(loaded.lexicon.entries()) == list(trained.lexicon.entries())
    assert loaded.train_info.history == trained.train_info.history
    # Saving again replaces the directory atomically.
    trained.save(target)
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_load_errors(trained: Reinflector, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="does not exist"):
        Reinflector.load(tmp_path / "nowhere")
    target = trained.save(tmp_path / "model")
    (target / "model.pt").unlink()
    with pytest.raises(ReinflectorLoadError, match="incomplete: missing model.pt"):
        Reinflector.load(target)
    target = trained.save(tmp_path / "model")
    (target / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ReinflectorLoadError, match="cannot load"):
        Reinflector.load(target)
    target = trained.save(tmp_path / "model")
    (target / "lexicon.tsv").write_text("garbage\n", encoding="utf-8")
    with pytest.raises(ReinflectorLoadError, match="not a lexicon"):
        Reinflector.load(target)


def test_training_is_deterministic_and_keeps_best_dev_epoch() -> None:
    data = synthetic_spanish(15, seed=5)
    train, dev = split_heldout(data, fraction=0.25, seed=0)
    config = TransducerConfig(char_dim=16, feat_dim=16, hidden=32, attn_hidden=32)
    messages: list[str] = []
    first = Reinflector.train(train, dev, epochs=3, batch_size=8, seed=7, config=config, threads=1, log=messages.append)
    second = Reinflector.train(train, dev, epochs=3, batch_size=8, seed=7, config=config, threads=1)
    third = Reinflector.train(train, dev, epochs=3, batch_size=8, seed=8, config=config, threads=1)
    state1, state2, state3 = (r.model.state_dict() for r in (first, second, third))
    assert all(torch.equal(state1[name], state2[name]) for name in state1)
    assert not all(torch.equal(state1[name], state3[name]) for name in state1)
    info = first.train_info
    assert [h["dev_accuracy"] for h in info.history] == [h["dev_accuracy"] for h in second.train_info.history]
    assert info.best_dev_accuracy == max(h["dev_accuracy"] for h in info.history)
    assert first.accuracy(dev) == pytest.approx(info.best_dev_accuracy)
    assert len(messages) == 4 and "dev acc" in messages[0] and messages[-1].startswith("kept epoch")


def test_transducer_marginal_likelihood_is_a_distribution() -> None:
    # p(y_1 | x) = sum_j alpha_1j p(y_1 | h_j, s_1) must sum to 1 over the emittable symbols,
    # also with a padded (masked) source row in the batch.
    torch.manual_seed(0)
    model = CharTransducer(n_chars=7, n_feats=4, config=TransducerConfig(16, 8, 16, 16, 0.0)).eval()
    symbols = [CharVocab.UNK, CharVocab.EOS, 4, 5, 6]
    for src_row in ([CharVocab.BOS, 4, 5, CharVocab.EOS, 0], [CharVocab.BOS, 6, CharVocab.EOS, 0, 0]):
        src = torch.tensor([src_row] * len(symbols))
        feats = torch.tensor([[2, 3]] * len(symbols))
        tgt = torch.tensor([[CharVocab.BOS, symbol] for symbol in symbols])
        with torch.no_grad():
            nll = model(src, src != 0, feats, tgt, torch.ones_like(tgt, dtype=torch.bool))
        assert float(torch.exp(-nll).sum()) == pytest.approx(1.0, abs=1e-5)


def test_train_rejects_empty_input() -> None:
    with pytest.raises(ValueError, match="no training examples"):
        Reinflector.train([])


# ---------------------------------------------------------------------------
# real data


def test_spanish_gsd_dev_reinflection(shared_data: Path) -> None:
    path = shared_data / "ud-treebanks-v2.2" / "UD_Spanish-GSD" / "es_gsd-ud-dev.conllu"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    examples = examples_from_sentences(read_conllu(path))
    train, heldout = split_heldout(examples, fraction=0.1, seed=0)
    started = time.perf_counter()
    # A short budget: three epochs over the ~4200 unique training items (~15 s on one core).
    reinflector = Reinflector.train(train, epochs=3, batch_size=32, seed=0, threads=1)
    seconds = time.perf_counter() - started
    accuracy = reinflector.accuracy(heldout)
    print(
        f"Spanish GSD dev: {len(examples)} gendered tokens, {len(set(examples))} types, "
        f"held-out accuracy {accuracy:.3f} on {len(heldout)} items after {seconds:.1f} s"
    )
    assert accuracy > 0.5


def test_every_name_imports_from_the_package_and_its_module():
    import logging

    import cdaflow.morph_cda.reinflection as package
    from cdaflow.morph_cda.reinflection import batching, lexicon, reinflector, transducer, vocabulary

    assert package.Lexicon is lexicon.Lexicon and package.Reinflector is reinflector.Reinflector
    assert package.CharTransducer is transducer.CharTransducer and package.CharVocab is vocabulary.CharVocab
    assert all(hasattr(package, name) for name in package.__all__)
    rows = [([2, 5, 3], [4], [2, 5, 6, 3]), ([2, 3], [4, 5], [2, 3])]
    batch = batching.collate(rows)
    assert batch.src.tolist() == [[2, 5, 3], [2, 3, 0]] and batch.tgt_mask.sum().item() == 6
    assert batching.collate([row[:2] for row in rows]).tgt is None
    # Log lines keep the package's name.
    assert reinflector.log is logging.getLogger("cdaflow.morph_cda.reinflection")
