"""Probe phrases (appendix C) and both metrics by hand."""

import pytest

from cdaflow.morph_cda.probes import (
    ADJECTIVES,
    Probe,
    ProbeLanguage,
    grammaticality,
    stereotyped_nouns,
    stereotyping,
)


def test_spanish_phrases_are_the_papers_table_8():
    probes = ProbeLanguage.load("es").probes([("ingeniero", "ingeniera")])
    assert len(probes) == 16
    good = [p.phrase for p in probes if p.adjective == "good"]
    assert good == ["El ingeniero bueno", "La ingeniera buena", "El ingeniera bueno", "La ingeniero buena"]
    assert {p.adjective for p in probes} == set(ADJECTIVES)


@pytest.mark.parametrize(
    ("lang", "pair", "adjective", "masc", "fem"),
    [
        ("fr", ("ingénieur", "ingénieure"), "smart", "L'ingénieur intelligent", "L'ingénieure intelligente"),
        ("fr", ("acteur", "actrice"), "beautiful", "Le bel acteur", "La belle actrice"),
        ("fr", ("danseur", "danseuse"), "good", "Le bon danseur", "La bonne danseuse"),
        ("it", ("studente", "studentessa"), "bad", "Lo studente cattivo", "La studentessa cattiva"),
        ("it", ("maestro", "maestra"), "good", "Il maestro buono", "La maestra buona"),
        ("he", ("מורה", "מורה"), "good", "המורה הטוב", "המורה הטובה"),
    ],
)
def test_word_order_elision_and_articles(lang, pair, adjective, masc, fem):
    probes = {p.kind: p.phrase for p in ProbeLanguage.load(lang).probes([pair]) if p.adjective == adjective}
    assert (probes["masc"], probes["fem"]) == (masc, fem)


def test_bad_probe_specs(tmp_path):
    with pytest.raises(FileNotFoundError, match="no probe phrases for 'xx'"):
        ProbeLanguage.load("xx", tmp_path)
    with pytest.raises(ValueError, match="missing or malformed field"):
        ProbeLanguage({"lang": "es", "articles": {"Masc": [{"form": "el"}]}})


def test_metrics_by_hand():
    # The paper's Table 5, original corpus: LL of the four "ingeniero bueno" phrases.
    lls = {"masc": -27.6, "fem": -31.3, "*masc": -32.2, "*fem": -33.2}
    probes = [Probe("ingeniero", "good", kind, "") for kind in lls]
    assert stereotyping(probes, list(lls.values()))[("ingeniero", "good")] == pytest.approx(3.7)
    assert grammaticality(probes, list(lls.values()))[("ingeniero", "good")] == pytest.approx(3.25)
    with pytest.raises(ValueError, match="4 probes but 3 scores"):
        stereotyping(probes, [1.0, 2.0, 3.0])


def test_stereotyped_nouns_at_75_percent():
    counts = {"ingeniero": (80, 20), "enfermero": (10, 30), "maestro": (60, 40), "rey": (0, 0)}
    assert stereotyped_nouns(counts) == {"ingeniero": "Masc", "enfermero": "Fem"}
    assert stereotyped_nouns(counts, min_count=50) == {"ingeniero": "Masc"}
