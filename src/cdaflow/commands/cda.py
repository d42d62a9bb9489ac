"""`cdaflow cda`: counterfactual copies of sentences with every animate noun's gender changed."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from cdaflow.api import CDA, raw_text_refusal, warnings_to_stderr
from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    batches,
    conllu_input,
    example_epilog,
    output,
    progress,
    refuse_inapplicable,
    text_lines,
    write_record,
)
from cdaflow.commands.options import batch_size, processes
from cdaflow.io.conllu import read_conllu, source_info, surface_tokens, words, write_conllu
from cdaflow.morph_cda import animals as animal_lists
from cdaflow.morph_cda import language as languages
from cdaflow.morph_cda.cda import DIRECTIONS, agreement_reach, interventions_for
from cdaflow.morph_cda.counterfactual_conllu import counterfactual_sentence
from cdaflow.morph_cda.persons import PERSONS, SpeakerRules, rules_languages, with_speakers
from cdaflow.morph_cda.surface import escape_spaces, spaces_after
from cdaflow.text.normalization import read_sentence, reading, written_spans
from cdaflow.text.parsing import BACKENDS, ends_line, segmenter_refusal

SENT_ID_PREFIX = "s"
EXAMPLES = """\
  echo "La profesora del pueblo está cansada." \\
    | cdaflow cda --lang es --model results/morph_cda/es/models/lin
  cdaflow cda --lang es --model results/morph_cda/es/models/lin --input frases.txt --output frases.jsonl
  cdaflow parse --lang es --input frases.txt --output frases.conllu
  cdaflow cda --lang es --model results/morph_cda/es/models/lin --format conllu --input frases.conllu \\
    --direction to-fem --output-format conllu --output contrafactuales.conllu
  echo "Estoy cansado y mi hermana está cansada." \\
    | cdaflow cda --lang es --model results/morph_cda/es/models/lin --persons all
  echo "La gata de mi vecino duerme." | cdaflow cda --lang es --model results/morph_cda/es/models/lin --animals
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
        "--lang", required=True, choices=languages.available(), help="a language file in resources/morph_cda/languages"
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

    refusal = (raw_text_refusal(args.lang, backend) or segmenter_refusal(args.lang, backend)
               if args.format == "text" else None)
    if refusal:  # raw text that cannot be read here (Hebrew without hspell): one line before anything loads
        raise ValueError(f"--lang {args.lang}: {refusal}")

    def read_input() -> None:
        # The input's first lines before the model loads: a missing, empty or mistaken file fails at once.
        read["input"] = conllu_input(args, "cda") if args.format == "conllu" else text_lines(args, "cda")

    with warnings_to_stderr("cda"):
        cda = CDA._load(args.model, lang=args.lang, direction=args.direction, gazetteer=args.gazetteer,
                        animals=args.animals, persons=args.persons, lexicon_check=not args.no_lexicon_check,
                        backend=backend, processes=args.processes, batch_size=args.batch_size,
                        max_chars=args.max_chars, before_load=read_input)
        return _write(args, cda, read["input"])


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
        records = _conllu_records(pairs)
    elif args.output_format == "conllu":
        pairs = cda._text_pairs(source, name)
    else:
        records = cda._records(source, name)
    # a file appears whole or not at all; the old one stays on failure
    with _lexicon_report(generator), _speakers_report(cda.speakers), output(args) as out:
        if args.output_format == "conllu":
            features = generator.inventory.features
            written = (counterfactual_sentence(sentence, result, args.lang, features) for sentence, result in pairs)
            write_conllu(progress(written, args, line_of=lambda sentence: _line_of(sentence, args)), out)
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


def _read_lines(lines, held: dict[int, str]) -> Iterator[tuple[int, str]]:
    """The lines as the parser and the lexicons read them (text.normalization.reading: NFC, as
    macOS writes NFD that no lexicon lists; ASCII apostrophes; a line in capitals in sentence
    case); a line read otherwise than written, or spaced otherwise than by single spaces (the
    parser reads it so: tabs, runs of spaces, no-break spaces), is kept in `held` by its number."""
    for number, line in lines:
        read = reading(line)
        if read != line or " ".join(line.split()) != line.strip():
            held[number] = line
        yield number, read


