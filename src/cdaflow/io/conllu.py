"""Streaming CoNLL-U reading, validation and writing on top of the ``conllu`` library.

Sentences are plain :class:`conllu.TokenList` objects. Reading keeps every comment line
(``# sent_id``, ``# text``, ``# newdoc``, free-form comments), multiword token ranges
(``3-4``) and empty nodes (``5.1``), so ``write_conllu(read_conllu(x))`` reproduces a
valid UD file byte for byte. Sentences read from a file remember where they came from
(:func:`source_info`), which is what lets validation errors name a file and line.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeAlias

import conllu
from conllu.exceptions import ParseException
from conllu.models import Metadata, Token, TokenList
from conllu.parser import DEFAULT_FIELD_PARSERS, DEFAULT_FIELDS, parse_line, parse_nullable_value

from cdaflow.io.atomic import atomic_file

__all__ = [
    "FIELDS",
    "ConlluError",
    "Sentence",
    "SourceInfo",
    "feats_dict",
    "is_empty_node",
    "is_multiword",
    "is_word",
    "new_sentence",
    "parse_conllu_string",
    "read_conllu",
    "source_info",
    "surface_tokens",
    "validate_sentence",
    "words",
    "write_conllu",
    "write_conllu_atomic",
]

Sentence: TypeAlias = TokenList
PathOrFile: TypeAlias = "str | os.PathLike[str] | IO[str]"

FIELDS: tuple[str, ...] = tuple(DEFAULT_FIELDS)
_SOURCE_ATTR = "_cdaflow_source"


class ConlluError(ValueError):
    """Malformed CoNLL-U input; ``str()`` is ``"<path>:<line>: <reason>"``."""

    def __init__(self, path: str | os.PathLike[str], line: int, reason: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}:{line}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep the error picklable (multiprocessing, Snakemake) despite the custom __init__.
        return (type(self), (self.path, self.line, self.reason))


@dataclass(frozen=True)
class SourceInfo:
    """Where a sentence was read from: its first line and the line of each token."""

    path: str
    line: int
    token_lines: tuple[int, ...]


def source_info(sentence: Sentence) -> SourceInfo | None:
    """The :class:`SourceInfo` of a sentence returned by :func:`read_conllu`, else None."""
    info = getattr(sentence, _SOURCE_ATTR, None)
    return info if isinstance(info, SourceInfo) else None


# ---------------------------------------------------------------------------
# token kinds and accessors


def is_word(token: Token) -> bool:
    """A syntactic word (integer id), not a multiword range nor an empty node."""
    return isinstance(token.get("id"), int)


def is_multiword(token: Token) -> bool:
    tid = token.get("id")
    return isinstance(tid, tuple) and len(tid) == 3 and tid[1] == "-"


def is_empty_node(token: Token) -> bool:
    tid = token.get("id")
    return isinstance(tid, tuple) and len(tid) == 3 and tid[1] == "."


def words(sentence: Sentence) -> list[Token]:
    """Syntactic words: the tree nodes, without multiword range lines and empty nodes."""
    return [token for token in sentence if is_word(token)]


def surface_tokens(sentence: Sentence) -> list[Token]:
    """Tokens as the text shows them: a multiword token replaces the words it covers."""
    result: list[Token] = []
    covered_until = 0
    for token in sentence:
        if is_multiword(token):
            result.append(token)
            covered_until = token["id"][2]
        elif is_word(token) and token["id"] > covered_until:
            result.append(token)
    return result


def feats_dict(token: Token) -> dict[str, str]:
    """FEATS as a fresh ``{feature: value}`` dict (empty for ``_``)."""
    feats = token.get("feats") or {}
    return {key: "_" if value is None else str(value) for key, value in feats.items()}


# ---------------------------------------------------------------------------
# parsing configuration for the conllu library


def _parse_dict_field(value: str) -> dict[str, str | None] | None:
    # conllu splits "Key=a=b" on every "=" and keeps only "a"; split on the first one.
    if parse_nullable_value(value) is None:
        return None
    result: dict[str, str | None] = {}
    for part in value.split("|"):
        key, sep, val = part.partition("=")
        if parse_nullable_value(key) is None:
            continue
        result[key] = parse_nullable_value(val) if sep else ""
    return result


_FIELD_PARSERS: dict[str, Any] = {
    **DEFAULT_FIELD_PARSERS,
    "feats": lambda fields, i: _parse_dict_field(fields[i]),
    "misc": lambda fields, i: _parse_dict_field(fields[i]),
}


def _keep_comment(key: str, value: str | None) -> tuple[str, str | None] | None:
    # conllu drops comments without "key = value" (e.g. AnCora's "# orig_file_sentence 001#1").
    return (key, value) if key else None


_METADATA_PARSERS: dict[str, Any] = {"__fallback__": _keep_comment}


def _token_from_fields(fields: list[str]) -> Token:
    token = Token()
    for i, name in enumerate(FIELDS):
        if i < len(fields):
            parser = _FIELD_PARSERS.get(name)
            token[name] = parser(fields, i) if parser else fields[i]
    return token


# ---------------------------------------------------------------------------
# reading


class _LineTracker:
    """Line iterator handed to ``conllu.parse_incr`` that records each sentence block.

    ``parse_incr`` yields one sentence per blank-line separated block, in order, and
    only after it has read the block's last line; so the block queue stays in step
    with the sentences and holds at most a couple of blocks (bounded memory).
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream = iter(stream)
        self.read = stream.read  # parse_incr insists on a file-like object
        self.lineno = 0
        self.blocks: deque[tuple[int, list[str]]] = deque()
        self._start = 0
        self._current: list[str] = []

    def __iter__(self) -> _LineTracker:
        return self

    def __next__(self) -> str:
        try:
            line = next(self._stream)
        except StopIteration:
            self._close_block()
            raise
        self.lineno += 1
        if line.strip() == "":
            self._close_block()
        else:
            if not self._current:
                self._start = self.lineno
            self._current.append(line)
        return line

    def _close_block(self) -> None:
        if self._current:
            self.blocks.append((self._start, self._current))
            self._current = []


