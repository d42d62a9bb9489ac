"""Candidate animacy gazetteers from a WordNet (Zmigrod et al. 2019, §5.2: "We automatically extracted
an animacy gazetteer from WordNet (Bond and Paik, 2012) and then manually filtered the output").

* The hierarchy comes from Princeton WordNet 3.0's ``data.noun`` (``@``/``@i`` hypernym pointers):
  every noun synset below *person.n.01* (offset 00007846) is a person synset.
* The language's lemmas come from an Open Multilingual Wordnet tab file (``wn-data-<lang>.tab``:
  ``<offset>-n<TAB><lang>:lemma<TAB>lemma``), whose synsets are PWN 3.0 offsets.
* Masculine/feminine pairs are lemmas of the person synsets that one of the language's suffix
  alternations (the language file's ``agent_suffixes``: es -o/-a, -or/-ora, fr -eur/-euse,
  it -tore/-trice, ...) maps onto each other. The output is a candidate list with the synsets
  that support it, for the manual filtering the paper did; it is never used unchecked.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from cdaflow.text.language import load as load_language

__all__ = ["PERSON", "gender_pairs", "person_synsets", "read_omw_lemmas", "read_pwn_hypernyms"]

PERSON = "00007846"  # person.n.01 in WordNet 3.0


def read_pwn_hypernyms(path: str | Path) -> dict[str, set[str]]:
    """``{synset offset: its hypernym offsets}`` from a PWN ``data.noun`` file."""
    hypernyms: dict[str, set[str]] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if line.startswith("  ") or not line.strip():
                continue  # the licence header
            fields = line.split(" | ")[0].split()
            try:
                offset, n_words = fields[0], int(fields[3], 16)
                pointer_at = 4 + 2 * n_words
                n_pointers = int(fields[pointer_at])
            except (IndexError, ValueError):
                raise ValueError(f"{path}:{number}: not a WordNet data line") from None
            found = set()
            for k in range(n_pointers):
                symbol, target, pos = fields[pointer_at + 1 + 4 * k : pointer_at + 4 + 4 * k]
                if symbol in ("@", "@i") and pos == "n":
                    found.add(target)
            hypernyms[offset] = found
    return hypernyms


def person_synsets(hypernyms: Mapping[str, set[str]], root: str = PERSON) -> set[str]:
    """Every synset whose hypernym chain reaches `root` (root included)."""
    below: dict[str, set[str]] = defaultdict(set)
    for synset, parents in hypernyms.items():
        for parent in parents:
            below[parent].add(synset)
    found, frontier = {root}, [root]
    while frontier:
        for child in below.get(frontier.pop(), ()):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


def read_omw_lemmas(path: str | Path) -> dict[str, set[str]]:
    """``{PWN offset: lemmas}`` of the noun synsets in an OMW ``wn-data-<lang>.tab`` file."""
    lemmas: dict[str, set[str]] = defaultdict(set)
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or "-" not in fields[0]:
                raise ValueError(f"{path}:{number}: expected <offset>-<pos>, <lang>:lemma, lemma")
            offset, pos = fields[0].split("-", 1)
            if pos == "n" and fields[1].endswith(":lemma"):
                lemmas[offset.zfill(8)].add(fields[2].strip().replace("_", " ").lower())
    return dict(lemmas)


def load_suffixes(lang: str) -> list[tuple[str, str]]:
    """The language file's agent_suffixes (masculine -> feminine), longest first."""
    language = load_language(lang)
    if not language.agent_suffixes:
        raise ValueError(f"{language.source}: agent_suffixes: no suffix alternations for {lang!r}")
    return list(language.agent_suffixes)


def gender_pairs(
    lemmas_by_synset: Mapping[str, set[str]], persons: Iterable[str], suffixes: Sequence[tuple[str, str]]
) -> list[tuple[str, str, list[str]]]:
    """(masculine, feminine, supporting synsets) for person lemmas related by a suffix alternation."""
    person_set = set(persons)
    synsets_of: dict[str, set[str]] = defaultdict(set)
    for synset, lemmas in lemmas_by_synset.items():
        if synset in person_set:
            for lemma in lemmas:
                if " " not in lemma:
                    synsets_of[lemma].add(synset)
    pairs = []
    for masculine in sorted(synsets_of):
        for masc_end, fem_end in suffixes:
            if masculine.endswith(masc_end) and len(masculine) > len(masc_end):
                feminine = masculine[: len(masculine) - len(masc_end)] + fem_end
                if feminine in synsets_of and feminine != masculine:
                    support = sorted(synsets_of[masculine] | synsets_of[feminine])
                    pairs.append((masculine, feminine, support))
                    break
    return pairs
