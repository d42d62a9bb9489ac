"""`cdaflow cda`: counterfactual copies of sentences with every animate noun's gender changed."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from cdaflow.api.errors import warnings_to_stderr
from cdaflow.api.morph_cda import CDA, raw_text_refusal
from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    conllu_input,
    example_epilog,
    output,
    progress,
    refuse_inapplicable,
    text_lines,
    write_record,
)
from cdaflow.commands.options import batch_size, processes
from cdaflow.cross_study.persons import PERSONS, SpeakerRules, rules_languages
from cdaflow.io.conllu import read_conllu, write_conllu
from cdaflow.morph_cda import animals as animal_lists
from cdaflow.morph_cda.cda import DIRECTIONS
from cdaflow.morph_cda.counterfactual_conllu import counterfactual_sentence
from cdaflow.morph_cda.records import conllu_records, line_of
from cdaflow.text import language as languages
from cdaflow.text.language import Language
from cdaflow.text.parsing import BACKENDS, segmenter_refusal

EXAMPLES = """\
  echo "La profesora del pueblo está cansada." \\
    | cdaflow cda --model results/morph_cda/es/models/lin
  cdaflow cda --model results/morph_cda/es/models/lin --input frases.txt --output frases.jsonl
  cdaflow parse --lang es --input frases.txt --output frases.conllu
  cdaflow cda --model results/morph_cda/es/models/lin --format conllu --input frases.conllu \\
    --direction to-fem --output-format conllu --output contrafactuales.conllu
  echo "Estoy cansado y mi hermana está cansada." \\
    | cdaflow cda --model results/morph_cda/es/models/lin --persons all
  echo "La gata de mi vecino duerme." | cdaflow cda --model results/morph_cda/es/models/lin --animals
