"""The ``stanza`` parser backend: Stanza's ``tokenize,mwt,pos,lemma,depparse`` pipeline, with UD
multiword tokens. Models are never downloaded here; they must already be on disk (the workflow
fetches them first: :mod:`cdaflow.text.stanza_models`), and a missing one is named with what to run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import conllu
from conllu.models import Metadata, TokenList

from cdaflow.io.conllu import Sentence, surface_tokens
from cdaflow.io.text import chunks
from cdaflow.text.parsing import (
    Parser,
    ParserUnavailable,
    drop_final_space_after,
    mark_line_end,
    merge_sentences,
    reparsed_metadata,
    text_of,
)

__all__ = ["StanzaParser", "stanza_document_to_sentences", "stanza_model_problems"]


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
                    drop_final_space_after(sentences[-1])
                    mark_line_end(sentences[-1])
                yield from sentences

    def reparse(self, sentences: Iterable[Sentence], *, batch_size: int = 64) -> Iterator[Sentence]:
        tokenizer = self._nlp.processors["tokenize"]
        for batch in chunks(sentences, batch_size):
            texts = [text_of(s) for s in batch]
            # The tokenizer reads no_ssplit at call time; flip it so one gold sentence stays one.
            previous = tokenizer.config.get("no_ssplit", False)
            tokenizer.config["no_ssplit"] = True
            try:
                docs = self._nlp.bulk_process(texts)
            finally:
                tokenizer.config["no_ssplit"] = previous
            for sentence, text, doc in zip(batch, texts, docs, strict=True):
                parts = stanza_document_to_sentences(doc, "x")
                merged = merge_sentences(parts, reparsed_metadata(sentence, text))
                drop_final_space_after(merged)
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
