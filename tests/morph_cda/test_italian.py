"""Italian counterfactuals on hand-made trees of sentences written for these tests: the forms a word
takes before the next one (gli uomini, quell'uomo, bel ragazzo, nessun'amica, il dottor Rossi, dell'),
possessives and demonstratives by their forms, and titles whose masculine form also names women."""

from pathlib import Path

import pytest

from cdaflow.io.conllu import parse_conllu_string, words
from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.text.language import load
from tests.morph_cda.test_everyday import generate, tiny_generator, tree

MS, FS = "Gender=Masc|Number=Sing", "Gender=Fem|Number=Sing"
MP, FP = "Gender=Masc|Number=Plur", "Gender=Fem|Number=Plur"
COP = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("form", "gender", "following", "upos", "expected"),
    [
        ("i", "Masc", "uomini", "NOUN", "gli"),  # the vowel's form stands, though gli also goes before s + consonant
        ("gli", "Masc", "ragazzi", "NOUN", "i"),
        ("il", "Masc", "zio", "NOUN", "lo"),
        ("quello", "Masc", "ragazzo", "NOUN", "quel"),
        ("quello", "Masc", "uomo", "NOUN", "quell'"),
        ("quello", "Masc", "studente", "NOUN", "quello"),
        ("quelli", "Masc", "amici", "NOUN", "quegli"),
        ("quegli", "Masc", "ragazzi", "NOUN", "quei"),
        ("quella", "Fem", "attrice", "NOUN", "quell'"),
        ("quel", "Masc", "è", "AUX", "quello"),  # a pronoun stays whole: quello è il direttore
        ("bello", "Masc", "ragazzo", "NOUN", "bel"),
        ("belli", "Masc", "bambini", "NOUN", "bei"),
        ("buono", "Masc", "amico", "NOUN", "buon"),
        ("nessuno", "Masc", "alunno", "NOUN", "nessun"),
        ("nessuno", "Masc", "studente", "NOUN", "nessuno"),
        ("nessuna", "Fem", "amica", "NOUN", "nessun'"),
        ("nessun'", "Fem", "ragazza", "NOUN", "nessuna"),
        ("dottore", "Masc", "Rossi", "PROPN", "dottor"),  # a title before a name: il dottor Rossi
        ("dottor", "Masc", "è", "AUX", "dottore"),
    ],
)
def test_forms_before_the_next_word(form, gender, following, upos, expected):
    assert load("it").alternate(form, gender, following, upos) == expected


def test_closed_class_forms():
    italian = load("it")
    assert italian.paradigm_tag("Mio") == ("Masc", "Sing") and italian.paradigm_form("mio", "Fem", "Sing") == "mia"
    assert italian.paradigm_form("quella", "Masc", "Plur") == "quelli"
    assert italian.full_form("quell'", "Masc") == "quello" and italian.full_form("nessun", "Masc") == "nessuno"
    assert italian.pronoun("noi", "nsubj")[1] is None  # common: noi stays, its agreement changes


def lookup(form, lemma, feats, sentence=None):
    word = {"id": 1, "form": form, "lemma": lemma, "upos": "NOUN", "feats": feats}
    if sentence is not None:
        word = next(w for w in words(sentence) if w["form"] == form)
    return Gazetteer.read(ROOT / load("it").gazetteer).lookup(word, sentence)


def test_masculine_titles_that_also_name_women():
    """la sindaco, la presidente name women (their article says so) and become il sindaco, il
    presidente; an older feminine (la presidentessa) is read as a woman too; a mayor becomes la sindaca."""
    (woman,) = parse_conllu_string(tree("La sindaco parla.", ("La", "il", "DET", FS, 2, "det"),
                                        ("sindaco", "sindaco", "NOUN", "Number=Sing", 3, "nsubj"),
                                        ("parla", "parlare", "VERB", COP, 0, "root"),
                                        (".", ".", "PUNCT", "", 3, "punct")))
    found = lookup("sindaco", "sindaco", {"Number": "Sing"}, woman)
    assert (found.lemma, found.gender) == ("sindaco", "Masc")
    assert lookup("sindaco", "sindaco", {"Gender": "Masc", "Number": "Sing"}).form == "sindaca"
    assert lookup("presidentessa", "presidente", {"Gender": "Fem", "Number": "Sing"}).form == "presidente"
    # a man becomes la presidente (common gender: the form stays, its article changes)
    assert lookup("presidente", "presidente", {"Gender": "Masc", "Number": "Sing"}).form == "presidente"


