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


# A small parser's trees (it.yaml nouns_by_gazetteer): the sentences below are parsed as the project's
# Italian parser parsed them.
PLUR_VERB = "Mood=Ind|Number=Plur|Person=3|Tense=Pres|VerbForm=Fin"


def test_a_listed_noun_tagged_otherwise_after_a_determiner_is_a_noun(italian):
    """I miei/NOUN figli/ADJ (figli an amod of miei): the gazetteer's noun after a determiner is a
    noun, its phrase is gathered under it, and it is intervened on (figlie); un vecchio/ADJ
    contadino/NOUN: the adjective before a listed noun stays the noun's adjective."""
    from cdaflow.morph_cda.interventions import interventions_for

    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)
    (sentence,) = parse_conllu_string(tree(
        "I miei figli sono alti.", ("I", "il", "DET", MP, 2, "det"), ("miei", "mio", "NOUN", MP, 5, "nsubj"),
        ("figli", "figlio", "ADJ", MP, 2, "amod"), ("sono", "essere", "AUX", PLUR_VERB, 5, "cop"),
        ("alti", "alto", "ADJ", MP, 0, "root"), (".", ".", "PUNCT", "", 5, "punct")))
    (found,) = interventions_for(sentence, gazetteer, italian, "to-fem")
    assert (found.index, found.form, found.upos) == (2, "figlie", "NOUN")
    ws = italian.analyse(sentence, {2})
    assert [(w["head"], w["deprel"]) for w in ws[:3]] == [(3, "det"), (3, "det"), (5, "nsubj")]
    (old,) = parse_conllu_string(tree(
        "Un vecchio contadino vive qui.", ("Un", "uno", "DET", MS, 3, "det"),
        ("vecchio", "vecchio", "ADJ", MS, 3, "amod"),
        ("contadino", "contadino", "NOUN", MS, 4, "nsubj"), ("vive", "vivere", "VERB", COP, 0, "root"),
        ("qui", "qui", "ADV", "", 4, "advmod"), (".", ".", "PUNCT", "", 4, "punct")))
    assert [i.index for i in interventions_for(old, gazetteer, italian, "to-fem")] == [2]


def test_a_person_nouns_phrase_is_gathered_under_it(italian, monkeypatch):
    """Il bravo/nsubj ragazzo/obl biondo/NOUN (the noun under its adjective, biondo a punct): the noun
    takes the adjective's place, the adjectives hang on it; a verb before it is no adjective of it
    (vede mio padre: vedo, veda, vedi, vede are all words); a bare obl before its predicate is its
    subject (Mio fratello/obl e mio cugino sono alti)."""
    known = {"biondo", "bionda", "biondi", "bionde", "bravo", "brava", "bravi", "brave", "vedo", "veda", "vedi", "vede"}
    monkeypatch.setattr(italian, "hunspell", _Dictionary(known))
    (sentence,) = parse_conllu_string(tree(
        "Il bravo ragazzo biondo è alto.", ("Il", "il", "DET", MS, 2, "det"), ("bravo", "bravo", "ADJ", MP, 6, "nsubj"),
        ("ragazzo", "ragazzo", "NOUN", MS, 2, "obl"), ("biondo", "biondo", "NOUN", MS, 2, "punct"),
        ("è", "essere", "AUX", COP, 6, "cop"), ("alto", "alto", "ADJ", MS, 0, "root"),
        (".", ".", "PUNCT", "", 6, "punct")))
    ws = italian.analyse(sentence, {2})
    assert [(w["upos"], w["head"], w["deprel"]) for w in ws[:4]] == [
        ("DET", 3, "det"), ("ADJ", 3, "amod"), ("NOUN", 6, "nsubj"), ("ADJ", 3, "amod")]
    assert ws[3]["feats"] == {"Gender": "Masc", "Number": "Sing"}
    (sees,) = parse_conllu_string(tree(
        "Lei vede mio padre.", ("Lei", "lei", "PRON", FS, 2, "nsubj"), ("vede", "vedere", "VERB", COP, 0, "root"),
        ("mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes", 4, "det:poss"),
        ("padre", "padre", "NOUN", MS, 2, "obj"), (".", ".", "PUNCT", "", 2, "punct")))
    ws = italian.analyse(sees, {3})
    assert (ws[1]["upos"], ws[1]["deprel"], ws[3]["head"]) == ("VERB", "root", 2)
    (brothers,) = parse_conllu_string(tree(
        "Mio fratello e mio cugino sono alti.",
        ("Mio", "mio", "PROPN", "", 2, "det:poss"), ("fratello", "fratello", "NOUN", MS, 7, "obl"),
        ("e", "e", "CCONJ", "", 5, "cc"), ("mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes", 5, "det:poss"),
        ("cugino", "cugino", "NOUN", MS, 2, "conj"), ("sono", "essere", "AUX", PLUR_VERB, 7, "cop"),
        ("alti", "alto", "ADJ", MP, 0, "root"), (".", ".", "PUNCT", "", 7, "punct")))
    assert italian.analyse(brothers, {1, 4})[1]["deprel"] == "nsubj"


