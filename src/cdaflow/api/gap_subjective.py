"""Study C's tool: :class:`Subjectivizer`, subjective variants of objective English sentences
(``cdaflow subjectivize``)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cdaflow.api.errors import refusals
from cdaflow.api.tool import PathLike, Record, Tool, check_positive, checked_card, text_limit

# How the subjectivizer's scorers name a sentence in an error: by its index in the batch.
_SENTENCE_INDEX = re.compile(r"^sentences\[(\d+)\]: ")


class Subjectivizer(Tool):
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
        from cdaflow.gap_subjective import subjectivizer
        from cdaflow.io.text import MAX_BATCH_SIZE

        model = Path(model)
        with refusals():
            check_positive("batch_size", batch_size, MAX_BATCH_SIZE)
            if not model.is_dir():
                raise FileNotFoundError(f"--model {model}: no such folder (the workflow writes "
                                        "results/gap_subjective/subjectivizer)")
            checked_card(model, "subjectivizer")
            if before_load is not None:
                before_load()
            bundle = subjectivizer.Subjectivizer.load(model, device=device)
        return cls(bundle, model=model, batch_size=batch_size, max_chars=text_limit(max_chars))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.io.text import chunks  # a chunk closes early when a live input (a slow pipe) stalls

        for chunk in chunks(lines, self.batch_size):
            yield from self._chunk(chunk, source)

    def _chunk(self, chunk: list[tuple[int, str]], source: str) -> list[Record]:
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


def _blank(number: int, line: str) -> dict:
    """The record of a blank line: nothing to transfer."""
    return {"line": number, "original": line, "transferred": None, "gleu": None, "ppl_original": None,
            "ppl_transferred": None, "p_subjective": None, "within_gleu": None, "within_perplexity": None,
            "objective": None, "verdict": None}


def _number(value, digits: int) -> float | None:
    """A rounded float, None for an infinite or undefined one (JSON has no Infinity: an empty
    transfer has an infinite perplexity)."""
    value = float(value)
    return round(value, digits) if math.isfinite(value) else None
