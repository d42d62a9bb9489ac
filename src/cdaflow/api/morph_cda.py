"""Study A's tool: :class:`CDA`, morphological counterfactual data augmentation (``cdaflow cda``)."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cdaflow.api.errors import CdaflowError, CdaflowWarning, refusals
from cdaflow.api.tool import PathLike, Record, Tool, check_choice, check_positive, checked_card, text_limit

if TYPE_CHECKING:  # the tools import their modules when they load
    from cdaflow.text.language import Language


def raw_text_refusal(language: Language, backend: str) -> str | None:
    """Why raw text of `language` cannot be parsed with `backend` here, or None when it can."""
    from cdaflow.text.spacy_parser import spacy_pipeline

    if backend == "spacy" and spacy_pipeline(language) is None:
        return (f"no spaCy pipeline reads {language.code!r} raw text here, so give CoNLL-U (`cdaflow cda "
                f"--lang {language.code} --format conllu`, e.g. a UD treebank's sentences or another parser's output)")
    return None


class CDA(Tool):
    """Study A's morphological counterfactual data augmentation (``cdaflow cda``).

    Every animate noun of the gazetteer and every third-person or plural personal pronoun takes
    the other gender, and the words that agree with it are re-inflected. A record, as the
    command's JSON line::

        {"line": 1, "original": "La profesora está cansada.", "counterfactual": "El profesor está cansado.",
         "changed": [{"sentence": "s-1-1", "id": 1, "from": "La", "to": "El"}, ...],
         "intervened": [{"sentence": "s-1-1", "id": 2, "from": "profesora", "to": "profesor"}]}

    ``counterfactual`` is None when nothing in the text changes gender. Load with :meth:`load`.
    """

    def __init__(self, *, model: Path, language: Language, generator: Any, gazetteer: Any, people: Any,
                 animals: Any, speakers: Any, direction: str, backend: str, processes: int, batch_size: int,
                 max_chars: int, gazetteer_path: Path, card: dict[str, Any] | None) -> None:
        self.model, self.language, self.lang, self.card = model, language, language.code, card
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
              before_load: Callable[[Language], None] | None = None) -> CDA:
        """:meth:`load`; `before_load` runs with the model's language once the cheap checks passed,
        before the model loads (the command reads its input's first lines there, so a bad file fails
        at once)."""
        from cdaflow.cross_study.persons import PERSONS, SpeakerRules
        from cdaflow.io.text import MAX_BATCH_SIZE
        from cdaflow.morph_cda import animals as animal_lists
        from cdaflow.morph_cda.cda import DIRECTIONS
        from cdaflow.morph_cda.gazetteer import Gazetteer
        from cdaflow.morph_cda.model_folder import check_model_folder, load_model
        from cdaflow.text import language as languages
        from cdaflow.text.parsing import BACKENDS

        model = Path(model)
        with refusals():
            check_choice("direction", direction, DIRECTIONS)
            check_choice("persons", persons, PERSONS)
            check_choice("backend", backend, sorted(set(BACKENDS) - {"gold"}))
            check_positive("batch_size", batch_size, MAX_BATCH_SIZE)
            check_positive("processes", processes)
            if lang is not None:
                check_choice("lang", lang, languages.available())
            # one-line refusals before anything loads: a language without an animal list or Study B rules
            animal_list = animal_lists.load(lang) if animals and lang else None
            speakers = SpeakerRules(lang) if persons == "all" and lang else None
            card = checked_card(model, "cda", lang) if model.is_dir() else None  # a folder of another kind, by its card
            check_model_folder(model)
            model_lang = (card or {}).get("lang") or _model_lang(model)
            if lang is None:
                lang = model_lang
                check_choice("lang", lang, languages.available())
                animal_list = animal_lists.load(lang) if animals else None
                speakers = SpeakerRules(lang) if persons == "all" else None
            elif lang != model_lang:  # a folder without a card: its cda.json says
                raise CdaflowError(f"--model {model}: a model for {model_lang!r}, not {lang!r}")
            language = languages.load(lang)
            if before_load is not None:
                before_load(language)
            generator, people = load_model(model, lexicon_check=lexicon_check)
            if generator.lang != lang:
                raise ValueError(f"--model {model}: the model is for {generator.lang!r}, not {lang!r}")
            if gazetteer is not None:
                people = Gazetteer.read(Path(gazetteer))
                _check_coverage(people, generator, Path(gazetteer))
            used = animal_lists.with_animals(people, animal_list) if animal_list is not None else people
        return cls(model=model, language=language, generator=generator, gazetteer=used, people=people,
                   animals=animal_list, speakers=speakers, direction=direction, backend=backend, processes=processes,
                   batch_size=batch_size, max_chars=text_limit(max_chars),
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
            from cdaflow.text.parsing import get_parser
            from cdaflow.text.spacy_parser import spacy_pipeline

            refusal = raw_text_refusal(self.language, self.backend)
            if refusal:
                raise CdaflowError(refusal)
            # the language file names its spaCy pipeline, as for the workflow's parses
            pipeline = spacy_pipeline(self.language) if self.backend == "spacy" else None
            with refusals():
                self._parser = get_parser(self.backend, self.lang, processes=self.processes,
                                          **({"model": pipeline} if pipeline else {}))
        return self._parser

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.morph_cda.records import line_records

        # JSON records need each line beside its sentences (a blank one gives an empty record);
        # the tee holds only the lines the parser has read ahead of the records.
        for_parser, for_records = itertools.tee(lines)
        return line_records(for_records, self._text_pairs(for_parser, source))

    def _text_pairs(self, lines: Iterable[tuple[int, str]], source: str) -> Iterator[tuple[Any, Any]]:
        """(parsed sentence, Counterfactual or None) of numbered raw-text lines, in order."""
        from cdaflow.morph_cda.records import SENT_ID_PREFIX, as_written, joined_at_weak_breaks, lines_as_read
        from cdaflow.text.parsing import parse_numbered_lines

        parser = self._text_parser()
        held: dict[int, str] = {}  # lines the parser reads otherwise, by number, until their sentences pass
        sentences = parse_numbered_lines(parser, lines_as_read(lines, held), sent_id_prefix=SENT_ID_PREFIX,
                                         batch_size=self.batch_size, path=source)
        return self._pairs(joined_at_weak_breaks(as_written(sentences, held)))

    def _pairs(self, sentences: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """(sentence, Counterfactual or None) of parsed sentences, one batched model call a batch."""
        from cdaflow.morph_cda.records import counterfactuals, with_options

        pairs = counterfactuals(sentences, self.gazetteer, self.generator, self)
        return with_options(pairs, self.people, self.animals, self.speakers, self.generator, self)


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
