"""What every tool of the API shares: the list call and the stream, the checks of their texts
(as the commands check a file's lines) and of their options, and the model card's check."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cdaflow.api.errors import CdaflowError, DemoModelWarning, guarded

Record = dict[str, Any]
PathLike = str | Path
# The name texts given to the API go by in error messages, as a file's name does for the commands.
TEXTS = "<texts>"


def numbered(texts: Iterable[str], max_chars: int, source: str = TEXTS) -> Iterator[tuple[int, str]]:
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


def checked_card(folder: Path, kind: str, lang: str | None = None, option: str = "--model") -> dict[str, Any] | None:
    """The folder's model card, a model of another kind or language refused, a demo one warned of."""
    from cdaflow.io.model_card import check_card, demo_notice

    card = check_card(folder, kind, lang=lang, option=option)
    notice = demo_notice(card)
    if notice:
        warnings.warn(f"{folder}: {notice}", DemoModelWarning, stacklevel=4)
    return card


def check_choice(option: str, value: Any, allowed: Iterable[Any]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise CdaflowError(f"{option}: {value!r} is not one of {', '.join(map(str, allowed))}")


def check_positive(option: str, value: Any, most: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (most is not None and value > most):
        bound = f" up to {most:,}" if most is not None else ""
        raise CdaflowError(f"{option}: expected an integer from 1{bound}, got {value!r}")


def text_limit(max_chars: int | None) -> int:
    """The longest text a tool accepts: the commands' --max-chars default unless given."""
    from cdaflow.io.text import DEFAULT_MAX_CHARS, MAX_MAX_CHARS

    if max_chars is None:
        return DEFAULT_MAX_CHARS
    check_positive("max_chars", max_chars, MAX_MAX_CHARS)
    return max_chars


class Tool:
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
        return guarded(self._records(numbered(texts, self.max_chars, source), source))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        raise NotImplementedError

    def __repr__(self) -> str:
        shown = {key: getattr(self, key, None) for key in ("model", "lang", "method", "direction", "kind")}
        fields = ", ".join(f"{key}={str(value)!r}" for key, value in shown.items() if isinstance(value, (str, Path)))
        return f"{type(self).__name__}({fields})"
