"""Cross-study comparisons (cdaflow.cross_study) on tiny hand-made inputs with hand-computed results."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from cdaflow.cross_study import (
    CHARACTER_ADJECTIVES_ES,
    CharacterAdjectives,
    adjective_interventions,
    bias_scores_of_swapped,
    bias_summary,
    cda_counterfactuals,
    cda_on_regender_testset,
    gap_subjective_bias,
    infersent_scorer,
    infersent_scorer_of_rule,
    paired_difference,
    parse_segments,
    regender_comparison,
    transferred_sentence_pairs,
)
from cdaflow.gap_subjective.gap import GapExample
from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda import language as languages
from cdaflow.morph_cda.cda import Gazetteer
from cdaflow.regender.testsets import GoldSegment
from cdaflow.sentence_bias.swap import Swapper


# -- (a) Study A on Study B's test sets ----------------------------------------------------------
def test_character_adjectives_inflect_regular_patterns():
    lexicon = CharacterAdjectives.from_lemmas(["listo", "trabajador", "llorón"])
    assert lexicon.forms["listo"] == ("lista", "Masc", "Sing")
    assert lexicon.forms["lista"] == ("listo", "Fem", "Sing")
    assert lexicon.forms["listas"] == ("listos", "Fem", "Plur")
    assert lexicon.forms["trabajadores"] == ("trabajadoras", "Masc", "Plur")
    assert lexicon.forms["trabajadora"] == ("trabajador", "Fem", "Sing")
    assert lexicon.forms["llorón"] == ("llorona", "Masc", "Sing")
    assert lexicon.forms["llorones"] == ("lloronas", "Masc", "Plur")
    assert len(lexicon) == 12


def test_character_adjectives_reject_invariant_lemmas_and_default_list_is_valid():
    with pytest.raises(ValueError, match="amable"):
        CharacterAdjectives.from_lemmas(["amable"])
    assert len(CharacterAdjectives.from_lemmas()) == 4 * len(set(CHARACTER_ADJECTIVES_ES))


def test_character_adjectives_from_pairs_and_file(tmp_path):
    lexicon = CharacterAdjectives.from_pairs([("Guapo", "guapa"), ("feliz", "feliz")])
    assert lexicon.forms["guapos"] == ("guapas", "Masc", "Plur")
    assert lexicon.forms["felices"][0] == "felices"  # z -> ces; an invariant pair maps to itself
    path = tmp_path / "adjectives.tsv"
    path.write_text("masculine\tfeminine\tenglish\nserio\tseria\tserious\n", encoding="utf-8")
    assert CharacterAdjectives.read(path).forms["serias"] == ("serios", "Fem", "Plur")


def test_counterpart_needs_an_adjective_or_noun_reading():
    lexicon = CharacterAdjectives.from_lemmas(["bajo"])
    assert lexicon.counterpart({"form": "Bajo", "upos": "ADJ"}) == ("baja", "Masc")
    assert lexicon.counterpart({"form": "bajo", "upos": "ADP"}) is None  # "bajo la mesa"
    assert lexicon.counterpart({"form": "alto", "upos": "ADJ"}) is None


def _conllu(rows: list[tuple[str, str, str, str]], sent_id: str, text: str) -> str:
    """CoNLL-U of a flat sentence: (form, lemma, upos, feats) rows, all attached to the first word."""
    lines = [f"# sent_id = {sent_id}", f"# text = {text}"]
    for i, (form, lemma, upos, feats) in enumerate(rows, 1):
        head, rel = (0, "root") if i == 1 else (1, "dep")
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t_\t{feats}\t{head}\t{rel}\t_\t_")
    return "\n".join(lines) + "\n\n"


def _sentence(rows, text, sent_id="s-1-1"):
    return parse_conllu_string(_conllu(rows, sent_id, text))[0]


@dataclass
class FakeGenerator:
    """Stands in for Study A's MRF + reinflector: applies the interventions' forms, nothing else."""

    calls: list[int] = field(default_factory=list)
    language: Any = field(default_factory=lambda: languages.load("es"))  # Spanish pronouns, articles ...

    def word_tag(self, word):
        feats = word["feats"] or {}
        return tuple(sorted(f"{k}={v}" for k, v in feats.items() if k in ("Gender", "Number")))

    def generate(self, sentences, groups):
        self.calls.append(len(sentences))
        out = []
        for sentence, group in zip(sentences, groups, strict=True):
            forms = [w["form"] for w in words(sentence)]
            for intervention in group:
                forms[intervention.index] = intervention.form
            text = " ".join(forms[:-1]) + forms[-1]  # the last token is the final punctuation
            out.append(SimpleNamespace(counterfactual=text))
        return out


def test_adjective_interventions_flip_the_listed_adjective_only():
    sentence = _sentence(
        [
            ("estoy", "estar", "AUX", "Mood=Ind|Number=Sing|Person=1"),
            ("lista", "listo", "ADJ", "Gender=Fem|Number=Sing"),
            (".", ".", "PUNCT", "_"),
        ],
        "estoy lista.",
    )
    lexicon = CharacterAdjectives.from_lemmas(["listo"])
    (intervention,) = adjective_interventions(sentence, lexicon, FakeGenerator())
    assert (intervention.index, intervention.form) == (1, "listo")
    assert intervention.tag == ("Gender=Masc", "Number=Sing")
    assert adjective_interventions(sentence, lexicon, FakeGenerator(), "to-fem") == []
    with pytest.raises(ValueError, match="direction"):
        adjective_interventions(sentence, lexicon, FakeGenerator(), "sideways")


def _gold_and_parses():
    gold = [
        GoldSegment("s1", "G", "Estoy listo.", ("Estoy lista.",)),
        GoldSegment("s2", "N", "Hola.", ("Hola.",)),
        GoldSegment("s3", "G", "El niño es tonto.", ("La niña es tonta.",)),
    ]
    parses = [
        _sentence(
            [("estoy", "estar", "AUX", "Number=Sing"), ("listo", "listo", "ADJ", "Gender=Masc|Number=Sing"),
             (".", ".", "PUNCT", "_")],
            "estoy listo.",
        ),
        _sentence([("hola", "hola", "INTJ", "_"), (".", ".", "PUNCT", "_")], "hola."),
        _sentence(
            [("el", "el", "DET", "Gender=Masc|Number=Sing"), ("niño", "niño", "NOUN", "Gender=Masc|Number=Sing"),
             ("es", "ser", "AUX", "Number=Sing"), ("tonto", "tonto", "ADJ", "Gender=Masc|Number=Sing"),
             (".", ".", "PUNCT", "_")],
            "el niño es tonto.",
        ),
    ]  # fmt: skip
    gazetteer = Gazetteer(to_fem={"niño": "niña"}, to_masc={"niña": "niño"})
    return gold, parses, gazetteer


def test_cda_counterfactuals_nouns_only_then_with_adjectives():
    gold, parses, gazetteer = _gold_and_parses()
    originals = [g.segment for g in gold]
    generator = FakeGenerator()
    # Animate nouns only: the first two segments have none and come back verbatim.
    assert cda_counterfactuals(generator, gazetteer, parses, originals) == [
        "Estoy listo.",
        "Hola.",
        "El niña es tonto.",
    ]
    assert generator.calls == [1]
    adjectives = CharacterAdjectives.from_lemmas(["listo", "tonto"])
    generator = FakeGenerator()
    out = cda_counterfactuals(generator, gazetteer, parses, originals, adjectives=adjectives, batch_size=1)
    assert out == ["Estoy lista.", "Hola.", "El niña es tonta."]
    assert generator.calls == [1, 1]  # two segments with interventions, one per batch
    with pytest.raises(ValueError, match="original segments"):
        cda_counterfactuals(generator, gazetteer, parses, originals[:2])


def test_regender_comparison_hand_computed():
    gold = [GoldSegment("g", "G", "Estoy cansado.", ("Estoy cansada.",)), GoldSegment("n", "N", "Hola.", ("Hola.",))]
    table = regender_comparison(
        {"toy": gold}, {"perfect": {"toy": ["Estoy cansada.", "Hola."]}, "bad": {"toy": ["Estoy cansado.", "Hola!"]}}
    )
    bad = table[table["system"] == "bad"].set_index("type")
    # Study B's error rates count words only (punctuation is not a word, as in the paper): one error
    # (cansado/cansada) over 2 + 1 reference words; "Hola!" is the same word as "Hola.".
    assert bad.loc["all", ["segments", "per_sentence", "per_word", "correct_pct", "changed_pct"]].tolist() == [
        2,
        50.0,
        pytest.approx(100 / 3),
        50.0,
        0.0,
    ]
    assert bad.loc["neutral", ["per_sentence", "per_word", "changed_pct"]].tolist() == [0.0, 0.0, 0.0]
    assert bad.loc["re-genderable", "per_word"] == pytest.approx(100 / 2)
    assert bad.loc["re-genderable", "changed_pct"] == 0.0
    perfect = table[table["system"] == "perfect"].set_index("type")
    assert perfect.loc["all", ["per_sentence", "correct_pct", "changed_pct"]].tolist() == [0.0, 100.0, 50.0]
    assert list(table.columns) == [
        "test_set",
        "type",
        "system",
        "segments",
        "per_sentence",
        "per_word",
        "correct_pct",
        "changed_pct",
    ]
    with pytest.raises(ValueError, match="1 outputs for 2 segments"):
        regender_comparison({"toy": gold}, {"short": {"toy": ["x"]}})


def test_cda_on_regender_testset_lists_a_next_to_b():
    gold, parses, gazetteer = _gold_and_parses()
    rules = ["Estoy lista.", "Hola.", "El niño es tonta."]
    table, outputs = cda_on_regender_testset(
        FakeGenerator(), gazetteer, parses, gold, test_set="toy",
        adjectives=CharacterAdjectives.from_lemmas(["listo", "tonto"]), other_systems={"rules": rules},
    )  # fmt: skip
    assert set(outputs) == {"cda", "cda_adjectives"}
    correct = table[table["type"] == "re-genderable"].set_index("system")["correct_pct"]
    # s1 needs the adjective; s3 also needs the article, which the fake generator never changes.
    assert correct.to_dict() == {"cda": 0.0, "cda_adjectives": 50.0, "rules": 50.0}


class FakeParser:
    """Splits "a. b" into two sentences, as a parser may; records what it was given."""

    name = "fake"

    def __init__(self):
        self.seen = []

    def parse(self, texts, *, batch_size=64, sent_id_prefix="s", line_numbers=None):
        for line, text in enumerate(texts, 1):
            self.seen.append(text)
            pieces = [p for p in text.replace(". ", ".|").split("|")]
            for k, piece in enumerate(pieces, 1):
                rows = [(w, w, "X", "_") for w in piece.split()]
                yield _sentence(rows, piece, f"{sent_id_prefix}-{line}-{k}")


def test_parse_segments_lowercases_first_letter_and_merges_parts():
    parser = FakeParser()
    parsed = parse_segments(parser, ["¿Listo?", "Hola.  Ven"])
    assert parser.seen == ["¿listo?", "hola. Ven"]
    assert len(parsed) == 2
    assert [w["form"] for w in words(parsed[1])] == ["hola.", "Ven"]
    assert parsed[1].metadata["text"] == "hola. Ven"


# -- (b), (c) Study D's bias score ---------------------------------------------------------------
class CountingScorer:
    """f = letters / 100, m = -(count of 'e') / 100, abs = f - m; remembers each batch."""

    def __init__(self):
        self.batches = []

    def __call__(self, sentences):
        self.batches.append(list(sentences))
        f = np.array([sum(c.isalpha() for c in s) / 100 for s in sentences])
        m = np.array([-s.count("e") / 100 for s in sentences])
        return SimpleNamespace(f=f, m=m, abs=f - m)


def test_bias_scores_of_swapped_scores_both_sides_in_one_batch():
    scorer = CountingScorer()
    swapper = Swapper([("woman", "man"), ("she", "he")])
    table = bias_scores_of_swapped(["The man sleeps.", "A dog runs.", "The man sleeps.", "She eats."], swapper, scorer)
    assert table["original"].tolist() == ["The man sleeps.", "She eats."]
    assert table["counterpart"].tolist() == ["The woman sleeps.", "He eats."]
    assert table["words_swapped"].tolist() == [1, 1]
    assert len(scorer.batches) == 1 and len(scorer.batches[0]) == 4
    # "The man sleeps." has 12 letters and 3 e's; "The woman sleeps." 14 and 3.
    row = table.iloc[0]
    assert (row.original_f, row.counterpart_f, row.original_m) == pytest.approx((0.12, 0.14, -0.03))
    assert row.original_net == pytest.approx(0.09)
    assert row.counterpart_abs == pytest.approx(0.17)


def _gap(ident: str, text: str) -> GapExample:
    return GapExample(
        ident, text, "He", text.index("He"), "Bob", text.index("Bob"), True, "Tom", text.index("Tom"), False, ""
    )


def test_transferred_sentence_pairs_and_gap_subjective_bias():
    gap = [
        _gap("test-1", "Bob met Tom. He was a great singer. They left."),
        _gap("test-2", "Bob met Tom. He sang."),
    ]
    released = [
        _gap("test-1", "Bob met Tom. He was a singer. They left."),
        _gap("test-2", "Bob met Tom. He sang."),
    ]
    pairs = transferred_sentence_pairs(gap, released)
    assert pairs.to_dict("records") == [
        {"id": "test-1", "original": "He was a great singer.", "counterpart": "He was a singer."}
    ]
    scored = gap_subjective_bias(gap, released, CountingScorer())
    assert scored.loc[0, "original_f"] == pytest.approx(0.17)  # 17 letters
    assert scored.loc[0, "counterpart_f"] == pytest.approx(0.12)
    with pytest.raises(ValueError, match="GAP's order"):
        transferred_sentence_pairs(gap, released[::-1])


def test_transferred_sentence_pairs_join_a_resplit_transfer():
    gap = [_gap("d-1", "Bob met Tom. He was, sadly, a great singer. They left.")]
    released = [_gap("d-1", "Bob met Tom. He was sad. He sang. They left.")]
    (pair,) = transferred_sentence_pairs(gap, released).to_dict("records")
    assert pair["counterpart"] == "He was sad. He sang."


def test_paired_difference_edge_cases_and_seed():
    constant = paired_difference([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert constant == {"mean_difference": 0.5, "ci_low": 0.5, "ci_high": 0.5}
    single = paired_difference([1.0], [3.0])
    assert single["mean_difference"] == 2.0 and math.isnan(single["ci_low"])
    a, b = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    first = paired_difference(a, b, n_resamples=999, seed=7)
    assert first == paired_difference(a, b, n_resamples=999, seed=7)
    assert first["mean_difference"] == 2.5
    assert 1.0 <= first["ci_low"] < 2.5 < first["ci_high"] <= 4.0
    with pytest.raises(ValueError, match="paired scores"):
        paired_difference([1.0, 2.0], [1.0])


def test_bias_summary_hand_computed():
    table = pd.DataFrame(
        {
            "original_net": [-0.2, 0.4],
            "counterpart_net": [0.1, 0.2],
            "original_abs": [0.2, 0.4],
            "counterpart_abs": [0.3, 0.3],
        }
    )
    summary = bias_summary(table, comparison="toy", measures=("net", "abs"), n_resamples=99, seed=1).set_index(
        "measure"
    )
    assert summary.loc["net", "mean_original"] == pytest.approx(0.1)
    assert summary.loc["net", "mean_abs_original"] == pytest.approx(0.3)
    assert summary.loc["net", "mean_counterpart"] == pytest.approx(0.15)
    assert summary.loc["net", "mean_difference"] == pytest.approx(0.05)  # (0.3 - 0.2) / 2
    assert summary.loc["abs", "mean_difference"] == pytest.approx(0.0)
    assert summary.loc["abs", "n"] == 2 and summary.loc["abs", "comparison"] == "toy"


def test_infersent_scorer_reads_study_d_files_and_scores_as_its_parts(tmp_path):
    from cdaflow.sentence_bias.embeddings import open_vectors, prepare_vectors
    from cdaflow.sentence_bias.infersent import InferSent
    from cdaflow.sentence_bias.score import encoder_bias_scorer
    from cdaflow.sentence_bias.wordlist import GenderWordList

    rng = np.random.default_rng(0)
    vocab = ["she", "he", "woman", "man", "nurse", "engineer", "is", "a", "the", "<s>", "</s>"]
    glove = tmp_path / "glove.txt"
    glove.write_text("".join(f"{w} {' '.join(f'{x:.4f}' for x in rng.normal(size=4))}\n" for w in vocab))
    prepare_vectors({"path": str(glove)}, glove, tmp_path / "vectors")
    vectors = open_vectors(tmp_path / "vectors")
    InferSent.build(vectors, 6, seed=0).save(tmp_path / "model")
    np.save(tmp_path / "direction.npy", np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32))
    GenderWordList(frozenset({"she", "he", "woman", "man"})).save(tmp_path / "words.txt")

    score = infersent_scorer(
        tmp_path / "vectors", tmp_path / "model", tmp_path / "direction.npy", tmp_path / "words.txt", pretrained=False
    )
    sentences = ["she is a nurse", "the man is an engineer", "he is a nurse"]
    ours = score(sentences)
    direct = encoder_bias_scorer(
        InferSent.load(tmp_path / "model", vectors), vectors, np.array([1.0, 0, 0, 0]), {"she", "he", "woman", "man"}
    )(sentences)
    for name in ("f", "m", "abs"):
        np.testing.assert_allclose(getattr(ours, name), getattr(direct, name), rtol=1e-6)
    assert ours.abs.shape == (3,) and (ours.f >= 0).all() and (ours.m <= 0).all() and ours.abs.max() > 0
    with pytest.raises(FileNotFoundError, match="vectors folder"):
        infersent_scorer(
            tmp_path, tmp_path / "model", tmp_path / "direction.npy", tmp_path / "words.txt", pretrained=False
        )
    # A rule's view of the same files: the encoder as a one-path input list; the member name is
    # read only for pretrained weights; a GPU resource on a machine without CUDA runs on the CPU.
    from types import SimpleNamespace

    rule = SimpleNamespace(
        input=SimpleNamespace(
            vectors=tmp_path / "vectors", encoder=[str(tmp_path / "model")],
            direction=tmp_path / "direction.npy", words=tmp_path / "words.txt",
        ),
        params=SimpleNamespace(pretrained=False, encoder_member="not-read.pkl"),
        resources=SimpleNamespace(gpu=0),
    )  # fmt: skip
    from_rule = infersent_scorer_of_rule(rule)(sentences)
    for name in ("f", "m", "abs"):
        np.testing.assert_array_equal(getattr(from_rule, name), getattr(ours, name))
