"""Study A challenge set: exact match per construction of `cdaflow cda` on the project's sentences.

Reads ``tests/morph_cda/challenge/<lang>.tsv`` (construction, direction, sentence, gold), runs the
same pipeline as ``cdaflow cda`` (the text parser, the gazetteer's interventions in the row's
direction, one batched MAP + reinflection call) and prints, per construction, how many
counterfactuals equal the gold exactly. A sentence without an animate noun counts as unchanged.

    python benchmarks/morph_cda_challenge.py --lang es [--model results/morph_cda/es/models/lin]
        [--gazetteer resources/morph_cda/gazetteers/es.tsv] [--misses]

Raw text needs a parser: spaCy pipelines are installed for es and fr; it and he read raw text with
the parser the rule ``morph_cda_parser`` trains (``snakemake results/morph_cda/<lang>/parser``; he also
needs hspell to split prefixes). Without one the script says so and skips the language, unless
``--conllu`` gives the sentences already parsed (one sentence per row, in the file's order).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHALLENGE = ROOT / "tests" / "morph_cda" / "challenge"
COLUMNS = ["construction", "direction", "sentence", "gold"]
CONSTRUCTIONS = (
    "predicative",
    "passive",
    "attributive",
    "relative",
    "coordination",
    "postnominal_det",
    "plural",
    "two_animate",
    "common_gender",
    "epicene",
    "pronoun",
    "perfect",
    "quantifier",
    "headless",
    "stressed_a",
    "demonstrative",
    "title",
    "agent_noun",
    "distinct_feminine",
    "predicate_noun",
    "kinship_sense",
    "object_participle",
    "noun_adjective",
    "prenominal_det",
    "possessive",
    "numeral",
    "future",
)


def read_challenge(path: Path) -> list[dict[str, str]]:
    """The rows of a challenge TSV; a malformed row stops with its file, line and field."""
    from cdaflow.morph_cda.cda import DIRECTIONS

    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header != COLUMNS:
            raise ValueError(f"{path}: line 1: expected the header {' '.join(COLUMNS)}, got {header}")
        rows = []
        for line, cells in enumerate(reader, start=2):
            if len(cells) != len(COLUMNS):
                raise ValueError(f"{path}: line {line}: expected {len(COLUMNS)} columns, got {len(cells)}")
            row = dict(zip(COLUMNS, cells))
            if row["construction"] not in CONSTRUCTIONS:
                raise ValueError(f"{path}: line {line}: construction {row['construction']!r} is unknown")
            if row["direction"] not in DIRECTIONS or row["direction"] == "flip":
                raise ValueError(f"{path}: line {line}: direction {row['direction']!r} is not to-fem or to-masc")
            for field in ("sentence", "gold"):
                if not row[field].strip():
                    raise ValueError(f"{path}: line {line}: empty {field}")
            rows.append(row)
    return rows


def counterfactuals(rows, generator, gazetteer, lang: str, conllu: Path | None) -> list[str]:
    """What `cdaflow cda` prints as the counterfactual of each row (the sentence when nothing changes)."""
    from cdaflow.io.conllu import read_conllu
    from cdaflow.morph_cda.interventions import interventions_for
    from cdaflow.text.language import load as load_language
    from cdaflow.text.parsing import get_parser, parse_text_file

    if conllu is not None:
        sentences = read_conllu(conllu)
        if len(sentences) != len(rows):
            raise ValueError(f"{conllu}: {len(sentences)} sentences for {len(rows)} challenge rows")
    else:
        model = load_language(lang).spacy
        parser = get_parser("spacy", lang, **({"model": model} if model else {}))
        parsed = parse_text_file(parser, [r["sentence"] for r in rows], sent_id_prefix="c", path="challenge")
        sentences = _one_per_row(parsed, len(rows))
    groups = [interventions_for(s, gazetteer, generator, r["direction"]) for s, r in zip(sentences, rows)]
    chosen = [i for i, group in enumerate(groups) if group]
    made = generator.generate([sentences[i] for i in chosen], [groups[i] for i in chosen]) if chosen else []
    out = [r["sentence"] for r in rows]
    for i, result in zip(chosen, made):
        out[i] = result.counterfactual
    return out


def _one_per_row(parsed, n_rows: int) -> list:
    """One tree per row: a row is one sentence, so the pieces a parser cut it into (ids c-<row>-<k>)
    are joined again, as the parser module joins a re-parsed treebank sentence."""
    from cdaflow.text.parsing import merge_sentences

    pieces: dict[int, list] = defaultdict(list)
    for sentence in parsed:
        pieces[int(sentence.metadata["sent_id"].split("-")[1])].append(sentence)
    if sorted(pieces) != list(range(1, n_rows + 1)):
        raise ValueError("the parser lost a challenge row")
    out = []
    for row in range(1, n_rows + 1):
        parts = pieces[row]
        if len(parts) == 1:
            out.append(parts[0])
        else:
            text = " ".join(p.metadata["text"] for p in parts)
            out.append(merge_sentences(parts, {"sent_id": f"c-{row}-1", "text": text}))
    return out


def score(rows, predictions) -> dict[str, tuple[int, int]]:
    """{construction: (exact, total)} in CONSTRUCTIONS order, "all" last."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, predicted in zip(rows, predictions):
        for key in (row["construction"], "all"):
            counts[key][0] += predicted == row["gold"]
            counts[key][1] += 1
    order = [c for c in CONSTRUCTIONS if c in counts] + ["all"]
    return {c: (counts[c][0], counts[c][1]) for c in order}


