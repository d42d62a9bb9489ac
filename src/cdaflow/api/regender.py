"""Study B's tool: :class:`Regenderer`, gender variants of short Spanish segments (``cdaflow regender``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cdaflow.api.errors import refusals
from cdaflow.api.tool import PathLike, Record, Tool, check_choice, check_positive, checked_card, text_limit


class Regenderer(Tool):
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
        from cdaflow.regender.variants import LANGUAGES, METHODS

        model = Path(model) if model is not None else None
        if method is None:
            method = "nmt" if model is not None and (model / "model").is_dir() else "rules"
        max_chars = text_limit(max_chars)
        with refusals():
            check_choice("--method", method, METHODS)
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
                check_choice("--tag", tag, ("N", "G"))
            if beam_size is not None:
                check_positive("--beam-size", beam_size)
            check_positive("--processes", processes)
            if nmt:
                if model is None:
                    raise ValueError("--method nmt needs --model (e.g. results/regender/es/rewriter/nmt)")
                card = _check_rewriter(model, tag, lang)
                lang = lang or (card or {}).get("lang") or "es"
                check_choice("--lang", lang, LANGUAGES)
                if before_load is not None:
                    before_load()
                _check_bpe(model.parent / "bpe.model")
                return cls(method="nmt", lang=lang, model=model, max_chars=max_chars, tag=tag,
                           beam_size=beam_size or 5)
            lang = lang or "es"
            check_choice("--lang", lang, LANGUAGES)
            if sequences is not None:
                check_choice("--sequences", sequences, ("extended", "paper"))
            if backend is not None:
                from cdaflow.text.parsing import BACKENDS

                check_choice("--backend", backend, sorted(set(BACKENDS) - {"gold"}))
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
        from cdaflow.regender.segments import tag_texts
        from cdaflow.regender.variants import blank_record

        # Streamed: the tee holds only the lines the parser has read ahead of its output.
        for_records, for_tagger = itertools.tee(lines)
        segments = tag_texts(self.parser, (line for _, line in for_tagger if line.strip()), self.tagmap,
                             batch_size=256)
        for number, line in for_records:
            if not line.strip():
                yield blank_record(number, line)
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

        from cdaflow.regender.rewriter import SockeyeError, add_tags, apply_bpe, remove_bpe, run_sockeye
        from cdaflow.regender.variants import NMT_CHUNK, blank_record, changed_words, failure_reason

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
                            f"--model {self.model}: sockeye-translate failed: {failure_reason(error)}") from None
                    variants = iter(remove_bpe(bpe, translated.read_text(encoding="utf-8").splitlines()))
            for number, line in chunk:
                if not line.strip():
                    yield blank_record(number, line)
                    continue
                text, variant = " ".join(line.split()), next(variants)
                label = "N" if variant == text else "G"
                yield {"line": number, "original": line, "variant": line if label == "N" else variant,
                       "label": label, "changes": changed_words(text, variant)}


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
    card = checked_card(model, "regender-nmt", lang)
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
