"""The UD → TreeTagger-style tag mapping of Study B, pinned on hand-made analyses."""

import pytest

from cdaflow.regender.tagset import TagMap, Word, tag_surface_tokens


@pytest.fixture(scope="module")
def tagmap() -> TagMap:
    return TagMap.load()


@pytest.mark.parametrize(
    ("word", "tag"),
    [
        (Word(",", "PUNCT"), "CM"),
        (Word(".", "PUNCT"), "FS"),
        (Word("¿", "PUNCT"), "FS"),
        (Word("¡", "PUNCT"), "FS"),
        (Word("...", "PUNCT"), "FS"),
        (Word('"', "PUNCT"), "PUNC"),
        (Word("no", "ADV", {"Polarity": "Neg"}, "no"), "NEG"),
        (Word("muy", "ADV", {}, "muy"), "ADV"),
        (Word("Sí", "INTJ", {}, "sí"), "ADV"),
        (Word("hola", "INTJ", {}, "hola"), "ITJN"),
        (Word("cansado", "ADJ", {"Gender": "Masc", "VerbForm": "Part"}, "cansado"), "Vadj"),
        (Word("terminada", "VERB", {"Gender": "Fem", "VerbForm": "Part"}, "terminar"), "Vadj"),
        (Word("bonito", "ADJ", {"Gender": "Masc"}, "bonito"), "ADJ"),
        (Word("la", "DET", {"PronType": "Art"}, "el"), "ART"),
        (Word("esta", "DET", {"PronType": "Dem"}, "este"), "DM"),
        (Word("eso", "PRON", {"PronType": "Dem"}, "eso"), "DM"),
        (Word("qué", "PRON", {}, "qué"), "INT"),
        (Word("cuál", "PRON", {"PronType": "Int"}, "cuál"), "INT"),
        (Word("mi", "DET", {"Poss": "Yes"}, "mi"), "PPO"),
        (Word("se", "PRON", {"PronType": "Prs"}, "él"), "SE"),
        (Word("lo", "PRON", {"PronType": "Prs", "Case": "Acc"}, "él"), "PPC"),
        (Word("Las", "PRON", {"PronType": "Prs"}, "él"), "PPC"),
        (Word("le", "PRON", {"PronType": "Prs"}, "él"), "PPC"),
        (Word("me", "PRON", {"PronType": "Prs"}, "yo"), "PPX"),
        (Word("yo", "PRON", {"PronType": "Prs"}, "yo"), "PPX"),
        (Word("que", "SCONJ", {}, "que"), "CQUE"),
        (Word("que", "PRON", {"PronType": "Rel"}, "que"), "CQUE"),
        (Word("algo", "PRON", {"PronType": "Ind"}, "algo"), "QU"),
        (Word("y", "CCONJ", {}, "y"), "CC"),
        (Word("si", "SCONJ", {}, "si"), "CSUB"),
        (Word("casa", "NOUN", {}, "casa"), "NC"),
        (Word("Ana", "PROPN", {}, "Ana"), "NP"),
        (Word("del", "ADP", {}, "del"), "PDEL"),
        (Word("en", "ADP", {}, "en"), "PREP"),
        (Word("he", "AUX", {"VerbForm": "Fin", "Mood": "Ind"}, "haber"), "VHfin"),
        (Word("puedo", "VERB", {"VerbForm": "Fin"}, "poder"), "VMfin"),
        (Word("estoy", "AUX", {"VerbForm": "Fin"}, "estar"), "Vfin"),
        (Word("déjalo", "VERB", {"Mood": "Imp", "VerbForm": "Fin"}, "dejar"), "VCL"),
        (Word("hazlo", "VERB", {"Mood": "Imp", "VerbForm": "Fin"}, "hacer"), "VCL"),
        (Word("calla", "VERB", {"Mood": "Imp", "VerbForm": "Fin"}, "callar"), "Vfin"),  # ends in -la, no clitic
        (Word("verlo", "VERB", {"VerbForm": "Inf"}, "ver"), "VCL"),
        (Word("ver", "VERB", {"VerbForm": "Inf"}, "ver"), "Vinf"),
        (Word("haber", "AUX", {"VerbForm": "Inf"}, "haber"), "VHinf"),
        (Word("buscándola", "VERB", {"VerbForm": "Ger"}, "buscar"), "VCL"),
        (Word("comiendo", "VERB", {"VerbForm": "Ger"}, "comer"), "Vger"),
        (Word("xyz", "X"), "PE"),
    ],
)
def test_mapping(tagmap, word, tag):
    assert tagmap.tag(word) == tag


def test_multiword_tokens(tagmap):
    verb = Word("da", "VERB", {"Mood": "Imp", "VerbForm": "Fin"}, "dar")
    clitics = [Word("me", "PRON", {"PronType": "Prs"}), Word("lo", "PRON", {"PronType": "Prs"})]
    article = Word("el", "DET", {"PronType": "Art"}, "el")
    tokens = [
        ("dámelo", [verb, *clitics]),
        ("del", [Word("de", "ADP", {}, "de"), article]),
        (".", [Word(".", "PUNCT")]),
    ]
    assert tag_surface_tokens(tagmap, tokens) == ["VCL", "PDEL", "FS"]


def test_bad_maps_name_file_and_line(tmp_path):
    header = "upos\tfeats\tlemma\tform\ttag\tcomment\n"
    bad = tmp_path / "map.tsv"
    bad.write_text(header + "NOUN\tGender\t*\t*\tNC\t\n")
    with pytest.raises(ValueError, match=r"map.tsv:2: column feats"):
        TagMap.load(bad)
    bad.write_text(header + "NOUN\t*\t(\t*\tNC\t\n")
    with pytest.raises(ValueError, match=r"map.tsv:2: column lemma: bad regular expression"):
        TagMap.load(bad)
    bad.write_text("upos\ttag\n")
    with pytest.raises(ValueError, match="header"):
        TagMap.load(bad)
    bad.write_text(header + "NOUN\t*\t*\t*\tNC\t\n")
    with pytest.raises(ValueError, match="no row matches"):
        TagMap.load(bad).tag(Word("x", "VERB"))
