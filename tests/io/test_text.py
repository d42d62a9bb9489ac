import gzip
import io
import lzma

import pytest

from cdaflow.io.text import open_text, read_lines, read_shard


def test_shards_partition_the_nonblank_lines(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("uno\n\ndos\ntres\n  \ncuatro\ncinco\n", encoding="utf-8")
    shards = [list(read_shard(path, k, 2)) for k in range(2)]
    # Blank lines are dealt too, so line numbers point into the file.
    assert shards[0] == [(1, "uno"), (3, "dos"), (7, "cinco")]
    assert shards[1] == [(4, "tres"), (6, "cuatro")]


def test_max_lines_caps_the_corpus(tmp_path):
    path = tmp_path / "corpus.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(f"línea {i}\n" for i in range(10)))
    assert [n for n, _ in read_shard(path, 0, 1, max_lines=3)] == [1, 2, 3]


def test_conllu_text_comments_are_the_lines(tmp_path):
    path = tmp_path / "t.conllu"
    path.write_text(
        "# sent_id = a\n# text = La niña.\n1\tLa\n\n# sent_id = b\n# text = El niño.\n1\tEl\n\n",
        encoding="utf-8",
    )
    assert list(read_shard(path, 0, 1)) == [(2, "La niña."), (6, "El niño.")]


def test_bad_shard_and_bad_encoding(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("bien\nni\xf1a\n".encode("latin-1"))
    with pytest.raises(ValueError, match="out of range"):
        list(read_shard(path, 2, 2))
    with pytest.raises(ValueError, match=r"latin1\.txt:\d+: not valid UTF-8"):
        list(read_shard(path, 0, 1))


def test_text_column_of_leipzig_files(tmp_path):
    path = tmp_path / "spa_wikipedia_2016_1M-sentences.txt"
    path.write_text("1\tEl ingeniero llegó.\n2\tLa niña canta.\n\n4\tHola.\n")
    lines = [item for k in range(2) for item in read_shard(path, k, 2, text_column=2)]
    assert sorted(lines) == [(1, "El ingeniero llegó."), (2, "La niña canta."), (4, "Hola.")]
    path.write_text("no tab here\n")
    with pytest.raises(ValueError, match=r"sentences.txt:1: 1 tab-separated fields, text_column is 2"):
        list(read_shard(path, 0, 1, text_column=2))


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".txt.xz"])
def test_corpus_with_a_byte_order_mark(tmp_path, suffix):
    path = tmp_path / f"corpus{suffix}"
    opener = {".txt": open, ".txt.gz": gzip.open, ".txt.xz": lzma.open}[suffix]
    with opener(path, "wt", encoding="utf-8-sig") as handle:
        handle.write("La niña.\nEl niño.\n")
    assert list(read_shard(path, 0, 1)) == [(1, "La niña."), (2, "El niño.")]


@pytest.mark.parametrize("opener", [open, gzip.open, lzma.open])
def test_open_text_tells_compression_by_content_not_name(tmp_path, opener):
    path = tmp_path / "corpus.data"  # a download's name need not say how it is packed
    with opener(path, "wt", encoding="utf-8-sig") as handle:
        handle.write("La niña.\nEl niño.\n")
    with open_text(path) as handle:
        assert handle.read() == "La niña.\nEl niño.\n"


def test_open_text_strict_or_replacing_invalid_utf8(tmp_path):
    path = tmp_path / "broken.txt.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"bien\nmal \xff byte\n")
    with pytest.raises(UnicodeDecodeError), open_text(path) as handle:
        handle.read()
    with open_text(path, errors="replace") as handle:
        assert handle.read().splitlines() == ["bien", "mal \ufffd byte"]
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with open_text(empty) as handle:
        assert handle.read() == ""


def test_read_lines_of_a_file_and_of_stdin(tmp_path, monkeypatch):
    path = tmp_path / "in.txt"
    path.write_text("Hola.\nAdiós.\n", encoding="utf-8-sig")
    assert list(read_lines(path)) == ["Hola.\n", "Adiós.\n"]
    # A pipe gives bytes: decoded as UTF-8 whatever the locale, the mark dropped.
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\ufeffHola.\n".encode()), encoding="latin-1"))
    assert list(read_lines(None)) == ["Hola.\n"]
    # A text-only stand-in keeps what it was given, less the mark.
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeffHola.\n"))
    assert list(read_lines(None)) == ["Hola.\n"]


def test_read_lines_fails_at_the_call_and_names_bad_bytes(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_lines(tmp_path / "absent.txt")  # before any line is asked for
    path = tmp_path / "latin1.txt"
    path.write_bytes("bien\nni\xf1a\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1\.txt:\d+: not valid UTF-8"):
        list(read_lines(path))
