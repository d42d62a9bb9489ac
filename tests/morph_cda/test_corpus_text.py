"""Real corpus text on hand-made trees: Unicode normal forms, capitals, elision, spacing, names."""

import unicodedata

import pytest

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.cda import CounterfactualGenerator
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.interventions import interventions_for
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.text.normalization import read_sentence, written_spans
from tests.morph_cda.test_everyday import FRENCH_LEXICON

MS, FS = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing"
COP = "Number=Sing|Person=3"


def tree(text: str, *rows: tuple) -> str:
    """CoNLL-U of (form, lemma, upos, feats, head, deprel[, misc]) rows; without a misc, no space
    after an elided word (either apostrophe) nor before the final punctuation."""
    lines = [f"# text = {text}"]
    for i, (form, lemma, upos, feats, head, deprel, *given) in enumerate(rows, 1):
        misc = "SpaceAfter=No" if form.endswith(("'", "\u2019")) or i == len(rows) - 1 else "_"
        misc = given[0] if given else misc  # a 7th column: the MISC as given
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t_\t{feats or '_'}\t{head}\t{deprel}\t_\t{misc}")
    return "\n".join(lines) + "\n\n"


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@pytest.fixture(scope="module")
def spanish():
    from tests.morph_cda.test_cda import LEXICON

    sentences = parse_conllu_string(LEXICON)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    return CounterfactualGenerator(AgreementMRF(inventory, "base", "es"), reinflector, "es", log_alpha=1.0)


@pytest.fixture(scope="module")
def french():
    sentences = parse_conllu_string(FRENCH_LEXICON)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    return CounterfactualGenerator(AgreementMRF(inventory, "base", "fr"), reinflector, "fr", log_alpha=1.0)


def counterfactual(generator, conllu: str, gazetteer: Gazetteer, direction: str = "flip") -> str | None:
    (sentence,) = parse_conllu_string(conllu)
    group = interventions_for(sentence, gazetteer, generator, direction)
    if not group:
        return None
    (result,) = generator.generate([sentence], [group])
    return result.counterfactual


CHILD = Gazetteer({"niño": "niña"}, {"niña": "niño"})


# -- Unicode normal forms --------------------------------------------------------------------
def test_a_sentence_in_nfd_is_read_in_nfc_and_written_as_it_came(spanish):
    """macOS writes *niño* as n, i, n, o + U+0303...: no lexicon lists that; the words are looked
    up in NFC, the unchanged ones come back as written and a changed one in NFD like its original."""
    rows = [("La", "el", "DET", FS, 2, "det"), ("niña", "niño", "NOUN", FS, 4, "nsubj"),
            ("está", "estar", "AUX", COP, 4, "cop"), ("alta", "alto", "ADJ", FS, 0, "root"),
            (".", ".", "PUNCT", "", 4, "punct")]
    decomposed = tree(nfd("La niña está alta."), *[(nfd(f), nfd(lemma), *rest) for f, lemma, *rest in rows])
    composed = tree("La niña está alta.", *rows)
    assert counterfactual(spanish, composed, CHILD) == "El niño está alto."
    assert counterfactual(spanish, decomposed, CHILD) == nfd("El niño está alto.")
    # a word written the same in both forms that becomes one that is not: decomposed like the text
    she = [("Ella", "él", "PRON", "Gender=Fem|Number=Sing|Person=3", 2, "nsubj"),
           ("llegó", "llegar", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 2, "punct")]
    she = tree(nfd("Ella llegó."), *[(nfd(f), nfd(lemma), *rest) for f, lemma, *rest in she])
    assert counterfactual(spanish, she, Gazetteer()) == nfd("Él llegó.")
    # an unchanged word keeps the user's spelling even where a changed one is composed: "está" as written
    mixed = tree("La niña " + nfd("está") + " alta.", *[(nfd(f) if f == "está" else f, *rest) for f, *rest in rows])
    assert counterfactual(spanish, mixed, CHILD) == "El niño " + nfd("está") + " alto."


