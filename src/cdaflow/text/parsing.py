"""Dependency parser backends behind one interface, all producing UD CoNLL-U sentences.

* ``gold``: treebank annotations as they are; it cannot parse raw text (:class:`GoldParser`).
* ``spacy``: spaCy pipelines, by default the one a language's file names
  (:mod:`cdaflow.text.spacy_parser`; Hebrew: hspell splits the prefixes first and a pipeline
  trained on the treebank's words parses them, :mod:`cdaflow.text.hebrew`).
* ``stanza``: Stanza's ``tokenize,mwt,pos,lemma,depparse`` pipeline, with multiword tokens
  (:mod:`cdaflow.text.stanza_parser`).

This module holds what they share: the :class:`Parser` interface and the helpers its backends
build sentences with, :func:`get_parser` and the readers of raw-text lines. Every backend turns a
stripped raw text into one or more sentences with ``# sent_id`` (``<prefix>-<line>-<k>``, k
counting sentences within the line) and ``# text``.
"""

from __future__ import annotations

import abc
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from conllu.models import Metadata, Token

from cdaflow.io.conllu import (
    ConlluError,
    Sentence,
    is_empty_node,
    is_multiword,
    is_word,
    new_sentence,
    validate_sentence,
    words,
)

__all__ = [
    "BACKENDS",
    "GoldParser",
    "Parser",
    "ParserUnavailable",
    "drop_final_space_after",
    "ends_line",
    "get_parser",
    "mark_line_end",
    "merge_sentences",
    "normalize_space",
    "parse_numbered_lines",
    "parse_text_file",
    "reparsed_metadata",
    "segmented",
    "segmenter_refusal",
    "text_of",
]

BACKENDS: tuple[str, ...] = ("gold", "spacy", "stanza")


def segmented(lang: str) -> bool:
    """Whether raw text of `lang` is split into syntactic words before a spaCy pipeline parses it (the
    pipeline learnt the treebank's words): its language file's ``multiword.segmentation`` (Hebrew's
    prefixes, split with hspell by :mod:`cdaflow.text.hebrew`). A code with no language file: no."""
    from cdaflow.text import language as languages

    return lang in languages.available() and "segmentation" in languages.get(lang).multiword


class ParserUnavailable(RuntimeError):
    """The requested backend cannot run here (missing model, or no parser at all)."""


class Parser(abc.ABC):
    """A parser backend: raw text in, UD sentences (``conllu.TokenList``) out.

    A backend implements :meth:`parse_lines` and :meth:`reparse`; :meth:`parse` numbers and
    normalizes the texts for it.
    """

    name: str
    lang: str

    def parse(
        self,
        texts: Iterable[str],
        *,
        batch_size: int = 64,
        sent_id_prefix: str = "s",
        line_numbers: Iterable[int] | None = None,
        dependencies: bool = True,
    ) -> Iterator[Sentence]:
        """Parse raw texts; ``line_numbers`` (default 1, 2, ...) go into the sent_ids.

        ``dependencies=False``: the caller reads tokens, UPOS, features and lemmas only. A
        backend that can skip its dependency parser then does (spaCy: one sentence per text,
        HEAD and DEPREL ``_``, so the output is not a valid tree); others parse as usual.
        """
        lines = ((n, normalize_space(text)) for n, text in _numbered(texts, line_numbers))
        return self.parse_lines(lines, batch_size, sent_id_prefix, dependencies)

    @abc.abstractmethod
    def parse_lines(
        self, lines: Iterator[tuple[int, str]], batch_size: int, sent_id_prefix: str, dependencies: bool
    ) -> Iterator[Sentence]:
        """Parse (line number, text with single spaces) pairs into sentences ``<prefix>-<n>-<k>``."""

    @abc.abstractmethod
    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        """Re-annotate treebank sentences from their ``# text``, one output per input."""


def mark_line_end(sentence: Sentence) -> None:
    """Mark `sentence` as the last its input line gives (not written out: an attribute, not metadata)."""
    sentence.ends_line = True  # type: ignore[attr-defined]


def ends_line(sentence: Sentence) -> bool:
    """Whether a parser marked `sentence` as its line's last: a reader gathering a line's sentences
    then knows the line is whole without waiting for the next line's (a slow pipe)."""
    return bool(getattr(sentence, "ends_line", False))


def normalize_space(text: str) -> str:
    # Runs of whitespace would become spaCy SPACE tokens / stanza SpacesAfter values.
    return " ".join(text.split())


def _numbered(
    texts: Iterable[str], line_numbers: Iterable[int] | None
) -> Iterator[tuple[int, str]]:
    if line_numbers is None:
        return enumerate(texts, 1)
    return zip(line_numbers, texts, strict=True)


def drop_final_space_after(sentence: Sentence) -> None:
    # SpaceAfter describes the gap to the next token; after the last token of a text there is none.
    last = _last_surface_token(sentence)
    misc = last.get("misc")
    if misc and misc.get("SpaceAfter") == "No":
        rest = {k: v for k, v in misc.items() if k != "SpaceAfter"}
        last["misc"] = rest or None


def _last_surface_token(sentence: Sentence) -> Token:
    last_word = words(sentence)[-1]
    for token in sentence:
        if is_multiword(token) and token["id"][2] == last_word["id"]:
            return token
    return last_word