def test_a_masculine_singular_that_is_a_feminine_plural_reads_its_determiners():
    """infermiere: a male nurse, or nurses who are women; le infermiere, alcune infermiere are the
    plural (gli infermieri), l'infermiere the man."""
    (nurses,) = parse_conllu_string(tree(
        "Alcune infermiere lavorano.", ("Alcune", "alcuno", "DET", FP, 2, "det"),
        ("infermiere", "infermiere", "NOUN", MS, 3, "nsubj"), ("lavorano", "lavorare", "VERB", PLUR_VERB, 0, "root"),
        (".", ".", "PUNCT", "", 3, "punct")))
    found = lookup("infermiere", "infermiere", {"Gender": "Masc", "Number": "Sing"}, nurses)
    assert (found.gender, found.number, found.form) == ("Masc", "Plur", "infermieri")
    found = lookup("infermiere", "infermiere", {"Gender": "Masc", "Number": "Sing"})
    assert (found.gender, found.form) == ("Fem", "infermiera")
    # with no determiner, an adjective's number (Care signore: the ladies, not "sir")
    (ladies,) = parse_conllu_string(tree(
        "Care signore.", ("Care", "caro", "ADJ", FP, 2, "amod"), ("signore", "signora", "NOUN", FP, 0, "root"),
        (".", ".", "PUNCT", "", 2, "punct")))
    found = lookup("signore", "signora", {"Gender": "Fem", "Number": "Plur"}, ladies)
    assert (found.gender, found.number, found.form) == ("Masc", "Plur", "signori")


def test_small_parser_slips_around_a_person(italian, monkeypatch):
    """Essi/aux furono condannati: a subject; Il nonno, stanco/NOUN conj e affamato: an adjective of the
    noun; Ho trovato mio figlio/nsubj molto stanco/NOUN: a predicate adjective; Gli invitati/root sono
    andati/parataxis: the noun is the verb's subject; è la/det of più brava: the adjective's article."""
    monkeypatch.setattr(italian, "hunspell", _Dictionary({"stanco", "stanca", "stanchi", "stanche"}))
    part_mp = "Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part"
    (they,) = parse_conllu_string(tree(
        "Essi furono condannati.", ("Essi", "esso", "NOUN", MP, 3, "aux"),
        ("furono", "essere", "AUX", PLUR_VERB, 3, "aux:pass"), ("condannati", "condannare", "VERB", part_mp, 0, "root"),
        (".", ".", "PUNCT", "", 3, "punct")))
    assert italian.analyse(they, {0})[0]["deprel"] == "nsubj:pass"
    (grandpa,) = parse_conllu_string(tree(
        "Il nonno, stanco, dorme.", ("Il", "il", "DET", MS, 2, "det"), ("nonno", "nonno", "NOUN", MS, 6, "nsubj"),
        (",", ",", "PUNCT", "", 2, "punct"), ("stanco", "stanco", "NOUN", FP, 2, "conj"),
        (",", ",", "PUNCT", "", 2, "punct"), ("dorme", "dormire", "VERB", COP, 0, "root"),
        (".", ".", "PUNCT", "", 6, "punct")))
    stanco = italian.analyse(grandpa, {1})[3]
    assert (stanco["upos"], stanco["deprel"], stanco["feats"]["Gender"]) == ("ADJ", "amod", "Masc")
    (found,) = parse_conllu_string(tree(
        "Ho trovato mio figlio stanco.", ("Ho", "avere", "AUX", COP, 2, "aux"),
        ("trovato", "trovare", "VERB", PART_MS, 0, "root"),
        ("mio", "mio", "DET", "Gender=Masc|Number=Sing|Poss=Yes", 4, "det:poss"),
        ("figlio", "figlio", "NOUN", MS, 5, "nsubj"), ("stanco", "stanco", "NOUN", FP, 2, "advcl"),
        (".", ".", "PUNCT", "", 2, "punct")))
    stanco = italian.analyse(found, {3})[4]
    assert (stanco["upos"], stanco["feats"]["Gender"], stanco["feats"]["Number"]) == ("ADJ", "Masc", "Sing")
    (guests,) = parse_conllu_string(tree(
        "Gli invitati sono andati.", ("Gli", "il", "DET", MP, 2, "det"),
        ("invitati", "invitato", "NOUN", MP, 0, "root"),
        ("sono", "essere", "AUX", PLUR_VERB, 4, "aux"), ("andati", "andare", "VERB", part_mp, 2, "parataxis"),
        (".", ".", "PUNCT", "", 4, "punct")))
    ws = italian.analyse(guests, {1})
    assert [(w["head"], w["deprel"]) for w in ws[1:4:2]] == [(4, "nsubj"), (0, "root")]
    (best,) = parse_conllu_string(tree(
        "La mamma è la più brava.", ("La", "il", "DET", FS, 2, "det"), ("mamma", "mamma", "NOUN", FS, 6, "nsubj"),
        ("è", "essere", "AUX", COP, 6, "cop"), ("la", "il", "DET", FS, 5, "det"),
        ("più", "più", "ADV", "", 6, "advmod"),
        ("brava", "bravo", "ADJ", FS, 0, "root"), (".", ".", "PUNCT", "", 6, "punct")))
    assert italian.analyse(best, {1})[3]["head"] == 6


