"""A lexicon check on generated forms: Debian's Hunspell dictionaries, through the ``hunspell`` command.

A form the reinflector makes that no dictionary knows (*inquietes*, *gentile*) is a warning sign.
:class:`Hunspell` answers, for a batch of words, their analyses in the language's dictionaries
(``hunspell -m``, results cached). Every known word has at least one analysis;
the French dictionary (Grammalecte's) also gives gender and number (``is:fem``, ``is:mas``,
``is:epi`` for both genders, ``is:sg``, ``is:pl``, ``is:inv`` for both numbers), so a candidate
can be checked against the features it is meant to have; the Spanish, Italian and Hebrew ones
only say whether a word exists.

The dictionaries are Debian packages (``apt-get install hunspell hunspell-es hunspell-fr
hunspell-it hunspell-he``). Without the command or a language's dictionaries
:meth:`Hunspell.find` returns None and callers go on without the check.

**One process, many batches.** The CDA asks per sentence (the words of its adjectives and
predicates, then the candidates of each batch): on 1,000 AnCora sentences, 852 calls of which 756
have words not yet cached. Starting ``hunspell`` for each (the dictionary loaded each time) cost
about 90 ms a run, 69 s of the 110 s `cdaflow cda` took (cProfile). Now one process, started at
the first look-up, answers every batch through pipes: the words go in one a line, then a sentinel
word no dictionary knows, and its lines are read until the sentinel comes back; writing and
reading interleave (``select``), so no batch fills a pipe. ``hunspell`` buffers its output on a
pipe, so it runs under ``stdbuf -oL`` (coreutils); where there is no ``stdbuf``, or the process
gives no output for ``timeout`` seconds, each batch runs the command once as before. The same
1,000 sentences now take 756 exchanges, 0.43 s wall and 0.12 s CPU of both processes together
(under 2 % of the run); the output is the same. ``benchmarks/lexicon_check_throughput.py``
measures `cda` with and without the check and `cdaflow parse` on the same 5,000 real Spanish
sentences (one thread, CPU seconds, start-up excluded, this project's shared 2-core machine):
`parse` 463 lines/s, `cda` without the check 321, with it 320, so the check keeps 100 % of the
rate (target 80 %) and `cda` runs at 69 % of `parse` (target 60 %); one run per batch gave 37
lines/s (12 %, 8 % of `parse`). Wall-clock ratios on that loaded machine vary from run to run
(81 % and 66 % in the same run).

**Reading the output.** Each line is ``token`` alone (unknown) or ``token fields...`` (an
affix's fields may come before the stem's: es_ES *anotación* is ``a st:notación fl:a``, which
the former reader took for no analysis); lines are matched to words by their token, not by
counting blocks, since the tool splits some words (*a/b*, *3,5*) and prints nothing for others
(*«*). The output is decoded line by line: hunspell-it prints the multi-byte flag of *li*, *ci*,
*di* cut to its first byte (``li  st:l fl:\\xc2``), which stopped every Italian run before;
such a field is dropped, a line whose token cannot be read is skipped (its word reads as
unknown), and a word that kills the tool reads as unknown (the batch is halved until it is
found). :attr:`Hunspell.unreadable` keeps those words; `cdaflow cda` reports them in one line at
the end.

Why the command: through ``ctypes`` the library itself (libhunspell, which the command needs)
answers in 20-50 µs a word instead of a pipe's ~0.5 ms an exchange, but the difference is under
0.5 s per 1,000 sentences, and a crash in the library would end the run, not one word;
spylls (a pure-Python port on PyPI) takes 2.4 s to load the French dictionary and checks 2,600
words/s, and agrees on 1,990 of 2,000 words, where the command checks the 5,719 forms of the
validation model's lexicon in 0.26 s (benchmarks/hunspell_check.py, on this project's 2-core
machine). The ``hunspell`` binding on PyPI is not measured: it builds against the library's C
headers.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import select
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from cdaflow.io.processes import end_process

__all__ = ["DICTIONARY_DIR", "Analysis", "Hunspell", "agrees", "features_of", "genderless"]

log = logging.getLogger(__name__)

DICTIONARY_DIR = Path("/usr/share/hunspell")
# One analysis: its fields, e.g. {"st:inquiet", "po:adj", "is:fem", "is:sg"}.
Analysis = frozenset[str]
_GENDER = {"Masc": "is:mas", "Fem": "is:fem"}
_NUMBER = {"Sing": "is:sg", "Plur": "is:pl"}
_TENSE = {"Past": "tn:past", "Fut": "tn:fut"}
# Ends each batch sent to the process (with a serial number spelt in letters): no dictionary knows
# it, so hunspell echoes it alone, after every line about the batch's words.
_SENTINEL = "qxzqxzcdaflow"
_UNREADABLE = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, after surrogateescape
_MAX_WORD = 200  # characters; longer "words" (URLs, runs of symbols) are not looked up
_RESTARTS = 20  # process restarts (a word that kills hunspell) before the rest of a batch is unknown


class _Died(Exception):
    """The hunspell process ended (or was killed) before it answered."""


class _NoPipe(Exception):
    """The process through a pipe did not start, or gave no output for the timeout (its output
    is not line-buffered on this system)."""


class Hunspell:
    """Analyses of words in one or more Hunspell dictionaries (``name.dic`` + ``name.aff``).

    One ``hunspell -m`` process answers every batch (started at the first look-up, ended by
    :meth:`close`, by leaving a ``with`` block, or when the object is collected); analyses are
    cached (`cache_size` words, oldest first out). With `persistent` False, or without
    ``stdbuf``, each batch runs the command once instead.
    """

    def __init__(
        self,
        dictionaries: Sequence[str],
        *,
        directory: Path = DICTIONARY_DIR,
        command: str = "hunspell",
        persistent: bool | None = None,
        cache_size: int = 200_000,
        timeout: float = 60.0,
    ):
        if not dictionaries:
            raise ValueError("no Hunspell dictionary named")
        self.dictionaries = tuple(dictionaries)
        self.directory = Path(directory)
        self.command = command
        self.cache_size = cache_size
        self.timeout = timeout  # seconds without output before the process counts as stalled
        self._cache: dict[str, tuple[Analysis, ...]] = {}
        # words whose analyses could not be read whole: printed with bytes that are not UTF-8
        # (it_IT: li, ci, di), or the tool ended on them; "fields dropped" (the rest of the
        # analysis read) or "read as unknown"
        self.unreadable: dict[str, str] = {}
        self.stats: Counter[str] = Counter()  # words looked up, exchanges, process starts
        stdbuf = shutil.which("stdbuf")
        self._persistent = bool(stdbuf) if persistent is None else persistent and bool(stdbuf)
        self._stdbuf = stdbuf
        self._pipe: _Pipe | None = None
        self._serial = 0
        self._restarts = 0
        self._lock = threading.Lock()

    @classmethod
    def find(
        cls, dictionaries: Sequence[str], *, directory: Path | None = None, command: str = "hunspell", **options
    ) -> Hunspell | None:
        """A checker when the command and every dictionary are installed, else None."""
        folder = Path(directory or DICTIONARY_DIR)
        if not dictionaries or shutil.which(command) is None:
            return None
        if not all((folder / f"{name}.dic").is_file() and (folder / f"{name}.aff").is_file() for name in dictionaries):
            return None
        return cls(dictionaries, directory=folder, command=command, **options)

    def describe(self) -> str:
        return f"hunspell {', '.join(self.dictionaries)} ({self.directory})"

    def report(self) -> str | None:
        """One line on the analyses that could not be read whole, or None when there were none."""
        if not self.unreadable:
            return None
        unknown = sorted(w for w, how in self.unreadable.items() if how == "read as unknown")
        dropped = sorted(w for w, how in self.unreadable.items() if how == "fields dropped")
        parts = []
        if dropped:
            parts.append(f"{len(dropped)} with their unreadable fields dropped ({_examples(dropped)})")
        if unknown:
            parts.append(f"{len(unknown)} read as unknown ({_examples(unknown)})")
        return (
            f"{len(self.unreadable)} word(s) whose analysis could not be read whole (bytes that are not "
            "UTF-8, or hunspell ended on the word): " + "; ".join(parts)
        )

    def analyses(self, words: Iterable[str]) -> dict[str, tuple[Analysis, ...]]:
        """{word: its analyses} (empty for a word no dictionary knows); one exchange with the
        process for the words not cached."""
        wanted = list(dict.fromkeys(words))
        cache = self._cache
        missing = [w for w in wanted if w not in cache and _checkable(w)]
        if not missing:
            return {w: cache.get(w, ()) for w in wanted}
        with self._lock:
            found = self._look_up(missing)
        self.stats["words"] += len(missing)
        cache.update(found)
        if len(cache) > self.cache_size:  # down to 3/4 of it, oldest first: a corpus's vocabulary keeps growing
            for word in list(itertools.islice(cache, len(cache) - self.cache_size * 3 // 4)):
                del cache[word]
        return {w: found[w] if w in found else cache.get(w, ()) for w in wanted}

    def known(self, words: Iterable[str]) -> set[str]:
        return {w for w, found in self.analyses(words).items() if found}

    def close(self) -> None:
        """End the process (a later look-up starts another)."""
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None

    def __enter__(self) -> Hunspell:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __getstate__(self) -> dict:  # a copy (pickled, deep-copied) starts its own process
        state = self.__dict__.copy()
        state.update(_pipe=None, _lock=None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- the command ----------------------------------------------------------------------------
    def _argv(self) -> list[str]:
        paths = ",".join(str(self.directory / name) for name in self.dictionaries)
        return [self.command, "-m", "-i", "utf-8", "-d", paths]

    def _look_up(self, words: list[str]) -> dict[str, tuple[Analysis, ...]]:
        """Analyses of words no batch has asked for yet; a batch that kills the process is halved
        until the word that does is found (it reads as unknown)."""
        try:
            output = self._exchange(words)
        except _Died:
            self.close()
            self._restarts += 1
            if len(words) == 1 or self._restarts > _RESTARTS:
                for word in words:
                    self.unreadable[word] = "read as unknown"
                log.warning("hunspell ended while reading %s: read as unknown", _examples(words))
                return {w: () for w in words}
            half = len(words) // 2
            return {**self._look_up(words[:half]), **self._look_up(words[half:])}
        return self._read(output, words)

    def _exchange(self, words: list[str]) -> bytes:
        self.stats["exchanges"] += 1
        if self._persistent:
            try:
                return self._process().exchange(words)
            except _NoPipe:
                log.warning("hunspell gave no answer through a pipe: one run per batch from now on")
                self.close()
                self._persistent = False
        return self._run(words)

    def _process(self) -> _Pipe:
        if self._pipe is None:
            self.stats["processes"] += 1
            self._pipe = _Pipe([self._stdbuf or "stdbuf", "-oL", *self._argv()], self.timeout, self)
        return self._pipe

    def _run(self, words: list[str]) -> bytes:
        """One run of the command over the words (the fallback)."""
        self.stats["processes"] += 1
        result = subprocess.run(
            self._argv(), input="".join(w + "\n" for w in words).encode("utf-8"), capture_output=True,
            env=_environment(), check=False,
        )
        if result.returncode < 0:
            raise _Died
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip()[:200]
            raise RuntimeError(f"{self.command} failed ({result.returncode}): {message}")
        return result.stdout

    def _next_sentinel(self) -> str:
        self._serial += 1
        return _SENTINEL + _letters(self._serial)

    def _read(self, output: bytes, words: Sequence[str]) -> dict[str, tuple[Analysis, ...]]:
        """{word: analyses} from hunspell's output, decoded line by line.

        Each line is ``token  field field ...`` (the token alone: unknown; a blank line ends a
        token's lines). Lines are matched to words by their token, not by counting blocks: a word
        the tool splits (*a/b*) or drops (*«*) gives lines of other tokens or none. A byte that is
        not UTF-8 spoils only its field (hunspell cuts a multi-byte flag: *li  st:l fl:\\xc2*);
        a line whose token is unreadable cannot be matched, and the word left without a line
        reads as unknown.
        """
        found: dict[str, dict[Analysis, None]] = {}
        answered: set[str] = set()
        mangled: set[str] = set()
        lost = 0
        for raw in output.split(b"\n"):
            line = raw.decode("utf-8", "surrogateescape").strip()
            if not line:
                continue
            token, *fields = line.split()
            if _UNREADABLE.search(token):
                lost += 1
                continue
            if token.startswith(_SENTINEL):
                continue
            answered.add(token)
            readable = [f for f in fields if not _UNREADABLE.search(f)]
            if len(readable) < len(fields):
                mangled.add(token)
            if readable:
                found.setdefault(token, {})[frozenset(readable)] = None
        out = {}
        for word in words:
            out[word] = tuple(found.get(word, ()))
            if word in mangled or (lost and word not in answered):
                self.unreadable[word] = "fields dropped" if out[word] else "read as unknown"
        return out


class _Pipe:
    """One ``stdbuf -oL hunspell -m`` process: a batch of words in, its lines out until the
    batch's sentinel comes back. Writing and reading interleave (select), so a batch of any size
    fills neither pipe."""

    def __init__(self, argv: list[str], timeout: float, owner: Hunspell):
        self._stderr = tempfile.TemporaryFile()
        self.timeout = timeout
        self._owner = owner
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=_environment(), bufsize=0
        )
        os.set_blocking(self.process.stdin.fileno(), False)
        self._finalizer = weakref.finalize(self, end_process, self.process, self._stderr)
        try:  # the dictionaries load; a process that cannot answer its first sentinel is not used
            self.exchange([])
        except (_Died, _NoPipe):
            log.debug("%s through a pipe: %s", " ".join(argv), self.errors())
            self.close()
            raise _NoPipe from None

    def exchange(self, words: Sequence[str]) -> bytes:
        sentinel = self._owner._next_sentinel()
        payload = memoryview("".join(w + "\n" for w in words).encode("utf-8") + sentinel.encode() + b"\n")
        end = b"\n" + sentinel.encode() + b"\n\n"
        stdin, stdout = self.process.stdin.fileno(), self.process.stdout.fileno()
        out = bytearray(b"\n")  # a leading newline: the sentinel's line starts after one
        while True:
            ready, writable, _ = select.select([stdout], [stdin] if payload else [], [], self.timeout)
            if not ready and not writable:
                raise _NoPipe
            if writable:
                try:
                    payload = payload[os.write(stdin, payload[:65536]) :]
                except BlockingIOError:
                    pass
                except (BrokenPipeError, OSError):
                    raise _Died from None
            if ready:
                data = os.read(stdout, 1 << 16)
                if not data:
                    raise _Died
                out += data
                if out.endswith(end):
                    return bytes(out[1 : -len(end)])

    def errors(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()[-500:].decode("utf-8", "replace").strip() or "no message"

    def close(self) -> None:
        self._finalizer()


def _environment() -> dict[str, str]:
    return {**os.environ, "LC_ALL": "C.UTF-8"}


def _letters(number: int) -> str:
    """A serial number as lowercase letters (a token hunspell never splits)."""
    out = ""
    while True:
        number, digit = divmod(number, 26)
        out = chr(ord("a") + digit) + out
        if not number:
            return out


def _examples(words: Sequence[str], shown: int = 5) -> str:
    listed = ", ".join(list(words)[:shown])
    return listed + (", ..." if len(words) > shown else "")


def _checkable(word: str) -> bool:
    # one token per line: hunspell would split a word with spaces in it; a control character
    # or a lone surrogate cannot be sent as a line; the sentinel is ours
    if not word or len(word) > _MAX_WORD or _SENTINEL in word:
        return False
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in word):
        return False
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def agrees(analyses: Sequence[Analysis], features: Mapping[str, str], *, marks_gender: bool = False) -> bool:
    """Whether a known word can have these Gender and Number values.

    An analysis without gender or number fields (Spanish, Italian, Hebrew dictionaries) does not
    contradict them; where some analyses have them (French *inquiète*: an adjective, and a verb
    form without them) only those count. ``is:epi`` fits both genders and ``is:inv`` both numbers.
    With `marks_gender` (a dictionary that gives every adjective and participle its gender) a word
    meant to have a gender needs a reading with one: *partisses* is a verb form, not a feminine
    plural.
    """
    gender, number = _GENDER.get(features.get("Gender", "")), _NUMBER.get(features.get("Number", ""))
    # a word with gendered readings (inquiète: adjective, also a verb form) is judged by those
    gendered = [a for a in analyses if a & {"is:mas", "is:fem", "is:epi"}]
    if marks_gender and gender and not gendered:
        return False
    for analysis in gendered or analyses:
        genders = {f for f in analysis if f in ("is:mas", "is:fem", "is:epi")}
        numbers = {f for f in analysis if f in ("is:sg", "is:pl", "is:inv")}
        if gender and genders and not genders & {gender, "is:epi"}:
            continue
        if number and numbers and not numbers & {number, "is:inv"}:
            continue
        # a lexicon that gives a verb reading its tense and an adjective's its own (hspell: tn:past,
        # tn:fut, tn:pres, tn:adj) fits a past or future word with that tense only, a participle with the
        # present, an adjective with an adjective or the present
        tenses = {f for f in analysis if f.startswith("tn:")}
        if tenses and not tenses & _wanted_tenses(features):
            continue
        return True
    return False


def _wanted_tenses(features: Mapping[str, str]) -> set[str]:
    tense = _TENSE.get(features.get("Tense", ""))
    if tense:
        return {tense}
    return {"tn:pres"} if features.get("VerbForm") == "Part" else {"tn:pres", "tn:adj"}


def genderless(analyses: Sequence[Analysis], parts_of_speech: Iterable[str] = ("po:adj", "po:ppas")) -> bool:
    """Whether every adjective or participle reading fits both genders (French *jeune*, *malade*)."""
    chosen = [a for a in analyses if a & set(parts_of_speech)]
    return bool(chosen) and all("is:epi" in a for a in chosen)


def features_of(analyses: Sequence[Analysis], parts_of_speech: Iterable[str] = ("po:adj", "po:ppas")) -> dict[str, str]:
    """Gender and Number every analysis of those parts of speech agrees on ({} when none or they differ)."""
    chosen = [a for a in analyses if a & set(parts_of_speech)]
    out: dict[str, str] = {}
    for feature, table, neutral_field in (("Gender", _GENDER, "is:epi"), ("Number", _NUMBER, "is:inv")):
        values = {value for a in chosen for value, field in table.items() if field in a}
        neutral = any(neutral_field in a for a in chosen)
        if len(values) == 1 and not neutral:
            out[feature] = values.pop()
    return out