def test_nfc_sentence_and_written_spans():
    (sentence,) = parse_conllu_string(tree(nfd("Niña."), (nfd("Niña"), nfd("niña"), "NOUN", FS, 0, "root"),
                                           (".", ".", "PUNCT", "", 1, "punct")))
    copy = read_sentence(sentence)
    assert [w["form"] for w in words(copy)] == ["Niña", "."] and copy.metadata["text"] == "Niña."
    assert words(sentence)[0]["form"] == nfd("Niña")  # the sentence itself is left as it was
    assert read_sentence(copy) is copy
    line = nfd("¡Ay, niño! Él")
    spans, end = written_spans(line, ["¡", "Ay", ",", "niño", "!"])
    assert [line[a:b] for a, b in spans] == ["¡", "Ay", ",", nfd("niño"), "!"] and end == 10
    ((start, stop),), _ = written_spans(line, ["Él"], end)
    assert line[start:stop] == nfd("Él")
    assert written_spans(line, ["nin"]) is None  # ends inside ñ's combining sequence


def test_the_cli_keeps_a_decomposed_line_as_written():
    from cdaflow.morph_cda.records import as_written, lines_as_read

    held = {}
    lines = list(lines_as_read(iter([(1, nfd("La niña está alta.")), (2, "Bien.")]), held))
    assert lines == [(1, "La niña está alta."), (2, "Bien.")] and set(held) == {1}
    rows = [("La", "el", "DET", FS, 2, "det"), ("niña", "niño", "NOUN", FS, 4, "nsubj"),
            ("está", "estar", "AUX", COP, 4, "cop"), ("alta", "alto", "ADJ", FS, 0, "root"),
            (".", ".", "PUNCT", "", 4, "punct")]
    (parsed,) = parse_conllu_string(tree("La niña está alta.", *rows))
    parsed.metadata["sent_id"] = "s-1-1"
    (written,) = as_written(iter([parsed]), held)
    assert [w["form"] for w in words(written)] == [nfd(f) for f, *_ in rows]
    assert written.metadata["text"] == nfd("La niña está alta.")


# -- capitals --------------------------------------------------------------------------------
def test_a_sentence_in_capitals_is_read_in_sentence_case_and_written_in_capitals(spanish):
    """A parser gives a line in capitals capital lemmas (and wrong tags: *PROFESOR* a name); the
    words are read in sentence case and every changed one written in capitals, a contraction too."""
    rows = [("LA", "EL", "DET", FS, 2, "det"), ("NIÑA", "NIÑO", "NOUN", FS, 4, "nsubj"),
            ("ES", "SER", "AUX", COP, 4, "cop"), ("ALTA", "ALTO", "ADJ", FS, 0, "root"),
            (".", ".", "PUNCT", "", 4, "punct")]
    assert counterfactual(spanish, tree("LA NIÑA ES ALTA.", *rows), CHILD) == "EL NIÑO ES ALTO."
    title = [(form.capitalize(), lemma.lower(), *rest) for form, lemma, *rest in rows]
    assert counterfactual(spanish, tree("La Niña Es Alta.", *title), CHILD) == "El Niño Es Alto."
    # a + la -> AL, not Al: a word of one letter shows no case of its own
    from tests.morph_cda.conftest import SPANISH

    village = SPANISH.split("\n\n")[1].replace("# text = Vi a la niña del pueblo.", "# text = VI A LA NIÑA DEL PUEBLO.")
    village = "\n".join(
        "\t".join([c[0], c[1].upper(), *c[2:]]) if not line.startswith("#") else line
        for line in village.splitlines() for c in [line.split("\t")]
    ) + "\n\n"
    assert counterfactual(spanish, village, CHILD) == "VI AL NIÑO DEL PUEBLO."
    (read,) = parse_conllu_string(tree("LA NIÑA ES ALTA.", *rows))
    assert [(w["form"], w["lemma"]) for w in words(read_sentence(read))][:2] == [("La", "el"), ("niña", "niño")]
    # a full name stays one (the parser tags it, whatever its case): the name rules see it
    named = tree("EL HERMANO JUAN PÉREZ.", ("EL", "el", "DET", MS, 2, "det"),
                 ("HERMANO", "hermano", "NOUN", MS, 0, "root"),
                 ("JUAN", "juan", "PROPN", "", 2, "appos"), ("PÉREZ", "pérez", "PROPN", "", 3, "flat"),
                 (".", ".", "PUNCT", "", 2, "punct"))
    (read,) = parse_conllu_string(named)
    assert [w["form"] for w in words(read_sentence(read))] == ["El", "hermano", "Juan", "Pérez", "."]
    assert counterfactual(spanish, named, Gazetteer({"hermano": "hermana"}, {"hermana": "hermano"})) is None


