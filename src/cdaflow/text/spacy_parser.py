"""The ``spacy`` parser backend: a spaCy pipeline's analyses as UD sentences, by default the pipeline a
language's file names (``resources/morph_cda/languages/<code>.yaml``, ``parser: {spacy: ...}``:
:func:`spacy_pipeline`; Hebrew: :mod:`cdaflow.text.hebrew` splits the prefixes first).

spaCy does not split contractions: Spanish "del"/"al" and French "du"/"au"/"des" stay one word
(UPOS ADP) instead of a UD multiword token over "de"+"el" etc., and its XPOS is only kept when it
differs from UPOS.
"""

from __future__ import annotations

import multiprocessing
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from conllu.models import Metadata, Token, TokenList

from cdaflow.io.conllu import FIELDS, Sentence
from cdaflow.io.text import chunks
from cdaflow.text.parsing import (
    Parser,
    ParserUnavailable,
    mark_line_end,
    merge_sentences,
    reparsed_metadata,
    text_of,
)

if TYPE_CHECKING:
    from cdaflow.text.language import Language

__all__ = ["SpacyParser", "spacy_pipeline", "spacy_span"]


def spacy_pipeline(language: Language | str) -> str | None:
    """The spaCy pipeline that parses raw text of a language (a code, or its file read): the one its
    language file names (the first installed, :attr:`cdaflow.text.language.Language.spacy`); None
    when the language has no file or its file names none. The one place both ``cdaflow cda`` and the
    workflow's parse rules read."""
    from cdaflow.text import language as languages

    if isinstance(language, str) and language not in languages.available():
        return None
    return languages.get(language).spacy


def _spacy_install_hint(lang: str) -> str:
    import spacy.util

    from cdaflow.text import language as languages

    installed = sorted(spacy.util.get_installed_models())
    named = {code: languages.load(code).spacy_pipelines for code in languages.available()}
    defaults = ", ".join(f"{code} ({' or '.join(names)})" for code, names in named.items() if names)
    return (
        f"language files name pipelines for {defaults}; installed spaCy pipelines: "
        f"{', '.join(installed) or 'none'}. To use another one, install it with "
        f"`python -m spacy download <name>` (or `pip install <name>` from the spaCy models "
        f"release, e.g. {lang}_core_news_sm) and name it in "
        f"{languages.LANGUAGES_DIR.relative_to(languages.PROJECT_ROOT)}/{lang}.yaml "
        f"(parser: {{spacy: <name>}}) or pass model=<name>"
    )


class SpacyParser(Parser):
    """spaCy pipeline converted to UD CoNLL-U (contractions stay unsplit, see the module's docstring).

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
            model = spacy_pipeline(lang)
            if model is None:
                raise ParserUnavailable(
                    f"no default spaCy model for language {lang!r}: {_spacy_install_hint(lang)}"
                )
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
                sentence = spacy_span(span, metadata, with_tree)
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

        inputs = ((text_of(sentence), sentence) for sentence in sentences)
        for doc, sentence in self._pipe(inputs, batch_size, [], prepare=one_sentence_doc):
            metadata = reparsed_metadata(sentence, doc.text)
            yield merge_sentences([spacy_span(span, {}) for span in doc.sents], metadata)


def spacy_span(span: Any, metadata: dict[str, Any], with_tree: bool = True) -> Sentence:
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