def test_a_predicate_nouns_copula_participle_agrees_with_the_subject():
    """Un cantante è stato ospite: stato (the copula's participle) agrees with the subject; tenuto, a
    verb a small parser made a cop of minestra, does not."""
    from cdaflow.morph_cda.agreement_reach import agreeing_words

    ws = parsed("Il cantante è stato ospite.", ("Il", "il", "DET", MS, 2, "det"),
                ("cantante", "cantante", "NOUN", MS, 5, "nsubj"), ("è", "essere", "AUX", COP, 5, "aux"),
                ("stato", "essere", "AUX", PART_MS, 5, "cop"), ("ospite", "ospite", "NOUN", "Number=Sing", 0, "root"),
                (".", ".", "PUNCT", "", 5, "punct"))
    assert sorted(agreeing_words(ws, 1, load("it"))) == [0, 3]
    ws = parsed("Il cuoco ha tenuto la minestra.", ("Il", "il", "DET", MS, 2, "det"),
                ("cuoco", "cuoco", "NOUN", MS, 6, "nsubj"), ("ha", "avere", "AUX", COP, 6, "aux"),
                ("tenuto", "tenere", "VERB", PART_MS, 6, "cop"), ("la", "il", "DET", FS, 6, "det"),
                ("minestra", "minestra", "NOUN", FS, 0, "root"), (".", ".", "PUNCT", "", 6, "punct"))
    assert agreeing_words(ws, 1, load("it")) == [0]


def test_things_bodies_and_bare_nouns_after_per_are_no_persons(italian):
    """it.yaml's data: i conti tornano (accounts: thing_forms), la Camera dei rappresentanti (a body:
    body_nouns), per iscritto (no_person_after); gli italiani are persons, studia italiano a language;
    la squadra americana/ADJ names no woman (a noun before the adjective)."""
    from cdaflow.morph_cda.interventions import interventions_for

    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)

    def found(text, direction, *rows):
        (sentence,) = parse_conllu_string(tree(text, *rows))
        return [i.index for i in interventions_for(sentence, gazetteer, italian, direction)]

    assert found("I conti tornano.", "to-fem", ("I", "il", "DET", MP, 2, "det"),
                 ("conti", "conto", "NOUN", MP, 3, "nsubj"),
                 ("tornano", "tornare", "VERB", PLUR_VERB, 0, "root"), (".", ".", "PUNCT", "", 3, "punct")) == []
    assert found("La Camera dei rappresentanti vota.", "to-fem", ("La", "il", "DET", FS, 2, "det"),
                 ("Camera", "camera", "NOUN", FS, 5, "nsubj"), ("dei", "di", "ADP", MP, 4, "case"),
                 ("rappresentanti", "rappresentante", "NOUN", MP, 2, "nmod"),
                 ("vota", "votare", "VERB", COP, 0, "root"),
                 (".", ".", "PUNCT", "", 5, "punct")) == []
    assert found("Lo scrive per iscritto.", "to-fem", ("Lo", "lo", "PRON", MS, 2, "obj"),
                 ("scrive", "scrivere", "VERB", COP, 0, "root"), ("per", "per", "ADP", "", 4, "case"),
                 ("iscritto", "iscritto", "NOUN", MS, 2, "obl"), (".", ".", "PUNCT", "", 2, "punct")) == []
    assert found("Studia italiano.", "to-fem", ("Studia", "studiare", "VERB", COP, 0, "root"),
                 ("italiano", "italiano", "NOUN", MS, 1, "obj"), (".", ".", "PUNCT", "", 1, "punct")) == []
    assert found("Gli italiani partono.", "to-fem", ("Gli", "il", "DET", MP, 2, "det"),
                 ("italiani", "italiano", "NOUN", MP, 3, "nsubj"), ("partono", "partire", "VERB", PLUR_VERB, 0, "root"),
                 (".", ".", "PUNCT", "", 3, "punct")) == [1]
    assert found("La squadra americana vince.", "to-masc", ("La", "il", "DET", FS, 2, "det"),
                 ("squadra", "squadra", "NOUN", FS, 4, "nsubj"), ("americana", "americano", "ADJ", FS, 2, "amod"),
                 ("vince", "vincere", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 4, "punct")) == []
    # il suddetto impiegato: suddetto is a determiner (the paradigms), its noun a noun whatever its tag
    assert found("Il suddetto impiegato parte.", "to-fem", ("Il", "il", "DET", MS, 2, "det"),
                 ("suddetto", "suddetto", "NOUN", MS, 4, "nsubj"), ("impiegato", "impiegato", "ADJ", MS, 2, "amod"),
                 ("parte", "partire", "VERB", COP, 0, "root"), (".", ".", "PUNCT", "", 4, "punct")) == [2]
    # a verb with its own auxiliary coordinated with a noun is no noun (Shamir ha inviato/conj: an envoy?)
    assert found("La volta del ministro e Shamir ha inviato una lettera.", "to-fem",
                 ("La", "il", "DET", FS, 2, "det"), ("volta", "volta", "NOUN", FS, 0, "root"),
                 ("del", "di", "ADP", MS, 4, "case"), ("ministro", "ministro", "NOUN", MS, 2, "nmod"),
                 ("e", "e", "CCONJ", "", 8, "cc"), ("Shamir", "Shamir", "PROPN", "", 8, "nsubj"),
                 ("ha", "avere", "AUX", COP, 8, "aux"), ("inviato", "inviare", "VERB", PART_MS, 2, "conj"),
                 ("una", "uno", "DET", FS, 10, "det"), ("lettera", "lettera", "NOUN", FS, 8, "obj"),
                 (".", ".", "PUNCT", "", 2, "punct")) == [3]


