"""A lexicon check on generated forms: Debian's Hunspell dictionaries, through the ``hunspell`` command.

A form the reinflector makes that no dictionary knows (*inquietes*, *gentile*) is a warning sign.
:class:`Hunspell` answers, for a batch of words, their analyses in the language's dictionaries
(``hunspell -m``: one run per batch, results cached). Every known word has at least one analysis;
the French dictionary (Grammalecte's) also gives gender and number (``is:fem``, ``is:mas``,
``is:epi`` for both genders, ``is:sg``, ``is:pl``, ``is:inv`` for both numbers), so a candidate
can be checked against the features it is meant to have; the Spanish, Italian and Hebrew ones
only say whether a word exists.

The dictionaries are Debian packages (``apt-get install hunspell hunspell-es hunspell-fr
hunspell-it hunspell-he``). Without the command or a language's dictionaries
:meth:`Hunspell.find` returns None and callers go on without the check.

The command line tool was chosen over spylls (a pure-Python port on PyPI): one run loads the
French dictionary and checks the 5,719 forms of the validation model's lexicon in 0.26 s; spylls
takes 2.4 s to load it and checks 2,600 words/s, and agrees on 1,990 of 2,000 words
(benchmarks/hunspell_check.py, on this project's 2-core machine).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["DICTIONARY_DIR", "Analysis", "Hunspell", "agrees", "features_of", "genderless"]

DICTIONARY_DIR = Path("/usr/share/hunspell")
# One analysis: its fields, e.g. {"st:inquiet", "po:adj", "is:fem", "is:sg"}.
Analysis = frozenset[str]
_GENDER = {"Masc": "is:mas", "Fem": "is:fem"}
_NUMBER = {"Sing": "is:sg", "Plur": "is:pl"}


class Hunspell:
    """Analyses of words in one or more Hunspell dictionaries (``name.dic`` + ``name.aff``)."""

    def __init__(self, dictionaries: Sequence[str], *, directory: Path = DICTIONARY_DIR, command: str = "hunspell"):
        if not dictionaries:
            raise ValueError("no Hunspell dictionary named")
        self.dictionaries = tuple(dictionaries)
        self.directory = Path(directory)
        self.command = command
        self._cache: dict[str, tuple[Analysis, ...]] = {}

    @classmethod
    def find(
        cls, dictionaries: Sequence[str], *, directory: Path | None = None, command: str = "hunspell"
    ) -> Hunspell | None:
        """A checker when the command and every dictionary are installed, else None."""
        folder = Path(directory or DICTIONARY_DIR)
        if not dictionaries or shutil.which(command) is None:
            return None
        if not all((folder / f"{name}.dic").is_file() and (folder / f"{name}.aff").is_file() for name in dictionaries):
            return None
        return cls(dictionaries, directory=folder, command=command)

    def describe(self) -> str:
        return f"hunspell {', '.join(self.dictionaries)} ({self.directory})"

    def analyses(self, words: Iterable[str]) -> dict[str, tuple[Analysis, ...]]:
        """{word: its analyses} (empty for a word no dictionary knows), one command run per batch."""
        wanted = list(dict.fromkeys(words))
        missing = [w for w in wanted if w not in self._cache and _checkable(w)]
        if missing:
            self._cache.update(self._run(missing))
        return {w: self._cache.get(w, ()) for w in wanted}

    def known(self, words: Iterable[str]) -> set[str]:
        return {w for w, found in self.analyses(words).items() if found}

    def _run(self, words: Sequence[str]) -> dict[str, tuple[Analysis, ...]]:
        paths = ",".join(str(self.directory / name) for name in self.dictionaries)
        result = subprocess.run(
            [self.command, "-m", "-i", "utf-8", "-d", paths],
            input="\n".join(words) + "\n",
            capture_output=True,
            text=True,
            encoding="utf-8",
            env={**os.environ, "LC_ALL": "C.UTF-8"},
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{self.command} failed ({result.returncode}): {result.stderr.strip()[:200]}")
        blocks = [block for block in result.stdout.split("\n\n") if block.strip()]
        if len(blocks) != len(words):  # a word the tool split in two: map the blocks by their word
            found: dict[str, list[Analysis]] = {}
            for block in blocks:
                for line in block.splitlines():
                    word, _, fields = line.partition("  ")
                    if fields:
                        found.setdefault(word, []).append(frozenset(fields.split()))
            return {w: tuple(found.get(w, ())) for w in words}
        out = {}
        for word, block in zip(words, blocks):
            fields = (line.partition("  ")[2] for line in block.splitlines())
            out[word] = tuple(frozenset(f.split()) for f in fields if f.strip())
        return out


def _checkable(word: str) -> bool:
    # one token per line: hunspell would split a word with spaces in it
    return bool(word) and not any(c.isspace() for c in word)


def agrees(analyses: Sequence[Analysis], features: Mapping[str, str], *, marks_gender: bool = False) -> bool:
    """Whether a known word can have these Gender and Number values.

    An analysis without gender or number fields (Spanish, Italian, Hebrew dictionaries) does not
    contradict them; where some analyses have them (French *inquiète*: an adjective, and a verb
    form without them) only those count. ``is:epi`` fits both genders and ``is:inv`` both numbers.
    With `marks_gender` (a dictionary that gives every adjective and participle its gender) a word
    meant to have a gender needs a reading with one: *partisses* is a verb form, not a feminine
    plural.
    """
    gender, number = _GENDER.get(features.get("Gender", "")), _NUMBER.get(features.get("Number", ""))
    # a word with gendered readings (inquiète: adjective, also a verb form) is judged by those
    gendered = [a for a in analyses if a & {"is:mas", "is:fem", "is:epi"}]
    if marks_gender and gender and not gendered:
        return False
    for analysis in gendered or analyses:
        genders = {f for f in analysis if f in ("is:mas", "is:fem", "is:epi")}
        numbers = {f for f in analysis if f in ("is:sg", "is:pl", "is:inv")}
        if gender and genders and not genders & {gender, "is:epi"}:
            continue
        if number and numbers and not numbers & {number, "is:inv"}:
            continue
        return True
    return False


def genderless(analyses: Sequence[Analysis], parts_of_speech: Iterable[str] = ("po:adj", "po:ppas")) -> bool:
    """Whether every adjective or participle reading fits both genders (French *jeune*, *malade*)."""
    chosen = [a for a in analyses if a & set(parts_of_speech)]
    return bool(chosen) and all("is:epi" in a for a in chosen)


def features_of(analyses: Sequence[Analysis], parts_of_speech: Iterable[str] = ("po:adj", "po:ppas")) -> dict[str, str]:
    """Gender and Number every analysis of those parts of speech agrees on ({} when none or they differ)."""
    chosen = [a for a in analyses if a & set(parts_of_speech)]
    out: dict[str, str] = {}
    for feature, table, neutral_field in (("Gender", _GENDER, "is:epi"), ("Number", _NUMBER, "is:inv")):
        values = {value for a in chosen for value, field in table.items() if field in a}
        neutral = any(neutral_field in a for a in chosen)
        if len(values) == 1 and not neutral:
            out[feature] = values.pop()
    return out