# The forms the Italian lexicon learns from.
LEXICON = (
    tree("Mio fratello è alto.", ("Mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes|PronType=Prs", 2, "det"),
         ("fratello", "fratello", "NOUN", MS, 4, "nsubj"), ("è", "essere", "AUX", COP, 4, "cop"),
         ("alto", "alto", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    + tree("Mia sorella è alta.", ("Mia", "mio", "DET", "Gender=Fem|Number=Sing|Poss=Yes|PronType=Prs", 2, "det"),
           ("sorella", "sorella", "NOUN", FS, 4, "nsubj"), ("è", "essere", "AUX", COP, 4, "cop"),
           ("alta", "alto", "ADJ", FS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    + tree("Il padre della ragazza.", ("Il", "il", "DET", MS, 2, "det"), ("padre", "padre", "NOUN", MS, 0, "root"),
           ("della", "di", "ADP", FS, 4, "case"), ("ragazza", "ragazza", "NOUN", FS, 2, "nmod"),
           (".", ".", "PUNCT", "", 2, "punct"))
    + tree("Gli uomini e le donne.", ("Gli", "il", "DET", MP, 2, "det"), ("uomini", "uomo", "NOUN", MP, 0, "root"),
           ("e", "e", "CCONJ", "", 5, "cc"), ("le", "il", "DET", FP, 5, "det"),
           ("donne", "donna", "NOUN", FP, 2, "conj"), (".", ".", "PUNCT", "", 2, "punct"))
)


@pytest.fixture(scope="module")
def italian():
    return tiny_generator(LEXICON, "it")


def test_a_possessive_before_a_kinship_noun_takes_its_gender(italian):
    """mio fratello -> mia sorella: no article before a singular kinship noun, the possessive changes
    (its form from the paradigm, whatever the reinflection model makes of it)."""
    sentence = tree("Mio fratello è simpatico.",
                    ("Mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes|PronType=Prs", 2, "det"),
                    ("fratello", "fratello", "NOUN", MS, 4, "nsubj"), ("è", "essere", "AUX", COP, 4, "cop"),
                    ("simpatico", "simpatico", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 4, "punct"))
    out = generate(italian, sentence, 1, ("Gender=Fem", "Number=Sing"), "sorella")
    assert out.startswith("Mia sorella è ")


def test_a_fused_preposition_takes_the_form_before_its_noun(italian):
    """il padre della ragazza -> ... dell'uomo: the article inside della is elided before a vowel."""
    sentence = tree("Il padre della ragazza.", ("Il", "il", "DET", MS, 2, "det"),
                    ("padre", "padre", "NOUN", MS, 0, "root"),
                    ("della", "di", "ADP", FS, 4, "case"), ("ragazza", "ragazza", "NOUN", FS, 2, "nmod"),
                    (".", ".", "PUNCT", "", 2, "punct"))
    assert generate(italian, sentence, 3, ("Gender=Masc", "Number=Sing"), "uomo") == "Il padre dell'uomo."
    women = tree("Le donne.", ("Le", "il", "DET", FP, 2, "det"), ("donne", "donna", "NOUN", FP, 0, "root"),
                 (".", ".", "PUNCT", "", 2, "punct"))
    assert generate(italian, women, 1, ("Gender=Masc", "Number=Plur"), "uomini") == "Gli uomini."


def parsed(text: str, *rows: tuple) -> list[dict]:
    return words(parse_conllu_string(tree(text, *rows))[0])


PART_MS = "Gender=Masc|Number=Sing|Tense=Past|VerbForm=Part"


def test_plain_agreement_rules_reach_a_subjects_predicate_and_determiners():
    """Il giocatore è stato espulso: the article, the predicate and its copula participle agree with
    the subject; in Il nonno tiene nascosto un segreto the participle is the object's."""
    from cdaflow.morph_cda.agreement_reach import agreeing_words

    italian = load("it")
    ws = parsed("Il giocatore è stato espulso.", ("Il", "il", "DET", MS, 2, "det"),
                ("giocatore", "giocatore", "NOUN", MS, 5, "nsubj"), ("è", "essere", "AUX", COP, 5, "aux"),
                ("stato", "essere", "AUX", PART_MS, 5, "aux:pass"),
                ("espulso", "espellere", "VERB", PART_MS, 0, "root"),
                (".", ".", "PUNCT", "", 5, "punct"))
    assert sorted(agreeing_words(ws, 1, italian)) == [0, 3, 4]
    ws = parsed("Il nonno tiene nascosto un segreto.", ("Il", "il", "DET", MS, 2, "det"),
                ("nonno", "nonno", "NOUN", MS, 3, "nsubj"), ("tiene", "tenere", "VERB", COP, 0, "root"),
                ("nascosto", "nascondere", "VERB", PART_MS, 3, "xcomp"), ("un", "uno", "DET", MS, 6, "det"),
                ("segreto", "segreto", "NOUN", MS, 3, "obj"), (".", ".", "PUNCT", "", 3, "punct"))
    assert agreeing_words(ws, 1, italian) == [0]
    # a headless demonstrative agrees (è quella che ...): it is no neuter predicative clitic
    ws = parsed("Mia nonna è quella.", ("Mia", "mio", "DET", "Gender=Fem|Number=Sing|Poss=Yes", 2, "det:poss"),
                ("nonna", "nonna", "NOUN", FS, 4, "nsubj"), ("è", "essere", "AUX", COP, 4, "cop"),
                ("quella", "quello", "PRON", "Gender=Fem|Number=Sing|PronType=Dem", 0, "root"),
                (".", ".", "PUNCT", "", 4, "punct"))
    assert sorted(agreeing_words(ws, 1, italian)) == [0, 3]


class _Dictionary:
    """A stand-in for Hunspell: the words it knows."""

    def __init__(self, known):
        self.words = set(known)

    def analyses(self, forms):
        return {w: ((frozenset({f"st:{w}"}),) if w in self.words else ()) for w in forms}

    def known(self, forms):
        return {w for w in forms if w in self.words}


def test_gender_and_number_by_the_ending_over_the_parsers(italian, monkeypatch):
    """A small parser's guesses (curioso feminine, stanco a plural noun) give way to the ending when
    the dictionary knows the form's three others; felice, giovane (no felico, giovana) keep theirs."""
    known = {"stanco", "stanca", "stanchi", "stanche", "curioso", "curiosa", "curiosi", "curiose", "felice",
             "felici", "giovane", "giovani", "giovano"}
    monkeypatch.setattr(italian, "hunspell", _Dictionary(known))
    assert italian.analyser.reading_by_ending("stanche") == ("Fem", "Plur")
    assert italian.analyser.reading_by_ending("curioso") == ("Masc", "Sing")
    assert italian.analyser.reading_by_ending("felice") is None
    assert italian.analyser.reading_by_ending("giovane") is None
    sentence = parse_conllu_string(tree(
        "Il nonno era stanco.", ("Il", "il", "DET", MS, 2, "det"), ("nonno", "nonno", "NOUN", MS, 4, "nsubj"),
        ("era", "essere", "AUX", COP, 4, "cop"), ("stanco", "stanco", "NOUN", "Gender=Fem|Number=Plur", 0, "root"),
        (".", ".", "PUNCT", "", 4, "punct")))[0]
    stanco = italian.analyse(sentence, {1})[3]
    assert (stanco["upos"], stanco["feats"]["Gender"], stanco["feats"]["Number"]) == ("ADJ", "Masc", "Sing")
    # a finite verb the parser tagged an adjective shows no gender (sembra: no sembro, sembri, sembre)
    assert not italian._gendered_form({"form": "sembra", "feats": {"Gender": "Fem"}})


def test_a_possessive_after_its_noun_hung_on_the_verb_is_the_nouns(italian):
    """Un amico mio lavora: a parser's mio as a det of lavora is the noun's determiner."""
    sentence = parse_conllu_string(tree(
        "Un amico mio lavora.", ("Un", "uno", "DET", MS, 2, "det"), ("amico", "amico", "NOUN", MS, 4, "nsubj"),
        ("mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes", 4, "det:poss"),
        ("lavora", "lavorare", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 4, "punct")))[0]
    mio = italian.analyse(sentence, {1})[2]
    assert (mio["head"], mio["deprel"]) == (2, "det")


def test_the_agreement_the_mrf_misses_is_completed(italian):
    """The tiny MRF here links nothing: the language file's complete_agreement changes the article,
    the predicate and the copula participle with the subject."""
    sentence = tree("Il nonno è stato eletto.", ("Il", "il", "DET", MS, 2, "det"),
                    ("nonno", "nonno", "NOUN", MS, 5, "nsubj"), ("è", "essere", "AUX", COP, 5, "aux"),
                    ("stato", "essere", "AUX", PART_MS, 5, "aux:pass"),
                    ("eletto", "eleggere", "VERB", PART_MS, 0, "root"),
                    (".", ".", "PUNCT", "", 5, "punct"))
    (parsed_sentence,) = parse_conllu_string(sentence)
    (result,) = italian.generate([parsed_sentence], [[Intervention(1, ("Gender=Fem", "Number=Sing"), form="nonna")]])
    tags = {result.forms[i]: result.tags[i] for i in (0, 3, 4)}
    assert all("Gender=Fem" in tag for tag in tags.values()), tags
    assert result.counterfactual.startswith("La nonna è ")


def test_a_possessive_a_parser_made_the_head_is_the_nouns_determiner(italian):
    """Mio/PRON as the subject with fratello hung under it (a small parser): the noun takes its
    place and Mio becomes its determiner, so that it changes with it (mia sorella)."""
    sentence = parse_conllu_string(tree(
        "Mio fratello è stanco.", ("Mio", "Mio", "PRON", MS, 4, "nsubj"),
        ("fratello", "fratello", "NOUN", MS, 1, "punct"),
        ("è", "essere", "AUX", COP, 4, "cop"), ("stanco", "stanco", "ADJ", MS, 0, "root"),
        (".", ".", "PUNCT", "", 4, "punct")))[0]
    ws = italian.analyse(sentence, {1})
    assert [(w["upos"], w["head"], w["deprel"]) for w in ws[:2]] == [("DET", 2, "det"), ("NOUN", 4, "nsubj")]


def test_common_nouns_whose_plural_shows_the_gender_and_older_feminines():
    """colleghi -> colleghe (the list's plural: the written one would keep the old gender); la
    presidentessa -> il presidente (an older feminine of a common noun is rewritten)."""
    from cdaflow.morph_cda.interventions import interventions_for

    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)
    sentences = LEXICON + tree("I colleghi parlano.", ("I", "il", "DET", MP, 2, "det"),
                               ("colleghi", "collega", "NOUN", MP, 3, "nsubj"),
                               ("parlano", "parlare", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 3, "punct"))
    parsed_sentences = parse_conllu_string(sentences)
    reinflector = Reinflector.train(examples_from_sentences(parsed_sentences), epochs=1, batch_size=4, seed=0)
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in parsed_sentences for w in words(s))
    generator = CounterfactualGenerator(AgreementMRF(inventory, "base", "it"), reinflector, "it", log_alpha=1.0)
    (found,) = interventions_for(parsed_sentences[-1], gazetteer, generator, "to-fem")
    assert found.form == "colleghe"
    (chair,) = parse_conllu_string(tree("La presidentessa parla.", ("La", "il", "DET", FS, 2, "det"),
                                        ("presidentessa", "presidente", "NOUN", FS, 3, "nsubj"),
                                        ("parla", "parlare", "VERB", COP, 0, "root"),
                                        (".", ".", "PUNCT", "", 3, "punct")))
    (found,) = interventions_for(chair, gazetteer, generator, "to-masc")
    assert found.form == "presidente"


def test_an_adjective_in_its_short_form_before_a_person_noun(italian, monkeypatch):
    """bei/NOUN bambini, bell'/ADP uomo (a small parser's tags): the full form's ending (belli, bello)
    makes them adjectives of the noun; a one-letter stem is none (di: do, da, de are words)."""
    monkeypatch.setattr(italian, "hunspell", _Dictionary({"bello", "bella", "belli", "belle", "do", "da", "de", "di"}))
    assert italian.analyser.reading_by_ending("di") is None
    sentence = parse_conllu_string(tree(
        "Che bei bambini!", ("Che", "che", "DET", "PronType=Int", 3, "det"),
        ("bei", "bei", "NOUN", "Number=Sing", 3, "nsubj"),
        ("bambini", "bambino", "NOUN", MP, 0, "root"), ("!", "!", "PUNCT", "", 3, "punct")))[0]
    bei = italian.analyse(sentence, {2})[1]
    assert (bei["upos"], bei["head"], bei["deprel"]) == ("ADJ", 3, "amod")
    assert bei["feats"] == {"Gender": "Masc", "Number": "Plur"}