def test_esso_and_essa_with_no_antecedent_need_a_person_cue(italian):
    """Essa presenta un progetto (the commission): no person cue, it stays; lei parla stays a person;
    essa with a person predicate (essa è nata) changes."""
    from cdaflow.morph_cda.interventions import interventions_for

    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)
    pron_fs = "Gender=Fem|Number=Sing|Person=3|PronType=Prs"

    def changed(text, *rows):
        (sentence,) = parse_conllu_string(tree(text, *rows))
        return [i.index for i in interventions_for(sentence, gazetteer, italian, "to-masc")]

    assert changed("Essa presenta un progetto.", ("Essa", "essa", "PRON", pron_fs, 2, "nsubj"),
                   ("presenta", "presentare", "VERB", COP, 0, "root"), ("un", "uno", "DET", MS, 4, "det"),
                   ("progetto", "progetto", "NOUN", MS, 2, "obj"), (".", ".", "PUNCT", "", 2, "punct")) == []
    assert changed("Lei presenta un progetto.", ("Lei", "lei", "PRON", pron_fs, 2, "nsubj"),
                   ("presenta", "presentare", "VERB", COP, 0, "root"), ("un", "uno", "DET", MS, 4, "det"),
                   ("progetto", "progetto", "NOUN", MS, 2, "obj"), (".", ".", "PUNCT", "", 2, "punct")) == [0]
    assert changed("Essa è nata.", ("Essa", "essa", "PRON", pron_fs, 3, "nsubj"), ("è", "essere", "AUX", COP, 3, "aux"),
                   ("nata", "nascere", "VERB", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 0, "root"),
                   (".", ".", "PUNCT", "", 3, "punct")) == [0]


def test_titles_and_optional_contractions():
    """Signor before a title as before a name (Signor presidente), signora -> signor before them; a
    written col is rebuilt (col debitore -> con la debitrice) but con il is never joined into col."""
    from cdaflow.morph_cda.surface import detokenize, surface

    italian = load("it")
    assert italian.alternate("signore", "Masc", "presidente", "NOUN") == "signor"
    assert lookup("signora", "signora", {"Gender": "Fem", "Number": "Sing"}).form == "signore"
    assert lookup("signor", "signore", {"Gender": "Masc", "Number": "Sing"}).form == "signora"
    assert italian.fused["col"] == ("con", "il") and italian.contract("con", "la") is None
    (sentence,) = parse_conllu_string(tree(
        "Parla con la ragazza.", ("Parla", "parlare", "VERB", COP, 0, "root"), ("con", "con", "ADP", "", 4, "case"),
        ("la", "il", "DET", FS, 4, "det"), ("ragazza", "ragazza", "NOUN", FS, 1, "obl"),
        (".", ".", "PUNCT", "", 1, "punct")))
    assert detokenize(*surface(sentence, {3: "il", 4: "ragazzo"}, "it")) == "Parla con il ragazzo."


def test_two_form_adjectives_keep_their_form_and_unknown_words_swap_their_ending(italian, monkeypatch):
    """popolari (popolare/popolari: no popolaro, popolara) has no gender, so pittori popolari -> pittrici
    popolari; vittima (a singular's ending) keeps its own; a word no dictionary knows (italoamericano)
    is not looked up, its ending is swapped."""
    monkeypatch.setattr(italian, "hunspell", _Dictionary({"popolare", "popolari", "vittima", "vittime"}))
    assert italian.analyser._two_form_adjective("popolari")
    assert not italian.analyser._two_form_adjective("vittima")
    (sentence,) = parse_conllu_string(tree(
        "I pittori popolari.", ("I", "il", "DET", MP, 2, "det"), ("pittori", "pittore", "NOUN", MP, 0, "root"),
        ("popolari", "popolare", "ADJ", MP, 2, "amod"), (".", ".", "PUNCT", "", 2, "punct")))
    assert "Gender" not in italian.analyse(sentence, {1})[2]["feats"]
    (economist,) = parse_conllu_string(tree(
        "Il fratello italoamericano.", ("Il", "il", "DET", MS, 2, "det"),
        ("fratello", "fratello", "NOUN", MS, 0, "root"),
        ("italoamericano", "italoamericano", "ADJ", MS, 2, "amod"), (".", ".", "PUNCT", "", 2, "punct")))
    (result,) = italian.generate([economist], [[Intervention(1, ("Gender=Fem", "Number=Sing"), form="sorella")]])
    assert result.forms[2] == "italoamericana"