def _token_line_indices(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if not line.lstrip().startswith("#")]


def _check_field_counts(path: str, start: int, lines: list[str]) -> None:
    for i in _token_line_indices(lines):
        n = len(lines[i].rstrip("\r\n").split("\t"))
        if n != len(FIELDS):
            raise ConlluError(path, start + i, f"expected {len(FIELDS)} tab-separated fields, got {n}")


def _parse_error(path: str, start: int, lines: list[str], exc: Exception, validate: bool) -> ConlluError:
    if validate:
        try:
            _check_field_counts(path, start, lines)
        except ConlluError as err:
            return err
    for i in _token_line_indices(lines):
        try:
            parse_line(lines[i].strip(), list(FIELDS), dict(_FIELD_PARSERS))
        except ParseException as line_exc:
            return ConlluError(path, start + i, f"invalid token line: {line_exc}")
    return ConlluError(path, start, f"cannot parse sentence: {exc}")


def _fix_spaced_fields(sentence: Sentence, lines: list[str], indices: list[int]) -> None:
    # conllu also splits on runs of two spaces, but UD allows spaces inside FORM/LEMMA.
    for token_index, line_index in enumerate(indices):
        line = lines[line_index].rstrip("\r\n")
        if "  " in line:
            fields = line.split("\t")
            if len(fields) == len(FIELDS):
                sentence[token_index] = _token_from_fields(fields)


def _iter_sentences(stream: IO[str], path: str, validate: bool, close: bool) -> Iterator[Sentence]:
    tracker = _LineTracker(stream)
    parsed = conllu.parse_incr(
        tracker,  # type: ignore[arg-type]
        field_parsers=_FIELD_PARSERS,
        metadata_parsers=_METADATA_PARSERS,
    )
    try:
        while True:
            try:
                sentence = next(parsed)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise ConlluError(
                    path, tracker.lineno + 1, f"not valid UTF-8 (at or after this line): {exc}"
                ) from exc
            except (ParseException, ValueError, IndexError) as exc:
                if not tracker.blocks:
                    raise ConlluError(path, tracker.lineno, f"cannot parse: {exc}") from exc
                start, lines = tracker.blocks.popleft()
                raise _parse_error(path, start, lines, exc, validate) from exc
            start, lines = tracker.blocks.popleft()
            if validate:
                _check_field_counts(path, start, lines)
            indices = _token_line_indices(lines)
            if len(indices) == len(sentence):
                _fix_spaced_fields(sentence, lines, indices)
                token_lines = tuple(start + i for i in indices)
            else:
                token_lines = ()
            setattr(sentence, _SOURCE_ATTR, SourceInfo(path, start, token_lines))
            if validate:
                validate_sentence(sentence, path, start)
            yield sentence
    finally:
        if close:
            stream.close()


