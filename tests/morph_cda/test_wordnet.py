"""WordNet gazetteer candidates on a hand-made WordNet fragment."""

import pytest

from cdaflow.morph_cda.wordnet import (
    PERSON,
    gender_pairs,
    load_suffixes,
    person_synsets,
    read_omw_lemmas,
    read_pwn_hypernyms,
)

# person <- worker <- engineer; person <- child; entity <- engine (not a person)
DATA_NOUN = f"""  1 This software and database is being provided ...
{PERSON} 03 n 01 person 0 001 @ 00001740 n 0000 | a human being
10000001 18 n 01 worker 0 001 @ {PERSON} n 0000 | a person who works
10000002 18 n 02 engineer 0 applied_scientist 0 001 @ 10000001 n 0000 | a person who uses science
10000003 18 n 01 child 0 001 @ {PERSON} n 0000 | a young person
03000004 06 n 01 engine 0 001 @ 00001740 n 0000 | a motor
"""

OMW = """# Spanish fragment
10000002-n\tspa:lemma\tingeniero
10000002-n\tspa:lemma\tingeniera
10000003-n\tspa:lemma\tniño
10000003-n\tspa:lemma\tniña
10000001-n\tspa:lemma\ttrabajador
10000001-n\tspa:lemma\ttrabajadora
03000004-n\tspa:lemma\tmotor
03000004-n\tspa:lemma\tmotora
10000003-v\tspa:lemma\tcrecer
"""


def test_candidates_from_a_wordnet_fragment(tmp_path):
    (tmp_path / "data.noun").write_text(DATA_NOUN)
    (tmp_path / "wn-data-spa.tab").write_text(OMW)
    hypernyms = read_pwn_hypernyms(tmp_path / "data.noun")
    assert hypernyms["10000002"] == {"10000001"}
    persons = person_synsets(hypernyms)
    assert persons == {PERSON, "10000001", "10000002", "10000003"}  # the engine is not a person
    lemmas = read_omw_lemmas(tmp_path / "wn-data-spa.tab")
    pairs = gender_pairs(lemmas, persons, load_suffixes("es"))
    expected = [("ingeniero", "ingeniera"), ("niño", "niña"), ("trabajador", "trabajadora")]
    assert [(m, f) for m, f, _ in pairs] == expected
    assert pairs[0][2] == ["10000002"]


def test_bad_lines_are_named(tmp_path):
    (tmp_path / "data.noun").write_text(f"{PERSON} 03 n xx\n")
    with pytest.raises(ValueError, match=r"data.noun:1: not a WordNet data line"):
        read_pwn_hypernyms(tmp_path / "data.noun")
    (tmp_path / "wn.tab").write_text("garbage\n")
    with pytest.raises(ValueError, match=r"wn.tab:1: expected"):
        read_omw_lemmas(tmp_path / "wn.tab")
    with pytest.raises(ValueError, match="no Study A language file for 'xx'"):
        load_suffixes("xx")


PWN = "/usr/share/wordnet/data.noun"  # Debian's wordnet-base
OMW_CODES = {"fr": "fra", "it": "ita"}


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_candidates_on_the_real_wordnets(lang):
    """Princeton WordNet 3.0 + the Open Multilingual Wordnet: the person pairs the project checked by hand."""
    from pathlib import Path

    code = OMW_CODES[lang]
    omw = Path(__file__).resolve().parents[3] / "shared" / "data" / "omw" / code / f"wn-data-{code}.tab"
    if not Path(PWN).exists() or not omw.exists():
        pytest.skip(f"needs {PWN} (apt-get install wordnet-base) and {omw}")
    persons = person_synsets(read_pwn_hypernyms(PWN))
    assert len(persons) > 10_000  # every synset below person.n.01
    pairs = {(m, f) for m, f, _ in gender_pairs(read_omw_lemmas(omw), persons, load_suffixes(lang))}
    expected = {"fr": {("acteur", "actrice"), ("ami", "amie"), ("directeur", "directrice")},
                "it": {("attore", "attrice"), ("figlio", "figlia"), ("scrittore", "scrittrice")}}[lang]
    assert expected <= pairs