def test_the_cli_parses_a_line_in_capitals_in_sentence_case():
    from cdaflow.morph_cda.records import as_written, lines_as_read

    held = {}
    assert list(lines_as_read(iter([(3, "¡EL NIÑO ES ALTO! Y LISTO.")]), held)) == [(3, "¡El niño es alto! Y listo.")]
    forms = ["¡", "El", "niño", "es", "alto", "!", "Y", "listo", "."]
    rows = [(form, form.lower(), "X", "", int(i > 0), "dep" if i else "root") for i, form in enumerate(forms)]
    (parsed,) = parse_conllu_string(tree("¡El niño es alto! Y listo.", *rows))
    parsed.metadata["sent_id"] = "s-3-1"
    (written,) = as_written(iter([parsed]), held)
    assert [w["form"] for w in words(written)] == [f.upper() for f in forms]


# -- elision ---------------------------------------------------------------------------------
PERSON = Gazetteer({"homme": "femme"}, {"femme": "homme"})


def test_an_elided_article_is_rebuilt_for_the_new_noun(french):
    """spaCy gives *l'* no gender (and *l’* the lemma *l’*): it takes its noun's and is rebuilt
    from the language file's articles and elision, in the sentence's apostrophe."""
    be = "Number=Sing|Person=3"

    def man(article, lemma, text):
        return tree(text, (article, lemma, "DET", "Number=Sing", 2, "det"), ("homme", "homme", "NOUN", MS, 4, "nsubj"),
                    ("est", "être", "AUX", be, 4, "cop"), ("grand", "grand", "ADJ", MS, 0, "root"),
                    (".", ".", "PUNCT", "", 4, "punct"))

    assert counterfactual(french, man("L'", "le", "L'homme est grand."), PERSON) == "La femme est grande."
    typographic = man("L\u2019", "l\u2019", "L\u2019homme est grand.")
    assert counterfactual(french, typographic, PERSON) == "La femme est grande."
    assert counterfactual(french, man("L'", "le", "L'HOMME EST GRAND."), PERSON) == "LA FEMME EST GRANDE."
    woman = tree("C\u2019est la femme.", ("C\u2019", "ce", "PRON", "", 4, "nsubj"),
                 ("est", "être", "AUX", be, 4, "cop"),
                 ("la", "le", "DET", "Number=Sing", 4, "det"), ("femme", "femme", "NOUN", FS, 0, "root"),
                 (".", ".", "PUNCT", "", 4, "punct"))
    assert counterfactual(french, woman, PERSON) == "C\u2019est l\u2019homme."