def read_conllu(source: PathOrFile, *, validate: bool = True) -> Iterator[Sentence]:
    """Stream sentences from a CoNLL-U path or open text file.

    With ``validate`` every sentence is checked by :func:`validate_sentence`; any problem
    (including the ``conllu`` library's own parse errors) raises :class:`ConlluError`.
    A path is opened right away, so a missing file fails at the call.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        stream: IO[str] = open(path, encoding="utf-8-sig")  # a byte-order mark is not part of the first line
        return _iter_sentences(stream, path, validate, close=True)
    name = getattr(source, "name", None)
    return _iter_sentences(source, name if isinstance(name, str) else "<stream>", validate, False)


def parse_conllu_string(text: str, *, path: str = "<string>", validate: bool = True) -> list[Sentence]:
    """Parse CoNLL-U text held in memory (same rules as :func:`read_conllu`)."""
    import io

    return list(_iter_sentences(io.StringIO(text), path, validate, close=False))


# ---------------------------------------------------------------------------
# validation


def _where(sentence: Sentence, token_id: object | None = None) -> str:
    sent_id = sentence.metadata.get("sent_id")
    parts = [f"sentence {sent_id!r}"] if sent_id else []
    if token_id is not None:
        parts.append(f"token {_format_id(token_id)}")
    return " ".join(parts) + ": " if parts else ""


def _format_id(token_id: object) -> str:
    if isinstance(token_id, tuple):
        return "".join(str(part) for part in token_id)
    return str(token_id)


def _find_cycle(heads: dict[int, int]) -> list[int] | None:
    done: set[int] = set()
    for start in heads:
        path: list[int] = []
        on_path: set[int] = set()
        node = start
        while node != 0 and node not in done:
            if node in on_path:
                cycle = path[path.index(node) :]
                first = cycle.index(min(cycle))
                cycle = cycle[first:] + cycle[:first]
                return cycle + [cycle[0]]
            on_path.add(node)
            path.append(node)
            node = heads[node]
        done.update(path)
    return None


def validate_sentence(sentence: Sentence, path: str | os.PathLike[str] = "<memory>", line: int = 1) -> None:
    """Check one sentence's UD structure; raise :class:`ConlluError` on the first problem.

    Checks: all 10 fields; integer ids 1..n in order; well-formed, non-overlapping
    multiword ranges placed before their first word; empty nodes after existing words;
    HEAD an integer in 0..n (``_`` only for empty nodes); DEPREL present; a single root;
    and a head graph that is a tree. ``line`` is the sentence's first line; token lines
    come from :func:`source_info` when the sentence was read from a file.
    """
    info = source_info(sentence)
    if info is not None and len(info.token_lines) == len(sentence):
        token_lines = list(info.token_lines)
    else:
        # Generated sentences: this is where write_conllu would put each token.
        first = line + len(sentence.metadata)
        token_lines = [first + i for i in range(len(sentence))]

    def fail(reason: str, index: int | None = None) -> ConlluError:
        return ConlluError(path, line if index is None else token_lines[index], reason)

    expected = 1
    word_index: dict[int, int] = {}
    ranges: list[tuple[int, int, int]] = []
    empties: list[tuple[int, int]] = []
    for index, token in enumerate(sentence):
        missing = [name for name in FIELDS if name not in token]
        if missing:
            raise fail(
                f"{_where(sentence)}expected {len(FIELDS)} fields, got "
                f"{len(FIELDS) - len(missing)} (missing {', '.join(missing)})",
                index,
            )
        tid = token["id"]
        if is_word(token):
            if tid != expected:
                raise fail(f"{_where(sentence)}token id {tid} where {expected} was expected", index)
            word_index[tid] = index
            expected += 1
        elif is_multiword(token):
            ranges.append((index, tid[0], tid[2]))
        elif is_empty_node(token):
            empties.append((index, tid[0]))
        else:
            raise fail(f"{_where(sentence)}invalid token id {tid!r}", index)
    n = expected - 1
    if n == 0:
        raise fail(f"{_where(sentence)}sentence has no words")

    previous_end = 0
    previous: tuple[int, int] | None = None
    for index, start, end in ranges:
        label = f"{_where(sentence)}multiword token {start}-{end}"
        if start >= end:
            raise fail(f"{label}: range start must be below its end", index)
        if end > n:
            raise fail(f"{label}: covers word {end} but the sentence has {n} words", index)
        if previous is not None and start <= previous_end:
            raise fail(f"{label} overlaps {previous[0]}-{previous[1]}", index)
        following = next((t for t in sentence[index + 1 :] if is_word(t)), None)
        if following is None or following["id"] != start:
            raise fail(f"{label}: must come right before word {start}", index)
        previous, previous_end = (start, end), end

    for index, anchor in empties:
        if anchor > n:
            raise fail(
                f"{_where(sentence, sentence[index]['id'])}empty node after missing word {anchor}",
                index,
            )
        head = sentence[index]["head"]
        if head is not None and not (isinstance(head, int) and 0 <= head <= n):
            raise fail(f"{_where(sentence, sentence[index]['id'])}HEAD {head} out of range 0..{n}", index)

    heads: dict[int, int] = {}
    for tid, index in word_index.items():
        token = sentence[index]
        head = token["head"]
        if not isinstance(head, int):
            raise fail(f"{_where(sentence, tid)}HEAD must be an integer, got {head!r}", index)
        if not 0 <= head <= n:
            raise fail(f"{_where(sentence, tid)}HEAD {head} out of range 0..{n}", index)
        if token["deprel"] in (None, "", "_"):
            raise fail(f"{_where(sentence, tid)}DEPREL is missing", index)
        heads[tid] = head

    roots = [tid for tid, head in heads.items() if head == 0]
    if not roots:
        raise fail(f"{_where(sentence)}no root (no word has HEAD 0)")
    if len(roots) > 1:
        listed = ", ".join(str(r) for r in roots)
        raise fail(f"{_where(sentence)}{len(roots)} roots (tokens {listed})", word_index[roots[1]])
    cycle = _find_cycle(heads)
    if cycle is not None:
        chain = " -> ".join(str(t) for t in cycle)
        raise fail(f"{_where(sentence)}cycle through tokens {chain}", word_index[cycle[0]])


# ---------------------------------------------------------------------------
# writing


def _write(sentences: Iterable[Sentence], stream: IO[str]) -> int:
    count = 0
    for sentence in sentences:
        stream.write(sentence.serialize())
        count += 1
    return count


def write_conllu(sentences: Iterable[Sentence], destination: PathOrFile) -> int:
    """Write sentences as CoNLL-U (UTF-8, ``\\n`` line ends); return how many were written."""
    if isinstance(destination, (str, os.PathLike)):
        with open(destination, "w", encoding="utf-8", newline="\n") as stream:
            return _write(sentences, stream)
    return _write(sentences, destination)


def write_conllu_atomic(sentences: Iterable[Sentence], path: str | os.PathLike[str]) -> int:
    """Like :func:`write_conllu`, but readers never see a partial file.

    Writes to a temporary file in the target folder and renames it into place; if
    anything fails (including the ``sentences`` iterator), no file is left behind.
    """
    with atomic_file(path, newline="\n") as stream:
        return _write(sentences, stream)


def new_sentence(tokens: list[Token], metadata: dict[str, str] | None = None) -> Sentence:
    """Build a sentence with UD field order from token dicts (missing fields become ``_``)."""
    full = [Token({name: token.get(name) for name in FIELDS}) for token in tokens]
    return TokenList(full, Metadata(metadata or {}), default_fields=list(FIELDS))
