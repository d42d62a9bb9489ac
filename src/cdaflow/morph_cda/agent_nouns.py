"""Gazetteer candidates: agent nouns whose masculine and feminine forms both exist.

A noun of a treebank whose lemma ends in one of the language's agent endings (the language file's
``agent_endings``: es *-dor*, *-tor*, *-ero*, *-ario*; fr *-eur*, *-ier*; it *-tore*, *-iere*) is
paired with its feminine by the language's ``agent_suffixes`` (*navegador* -> *navegadora*); a pair
is a candidate when the Hunspell dictionaries know both forms and the gazetteer has neither. Many
such pairs name things (*ordenador* "computer", *secador* "hair dryer"): the list is checked by hand
before anything goes into a gazetteer, as the paper did with its WordNet lists.

    python -m cdaflow.morph_cda.agent_nouns es results/morph_cda/es/prepare/train.conllu \
        --gazetteer resources/morph_cda/gazetteers/es.tsv > agent_candidates.tsv
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from cdaflow.io.conllu import read_conllu, words
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.hunspell import Hunspell
from cdaflow.text.language import Language, available, load

__all__ = ["agent_noun_candidates", "noun_lemmas"]


def noun_lemmas(paths: Iterable[Path]) -> Counter[str]:
    """Lower-cased lemmas of the NOUN words of CoNLL-U files, with their counts."""
    counts: Counter[str] = Counter()
    for path in paths:
        for sentence in read_conllu(path):
            for word in words(sentence):
                if word["upos"] == "NOUN" and word["lemma"] and word["lemma"] != "_":
                    counts[word["lemma"].lower()] += 1
    return counts


def agent_noun_candidates(
    lemmas: Counter[str], language: Language, checker: Hunspell, gazetteer: Gazetteer | None = None
) -> list[tuple[str, str, int]]:
    """(masculine, feminine, count) of agent nouns both of whose forms the dictionaries know,
    most frequent first; none the gazetteer already has."""
    listed = set()
    if gazetteer is not None:
        listed = set(gazetteer.to_fem) | set(gazetteer.to_masc) | set(gazetteer.epicene)
    pairs = []
    for lemma, count in lemmas.items():
        if lemma in listed or not lemma.endswith(tuple(language.agent_endings)):
            continue
        for masc, fem in sorted(language.agent_suffixes, key=lambda pair: -len(pair[0])):
            if masc and lemma.endswith(masc):
                feminine = lemma[: len(lemma) - len(masc)] + fem
                if feminine not in listed:
                    pairs.append((lemma, feminine, count))
                break
    known = checker.known({form for pair in pairs for form in pair[:2]})
    found = [pair for pair in pairs if pair[0] in known and pair[1] in known]
    return sorted(found, key=lambda pair: (-pair[2], pair[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cdaflow.morph_cda.agent_nouns", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("lang", choices=available())
    parser.add_argument("conllu", nargs="+", type=Path, help="treebank files whose nouns are looked at")
    parser.add_argument("--gazetteer", type=Path, help="pairs already in this list are left out")
    args = parser.parse_args(argv)
    language = load(args.lang)
    checker = Hunspell.find(language.hunspell)
    if checker is None:
        print(f"error: hunspell and the dictionaries {', '.join(language.hunspell)} are needed", file=sys.stderr)
        return 2
    gazetteer = Gazetteer.read(args.gazetteer) if args.gazetteer else None
    candidates = agent_noun_candidates(noun_lemmas(args.conllu), language, checker, gazetteer)
    print("masculine\tfeminine\tcount")
    for masc, fem, count in candidates:
        print(f"{masc}\t{fem}\t{count}")
    print(f"{len(candidates)} candidates (check them by hand)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