def test_relatives_and_passive_predicatives_agree_with_their_noun():
    """il custode, il quale: the relative's article agrees with the noun; il candidato, con il quale si è
    congratulato: the clause's participle is its own subject's; è stato nominato amministratore (no
    subject): the passive's participles agree with the predicative noun, as with come (è citato come
    allievo)."""
    from cdaflow.morph_cda.agreement_reach import agreeing_words, agreement_reach

    italian = load("it")
    ws = parsed("Il custode il quale ha visto.", ("Il", "il", "DET", MS, 2, "det"),
                ("custode", "custode", "NOUN", MS, 0, "root"), ("il", "il", "DET", MS, 4, "det"),
                ("quale", "quale", "PRON", "Number=Sing", 6, "nsubj"), ("ha", "avere", "AUX", COP, 6, "aux"),
                ("visto", "vedere", "VERB", PART_MS, 2, "acl:relcl"), (".", ".", "PUNCT", "", 2, "punct"))
    assert sorted(agreeing_words(ws, 1, italian)) == [0, 2]
    ws = parsed("Il candidato con il quale si è congratulato.", ("Il", "il", "DET", MS, 2, "det"),
                ("candidato", "candidato", "NOUN", MS, 0, "root"), ("con", "con", "ADP", "", 5, "case"),
                ("il", "il", "DET", MS, 5, "det"), ("quale", "quale", "PRON", "Number=Sing", 8, "obl"),
                ("si", "si", "PRON", "", 8, "expl"), ("è", "essere", "AUX", COP, 8, "aux"),
                ("congratulato", "congratulare", "VERB", PART_MS, 2, "acl:relcl"), (".", ".", "PUNCT", "", 2, "punct"))
    assert sorted(agreeing_words(ws, 1, italian)) == [0, 3]
    assert 7 not in agreement_reach(ws, [1])
    ws = parsed("È stato nominato amministratore.", ("È", "essere", "AUX", COP, 3, "aux"),
                ("stato", "essere", "AUX", PART_MS, 3, "aux:pass"),
                ("nominato", "nominare", "VERB", PART_MS, 0, "root"),
                ("amministratore", "amministratore", "NOUN", MS, 3, "xcomp"), (".", ".", "PUNCT", "", 3, "punct"))
    assert sorted(agreeing_words(ws, 3, italian)) == [1, 2]
    ws = parsed("È citato come allievo.", ("È", "essere", "AUX", COP, 2, "aux:pass"),
                ("citato", "citare", "VERB", PART_MS, 0, "root"), ("come", "come", "ADP", "", 4, "case"),
                ("allievo", "allievo", "NOUN", MS, 2, "obl"), (".", ".", "PUNCT", "", 2, "punct"))
    assert agreeing_words(ws, 3, italian) == [1]


def test_a_predicate_noun_the_lexicon_knows_only_as_a_noun_stays_one(monkeypatch):
    """Sarà colpa dei giudici: colpa/NOUN after a copula has an adjective's endings (colpo, colpa,
    colpi, colpe are words), but the lexicon knows it only as a noun: it is no adjective (that would
    change with the judges: colpo delle giudici)."""
    generator = tiny_generator(LEXICON + tree(
        "La colpa è mia.", ("La", "il", "DET", FS, 2, "det"), ("colpa", "colpa", "NOUN", FS, 4, "nsubj"),
        ("è", "essere", "AUX", COP, 4, "cop"), ("mia", "mio", "PRON", "Gender=Fem|Number=Sing|Poss=Yes", 0, "root"),
        (".", ".", "PUNCT", "", 4, "punct")), "it")
    monkeypatch.setattr(generator, "hunspell", _Dictionary({"colpo", "colpa", "colpi", "colpe"}))
    (sentence,) = parse_conllu_string(tree(
        "Sarà colpa dei giudici.", ("Sarà", "essere", "AUX", COP, 2, "cop"), ("colpa", "colpa", "NOUN", FS, 0, "root"),
        ("dei", "di", "ADP", MP, 4, "case"), ("giudici", "giudice", "NOUN", MP, 2, "nmod"),
        (".", ".", "PUNCT", "", 2, "punct")))
    assert generator.analyse(sentence, {3})[1]["upos"] == "NOUN"


def test_a_participle_hung_on_a_noun_after_its_auxiliary_is_the_verb(italian):
    """Gli studenti sono/cop arrivati/amod stamattina/root (a small parser): arrivati is the verb, sono
    its auxiliary, stamattina its oblique and studenti its subject, so that it agrees (sono arrivate)."""
    part_mp = "Gender=Masc|Number=Plur|Tense=Past|VerbForm=Part"
    (sentence,) = parse_conllu_string(tree(
        "Gli studenti sono arrivati stamattina.", ("Gli", "il", "DET", MP, 2, "det"),
        ("studenti", "studente", "NOUN", MP, 5, "nsubj"), ("sono", "essere", "AUX", PLUR_VERB, 5, "cop"),
        ("arrivati", "arrivare", "VERB", part_mp, 5, "amod"), ("stamattina", "stamattina", "NOUN", FS, 0, "root"),
        (".", ".", "PUNCT", "", 5, "punct")))
    ws = italian.analyse(sentence, {1})
    assert [(w["head"], w["deprel"]) for w in ws[1:5]] == [(4, "nsubj"), (4, "aux"), (0, "root"), (4, "obl")]