def _as_written(sentences, held: dict[int, str]) -> Iterator:
    """The sentences of the lines `_read_lines` held, with their surface tokens and text spelled
    and spaced as the line has them (the generator analyses them as read, keeps an unchanged word
    as written and gives a changed one the written one's case; the whitespace after a token other
    than one space is its SpacesAfter); a sentence whose tokens cannot be found in its line stays
    as read."""
    reached = (0, 0)  # (line number, NFC offset): where the line's last sentence ended
    for sentence in sentences:
        number = _line_of(sentence)
        for passed in [n for n in held if n < number]:
            del held[passed]
        line = held.get(number)
        if line is None:
            yield sentence
            continue
        tokens = surface_tokens(sentence)
        found = written_spans(line, [t["form"] for t in tokens], reached[1] if reached[0] == number else 0)
        if found is not None:
            spans, end = found
            reached = (number, end)
            for token, (start, stop) in zip(tokens, spans):
                token["form"] = line[start:stop]
                rest = line[stop:]
                if rest.strip():  # the line's last token has nothing after it
                    _space_after(token, rest[: len(rest) - len(rest.lstrip())])
            sentence.metadata["text"] = line[spans[0][0] : spans[-1][1]]
        yield sentence


def _counterfactuals(sentences, gazetteer, generator, args) -> Iterator[tuple[object, object]]:
    """(sentence, Counterfactual or None), in input order; one batched model call per chunk."""
    items = ((s, interventions_for(s, gazetteer, generator, args.direction)) for s in sentences)
    # a chunk closes early when a live input stalls, once it holds the last line read (text input)
    for chunk in batches(items, args.batch_size, line_of=lambda item: _read_line(item[0])):
        with_nouns = [(s, g) for s, g in chunk if g]
        results = iter(
            generator.generate([s for s, _ in with_nouns], [g for _, g in with_nouns]) if with_nouns else []
        )
        for sentence, group in chunk:
            yield sentence, _final_letters(next(results), generator.lang) if group else None


def _final_letters(result, lang: str):
    """`result` with its changed words spelled with the language's final letters (he.yaml
    ``multiword.final_letters``): a form built by appending an ending to a word that ends in a final
    letter (עייף + ה) has it inside (עייףה -> עייפה), and a form cut short needs one (ילדמ -> ילדם)."""
    finals = languages.load(lang).multiword.get("final_letters")
    if not finals:
        return result
    from cdaflow.text.hebrew import spell_final_letters

    for i in result.changed:
        form = result.forms[i]
        spelled = spell_final_letters(form, finals)
        if spelled != form:
            result.forms[i] = spelled
            result.counterfactual = result.counterfactual.replace(form, spelled)
    return result


def _with_options(pairs, people, animals, speakers, generator, args) -> Iterator[tuple[object, object]]:
    """The pairs with --animals' interventions marked "animals" and --persons all's changes added."""
    if animals is not None:
        pairs = _mark_animals(pairs, people, animals)
    return with_speakers(pairs, speakers, args.direction, generator.inventory.features)


def _mark_animals(pairs, people, animals) -> Iterator[tuple[object, object]]:
    """`by[i] = "animals"` for each intervened word that is an animal, not a person, noun, and
    for each changed word only the animal nouns' agreement reaches (*La gata* -> *El gato*)."""
    for sentence, result in pairs:
        if result is not None and result.intervened:
            read = read_sentence(sentence)
            ws = words(read)
            beasts = [i for i in result.intervened if animal_lists.is_animal(ws[i], people, animals, read)]
            if beasts:
                others = [i for i in result.intervened if i not in beasts]
                reached = agreement_reach(ws, beasts) - (agreement_reach(ws, others) if others else set())
                for i in [*beasts, *(j for j in result.changed if j in reached and j not in others)]:
                    result.by[i] = "animals"
        yield sentence, result


def _by(result, i: int) -> dict:
    """{"by": option} for a word an option changed; {} in a default run."""
    return {"by": result.by[i]} if result.by.get(i) else {}


def _changes(sentence, result) -> list[dict]:
    if result is None:
        return []
    ws = words(sentence)
    return [
        {"id": int(ws[i]["id"]), "from": ws[i]["form"], "to": result.forms[i], **_by(result, i)}
        for i in result.changed
        if result.forms[i] != ws[i]["form"]
    ]


