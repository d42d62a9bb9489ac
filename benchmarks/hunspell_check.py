"""The lexicon check's cost: Hunspell through Debian's command line tool, against spylls (pure Python).

Loads each language's dictionaries and checks the same words (every form of the reinflection lexicon
of a model folder, or a built-in list), timing the first load and the checks:

    python benchmarks/hunspell_check.py --lang fr [--model results/morph_cda/fr/models/lin] [--repeat 3]

spylls is measured only where it is importable (it is not a dependency of the project:
``pip install --target /tmp/spylls spylls`` and ``PYTHONPATH=/tmp/spylls``). The command line tool
is what cdaflow uses (cdaflow.morph_cda.hunspell: one long-lived process; what that saves
`cdaflow cda` is measured by benchmarks/lexicon_check_throughput.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = {
    "fr": "inquiète inquietes gentille gentile fatiguée grand-mère actrice acteurs partisses parties belle bel".split(),
    "es": "acusada sida navegadora inquietes cansados cansadas ama alcaldesa obispa papisa".split(),
    "it": "gentile gentila attrice maestra dottoressa".split(),
    "he": "ילדה ילד מורה".split(),
}


def words_of(model: Path | None, lang: str) -> list[str]:
    if model is None or not (model / "reinflection" / "lexicon.tsv").is_file():
        return SAMPLE[lang]
    lines = (model / "reinflection" / "lexicon.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return sorted({line.split("\t")[3] for line in lines if " " not in line.split("\t")[3]})


def main(argv: list[str] | None = None) -> int:
    from cdaflow.morph_cda.hunspell import DICTIONARY_DIR, Hunspell
    from cdaflow.text.language import available, load

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", nargs="+", choices=available(), default=["es", "fr"])
    parser.add_argument("--model", type=Path, help="a model folder whose lexicon forms are checked")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    for lang in args.lang:
        names = load(lang).hunspell
        words = words_of(args.model, lang)
        checker = Hunspell.find(names)
        if checker is None:
            print(f"{lang}: hunspell or its dictionaries {names} are not installed")
            continue
        best = float("inf")
        for _ in range(args.repeat):
            with Hunspell(names) as fresh:  # no cache: the process starts, then one batch of every word
                started = time.perf_counter()
                known = fresh.known(words)
                best = min(best, time.perf_counter() - started)
        print(f"{lang}: hunspell command: {len(words)} words, {len(known)} known, {best:.2f} s "
              f"({len(words) / best:,.0f} words/s, dictionary load included)")
        try:
            from spylls.hunspell import Dictionary
        except ImportError:
            print(f"{lang}: spylls: not importable, not measured")
            continue
        started = time.perf_counter()
        dictionary = Dictionary.from_files(str(DICTIONARY_DIR / names[0]))
        loaded = time.perf_counter() - started
        sample = words[:2000]
        started = time.perf_counter()
        agree = sum(dictionary.lookup(w) == (w in known) for w in sample)
        checked = time.perf_counter() - started
        print(f"{lang}: spylls: load {loaded:.1f} s, {len(sample)} words in {checked:.2f} s "
              f"({len(sample) / checked:,.0f} words/s); agrees with the command on {agree}/{len(sample)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
