"""`cdaflow cda --animals`: the animal lists, kept apart from the person gazetteers, and how they join them."""

import pytest

from cdaflow.morph_cda import animals
from cdaflow.morph_cda.gazetteer import Gazetteer

HEADER = "masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"


def noun(form: str, lemma: str, gender: str, number: str = "Sing") -> dict:
    return {"id": 1, "form": form, "lemma": lemma, "upos": "NOUN", "feats": {"Gender": gender, "Number": number},
            "head": 0, "deprel": "root"}


def test_lists_for_es_fr_it():
    assert animals.available() == ["es", "fr", "it"]
    es, fr, it = animals.load("es"), animals.load("fr"), animals.load("it")
    assert (es.to_fem["gato"], es.to_fem["perro"], es.to_fem["lobo"], es.to_fem["caballo"]) == (
        "gata", "perra", "loba", "yegua")
    assert es.plurals[("león", "Masc")] == "leones" and es.plurals[("yegua", "Fem")] == "yeguas"
    assert (fr.to_fem["chien"], fr.to_masc["louve"], fr.plurals[("cheval", "Masc")]) == ("chienne", "loup", "chevaux")
    assert (it.to_fem["gatto"], it.plurals[("cane", "Masc")]) == ("gatta", "cani")
    # a feminine that mostly names something else is never looked up (pata "leg", lupa "magnifying glass")
    assert "pata" not in es.to_masc and "lupa" not in it.to_masc and es.to_fem["pato"] == "pata"


def test_no_animal_is_in_the_person_lists():
    for lang in animals.available():
        people = Gazetteer.read(animals.PROJECT_ROOT / "resources/morph_cda/gazetteers" / f"{lang}.tsv")
        assert not set(animals.load(lang).to_fem) & set(people.to_fem), lang


def test_joined_to_the_person_list(tmp_path):
    people_path = tmp_path / "people.tsv"
    people_path.write_text(HEADER + "hijo\thija\tson\tpair\thijos\thijas\ngato\tgata\tmate (a test row)\tpair\t\t\n",
                           encoding="utf-8")
    people = Gazetteer.read(people_path)
    both = animals.with_animals(people, animals.load("es"))
    assert both.lookup(noun("perra", "perro", "Fem")).form == "perro"
    assert both.lookup(noun("lobos", "lobo", "Masc", "Plur")).form == "lobas"
    assert both.lookup(noun("hija", "hijo", "Fem")).form == "hijo"
    assert both.english["gato"] == "mate (a test row)"  # the person row wins
    assert "perro" not in people.to_fem  # the person list is left as it was
    assert animals.is_animal(noun("perra", "perro", "Fem"), people, animals.load("es"))
    assert not animals.is_animal(noun("gata", "gato", "Fem"), people, animals.load("es"))
    assert not animals.is_animal(noun("hija", "hijo", "Fem"), people, animals.load("es"))


def test_a_language_without_a_list_refused_in_one_line():
    with pytest.raises(ValueError) as info:
        animals.load("he")
    assert str(info.value) == (
        "--animals: no animal list for 'he' (lists for es, fr, it; add resources/morph_cda/animals/he.tsv "
        "in the gazetteer format)"
    )