def _intervened(sentence, result) -> list[dict]:
    """The nouns and pronouns whose gender was changed (a common-gender one keeps its form)."""
    if result is None:
        return []
    ws = words(sentence)
    return [
        {"id": int(ws[i]["id"]), "from": ws[i]["form"], "to": result.forms[i], **_by(result, i)}
        for i in result.intervened
    ]


def _conllu_records(pairs) -> Iterator[dict]:
    for sentence, result in pairs:
        info = source_info(sentence)
        yield {
            "line": info.line if info else None,
            "id": sentence.metadata.get("sent_id"),
            "original": sentence.metadata.get("text") if result is None else result.original,
            "counterfactual": _shown(result),
            "changed": _changes(sentence, result),
            "intervened": _intervened(sentence, result),
        }


def _line_of(sentence, args: argparse.Namespace | None = None) -> int:
    """The input line a sentence starts at: its place in a CoNLL-U file, or the <line> of the
    sent_id <prefix>-<line>-<k> that parse_numbered_lines gives text input."""
    if args is not None and args.format == "conllu":
        info = source_info(sentence)
        return info.line if info else 0
    return int(str(sentence.metadata["sent_id"]).split("-")[1])


def _space_after(token, gap: str) -> None:
    """Give `token` the whitespace `gap` after it in CoNLL-U's MISC: SpaceAfter=No for none,
    nothing for one space, else SpacesAfter with UD's escapes."""
    misc = {k: v for k, v in (token.get("misc") or {}).items() if k not in ("SpaceAfter", "SpacesAfter")}
    if not gap:
        misc["SpaceAfter"] = "No"
    elif gap != " ":
        misc["SpacesAfter"] = escape_spaces(gap)
    token["misc"] = misc or None


def _shown(result) -> str | None:
    """A result's counterfactual, or None where there is none or it is the sentence itself (a
    common-gender noun or pronoun with nothing agreeing that shows its gender: *ustedes*, *los
    clientes*): a record never offers the original as its counterfactual."""
    if result is None or result.counterfactual == result.original:
        return None
    return result.counterfactual


def _gap_after(sentence) -> str:
    """What separates a sentence from the next of its line, as its last token has it: nothing for
    SpaceAfter=No (spaCy splits *auteur-compositeur (avec* into several sentences), else a space
    or the token's SpacesAfter."""
    tokens = surface_tokens(sentence)
    gap = spaces_after(tokens[-1]) if tokens else True
    return gap if isinstance(gap, str) else " " if gap else ""


def _read_line(sentence) -> int | None:
    """The input line of a sentence parsed from text (sent_id <prefix>-<line>-<k>), None for CoNLL-U input."""
    if source_info(sentence) is not None:
        return None
    parts = str(sentence.metadata.get("sent_id", "")).split("-")
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def _line_records(lines, pairs) -> Iterator[dict]:
    """One record per input line: the line's sentences gathered, a blank line an empty record.
    A line's record goes out once its last sentence (as the parser marks it) is in, without
    waiting for the next line's (a slow pipe)."""
    pending, done = None, False
    for number, line in lines:
        parts = []
        while line.strip():  # a blank line has no sentence: nothing to wait for
            if pending is None and not done:
                pending = next(pairs, None)
                done = pending is None
            if pending is None or _line_of(pending[0]) != number:
                break
            parts.append(pending)
            last, pending = ends_line(pending[0]), None
            if last:
                break
        changed = [
            {"sentence": s.metadata["sent_id"], **change} for s, result in parts for change in _changes(s, result)
        ]
        intervened = [
            {"sentence": s.metadata["sent_id"], **noun} for s, result in parts for noun in _intervened(s, result)
        ]
        counterfactual = None
        if any(_shown(result) is not None for _, result in parts):
            counterfactual = "".join(
                (result.counterfactual if result is not None else s.metadata.get("text", "")) + _gap_after(s)
                for s, result in parts
            ).rstrip()
        yield {"line": number, "original": line, "counterfactual": counterfactual, "changed": changed,
               "intervened": intervened}
    if pending is not None:  # cannot happen: every sentence comes from a line read above
        raise RuntimeError(f"sentence {pending[0].metadata.get('sent_id')} matches no input line")