def merge_sentences(parts: list[Sentence], metadata: dict[str, Any]) -> Sentence:
    """Join parser sentences that came from one input sentence into one tree.

    Used by ``reparse`` when a backend still splits a gold sentence: the first part's
    root stays the root and later roots attach to it as ``parataxis``.
    """
    tokens: list[Token] = []
    offset = 0
    main_root: int | None = None
    for part in parts:
        for token in part:
            new = Token(token)
            tid = token["id"]
            if is_word(token):
                new["id"] = tid + offset
                if token["head"] == 0:
                    if main_root is None:
                        main_root = new["id"]
                    else:
                        new["head"], new["deprel"] = main_root, "parataxis"
                elif isinstance(token["head"], int):
                    new["head"] = token["head"] + offset
            elif is_multiword(token):
                new["id"] = (tid[0] + offset, "-", tid[2] + offset)
            elif is_empty_node(token):
                new["id"] = (tid[0] + offset, ".", tid[2])
                if isinstance(token["head"], int) and token["head"] > 0:
                    new["head"] = token["head"] + offset
            tokens.append(new)
        offset += len(words(part))
    return new_sentence(tokens, Metadata(metadata))


def text_of(sentence: Sentence) -> str:
    text = sentence.metadata.get("text")
    if not text:
        sent_id = sentence.metadata.get("sent_id", "?")
        raise ValueError(f"sentence {sent_id!r} has no '# text' comment, so it cannot be re-parsed")
    return normalize_space(str(text))


def reparsed_metadata(sentence: Sentence, text: str) -> dict[str, Any]:
    metadata = dict(sentence.metadata)
    metadata["text"] = text
    return metadata


# ---------------------------------------------------------------------------
# gold


class GoldParser(Parser):
    """Treebank annotations passed through unchanged."""

    name = "gold"

    def __init__(self, lang: str = "und") -> None:
        self.lang = lang

    def parse_lines(
        self, lines: Iterator[tuple[int, str]], batch_size: int, sent_id_prefix: str, dependencies: bool
    ) -> Iterator[Sentence]:
        raise ParserUnavailable(
            "the gold backend has no parser; it passes treebank annotations through"
        )

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        return iter(sentences)


# ---------------------------------------------------------------------------
# factory and file helper


def get_parser(backend: str, lang: str, **options: Any) -> Parser:
    """Build a backend: ``"gold"``, ``"spacy"`` (options: ``model``, default
    :func:`~cdaflow.text.spacy_parser.spacy_pipeline`;
    ``processes``) or ``"stanza"`` (options: ``model_dir``, ``use_gpu``).

    ``processes`` (worker processes) is accepted by every backend so callers can pass it
    through; only spaCy runs several, and asking another backend for more than one is an error.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown parser backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    if backend != "spacy":
        processes = options.pop("processes", 1)
        if processes != 1:
            raise ValueError(f"the {backend} backend runs in one process (got processes={processes}); "
                             "several worker processes need the spacy backend")
    if backend == "gold":
        return GoldParser(lang, **options)
    if backend == "spacy" and segmented(lang):
        from cdaflow.text.hebrew import HebrewParser
        from cdaflow.text.spacy_parser import spacy_pipeline

        if options.get("model") is None:
            options["model"] = spacy_pipeline(lang)
        return HebrewParser(lang, **options)
    if backend == "spacy":
        from cdaflow.text.spacy_parser import SpacyParser

        return SpacyParser(lang, **options)
    from cdaflow.text.stanza_parser import StanzaParser

    return StanzaParser(lang, **options)


def segmenter_refusal(lang: str, backend: str = "spacy") -> str | None:
    """One line on what to install when raw text of `lang` needs a segmenter that is missing
    (Hebrew: hspell), else None."""
    if backend != "spacy" or not segmented(lang):
        return None
    from cdaflow.text.hspell import hspell_missing

    return hspell_missing()


def parse_text_file(
    parser: Parser,
    lines: Iterable[str],
    *,
    sent_id_prefix: str,
    batch_size: int = 64,
    path: str = "<text>",
) -> Iterator[Sentence]:
    """Parse one raw sentence/paragraph per line, skipping blank lines.

    sent_ids are ``<prefix>-<line number>-<k>`` with the 1-based line number in ``lines``.
    Every output sentence is checked with :func:`validate_sentence`; a parser producing
    a malformed tree raises :class:`ConlluError` naming ``path`` and the input line.
    """
    yield from parse_numbered_lines(
        parser,
        enumerate(lines, 1),
        sent_id_prefix=sent_id_prefix,
        batch_size=batch_size,
        path=path,
    )


def parse_numbered_lines(
    parser: Parser,
    numbered_lines: Iterable[tuple[int, str]],
    *,
    sent_id_prefix: str,
    batch_size: int = 64,
    path: str = "<text>",
) -> Iterator[Sentence]:
    """Like :func:`parse_text_file` for (line number, text) pairs, e.g. one shard of a corpus."""
    numbered = ((n, line.strip()) for n, line in numbered_lines if line.strip())
    for_texts, for_numbers = itertools.tee(numbered)
    parsed = parser.parse(
        (text for _, text in for_texts),
        batch_size=batch_size,
        sent_id_prefix=sent_id_prefix,
        line_numbers=(n for n, _ in for_numbers),
    )
    for sentence in parsed:
        try:
            validate_sentence(sentence, path, 1)
        except ConlluError as exc:
            line = _input_line(sentence, sent_id_prefix)
            raise ConlluError(path, line, f"{parser.name} parser output: {exc.reason}") from exc
        yield sentence


def _input_line(sentence: Sentence, prefix: str) -> int:
    sent_id = str(sentence.metadata.get("sent_id", ""))
    number = sent_id[len(prefix) + 1 :].split("-")[0] if sent_id.startswith(prefix + "-") else ""
    return int(number) if number.isdigit() else 0
