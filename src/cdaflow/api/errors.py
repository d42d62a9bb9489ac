"""The API's refusals and notes: :class:`CdaflowError` (the command's one-line error) and
:class:`CdaflowWarning` (a note the command prints on stderr), and how the commands show them."""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterable, Iterator
from typing import Any


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
def refusals() -> Iterator[None]:
    """The tools' own refusals (OSError, ValueError, RuntimeError, each naming its file and line)
    as CdaflowError; any other exception is a bug and passes as it is."""
    try:
        yield
    except CdaflowError:
        raise
    except (OSError, ValueError, RuntimeError) as exc:
        raise CdaflowError(one_line_message(exc)) from exc


def guarded(items: Iterable[Any]) -> Iterator[Any]:
    """`items`, with the errors raised while they are made as CdaflowError."""
    with refusals():
        yield from items


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
