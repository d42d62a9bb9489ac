"""Animal nouns with sex-marked forms (*gato/gata*, *chien/chienne*): `cdaflow cda --animals`.

Off by default. Study A's augmentation (Zmigrod et al. 2019) changes the gender of the *people* a
sentence names; an animal's sex is rarely what a bias study means to swap, and several feminines
have other senses (*gata* "car jack", *perra* an insult, *pata* "leg"). A user who wants them asks
for them: the language's list in ``resources/morph_cda/animals/<lang>.tsv`` (the gazetteer format
of :mod:`cdaflow.morph_cda.gazetteer`, kept apart from the person lists) is added to the person
gazetteer, whose rows win where both list a form.
"""

from __future__ import annotations

import copy
from pathlib import Path

from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.text.language import PROJECT_ROOT

__all__ = ["ANIMALS_DIR", "available", "is_animal", "load", "with_animals"]

ANIMALS_DIR = PROJECT_ROOT / "resources" / "morph_cda" / "animals"


def available() -> list[str]:
    """The languages with an animal list."""
    return sorted(path.stem for path in ANIMALS_DIR.glob("*.tsv"))


def path_for(lang: str) -> Path:
    """The animal list of `lang`; a one-line ValueError when it has none."""
    path = ANIMALS_DIR / f"{lang}.tsv"
    if not path.is_file():
        raise ValueError(
            f"--animals: no animal list for {lang!r} (lists for {', '.join(available()) or 'no language'}; "
            f"add {path.relative_to(PROJECT_ROOT)} in the gazetteer format)"
        )
    return path


def load(lang: str) -> Gazetteer:
    """The animal gazetteer of `lang`."""
    return Gazetteer.read(path_for(lang))


def with_animals(people: Gazetteer, animals: Gazetteer) -> Gazetteer:
    """One gazetteer: `people`'s rows, then `animals`' for the forms `people` does not list
    (a person noun keeps its own counterpart and kind). Neither input is changed."""
    merged = copy.deepcopy(people)
    listed = set(people.to_fem) | set(people.to_masc) | set(people.epicene)
    for masc, fem in animals.to_fem.items():
        if masc in listed or fem in listed:
            continue
        merged.to_fem[masc] = fem
        if masc in animals.one_way:
            merged.one_way.add(masc)
        elif fem in animals.to_masc:
            merged.to_masc[fem] = masc
        if masc in animals.common:
            merged.common.add(masc)
        if masc in getattr(animals, "shared", ()):  # a pair-common row, where the list format has them
            merged.shared.add(masc)
        for gender, singular in (("Masc", masc), ("Fem", fem)):
            plural = animals.plurals.get((singular, gender))
            if plural:
                merged.plurals.setdefault((singular, gender), plural)
        if masc in animals.english:
            merged.english.setdefault(masc, animals.english[masc])
    for form, gender in animals.epicene.items():
        if form not in listed:
            merged.epicene.setdefault(form, gender)
    merged.source = [*people.source, *(f"+ animals {line}" for line in animals.source[:1])]
    return merged


def is_animal(word: dict, people: Gazetteer, animals: Gazetteer, sentence=None) -> bool:
    """Whether `word` is intervened on as an animal: the animal list knows it, the person list not."""
    return animals.lookup(word, sentence) is not None and people.lookup(word, sentence) is None