def table(rows, predictions) -> str:
    """Exact match per construction: all rows, then each direction apart."""
    columns = {"all": score(rows, predictions)}
    for direction in ("to-fem", "to-masc"):
        chosen = [(r, p) for r, p in zip(rows, predictions) if r["direction"] == direction]
        columns[direction] = score([r for r, _ in chosen], [p for _, p in chosen])

    def cell(counts, key):
        exact, total = counts.get(key, (0, 0))
        return f"{exact:>3}/{total:<3} {100 * exact / total:5.1f}" if total else f"{'-':>15}"

    lines = [f"{'construction':<16} " + " ".join(f"{name:>15}" for name in columns)]
    for key in columns["all"]:
        lines.append(f"{key:<16} " + " ".join(cell(counts, key) for counts in columns.values()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    from cdaflow.text.language import available

    parser.add_argument("--lang", nargs="+", choices=available(), default=["es", "fr", "it", "he"])
    parser.add_argument("--model", type=Path, help="model folder (default results/morph_cda/<lang>/models/lin)")
    parser.add_argument("--gazetteer", type=Path, help="replaces the model's gazetteer (as cdaflow cda --gazetteer)")
    parser.add_argument("--conllu", type=Path, help="the sentences already parsed (one language only)")
    parser.add_argument("--challenge-dir", type=Path, default=CHALLENGE)
    parser.add_argument("--misses", action="store_true", help="print every sentence that is not exactly right")
    parser.add_argument("--no-lexicon-check", action="store_true", help="as cdaflow cda --no-lexicon-check")
    parser.add_argument(
        "--lexicon-report",
        action="store_true",
        help="how many reinflected forms the lexicon check vetoed, and every generated word of the outputs "
        "that the language's Hunspell dictionaries do not know",
    )
    args = parser.parse_args(argv)
    if args.conllu and len(args.lang) != 1:
        parser.error("--conllu needs exactly one --lang")

    from cdaflow.morph_cda.gazetteer import Gazetteer
    from cdaflow.morph_cda.model_folder import load_model
    from cdaflow.text.parsing import ParserUnavailable

    status = 0
    for lang in args.lang:
        model = args.model or ROOT / "results" / "morph_cda" / lang / "models" / "lin"
        rows = read_challenge(args.challenge_dir / f"{lang}.tsv")
        if not model.exists():
            print(f"{lang}: skipped: no model at {model} (train one: snakemake results/morph_cda/{lang}/models/lin)")
            continue
        generator, gazetteer = load_model(model, lexicon_check=not args.no_lexicon_check)
        if generator.lang != lang:
            print(f"{lang}: skipped: {model} is a {generator.lang!r} model")
            status = 1
            continue
        if args.gazetteer:
            gazetteer = Gazetteer.read(args.gazetteer)
        try:
            predictions = counterfactuals(rows, generator, gazetteer, lang, args.conllu)
        except ParserUnavailable as error:
            print(f"{lang}: skipped: raw text cannot be parsed here ({error}); pass --conllu with the parsed sentences")
            continue
        print(f"{lang}: model {model}; gazetteer {gazetteer.describe().split(':')[0]}")
        print(table(rows, predictions))
        if args.misses:
            for row, predicted in zip(rows, predictions):
                if predicted != row["gold"]:
                    print(f"  [{row['construction']}] {row['sentence']}\n    got  {predicted}\n    gold {row['gold']}")
        if args.lexicon_report:
            print(lexicon_report(generator, rows, predictions))
    return status


def lexicon_report(generator, rows, predictions) -> str:
    """The lexicon check's counts on these rows, and the generated words no dictionary knows."""
    import re

    from cdaflow.morph_cda.hunspell import Hunspell

    stats = generator.lexicon_stats
    lines = [
        f"lexicon check: {stats['checked']} reinflected forms checked, {stats['vetoed']} vetoed for another "
        f"candidate, {stats['unknown']} with no candidate any dictionary knows"
    ]
    lines += [f"  vetoed {old} -> {new} ({n}x)" for (old, new), n in sorted(generator.vetoed_forms.items())]
    checker = generator.hunspell or Hunspell.find(generator.language.hunspell)
    if checker is None:
        return "\n".join([*lines, "generated words: not checked (Hunspell dictionaries not installed)"])
    tokenize = re.compile(r"[\w'’-]+")
    generated = sorted(
        {
            word
            for row, predicted in zip(rows, predictions)
            for word in set(tokenize.findall(predicted)) - set(tokenize.findall(row["sentence"]))
        }
    )
    # an elided article stays on its word (L'attrice): the word after the apostrophe is checked too
    after = {w: re.split(r"['’]", w)[-1] for w in generated}
    candidates = {form for w in generated for form in (w, w.lower(), after[w], after[w].lower()) if form}
    known = checker.known(candidates)
    unknown = [w for w in generated if not {w, w.lower(), after[w], after[w].lower()} & known]
    lines.append(f"generated words: {len(generated)}, unknown to {checker.describe()}: {len(unknown)}")
    lines += [f"  unknown: {w}" for w in unknown]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