"""
FORMATS = """\
  input  --format text: UTF-8, one sentence (or several) a line, parsed with --backend.
         --format conllu: CoNLL-U with lemmas, UPOS, features and a tree (e.g. `cdaflow parse`).
  output one JSON object a line. Text: one per input line, a blank line included, in order:
           {"line": 3, "original": "La profesora está cansada.",
            "counterfactual": "El profesor está cansado.",
            "changed": [{"sentence": "s-3-1", "id": 2, "from": "profesora", "to": "profesor"}, ...],
            "intervened": [{"sentence": "s-3-1", "id": 2, "from": "profesora", "to": "profesor"}]}
         ("counterfactual" is null when no animate noun was found (with --persons all: nor a
         first- or second-person word to change), or when changing its gender changes no word;
         the sentences of one line are rejoined as they were spaced).
         CoNLL-U: one per sentence, with "line" (where it starts in the file) and "id" (its
         sent_id); changed words are named by their word id.
         With --animals or --persons all, a change or intervention they made carries "by":
         "animals" (an animal noun) or "persons" (first/second-person agreement, Study B's rules).
  --output-format conllu: every sentence (text input: each sentence of each line; a blank line
         gives none) with the counterfactual's forms and agreement features, `# text` the
         counterfactual and `# original_text` the sentence; unchanged sentences as they are.
  gazetteer TSV with a header: masculine, feminine[, english, kind, masculine_plural, feminine_plural]
         (README, Study A); older 3-column lists (masculine, feminine, english) are read too.
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "cda",
        help="morphological counterfactual data augmentation (Study A)",
        description=(
            "Change the gender of every animate noun (found with the model's gazetteer or --gazetteer) "
            "and of the third-person or plural personal pronouns (él/ella, nosotros, il/elle, lui/lei, "
            "loro...; the language file's) that refer to a person: one whose antecedent in the sentence "
            "changes, or, with none there, by the language file's pronoun_referents (Spanish: always; "
            "French: a person's predicate), and re-inflect the words that agree with them (Zmigrod et al. "
            "2019). First- and second-person singular sentences (yo, tú, je, tu) are left as they are: "
            "they name no one whose gender the sentence shows (--persons all re-genders their agreement "
            "with Study B's rules). Reads raw text (parsed with --backend) or "
            "CoNLL-U; writes one JSON line per input line (or CoNLL-U sentence): original, counterfactual, "
            "changed words and the intervened nouns and pronouns."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument(
        "--lang", choices=languages.available(),
        help="a language file in resources/morph_cda/languages; default: the model's (refused if another)",
    )
    parser.add_argument(
        "--model", required=True, type=Path,
        help="a CDA model folder: results/morph_cda/<lang>/models/{lin,nn} (README: Models)",
    )
    add_input_arguments(parser, "input file")
    add_output_argument(parser, "JSON lines file (CoNLL-U with --output-format conllu)")
    parser.add_argument(
        "--output-format", choices=("jsonl", "conllu"), default="jsonl",
        help="jsonl: one JSON object per input line (default); conllu: every sentence as its "
        "counterfactual, annotated (changed forms and features), unchanged ones as they are",
    )
    parser.add_argument("--format", choices=("text", "conllu"), default="text", help="input format (default: text)")
    parser.add_argument(
        "--direction", choices=DIRECTIONS, default="flip",
        help="flip: every animate noun takes the other gender (default); to-fem / to-masc: only "
        "masculine / only feminine nouns change",
    )
    parser.add_argument(
        "--backend", choices=sorted(set(BACKENDS) - {"gold"}),
        help="text input: the parser (default: spacy)",
    )
    parser.add_argument(
        "--gazetteer", type=Path,
        help="a gazetteer TSV replacing the model's (header masculine, feminine[, english, kind, "
        "masculine_plural, feminine_plural]; see formats below)",
    )
    parser.add_argument(
        "--animals", action="store_true",
        help="also change animal nouns with a form for each sex (gato/gata, perro/perra, lobo/loba; "
        f"resources/morph_cda/animals/<lang>.tsv: {', '.join(animal_lists.available())}). Off by default: "
        "the augmentation is about people, an animal's sex is rarely what a bias study swaps, and "
        "several feminines have other senses (gata 'car jack', perra an insult, pata 'leg')",
    )
    parser.add_argument(
        "--persons", choices=PERSONS, default="third",
        help="third: the people a sentence names (nouns, third-person and plural pronouns; default, "
        "the paper's CDA); all: also first- and second-person agreement (Estoy cansado, ¡Qué "
        "contenta estás!) by Study B's rules (cdaflow regender --method rules) on the same parse, "
        f"where a first- or second-person verb or pronoun governs the word ({', '.join(rules_languages())} only)",
    )
    parser.add_argument(
        "--no-lexicon-check",
        action="store_true",
        help="do not check generated forms against the language's Hunspell dictionaries "
        "(apt-get install hunspell hunspell-es hunspell-fr hunspell-it hunspell-he; skipped when absent)",
    )
    parser.add_argument(
        "--batch-size", type=batch_size, default=256, help="sentences per batched model call (default: 256)"
    )
    parser.add_argument(
        "--processes", type=processes, default=1,
        help="text input, spacy: parser worker processes (default: 1)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    refuse_inapplicable(
        args,
        [
            ("--backend", args.backend is not None and args.format == "conllu",
             "to --format conllu (the input is parsed already)"),
            ("--processes", args.processes != 1 and args.format == "conllu",
             "to --format conllu (the input is parsed already)"),
            ("--processes", args.processes != 1 and args.backend == "stanza",
             "to --backend stanza (it runs in one process)"),
        ],
    )
    backend = args.backend or "spacy"
    read: dict[str, object] = {}

    if args.lang is not None:  # raw text that cannot be read here (Hebrew without hspell): before anything loads
        _refuse_raw_text(args, languages.load(args.lang), backend)

    def read_input(language: Language) -> None:
        if args.lang is None:  # the model's language: known once its folder is checked
            _refuse_raw_text(args, language, backend)
        # The input's first lines before the model loads: a missing, empty or mistaken file fails at once.
        read["input"] = conllu_input(args, "cda") if args.format == "conllu" else text_lines(args, "cda")

    with warnings_to_stderr("cda"):
        cda = CDA._load(args.model, lang=args.lang, direction=args.direction, gazetteer=args.gazetteer,
                        animals=args.animals, persons=args.persons, lexicon_check=not args.no_lexicon_check,
                        backend=backend, processes=args.processes, batch_size=args.batch_size,
                        max_chars=args.max_chars, before_load=read_input)
        return _write(args, cda, read["input"])


def _refuse_raw_text(args: argparse.Namespace, language: Language, backend: str) -> None:
    """One line when raw text of `language` cannot be read here (no pipeline; Hebrew without hspell)."""
    if args.format != "text":
        return
    refusal = raw_text_refusal(language, backend) or segmenter_refusal(language.code, backend)
    if refusal:
        given = f"--lang {language.code}" if args.lang else f"--model {args.model} ({language.code})"
        raise ValueError(f"{given}: {refusal}")


def _write(args: argparse.Namespace, cda: CDA, source) -> int:
    """The records (or counterfactual sentences) of the checked input, through the API's object."""
    generator = cda.generator
    print(f"cdaflow cda: gazetteer {cda.gazetteer_path}: {cda.people.describe()}", file=sys.stderr)
    if cda.animals is not None:
        print(f"cdaflow cda: animals (--animals): {cda.animals.describe()}", file=sys.stderr)
    if cda.speakers is not None:
        print(f"cdaflow cda: first and second person (--persons all): {cda.speakers.describe()}", file=sys.stderr)
    check = generator.hunspell.describe() if generator.hunspell else "off (--no-lexicon-check, or not installed)"
    print(f"cdaflow cda: lexicon check: {check}", file=sys.stderr)
    name = str(args.input or "<stdin>")
    if args.format == "conllu":
        pairs = cda._pairs(read_conllu(source) if source else iter(()))
        records = conllu_records(pairs)
    elif args.output_format == "conllu":
        pairs = cda._text_pairs(source, name)
    else:
        records = cda._records(source, name)
    # a file appears whole or not at all; the old one stays on failure
    with _lexicon_report(generator), _speakers_report(cda.speakers), output(args) as out:
        if args.output_format == "conllu":
            features = generator.inventory.features
            written = (counterfactual_sentence(sentence, result, cda.language, features) for sentence, result in pairs)
            conllu = args.format == "conllu"
            write_conllu(progress(written, args, line_of=lambda sentence: line_of(sentence, conllu)), out)
            return 0
        for record in progress(records, args, line_of=lambda record: record["line"] or 0):
            write_record(out, record)
    return 0


@contextlib.contextmanager
def _speakers_report(speakers: SpeakerRules | None) -> Iterator[None]:
    """Once the run ends: the rule changes (--persons all) that could not be placed in Study A's
    counterfactual, where Study A rewrote the text around them (one line; none when all were)."""
    try:
        yield
    finally:
        if speakers is not None and speakers.dropped:
            print(f"cdaflow cda: --persons all: {speakers.dropped} first/second-person change(s) left out: "
                  "Study A rewrote the words around them", file=sys.stderr)


@contextlib.contextmanager
def _lexicon_report(generator) -> Iterator[None]:
    """Once the run ends: the analyses the lexicon check could not read whole (one line on
    stderr, none when all were read); the Hunspell process is ended."""
    try:
        yield
    finally:
        if generator.hunspell is not None:
            report = generator.hunspell.report()
            if report:
                print(f"cdaflow cda: lexicon check: {report}", file=sys.stderr)
            generator.hunspell.close()