def test_bare_words_coordinated_with_a_predicate_adjective(italian, monkeypatch):
    """Il ragazzo è alto, magro/NOUN obj: an adjective has no object, magro is its conjunct; è tornato
    stanco/ADV xcomp: the verb's predicative adjective."""
    monkeypatch.setattr(italian, "hunspell", _Dictionary({"magro", "magra", "magri", "magre", "stanco", "stanca",
                                                          "stanchi", "stanche"}))
    (tall,) = parse_conllu_string(tree(
        "Il ragazzo è alto, magro.", ("Il", "il", "DET", MS, 2, "det"), ("ragazzo", "ragazzo", "NOUN", MS, 4, "nsubj"),
        ("è", "essere", "AUX", COP, 4, "cop"), ("alto", "alto", "ADJ", MS, 0, "root"),
        (",", ",", "PUNCT", "", 4, "punct"), ("magro", "magro", "NOUN", FS, 4, "obj"),
        (".", ".", "PUNCT", "", 4, "punct")))
    magro = italian.analyse(tall, {1})[5]
    assert (magro["upos"], magro["deprel"], magro["feats"]["Gender"]) == ("ADJ", "conj", "Masc")
    (back,) = parse_conllu_string(tree(
        "Il padre è tornato stanco.", ("Il", "il", "DET", MS, 2, "det"), ("padre", "padre", "NOUN", MS, 4, "nsubj"),
        ("è", "essere", "AUX", COP, 4, "aux"), ("tornato", "tornare", "VERB", PART_MS, 0, "root"),
        ("stanco", "stanco", "ADV", "", 4, "xcomp"), (".", ".", "PUNCT", "", 4, "punct")))
    stanco = italian.analyse(back, {1})[4]
    assert (stanco["upos"], stanco["feats"]["Gender"]) == ("ADJ", "Masc")


def test_object_clitics_and_their_participles_change_with_their_antecedent(italian):
    """Ho chiamato le ragazze e le/DET obj ho invitate: le is an object clitic, the perfect's participle
    agrees with it (not frozen), and both agree with le ragazze; l' (elided) has its participle's
    gender; a sentence-initial Ho (the parser's lemma Ho) is avere; la before ho is elided (l'ho)."""
    from cdaflow.morph_cda.agreement_reach import agreeing_words

    italian_file = load("it")
    assert italian_file.clitic_tag("le") == ("Fem", "Plur") and italian_file.clitic_tag("l'") == (None, "Sing")
    assert italian_file.alternate("la", "Fem", "ho", "AUX") == "l'"
    part_fp = "Gender=Fem|Number=Plur|Tense=Past|VerbForm=Part"
    (sentence,) = parse_conllu_string(tree(
        "Ho chiamato le ragazze e le ho invitate.", ("Ho", "Ho", "AUX", COP, 2, "aux"),
        ("chiamato", "chiamare", "VERB", PART_MS, 0, "root"), ("le", "il", "DET", FP, 4, "det"),
        ("ragazze", "ragazza", "NOUN", FP, 2, "obj"), ("e", "e", "CCONJ", "", 8, "cc"),
        ("le", "il", "DET", FP, 8, "obj"), ("ho", "avere", "AUX", COP, 8, "aux"),
        ("invitate", "invitare", "VERB", part_fp, 2, "conj"), (".", ".", "PUNCT", "", 2, "punct")))
    ws = italian.analyse(sentence, {3})
    assert ws[5]["upos"] == "PRON" and italian.frozen(ws)[1] and not italian.frozen(ws)[7]
    assert sorted(agreeing_words(ws, 3, italian_file)) == [2, 5, 7]
    (seen,) = parse_conllu_string(tree(
        "La sorella, l'ho vista.", ("La", "il", "DET", FS, 2, "det"), ("sorella", "sorella", "NOUN", FS, 0, "root"),
        (",", ",", "PUNCT", "", 2, "punct"), ("l'", "lo", "PRON", "Number=Sing", 6, "obj"),
        ("ho", "avere", "AUX", "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin", 6, "aux"),
        ("vista", "vedere", "VERB", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 2, "parataxis"),
        (".", ".", "PUNCT", "", 2, "punct")))
    ws = italian.analyse(seen, {1})
    assert ws[3]["feats"] == {"Gender": "Fem", "Number": "Sing"}
    assert sorted(agreeing_words(ws, 1, italian_file)) == [0, 3, 5]


