"""Segments from parsed CoNLL-U (any backend): surface tokens, their tags and character spans.

Every segment is parsed as one unit; when the backend splits it into several sentences, the
parts are merged back (:func:`cdaflow.text.parsing.merge_sentences`). A multiword token
(``dámelo``, ``del``) is one surface token, tagged from its words
(:func:`~cdaflow.regender.tagset.tag_surface_tokens`). Spans are found by walking the text, so the
rules replace a word in place and keep everything else byte for byte.

Small taggers read a capitalised first word of a short segment as a proper noun (*Déjalo.*,
*Listo.* → PROPN). :func:`tag_texts` therefore parses the segment with its first letter lower-cased
(the tags; after an opening ¿ or ¡ too), while tokens and spans come from the original text.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

from cdaflow.io.conllu import Sentence, feats_dict, is_multiword, surface_tokens, words
from cdaflow.regender.segment_types import Segment
from cdaflow.regender.tagset import TagMap, Word, tag_surface_tokens
from cdaflow.text.case import with_initial_case
from cdaflow.text.parsing import Parser, ends_line, merge_sentences

__all__ = ["segment_from_sentence", "tag_texts"]


def _word(token) -> Word:
    return Word(token["form"], token["upos"] or "X", feats_dict(token), token.get("lemma"))


def segment_from_sentence(sentence: Sentence, tagmap: TagMap, text: str | None = None) -> Segment:
    """The tagged :class:`Segment` of one CoNLL-U sentence.

    Spans are located in the sentence's ``# text``; `text` (same length, e.g. the original of a
    lower-cased probe) then supplies the token strings. Without a ``# text`` the segment has no
    spans and renders with single spaces.
    """
    surface = []
    if all(type(token["id"]) is int for token in sentence):  # only words (spaCy): each its own token
        surface = [(token["form"], [_word(token)]) for token in sentence]
    else:
        all_words = words(sentence)
        for token in surface_tokens(sentence):
            if is_multiword(token):
                first, last = token["id"][0], token["id"][2]
                covered = [w for w in all_words if first <= w["id"] <= last]
                surface.append((token["form"], [_word(w) for w in covered]))
            else:
                surface.append((token["form"], [_word(token)]))
    tags = tuple(tagmap.correct([form for form, _ in surface], tag_surface_tokens(tagmap, surface),
                                [ws[0].feats if len(ws) == 1 else None for _, ws in surface]))
    gendered = any("Gender" in (w.feats or {}) and w.upos not in ("NOUN", "PROPN") for _, ws in surface for w in ws)
    parsed_text = sentence.metadata.get("text")
    if parsed_text is None:
        return Segment(tuple(form for form, _ in surface), tags, gendered=gendered)
    original = parsed_text if text is None else text
    if len(original) != len(parsed_text):
        raise ValueError(f"text {original!r} and parsed text {parsed_text!r} differ in length")
    spans, position = [], 0
    for form, _ in surface:
        start = parsed_text.find(form, position)
        if start < 0:  # the backend normalised a token: no spans, the tokens as parsed
            return Segment(tuple(form for form, _ in surface), tags, gendered=gendered)
        spans.append((start, start + len(form)))
        position = start + len(form)
    tokens = tuple(original[a:b] for a, b in spans)
    return Segment(tokens, tags, original, tuple(spans), gendered)


def _probe(text: str) -> str:
    """`text` with its first letter lower-cased (after any opening ¿ ¡ or quote)."""
    return with_initial_case(text, upper=False)


def _by_line(parsed: Iterable[Sentence]) -> Iterator[tuple[int, list[Sentence]]]:
    """(line, its sentences) from sentence ids seg-<line>-<k>: a group ends at the sentence its parser
    marks as the line's last (a slow pipe's line is answered before the next one comes), else at the
    next line's first."""
    group: list[Sentence] = []
    for sentence in parsed:
        line = int(str(sentence.metadata["sent_id"]).split("-")[1])
        if group and line != int(str(group[0].metadata["sent_id"]).split("-")[1]):
            yield int(str(group[0].metadata["sent_id"]).split("-")[1]), group
            group = []
        group.append(sentence)
        if ends_line(sentence):
            yield line, group
            group = []
    if group:
        yield int(str(group[0].metadata["sent_id"]).split("-")[1]), group


def tag_texts(parser: Parser, texts: Iterable[str], tagmap: TagMap, *, batch_size: int = 64) -> Iterator[Segment]:
    """One tagged :class:`Segment` per input text (whitespace runs collapsed), in order.

    Streams: only the texts the parser has read ahead of its output are held (a long corpus
    runs in flat memory). The rules read tags, features and lemmas, never dependencies, so the
    parser may skip its dependency parse (``dependencies=False``).
    """
    pending: deque[tuple[int, str]] = deque()  # (line, original) read by the parser, not yet yielded

    def probes() -> Iterator[str]:
        for line, text in enumerate(texts, 1):
            clean = " ".join(text.split())
            pending.append((line, clean))
            yield _probe(clean)

    parsed = parser.parse(probes(), batch_size=batch_size, sent_id_prefix="seg", dependencies=False)
    for line, group in _by_line(parsed):
        while pending[0][0] < line:  # texts that gave no sentence (blank)
            pending.popleft()
        original = pending.popleft()[1]
        sentence = group[0] if len(group) == 1 else merge_sentences(list(group), {"text": _probe(original)})
        if len(group) > 1 or "text" not in sentence.metadata:
            sentence.metadata["text"] = _probe(original)
        yield segment_from_sentence(sentence, tagmap, original)