# -- spacing ---------------------------------------------------------------------------------
def test_the_spacing_is_kept_token_by_token(french):
    """spaCy cuts *auteur-compositeur (avec Marie)* into sentences at the hyphen: the line's
    sentences are joined as they were spaced, not with a space each; a token's own whitespace
    (SpacesAfter: two spaces, a no-break space) is kept."""
    from types import SimpleNamespace

    from cdaflow.morph_cda.records import counterfactuals, line_records

    authors = Gazetteer({"auteur": "autrice", "compositeur": "compositrice"},
                        {"autrice": "auteur", "compositrice": "compositeur"})
    no = "SpaceAfter=No"
    first = tree("C'est un auteur", ("C'", "ce", "PRON", "", 4, "nsubj"), ("est", "être", "AUX", COP, 4, "cop"),
                 ("un", "un", "DET", "Number=Sing", 4, "det", "_"),
                 ("auteur", "auteur", "NOUN", MS, 0, "root", no))
    second = tree("-compositeur (avec Marie).", ("-", "-", "PUNCT", "", 2, "punct", no),
                  ("compositeur", "compositeur", "NOUN", MS, 0, "root"), ("(", "(", "PUNCT", "", 5, "punct", no),
                  ("avec", "avec", "ADP", "", 5, "case"), ("Marie", "Marie", "PROPN", "", 2, "nmod", no),
                  (")", ")", "PUNCT", "", 5, "punct", no), (".", ".", "PUNCT", "", 2, "punct"))
    sentences = parse_conllu_string(first + second)
    for k, sentence in enumerate(sentences, 1):
        sentence.metadata["sent_id"] = f"s-1-{k}"
    args = SimpleNamespace(direction="flip", batch_size=8)
    line = "C'est un auteur-compositeur (avec Marie)."
    (record,) = line_records(iter([(1, line)]), counterfactuals(iter(sentences), authors, french, args))
    assert record["counterfactual"] == "C'est une autrice-compositrice (avec Marie)."
    spaced = tree("Un  auteur\u00a0!", ("Un", "un", "DET", "Number=Sing", 2, "det", "SpacesAfter=\\s\\s"),
                  ("auteur", "auteur", "NOUN", MS, 0, "root", "SpacesAfter=\\u00A0"),
                  ("!", "!", "PUNCT", "", 2, "punct"))
    assert counterfactual(french, spaced, authors) == "Une  autrice\u00a0!"


def test_the_cli_keeps_a_line_s_own_whitespace():
    from cdaflow.morph_cda.records import as_written, lines_as_read

    held = {}
    line = "Un  auteur\u00a0!"
    assert list(lines_as_read(iter([(1, line)]), held)) == [(1, line)] and held == {1: line}
    rows = [("Un", "un", "DET", "", 2, "det"), ("auteur", "auteur", "NOUN", MS, 0, "root"),
            ("!", "!", "PUNCT", "", 2, "punct")]
    (parsed,) = parse_conllu_string(tree("Un auteur !", *rows))
    parsed.metadata["sent_id"] = "s-1-1"
    (written,) = as_written(iter([parsed]), held)
    assert [t["misc"] for t in written] == [{"SpacesAfter": "\\s\\s"}, {"SpacesAfter": "\\u00A0"}, None]
    assert written.metadata["text"] == line