def test_more_small_parser_slips(italian, monkeypatch):
    """al nipote: a common noun's gender from its fused preposition (al: masculine, so nipote is a boy);
    è stata colei/VERB: the paradigm's pronoun, which agrees; Un'amica mia/det:poss of abita: the
    possessive after the noun is the noun's; Loro sono stanchi morti/nsubj: a bare adjective after
    the predicate adjective is its conjunct."""
    (gift,) = parse_conllu_string(tree(
        "Regala una bici al nipote.", ("Regala", "regalare", "VERB", COP, 0, "root"),
        ("una", "uno", "DET", FS, 3, "det"), ("bici", "bici", "NOUN", FS, 1, "obj"),
        ("al", "a", "ADP", MS, 5, "case"), ("nipote", "nipote", "NOUN", "Gender=Fem|Number=Plur", 1, "obl"),
        (".", ".", "PUNCT", "", 1, "punct")))
    found = lookup("nipote", "nipote", {"Gender": "Fem", "Number": "Plur"}, gift)
    assert found.gender == "Fem"  # the new gender: he was a boy
    (she,) = parse_conllu_string(tree(
        "La dottoressa è stata colei.", ("La", "il", "DET", FS, 2, "det"),
        ("dottoressa", "dottore", "NOUN", FS, 5, "nsubj"), ("è", "essere", "AUX", COP, 5, "aux"),
        ("stata", "essere", "AUX", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 5, "aux:pass"),
        ("colei", "colei", "VERB", PART_MS, 0, "root"), (".", ".", "PUNCT", "", 5, "punct")))
    colei = italian.analyse(she, {1})[4]
    assert (colei["upos"], colei["feats"]) == ("PRON", {"Gender": "Fem", "Number": "Sing"})
    (friend,) = parse_conllu_string(tree(
        "Un'amica mia abita qui.", ("Un'", "uno", "DET", FS, 2, "det"), ("amica", "amico", "NOUN", FS, 0, "root"),
        ("mia", "mio", "DET", "Gender=Fem|Number=Sing|Poss=Yes", 4, "det:poss"),
        ("abita", "abitare", "NOUN", FS, 2, "conj"), ("qui", "qui", "ADV", "", 4, "advmod"),
        (".", ".", "PUNCT", "", 2, "punct")))
    assert italian.analyse(friend, {1})[2]["head"] == 2
    monkeypatch.setattr(italian, "hunspell", _Dictionary({"stanco", "stanca", "stanchi", "stanche", "morto", "morta",
                                                          "morti", "morte"}))
    (dead,) = parse_conllu_string(tree(
        "Loro sono stanchi morti.", ("Loro", "loro", "PRON", "Number=Plur", 3, "nsubj"),
        ("sono", "essere", "AUX", PLUR_VERB, 3, "cop"), ("stanchi", "stanco", "NOUN", MP, 0, "root"),
        ("morti", "morto", "ADJ", MP, 3, "nsubj"), (".", ".", "PUNCT", "", 3, "punct")))
    assert italian.analyse(dead, {0})[3]["deprel"] == "conj"


def test_a_subject_pronoun_made_the_root_and_a_predicate_hung_as_a_modifier(italian, monkeypatch):
    """Noi/root siamo rimasti/NOUN parataxis sorpresi/NOUN amod (a small parser): noi is the subject of
    rimasti (so that the pronoun is intervened on and its predicate agrees), and sorpresi, a bare noun
    hung on the predicate adjective, is its conjunct adjective."""
    from cdaflow.morph_cda.interventions import interventions_for

    monkeypatch.setattr(italian, "hunspell", _Dictionary({"rimasto", "rimasta", "rimasti", "rimaste", "sorpreso",
                                                          "sorpresa", "sorpresi", "sorprese"}))
    (sentence,) = parse_conllu_string(tree(
        "Noi siamo rimasti sorpresi.", ("Noi", "noi", "PRON", "Number=Plur|Person=1", 0, "root"),
        ("siamo", "essere", "AUX", "Number=Plur|Person=1|VerbForm=Fin", 3, "aux:pass"),
        ("rimasti", "rimasto", "NOUN", MP, 1, "parataxis"), ("sorpresi", "sorpreso", "NOUN", MP, 3, "amod"),
        (".", ".", "PUNCT", "", 3, "punct")))
    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)
    assert [i.index for i in interventions_for(sentence, gazetteer, italian, "to-fem")] == [0]
    ws = italian.analyse(sentence, {0})
    assert (ws[0]["head"], ws[0]["deprel"]) == (3, "nsubj:pass")
    assert (ws[3]["upos"], ws[3]["deprel"]) == ("ADJ", "conj")


def test_an_object_clitic_of_the_nouns_own_verb_or_of_a_clause_keeps_its_form():
    """Il dottore lo disse (che ...): lo is not the doctor (the subject of disse) but the clause, so it
    stays when the doctor changes; Mia sorella/nsubj? L'ho vista: a first-person verb's object is
    still the sister, however the parser hung her."""
    from cdaflow.morph_cda.agreement_reach import agreeing_words

    italian_file = load("it")
    first = "Mood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin"
    said = [dict(w, feats=dict(w["feats"] or {})) for w in words(parse_conllu_string(tree(
        "Il dottore lo disse, che era vero.", ("Il", "il", "DET", MS, 2, "det"),
        ("dottore", "dottore", "NOUN", MS, 4, "nsubj"), ("lo", "lo", "PRON", MS, 4, "obj"),
        ("disse", "dire", "VERB", COP, 0, "root"), (",", ",", "PUNCT", "", 8, "punct"),
        ("che", "che", "SCONJ", "", 8, "mark"), ("era", "essere", "AUX", COP, 8, "cop"),
        ("vero", "vero", "ADJ", MS, 4, "ccomp"), (".", ".", "PUNCT", "", 4, "punct")))[0])]
    assert 2 not in agreeing_words(said, 1, italian_file)
    seen = [dict(w, feats=dict(w["feats"] or {})) for w in words(parse_conllu_string(tree(
        "Mia sorella? L'ho vista.", ("Mia", "mio", "DET", "Gender=Fem|Number=Sing|Poss=Yes", 2, "det"),
        ("sorella", "sorella", "NOUN", FS, 6, "nsubj"), ("?", "?", "PUNCT", "", 2, "punct"),
        ("L'", "lo", "PRON", FS, 6, "obj"), ("ho", "avere", "AUX", first, 6, "aux"),
        ("vista", "vedere", "VERB", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 0, "root"),
        (".", ".", "PUNCT", "", 6, "punct")))[0])]
    assert {3, 5} <= set(agreeing_words(seen, 1, italian_file))


