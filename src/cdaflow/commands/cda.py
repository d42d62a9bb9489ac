"""`cdaflow cda`: counterfactual copies of sentences with every animate noun's gender changed."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import sys
from pathlib import Path

from cdaflow.commands.options import positive_int
from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import read_conllu, words
from cdaflow.io.text import open_input, read_lines
from cdaflow.morph_cda import language as languages
from cdaflow.morph_cda.cda import DIRECTIONS, Gazetteer, interventions_for, load_model
from cdaflow.text.parsing import BACKENDS, get_parser, parse_text_file


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "cda",
        help="morphological counterfactual data augmentation (Study A)",
        description=(
            "Change the gender of every animate noun (found with the model's gazetteer or --gazetteer) "
            "and of every third-person or plural personal pronoun (él/ella, nosotros, il/elle, lui/lei, "
            "loro...; the language file's), and re-inflect the words that agree with them. First- and "
            "second-person singular sentences (yo, tú, je, tu) are left as they are: they name no one "
            "whose gender the sentence shows. Reads raw text (parsed with --backend) or CoNLL-U; writes "
            "one JSON line per sentence: original, counterfactual, changed tokens and the intervened "
            "nouns and pronouns."
        ),
    )
    parser.add_argument(
        "--lang", required=True, choices=languages.available(), help="a language file in resources/morph_cda/languages"
    )
    parser.add_argument("--model", required=True, type=Path, help="results/morph_cda/<lang>/models/{lin,nn}")
    parser.add_argument("--input", type=Path, help="input file (default: standard input)")
    parser.add_argument("--output", type=Path, help="output file (default: standard output)")
    parser.add_argument("--format", choices=("text", "conllu"), default="text", help="input format")
    parser.add_argument("--direction", choices=DIRECTIONS, default="flip")
    parser.add_argument(
        "--backend", choices=sorted(set(BACKENDS) - {"gold"}), default="spacy", help="parser for text input"
    )
    parser.add_argument("--gazetteer", type=Path, help="TSV masculine/feminine/english replacing the model's")
    parser.add_argument(
        "--batch-size", type=positive_int, default=256, help="sentences per batched model call (default: 256)"
    )
    parser.add_argument(
        "--processes", type=positive_int, default=1, help="parser worker processes for text input (spacy; default: 1)"
    )
    parser.add_argument(
        "--no-lexicon-check",
        action="store_true",
        help="do not check generated forms against the language's Hunspell dictionaries "
        "(apt-get install hunspell hunspell-es hunspell-fr hunspell-it hunspell-he; skipped when absent)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    generator, gazetteer = load_model(args.model, lexicon_check=not args.no_lexicon_check)
    if generator.lang != args.lang:
        raise ValueError(f"{args.model}: the model is for {generator.lang!r}, not {args.lang!r}")
    if args.gazetteer:
        gazetteer = Gazetteer.read(args.gazetteer)
    where = args.gazetteer or args.model / "gazetteer.tsv"
    print(f"cdaflow cda: gazetteer {where}: {gazetteer.describe()}", file=sys.stderr)
    check = generator.hunspell.describe() if generator.hunspell else "off (--no-lexicon-check, or not installed)"
    print(f"cdaflow cda: lexicon check: {check}", file=sys.stderr)
    if args.format == "conllu":
        sentences = read_conllu(args.input if args.input else open_input(None))
    else:
        lines = read_lines(args.input)
        # the language file names its spaCy pipeline (none: the backend's default or its error)
        model = languages.load(args.lang).spacy if args.backend == "spacy" else None
        parser = get_parser(args.backend, args.lang, processes=args.processes, **({"model": model} if model else {}))
        sentences = parse_text_file(
            parser, lines, sent_id_prefix="s", batch_size=args.batch_size, path=str(args.input or "<stdin>")
        )
    items = ((s, interventions_for(s, gazetteer, generator, args.direction)) for s in sentences)
    # A file output appears whole or not at all: a failure midway leaves what was there before.
    with atomic_file(args.output) if args.output else contextlib.nullcontext(sys.stdout) as out:
        # Streamed in chunks: one batched MRF + reinflection call per chunk, output in input order.
        while chunk := list(itertools.islice(items, args.batch_size)):
            with_nouns = [(s, g) for s, g in chunk if g]
            results = iter(
                generator.generate([s for s, _ in with_nouns], [g for _, g in with_nouns])
                if with_nouns
                else []
            )
            for sentence, group in chunk:
                out.write(
                    json.dumps(_record(sentence, next(results) if group else None), ensure_ascii=False) + "\n"
                )
    return 0


def _record(sentence, result) -> dict:
    ws = words(sentence)
    if result is None:
        return {
            "id": sentence.metadata.get("sent_id"),
            "original": sentence.metadata.get("text"),
            "counterfactual": None,
            "changed": [],
            "intervened": [],
        }
    return {
        "id": sentence.metadata.get("sent_id"),
        "original": result.original,
        "counterfactual": result.counterfactual,
        "changed": [
            {"id": int(ws[i]["id"]), "from": ws[i]["form"], "to": result.forms[i]}
            for i in result.changed
            if result.forms[i] != ws[i]["form"]
        ],
        # the nouns and pronouns whose gender was changed (a common-gender one keeps its form)
        "intervened": [
            {"id": int(ws[i]["id"]), "from": ws[i]["form"], "to": result.forms[i]} for i in result.intervened
        ],
    }
