"""Study A's CDA on Study B's test sets (cdaflow.cross_study.cda_on_regender) on tiny hand-made inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from cdaflow.cross_study.cda_on_regender import (
    CHARACTER_ADJECTIVES,
    CharacterAdjectives,
    adjective_interventions,
    cda_counterfactuals,
    cda_on_regender_testset,
    parse_segments,
    read_lemmas,
    regender_comparison,
)
from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.regender.testsets import GoldSegment
from cdaflow.text import language as languages

SPANISH = languages.load("es")


def test_character_adjectives_inflect_regular_patterns():
    lexicon = CharacterAdjectives.from_lemmas(["listo", "trabajador", "llorón"], SPANISH)
    assert lexicon.forms["listo"] == ("lista", "Masc", "Sing")
    assert lexicon.forms["lista"] == ("listo", "Fem", "Sing")
    assert lexicon.forms["listas"] == ("listos", "Fem", "Plur")
    assert lexicon.forms["trabajadores"] == ("trabajadoras", "Masc", "Plur")
    assert lexicon.forms["trabajadora"] == ("trabajador", "Fem", "Sing")
    assert lexicon.forms["llorón"] == ("llorona", "Masc", "Sing")
    assert lexicon.forms["llorones"] == ("lloronas", "Masc", "Plur")
    assert len(lexicon) == 12


def test_character_adjectives_reject_invariant_lemmas_and_the_list_file_is_valid():
    with pytest.raises(ValueError, match="amable"):
        CharacterAdjectives.from_lemmas(["amable"], SPANISH)
    lemmas = read_lemmas(CHARACTER_ADJECTIVES)
    assert "trabajador" in lemmas and not any(lemma.startswith("#") for lemma in lemmas)
    assert len(CharacterAdjectives.from_lemmas(lemmas, "es")) == 4 * len(set(lemmas))


def test_read_lemmas_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "adjectives.txt"
    path.write_text("# source: a test\nalto\n\n  bajo \n", encoding="utf-8")
    assert read_lemmas(path) == ("alto", "bajo")


def test_character_adjectives_from_pairs_and_file(tmp_path):
    lexicon = CharacterAdjectives.from_pairs([("Guapo", "guapa"), ("feliz", "feliz")], SPANISH)
    assert lexicon.forms["guapos"] == ("guapas", "Masc", "Plur")
    assert lexicon.forms["felices"][0] == "felices"  # z -> ces; an invariant pair maps to itself
    path = tmp_path / "adjectives.tsv"
    path.write_text("masculine\tfeminine\tenglish\nserio\tseria\tserious\n", encoding="utf-8")
    assert CharacterAdjectives.read(path, SPANISH).forms["serias"] == ("serios", "Fem", "Plur")


def test_counterpart_needs_an_adjective_or_noun_reading():
    lexicon = CharacterAdjectives.from_lemmas(["bajo"], SPANISH)
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
    lexicon = CharacterAdjectives.from_lemmas(["listo"], SPANISH)
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
    adjectives = CharacterAdjectives.from_lemmas(["listo", "tonto"], SPANISH)
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
        adjectives=CharacterAdjectives.from_lemmas(["listo", "tonto"], SPANISH), other_systems={"rules": rules},
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
