"""Study A's records of raw text and CoNLL-U: sentences read as parsed and spelled as written,
their counterfactuals in batches, and one JSON record per input line (or CoNLL-U sentence).

``cdaflow cda`` and :class:`cdaflow.api.CDA` make their records here: one code path, so a record of
the API is the record the command writes.
"""

from __future__ import annotations

from collections.abc import Iterator

from cdaflow.io.conllu import source_info, surface_tokens, words
from cdaflow.io.text import chunks
from cdaflow.morph_cda import animals as animal_lists
from cdaflow.morph_cda.agreement_reach import agreement_reach
from cdaflow.morph_cda.interventions import interventions_for
from cdaflow.morph_cda.surface import escape_spaces, spaces_after
from cdaflow.text.language import Language
from cdaflow.text.normalization import read_sentence, reading, written_spans
from cdaflow.text.parsing import ends_line

# The sent_id of a sentence parsed from text: s-<line>-<k>.
SENT_ID_PREFIX = "s"


def lines_as_read(lines, held: dict[int, str]) -> Iterator[tuple[int, str]]:
    """The lines as the parser and the lexicons read them (text.normalization.reading: NFC, as
    macOS writes NFD that no lexicon lists; ASCII apostrophes; a line in capitals in sentence
    case); a line read otherwise than written, or spaced otherwise than by single spaces (the
    parser reads it so: tabs, runs of spaces, no-break spaces), is kept in `held` by its number."""
    for number, line in lines:
        read = reading(line)
        if read != line or " ".join(line.split()) != line.strip():
            held[number] = line
        yield number, read


def as_written(sentences, held: dict[int, str]) -> Iterator:
    """The sentences of the lines `lines_as_read` held, with their surface tokens and text spelled
    and spaced as the line has them (the generator analyses them as read, keeps an unchanged word
    as written and gives a changed one the written one's case; the whitespace after a token other
    than one space is its SpacesAfter); a sentence whose tokens cannot be found in its line stays
    as read."""
    reached = (0, 0)  # (line number, NFC offset): where the line's last sentence ended
    for sentence in sentences:
        number = line_of(sentence)
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


# What ends a sentence: a piece of a line ending otherwise (spaCy's *Commentaire du président :* | *il
# n'accepte pas*, *Annoncé hier matin--* | *dans les colonnes ...*) goes on in the next one.
_SENTENCE_ENDS = (".", "!", "?", "…")
_CLOSING = "»\"”’')]"


def joined_at_weak_breaks(sentences) -> Iterator:
    """The sentences of text input, where a parser cut a line's sentence at a colon, a dash or no
    punctuation at all, joined again into one tree (as the parser module joins a re-parsed treebank
    sentence: later roots a parataxis of the first): a pronoun after the cut finds its antecedent
    before it, a participle its subject."""
    from cdaflow.text.parsing import mark_line_end, merge_sentences

    pending: list = []

    def flush():
        if len(pending) == 1:
            yield pending[0]
        elif pending:
            text = "".join(p.metadata.get("text", "") + _gap_after(p) for p in pending[:-1])
            text += pending[-1].metadata.get("text", "")
            merged = merge_sentences(pending, {**pending[0].metadata, "text": text})
            if ends_line(pending[-1]):
                mark_line_end(merged)
            yield merged
        pending.clear()

    def line(sentence) -> str | None:  # the <line> of sent_id <prefix>-<line>-<k>
        parts = str(sentence.metadata.get("sent_id", "")).split("-")
        return parts[1] if len(parts) == 3 else None

    for sentence in sentences:
        if pending and line(pending[-1]) != line(sentence):
            yield from flush()
        pending.append(sentence)
        last = (words(sentence)[-1]["form"] or "").rstrip(_CLOSING) if words(sentence) else "."
        if ends_line(sentence) or line(sentence) is None or last.endswith(_SENTENCE_ENDS):
            yield from flush()
    yield from flush()


def counterfactuals(sentences, gazetteer, generator, options) -> Iterator[tuple[object, object]]:
    """(sentence, Counterfactual or None), in input order; one batched model call per chunk.
    `options` has the run's ``direction`` and ``batch_size`` (the command's arguments, the CDA tool)."""
    items = ((s, interventions_for(s, gazetteer, generator, options.direction)) for s in sentences)
    # a chunk closes early when a live input stalls, once it holds the last line read (text input)
    for chunk in chunks(items, options.batch_size, line_of=lambda item: _read_line(item[0])):
        with_nouns = [(s, g) for s, g in chunk if g]
        results = iter(
            generator.generate([s for s, _ in with_nouns], [g for _, g in with_nouns]) if with_nouns else []
        )
        for sentence, group in chunk:
            yield sentence, _final_letters(next(results), generator.language) if group else None


def _final_letters(result, language: Language):
    """`result` with its changed words spelled with the language's final letters (he.yaml
    ``multiword.final_letters``): a form built by appending an ending to a word that ends in a final
    letter (עייף + ה) has it inside (עייףה -> עייפה), and a form cut short needs one (ילדמ -> ילדם)."""
    finals = language.multiword.get("final_letters")
    if not finals:
        return result
    from cdaflow.text.language import spell_final_letters

    for i in result.changed:
        form = result.forms[i]
        spelled = spell_final_letters(form, finals)
        if spelled != form:
            result.forms[i] = spelled
            result.counterfactual = result.counterfactual.replace(form, spelled)
    return result


def with_options(pairs, people, animals, speakers, generator, options) -> Iterator[tuple[object, object]]:
    """The pairs with --animals' interventions marked "animals" and --persons all's changes added
    by `speakers` (:class:`cdaflow.cross_study.persons.SpeakerRules`, or None; `options`: as for
    :func:`counterfactuals`)."""
    if animals is not None:
        pairs = _mark_animals(pairs, people, animals)
    if speakers is None:
        return pairs
    features = tuple(generator.inventory.features)
    return ((sentence, speakers.apply(sentence, result, options.direction, features)) for sentence, result in pairs)


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


def conllu_records(pairs) -> Iterator[dict]:
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


def line_of(sentence, conllu: bool = False) -> int:
    """The input line a sentence starts at: its place in a CoNLL-U file (`conllu`), or the <line>
    of the sent_id <prefix>-<line>-<k> that parse_numbered_lines gives text input."""
    if conllu:
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


def line_records(lines, pairs) -> Iterator[dict]:
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
            if pending is None or line_of(pending[0]) != number:
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