# -- names -----------------------------------------------------------------------------------
def test_parts_of_names_are_never_changed(spanish, french):
    """A title the language file lists before a name is part of it (*Santa Bárbara*, *el Niño
    Jesús*, *Saint Michel*), unlike a title before a surname (*el Doctor Pérez*); so is a word of a
    name in capitals (*la Madre Superiora*)."""
    people = Gazetteer({"santo": "santa", "niño": "niña", "hermano": "hermana", "doctor": "doctora", "madre": "padre"},
                       {"santa": "santo", "niña": "niño", "hermana": "hermano", "doctora": "doctor", "padre": "madre"})
    place = tree("Vive en Santa Bárbara con su hermano.", ("Vive", "vivir", "VERB", COP, 0, "root"),
                 ("en", "en", "ADP", "", 3, "case"), ("Santa", "Santa", "PROPN", "", 1, "obl"),
                 ("Bárbara", "Bárbara", "PROPN", "", 3, "flat"), ("con", "con", "ADP", "", 7, "case"),
                 ("su", "su", "DET", "Number=Sing|Poss=Yes", 7, "det"), ("hermano", "hermano", "NOUN", MS, 1, "obl"),
                 (".", ".", "PUNCT", "", 1, "punct"))
    assert counterfactual(spanish, place, people) == "Vive en Santa Bárbara con su hermana."
    child = tree("El Niño Jesús nació.", ("El", "el", "DET", MS, 2, "det"), ("Niño", "Niño", "PROPN", "", 4, "nsubj"),
                 ("Jesús", "Jesús", "PROPN", "", 2, "flat"), ("nació", "nacer", "VERB", COP, 0, "root"),
                 (".", ".", "PUNCT", "", 4, "punct"))
    assert counterfactual(spanish, child, people) is None
    doctor = tree("El Doctor Pérez llegó.", ("El", "el", "DET", MS, 2, "det"),
                  ("Doctor", "Doctor", "PROPN", "", 4, "nsubj"),
                  ("Pérez", "Pérez", "PROPN", "", 2, "flat"), ("llegó", "llegar", "VERB", COP, 0, "root"),
                  (".", ".", "PUNCT", "", 4, "punct"))
    assert counterfactual(spanish, doctor, people) == "La Doctora Pérez llegó."
    superior = tree("Vi a la Madre Superiora.", ("Vi", "ver", "VERB", COP, 0, "root"), ("a", "a", "ADP", "", 4, "case"),
                    ("la", "el", "DET", FS, 4, "det"), ("Madre", "madre", "NOUN", FS, 1, "obj"),
                    ("Superiora", "superior", "ADJ", FS, 4, "amod"), (".", ".", "PUNCT", "", 1, "punct"))
    assert counterfactual(spanish, superior, people) is None
    saint = Gazetteer({"saint": "sainte", "homme": "femme"}, {"sainte": "saint", "femme": "homme"})
    street = tree("La femme de Saint Michel est grande.", ("La", "le", "DET", FS, 2, "det"),
                  ("femme", "femme", "NOUN", FS, 7, "nsubj"), ("de", "de", "ADP", "", 4, "case"),
                  ("Saint", "Saint", "PROPN", "", 2, "nmod"), ("Michel", "Michel", "PROPN", MS, 4, "flat:name"),
                  ("est", "être", "AUX", COP, 7, "cop"), ("grande", "grand", "ADJ", FS, 0, "root"),
                  (".", ".", "PUNCT", "", 7, "punct"))
    assert counterfactual(french, street, saint) == "L'homme de Saint Michel est grand."


