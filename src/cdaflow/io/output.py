"""Where a command writes: an output that never harms its inputs or what existed before.

* An output that is the same file as an input (the same path, a hard link, a symlink to it,
  standard input redirected from it) or that lies inside an input folder (a model) is refused
  before anything is read or written.
* A regular file is replaced atomically: written to a temporary sibling, synced, then renamed
  over the old one (which keeps its permissions); a failure, Ctrl-C or SIGTERM removes the
  temporary file and leaves the old output as it was. A symlink to a regular file keeps the
  link and replaces its target.
* Anything else (a character device such as ``/dev/null``, a FIFO, a socket, ``/dev/stdout``
  and ``/dev/fd/N``) is written straight into, never replaced by a regular file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from cdaflow.io.atomic import atomic_file

__all__ = [
    "OutputError",
    "Terminated",
    "check_output_target",
    "exit_cleanly_on_signals",
    "open_output",
    "release_worker_queues",
]

# Paths that name an already-open stream of this process; replacing them would replace a link in
# /dev or /proc (as root) or truncate what the shell opened for appending.
_STREAM_PREFIXES = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/", "/dev/tty")


class OutputError(ValueError):
    """An output that would harm an input; the message names both."""


class Terminated(SystemExit):
    """SIGTERM or SIGHUP: unwinds like Ctrl-C, so every temporary file is removed on the way out."""


def exit_cleanly_on_signals() -> Callable[[], None]:
    """Turn SIGTERM and SIGHUP into :class:`Terminated` (exit status 128 + signal) and SIGINT into
    KeyboardInterrupt in this process, stopping its worker processes first; returns a function
    that puts the previous handlers back.

    Python's default for SIGTERM is to die at once, skipping ``finally`` blocks and leaving
    ``.name.<id>.tmp`` files behind; an exception runs the clean-up that Ctrl-C already gets. The
    workers (spaCy's ``--processes``) go first: a signal sent to this process alone would leave
    them blocked on a full pipe that it no longer reads, and it waiting for them.
    """
    main_pid = os.getpid()

    def handler(signum: int, frame: object) -> None:
        if os.getpid() != main_pid:  # a forked worker: it owns no output; leave at once
            os._exit(128 + signum)
        import multiprocessing

        children = multiprocessing.active_children()
        for child in children:
            child.terminate()
        if children:  # spaCy would then warn that its workers did not complete: we stopped them
            warnings.filterwarnings("ignore", message=r"\[W127\]")
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(128 + signum)

    previous = {}
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler, None):
            try:
                previous[number] = signal.signal(number, handler)
            except ValueError:  # not the main thread: signals cannot be handled here
                pass

    def restore() -> None:
        for number, old in previous.items():
            signal.signal(number, old)

    return restore


def release_worker_queues() -> None:
    """After the workers were stopped by a signal: let the interpreter exit without waiting on
    their queues. Queues still holding input for a dead worker would make Python's exit join their
    feeder threads for ever (multiprocessing's documented way out: ``cancel_join_thread``)."""
    import gc
    import multiprocessing.queues
    import multiprocessing.util

    for obj in gc.get_objects():
        # type(), not isinstance(): the latter reads __class__, which wakes lazy modules' deprecation warnings
        if issubclass(type(obj), multiprocessing.queues.Queue):
            obj.cancel_join_thread()
    # A queue already dropped (spaCy's, once its pipe was closed) leaves its feeder thread, blocked on a
    # pipe to a stopped worker, and the exit-time finalizer that would join it: cancel those too.
    registry = getattr(multiprocessing.util, "_finalizer_registry", {})
    for finalizer in list(registry.values()):
        if getattr(finalizer, "_callback", None) is multiprocessing.queues.Queue._finalize_join:
            finalizer.cancel()


def _is_stream_path(path: Path) -> bool:
    text = os.path.abspath(path)
    return text.startswith(_STREAM_PREFIXES) or (text.startswith("/proc/") and "/fd/" in text)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _stdin_identity() -> tuple[int, int] | None:
    try:
        info = os.fstat(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no descriptor (tests, embedded interpreters)
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def check_output_target(
    output: str | os.PathLike[str] | None,
    inputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
    *,
    stdin_is_input: bool = False,
) -> None:
    """Refuse `output` when it is one of `inputs` (option name, path) or lies inside an input folder.

    Compared by device and inode, so a hard link or a symlink to an input is caught; with
    `stdin_is_input`, a regular file redirected into standard input counts as an input too.
    """
    if output is None or str(output) == "-":
        return
    output = Path(output)
    target = _identity(output)
    if target is not None and not stat.S_ISREG(os.stat(output).st_mode):
        return  # a device, FIFO or socket is written into, never replaced: it harms no input file
    resolved = output.resolve()
    for option, value in inputs:
        if value is None or str(value) == "-":
            continue
        path = Path(value)
        if target is not None and _identity(path) == target:
            same = " (a symbolic link to it)" if output.is_symlink() else (
                "" if resolved == path.resolve() else " (a hard link to it)"
            )
            raise OutputError(
                f"--output {output} is the same file as {option} {path}{same}; write the output elsewhere"
            )
        if path.is_dir() and resolved.is_relative_to(path.resolve()):
            raise OutputError(f"--output {output} is inside {option} {path}; write the output elsewhere")
    if stdin_is_input and target is not None and _stdin_identity() == target:
        raise OutputError(
            f"--output {output} is the file redirected to standard input; write the output elsewhere"
        )


@contextlib.contextmanager
def open_output(
    output: str | os.PathLike[str] | None,
    *,
    newline: str | None = None,
    binary: bool = False,
) -> Iterator[IO]:
    """A text handle (`binary`: a bytes one) on the command's output: standard output for None or
    ``-``; see the module doc.

    A write that fails (a full disk, ``/dev/full``) raises OSError naming the output. Check the
    output against the inputs first with :func:`check_output_target`. Standard output is written
    as UTF-8 whatever the locale says (``LANG=C``, ``PYTHONIOENCODING=latin-1``): a text in another
    encoding would fail at its first accented letter, after the lines before it were written.
    """
    if output is None or str(output) == "-":
        if binary:
            sys.stdout.flush()
            yield sys.stdout.buffer
            sys.stdout.buffer.flush()
            return
        utf8_stdout()
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(output)
    finished = False
    try:
        with _open(path, newline, binary) as handle:
            yield _NamedWrites(handle, path)  # type: ignore[misc]
            finished = True
    except OSError as error:
        if finished:  # flushing, syncing or renaming once the command is done: the output's fault
            raise _named(error, path) from None
        raise


def _named(error: OSError, path: Path) -> OSError:
    if isinstance(error, BrokenPipeError) or str(path) in str(error):
        return error
    return OSError(f"--output {path}: {error.strerror or error}")


class _NamedWrites:
    """A text handle whose failing writes name the output (``[Errno 28]`` alone names nothing)."""

    def __init__(self, handle: IO[str], path: Path) -> None:
        self._handle = handle
        self._path = path

    def write(self, text: str) -> int:
        try:
            return self._handle.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _named(error, self._path) from None

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._handle, name)


def utf8_stdout() -> None:
    """Make standard output write UTF-8 (errors strict) when its encoding is another one."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    if encoding in ("utf-8", "utf8") or not hasattr(sys.stdout, "reconfigure"):
        return
    try:
        sys.stdout.reconfigure(encoding="utf-8", errors="strict")
    except (OSError, ValueError):  # a stand-in stream that cannot change
        pass


@contextlib.contextmanager
def _open(path: Path, newline: str | None, binary: bool = False) -> Iterator[IO]:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OSError(f"--output {path}: {exc.strerror}") from None
    if (mode is not None and not stat.S_ISREG(mode)) or _is_stream_path(path):
        if mode is not None and stat.S_ISDIR(mode):
            raise IsADirectoryError(f"--output {path}: is a folder; give a file name")
        # Appending to a stream path keeps what the shell opened with >>; devices and FIFOs ignore it.
        kind = "a" if _is_stream_path(path) else "w"
        if binary:
            with open(path, kind + "b") as handle:
                yield handle
            return
        with open(path, kind, encoding="utf-8", newline=newline) as handle:
            yield handle
        return
    real = path.resolve() if path.is_symlink() else path
    if not real.parent.is_dir():
        raise FileNotFoundError(f"--output {path}: no such folder {real.parent}")
    with contextlib.ExitStack() as stack:
        try:
            handle = stack.enter_context(atomic_file(real, "wb" if binary else "w", newline=newline))
        except OSError as error:  # the temporary file beside it could not be made: say so of --output
            raise OSError(f"--output {path}: cannot write in {real.parent} ({error.strerror or error})") from None
        yield handle
        if mode is not None:
            os.chmod(handle.fileno(), stat.S_IMODE(mode))  # the replaced file's permissions