def test_an_adverb_the_parser_read_as_a_noun_keeps_its_form(italian):
    """La vicina si è sentita male/NOUN xcomp: male is an adverb (it.yaml adverbial_adjectives), never
    *si è sentito mali*; an adjective after a linking verb agrees (si sente stanca)."""
    ws = [dict(w, feats=dict(w["feats"] or {})) for w in words(parse_conllu_string(tree(
        "La vicina si è sentita male.", ("La", "il", "DET", FS, 2, "det"), ("vicina", "vicina", "NOUN", FS, 5, "nsubj"),
        ("si", "si", "PRON", "Clitic=Yes|Person=3|PronType=Prs", 5, "dep"), ("è", "essere", "AUX", COP, 5, "aux"),
        ("sentita", "sentire", "VERB", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 0, "root"),
        ("male", "male", "NOUN", MS, 5, "xcomp"), (".", ".", "PUNCT", "", 5, "punct")))[0])]
    heads = {int(w["id"]): w for w in ws}
    assert italian.analyser.adverbial(ws[5], heads)
    assert italian.frozen(ws)[5]
    ws[2]["feats"]["Reflex"] = "Yes"
    ws[5].update(form="stanca", upos="ADJ")
    assert not italian.analyser.adverbial(ws[5], heads)  # not listed, and an adjective after a linking verb


def test_a_subject_hung_as_an_adverb_a_participle_as_a_noun_and_a_noun_after_come(italian):
    """Slips of the trained Italian parser on sentences of a user's: Mia zia/advmod è arrivata ieri
    sera/nsubj (the person noun before the verb is its subject, sera an oblique); sono rimasti/NOUN
    aux:pass soddisfatti (an auxiliary after essere is a participle, which agrees); lavora come
    infermiere/VERB Inf (the gazetteer's noun after a predicate marker is a noun)."""
    from cdaflow.morph_cda.interventions import interventions_for

    (aunt,) = parse_conllu_string(tree(
        "Mia zia è arrivata ieri sera.", ("Mia", "mio", "DET", "Gender=Fem|Number=Sing|Poss=Yes", 2, "det"),
        ("zia", "zia", "NOUN", FS, 4, "advmod"), ("è", "essere", "AUX", COP, 4, "aux"),
        ("arrivata", "arrivare", "VERB", "Gender=Fem|Number=Sing|Tense=Past|VerbForm=Part", 0, "root"),
        ("ieri", "ieri", "ADV", "", 4, "advmod"), ("sera", "sera", "NOUN", FS, 4, "nsubj"),
        (".", ".", "PUNCT", "", 4, "punct")))
    ws = italian.analyse(aunt, {1})
    assert (ws[1]["deprel"], ws[5]["deprel"]) == ("nsubj", "obl")
    (teachers,) = parse_conllu_string(tree(
        "Gli insegnanti sono rimasti soddisfatti.", ("Gli", "il", "DET", MP, 2, "det"),
        ("insegnanti", "insegnante", "NOUN", MP, 5, "nsubj"), ("sono", "essere", "AUX", PLUR_VERB, 5, "cop"),
        ("rimasti", "rimasto", "NOUN", MP, 5, "aux:pass"), ("soddisfatti", "soddisfatto", "ADJ", MP, 0, "root"),
        (".", ".", "PUNCT", "", 5, "punct")))
    rimasti = italian.analyse(teachers, {1})[3]
    assert (rimasti["upos"], rimasti["feats"]["VerbForm"]) == ("VERB", "Part")
    gazetteer = Gazetteer.read(ROOT / load("it").gazetteer)
    (nurse,) = parse_conllu_string(tree(
        "Lavora come infermiere.", ("Lavora", "lavorare", "VERB", COP, 0, "root"),
        ("come", "come", "ADP", "", 3, "mark"), ("infermiere", "infermiere", "VERB", "VerbForm=Inf", 1, "xcomp"),
        (".", ".", "PUNCT", "", 1, "punct")))
    assert [(i.index, i.form) for i in interventions_for(nurse, gazetteer, italian, "to-fem")] == [(2, "infermiera")]


def test_an_elided_fused_article_takes_its_new_nouns_gender(italian):
    """dell'uomo -> della donna: the parser gives the elided dell' no gender; its noun's is the one it
    takes before a consonant (not del donna)."""
    sentence = tree("Il cappello dell'uomo era nero.", ("Il", "il", "DET", MS, 2, "det"),
                    ("cappello", "cappello", "NOUN", MS, 6, "nsubj"),
                    ("dell'", "di il", "ADP", "Definite=Def|Number=Sing|PronType=Art", 4, "case"),
                    ("uomo", "uomo", "NOUN", MS, 2, "nmod"), ("era", "essere", "AUX", COP, 6, "cop"),
                    ("nero", "nero", "ADJ", MS, 0, "root"), (".", ".", "PUNCT", "", 6, "punct"))
    out = generate(italian, sentence, 3, ("Gender=Fem", "Number=Sing"), "donna")
    assert "della donna" in out