def test_a_noun_a_full_name_names_is_no_intervention(spanish):
    """A given name and a surname fix the person's gender: *el hermano Juan Pérez*, *Juan Pérez,
    hermano de*, *Juan Pérez es hermano* keep the noun (never *la hermana Juan Pérez*); *el
    hermano* elsewhere in the sentence changes."""
    people = Gazetteer({"hermano": "hermana", "niño": "niña"}, {"hermana": "hermano", "niña": "niño"})
    title = tree("El niño vio al hermano Juan Pérez.", ("El", "el", "DET", MS, 2, "det"),
                 ("niño", "niño", "NOUN", MS, 3, "nsubj"), ("vio", "ver", "VERB", COP, 0, "root"),
                 ("al", "a", "ADP", "", 5, "case"), ("hermano", "hermano", "NOUN", MS, 3, "obj"),
                 ("Juan", "Juan", "PROPN", "", 5, "appos"), ("Pérez", "Pérez", "PROPN", "", 6, "flat"),
                 (".", ".", "PUNCT", "", 3, "punct"))
    assert counterfactual(spanish, title, people) == "La niña vio al hermano Juan Pérez."
    apposition = tree("Juan Pérez, hermano del niño, llegó.", ("Juan", "Juan", "PROPN", "", 8, "nsubj"),
                      ("Pérez", "Pérez", "PROPN", "", 1, "flat"), (",", ",", "PUNCT", "", 4, "punct", "_"),
                      ("hermano", "hermano", "NOUN", MS, 1, "appos"), ("del", "de", "ADP", "", 6, "case"),
                      ("niño", "niño", "NOUN", MS, 4, "nmod", "SpaceAfter=No"),
                      (",", ",", "PUNCT", "", 4, "punct", "_"),
                      ("llegó", "llegar", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 8, "punct"))
    (sentence,) = parse_conllu_string(apposition)
    assert [i.index for i in interventions_for(sentence, people, spanish, "flip")] == [5]
    # a comma alone parts them, however the parser attached the noun (spaCy: an obl of the verb)
    loose = apposition.replace("\t1\tappos\t", "\t8\tobl\t")
    (sentence,) = parse_conllu_string(loose)
    assert words(sentence)[3]["deprel"] == "obl"
    assert [i.index for i in interventions_for(sentence, people, spanish, "flip")] == [5]
    predicate = tree("Juan Pérez es hermano.", ("Juan", "Juan", "PROPN", "", 4, "nsubj"),
                     ("Pérez", "Pérez", "PROPN", "", 1, "flat"), ("es", "ser", "AUX", COP, 4, "cop"),
                     ("hermano", "hermano", "NOUN", MS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    assert counterfactual(spanish, predicate, people) is None


# -- agreement along arcs, and no counterfactual that is the original ------------------------
def test_only_words_an_intervention_reaches_can_change():
    from cdaflow.morph_cda.agreement_reach import agreement_reach

    def reach(conllu, *interventions):
        (sentence,) = parse_conllu_string(conllu)
        ws = words(sentence)
        return sorted(ws[i]["form"] for i in agreement_reach(ws, interventions))

    # the participle agrees with "decisión", another noun: the intervention on "niño" stops there
    decision = tree("La decisión del niño fue aplaudida.", ("La", "el", "DET", FS, 2, "det"),
                    ("decisión", "decisión", "NOUN", FS, 6, "nsubj:pass"), ("del", "de", "ADP", "", 4, "case"),
                    ("niño", "niño", "NOUN", MS, 2, "nmod"), ("fue", "ser", "AUX", COP, 6, "aux:pass"),
                    ("aplaudida", "aplaudir", "VERB", "Gender=Fem|Number=Sing|VerbForm=Part", 0, "root"),
                    (".", ".", "PUNCT", "", 6, "punct"))
    assert reach(decision, 3) == ["decisión", "del", "niño"]
    # a predicate with a subject of its own; a relative clause whose subject is "que"
    tired = tree("El niño está cansado de la mujer que está contenta.", ("El", "el", "DET", MS, 2, "det"),
                 ("niño", "niño", "NOUN", MS, 4, "nsubj"), ("está", "estar", "AUX", COP, 4, "cop"),
                 ("cansado", "cansado", "ADJ", MS, 0, "root"), ("de", "de", "ADP", "", 7, "case"),
                 ("la", "el", "DET", FS, 7, "det"), ("mujer", "mujer", "NOUN", FS, 4, "obl"),
                 ("que", "que", "PRON", "PronType=Rel", 10, "nsubj"), ("está", "estar", "AUX", COP, 10, "cop"),
                 ("contenta", "contento", "ADJ", FS, 7, "acl:relcl"), (".", ".", "PUNCT", "", 4, "punct"))
    assert reach(tired, 6) == ["contenta", "de", "está", "la", "mujer", "que"]
    assert "cansado" in reach(tired, 1) and "contenta" not in reach(tired, 1)


def test_a_counterfactual_that_is_the_original_is_none():
    from types import SimpleNamespace

    from cdaflow.morph_cda.records import line_records

    rows = [("Ustedes", "usted", "PRON", "", 2, "nsubj"), ("llegaron", "llegar", "VERB", "", 0, "root"),
            (".", ".", "PUNCT", "", 2, "punct")]
    (same,) = parse_conllu_string(tree("Ustedes llegaron.", *rows))
    same.metadata["sent_id"] = "s-1-1"
    text = "Ustedes llegaron."
    result = SimpleNamespace(original=text, counterfactual=text, changed=[], intervened=[0], forms=text.split(), by={})
    (record,) = line_records(iter([(1, "Ustedes llegaron.")]), iter([(same, result)]))
    assert record["counterfactual"] is None
    assert record["intervened"] == [{"sentence": "s-1-1", "id": 1, "from": "Ustedes", "to": "Ustedes"}]


def named(conllu: str) -> list[str]:
    """The words of a one-sentence CoNLL-U that a full name ties (fixed_words.named_by_a_full_name)."""
    from cdaflow.morph_cda.fixed_words import named_by_a_full_name

    (sentence,) = parse_conllu_string(conllu)
    ws = words(sentence)
    return sorted(ws[i]["form"] for i in named_by_a_full_name(ws))


def test_a_full_name_ties_conjuncts_and_a_given_name_taken_for_a_noun():
    # spaCy: "Hosni" a noun with "Moubarak" its flat name
    president = tree("El presidente de Chile, Hosni Pérez, llegó.", ("El", "el", "DET", MS, 2, "det"),
                     ("presidente", "presidente", "NOUN", MS, 9, "nsubj"), ("de", "de", "ADP", "", 4, "case"),
                     ("Chile", "Chile", "PROPN", "", 2, "nmod", "SpaceAfter=No"),
                     (",", ",", "PUNCT", "", 6, "punct", "_"), ("Hosni", "hosni", "NOUN", MS, 2, "appos"),
                     ("Pérez", "Pérez", "PROPN", "", 6, "flat:name", "SpaceAfter=No"),
                     (",", ",", "PUNCT", "", 6, "punct", "_"), ("llegó", "llegar", "VERB", COP, 0, "root"),
                     (".", ".", "PUNCT", "", 9, "punct"))
    assert named(president) == ["presidente"]
    writer = tree("Juan Pérez, escritor y fundador, llegó.", ("Juan", "Juan", "PROPN", "", 8, "nsubj"),
                  ("Pérez", "Pérez", "PROPN", "", 1, "flat", "SpaceAfter=No"), (",", ",", "PUNCT", "", 4, "punct", "_"),
                  ("escritor", "escritor", "NOUN", MS, 1, "appos"), ("y", "y", "CCONJ", "", 6, "cc"),
                  ("fundador", "fundar", "VERB", "", 4, "conj", "SpaceAfter=No"),
                  (",", ",", "PUNCT", "", 4, "punct", "_"),
                  ("llegó", "llegar", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 8, "punct"))
    assert named(writer) == ["escritor", "fundador"]


def test_a_full_name_ties_the_noun_before_its_adjectives_and_a_caseless_name():
    # il procuratore militare Antonino Intelisano: the title's adjective stands between it and the name
    prosecutor = tree("Il procuratore militare Antonino Intelisano parla.", ("Il", "il", "DET", MS, 2, "det"),
                      ("procuratore", "procuratore", "NOUN", MS, 6, "nsubj"),
                      ("militare", "militare", "ADJ", "Number=Sing", 2, "amod"),
                      ("Antonino", "Antonino", "PROPN", "", 2, "nmod"),
                      ("Intelisano", "Intelisano", "PROPN", "", 4, "flat:name"),
                      ("parla", "parlare", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 6, "punct"))
    assert named(prosecutor) == ["militare", "procuratore"]
    # a script without letter case: the parser's PROPN tags make the full name (אמר דני כהן, איש הצבא)
    hebrew = tree("אמר דני כהן, איש הצבא.", ("אמר", "אמר", "VERB", MS, 0, "root"),
                  ("דני", "דני", "PROPN", "", 1, "nsubj"), ("כהן", "כהן", "PROPN", "", 2, "flat:name", "SpaceAfter=No"),
                  (",", ",", "PUNCT", "", 1, "punct"), ("איש", "איש", "NOUN", MS, 1, "nsubj"),
                  ("צבא", "צבא", "NOUN", MS, 5, "compound:smixut", "SpaceAfter=No"),
                  (".", ".", "PUNCT", "", 1, "punct"))
    assert named(hebrew) == ["איש"]
    # spaCy: Marc Petit/ADJ, a capitalised surname in the name's flat
    teacher = tree("Le professeur d'anglais, Marc Petit, arrive.", ("Le", "le", "DET", MS, 2, "det"),
                   ("professeur", "professeur", "NOUN", MS, 9, "nsubj"), ("d'", "de", "ADP", "", 4, "case"),
                   ("anglais", "anglais", "NOUN", MS, 2, "nmod", "SpaceAfter=No"),
                   (",", ",", "PUNCT", "", 2, "punct"), ("Marc", "Marc", "PROPN", "", 2, "appos"),
                   ("Petit", "petit", "ADJ", MS, 6, "flat:name", "SpaceAfter=No"),
                   (",", ",", "PUNCT", "", 9, "punct"), ("arrive", "arriver", "VERB", COP, 0, "root"),
                   (".", ".", "PUNCT", "", 9, "punct"))
    assert "professeur" in named(teacher)  # (and anglais, before the comma: no person, no matter)


def test_a_noun_after_a_predicate_marker_says_what_a_kept_subject_or_a_name_is():
    from cdaflow.morph_cda.fixed_words import marked_after_a_name, predicates_of_a_fixed_subject
    from cdaflow.text import language as languages

    spanish_file, gazetteer = languages.load("es"), Gazetteer(
        {"camarero": "camarera", "hombre": "mujer"}, {"camarera": "camarero", "mujer": "hombre"})

    def kept(conllu):
        (sentence,) = parse_conllu_string(conllu)
        ws = words(sentence)
        found = predicates_of_a_fixed_subject(ws, gazetteer, spanish_file, sentence)
        return sorted(ws[i]["form"] for i in found | marked_after_a_name(ws, gazetteer, spanish_file))

    # Juan trabaja como camarero: the name's predicate, however a parser hung it
    works = tree("Juan trabaja como camarero.", ("Juan", "Juan", "PROPN", "", 2, "nsubj"),
                 ("trabaja", "trabajar", "VERB", COP, 0, "root"), ("como", "como", "ADP", "", 4, "case"),
                 ("camarero", "camarero", "NOUN", MS, 2, "dep"), (".", ".", "PUNCT", "", 2, "punct"))
    assert kept(works) == ["camarero"]
    # la tarjeta de Pérez como camarero: right after the name
    card = tree("Vi la tarjeta de Pérez como camarero.", ("Vi", "ver", "VERB", COP, 0, "root"),
                ("la", "el", "DET", FS, 3, "det"), ("tarjeta", "tarjeta", "NOUN", FS, 1, "obj"),
                ("de", "de", "ADP", "", 5, "case"), ("Pérez", "Pérez", "PROPN", "", 3, "nmod"),
                ("como", "como", "ADP", "", 7, "case"), ("camarero", "camarero", "NOUN", MS, 3, "nmod"),
                (".", ".", "PUNCT", "", 1, "punct"))
    assert kept(card) == ["camarero"]
    # a person noun's own predicate is free to change with it
    waiter = tree("El hombre trabaja como camarero.", ("El", "el", "DET", MS, 2, "det"),
                  ("hombre", "hombre", "NOUN", MS, 3, "nsubj"), ("trabaja", "trabajar", "VERB", COP, 0, "root"),
                  ("como", "como", "ADP", "", 5, "case"), ("camarero", "camarero", "NOUN", MS, 3, "obl"),
                  (".", ".", "PUNCT", "", 3, "punct"))
    assert kept(waiter) == []
    # trabajadores de Tailandia como voluntarios: a plural noun is no predicate of one name
    plural = "Gender=Masc|Number=Plur"
    workers = tree("Llegaron trabajadores de Tailandia como voluntarios.",
                   ("Llegaron", "llegar", "VERB", COP, 0, "root"),
                   ("trabajadores", "trabajador", "NOUN", plural, 1, "nsubj"),
                   ("de", "de", "ADP", "", 4, "case"), ("Tailandia", "Tailandia", "PROPN", "", 2, "nmod"),
                   ("como", "como", "ADP", "", 6, "case"), ("voluntarios", "voluntario", "NOUN", plural, 2, "nmod"),
                   (".", ".", "PUNCT", "", 1, "punct"))
    assert kept(workers) == []
