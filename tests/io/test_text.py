import gzip
import io
import itertools
import lzma

import pytest

from cdaflow.io.text import count_lines, looks_like_conllu, numbered_lines, open_text, read_shard


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


def test_numbered_lines_of_a_file_and_of_stdin(tmp_path, monkeypatch):
    path = tmp_path / "in.txt"
    path.write_text("Hola.\r\nAdiós.\n\nfin", encoding="utf-8-sig")
    assert list(numbered_lines(path)) == [(1, "Hola."), (2, "Adiós."), (3, ""), (4, "fin")]
    # A pipe gives bytes: decoded as UTF-8 whatever the locale, the mark dropped.
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\ufeffHola.\n".encode()), encoding="latin-1"))
    assert list(numbered_lines(None)) == [(1, "Hola.")]
    # A text-only stand-in keeps what it was given, less the mark.
    monkeypatch.setattr("sys.stdin", io.StringIO("\ufeffHola.\n"))
    assert list(numbered_lines(None)) == [(1, "Hola.")]


def test_bad_bytes_are_reported_at_their_own_line(tmp_path):
    with pytest.raises(FileNotFoundError):
        numbered_lines(tmp_path / "absent.txt")  # before any line is asked for
    path = tmp_path / "latin1.txt"
    # Line 1 is long enough that a text-mode reader would decode line 2 with it, and blame line 1.
    path.write_bytes(("bien " * 5000 + "\n").encode() + "ni\xf1a\n".encode("latin-1"))
    lines = numbered_lines(path)
    assert next(lines)[0] == 1
    with pytest.raises(ValueError, match=r"latin1\.txt:2: not valid UTF-8 \(byte 0xf1 at character 3\)"):
        next(lines)


def test_a_line_longer_than_max_chars_is_refused_with_bounded_memory(tmp_path):
    path = tmp_path / "one-line.txt"
    path.write_bytes(b"ok\n" + b"x" * 5_000_000)  # no line break at all after line 1
    lines = numbered_lines(path, max_chars=1000)
    assert next(lines) == (1, "ok")
    with pytest.raises(ValueError, match=r"one-line\.txt:2: line longer than 1,000 characters \(--max-chars\)"):
        next(lines)
    # multi-byte characters count as characters, not bytes
    path.write_text("ñ" * 1000 + "\n", encoding="utf-8")
    assert list(numbered_lines(path, max_chars=1000)) == [(1, "ñ" * 1000)]
    path.write_text("ñ" * 1001 + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":1: line longer than 1,000 characters"):
        list(numbered_lines(path, max_chars=1000))


@pytest.mark.parametrize(
    "line, conllu",
    [
        ("# sent_id = s1", True),
        ("# text = La niña duerme.", True),
        ("1\tLa\tel\tDET\t_\t_\t2\tdet\t_\t_", True),
        ("3-4\tdel\t_\t_\t_\t_\t_\t_\t_\t_", True),
        ("La niña duerme.", False),
        ("# a heading in plain text", False),
        ("1\tuno\tone", False),
    ],
)
def test_looks_like_conllu(line, conllu):
    assert looks_like_conllu(line) is conllu


def test_count_lines(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a\nb\nc")
    assert count_lines(path) == 3
    path.write_text("a\nb\n")
    assert count_lines(path) == 2
    assert count_lines(tmp_path) is None


# -- live input: batches that close when a pipe stalls ---------------------------------------------
def test_chunks_close_when_a_live_input_stalls():
    import threading

    from cdaflow.io.text import LiveLines, chunks, close_live_input, on_input_wait

    gate = threading.Event()
    flushed = []

    def lines():
        yield 1, "a"
        yield 2, "b"
        gate.wait(300)  # the pipe carries nothing more until the test has seen the first batch
        yield 3, "c"

    remove = on_input_wait(lambda: flushed.append(len(flushed)))
    try:
        batches = chunks(LiveLines(lines()), 100)
        assert next(batches) == [(1, "a"), (2, "b")]  # closed at the stall, not at 100 lines
        assert flushed  # the output was flushed before the command waited
        gate.set()
        assert next(batches) == [(3, "c")]
        assert next(batches, None) is None
    finally:
        gate.set()
        remove()
        close_live_input()


def test_a_stage_behind_a_read_ahead_closes_its_chunk_at_the_last_line_read():
    import threading

    from cdaflow.io.text import LiveLines, chunks, close_live_input

    gate = threading.Event()

    def lines():
        yield from [(1, "a"), (2, "b"), (3, "c")]
        gate.wait(300)
        yield 4, "d"

    live = LiveLines(lines())
    try:
        read_ahead = [next(live), next(live), next(live)]  # what a parser's zone holds, say
        assert live.would_block(0.01)
        # behind it, items still flow though the input stalls, up to the last line read; then the
        # chunk closes instead of asking the stalled input for line 4 (which would wait for the gate)
        downstream = chunks(itertools.chain(read_ahead, live), 10, line_of=lambda item: item[0])
        assert next(downstream) == [(1, "a"), (2, "b"), (3, "c")]
        gate.set()
        assert next(downstream) == [(4, "d")]
    finally:
        gate.set()
        close_live_input()


def test_a_live_input_raises_its_errors_in_place():
    from cdaflow.io.text import LiveLines, close_live_input

    def lines():
        yield 1, "fine"
        raise ValueError("in.txt:2: not valid UTF-8")

    live = LiveLines(lines())
    try:
        assert next(live) == (1, "fine")
        with pytest.raises(ValueError, match="in.txt:2: not valid UTF-8"):
            next(live)
        assert next(live, None) is None
    finally:
        close_live_input()


def test_gzip_input_lines_are_read_uncompressed(tmp_path):
    path = tmp_path / "lines.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("uno\ndós\n")
    assert list(numbered_lines(path)) == [(1, "uno"), (2, "dós")]
    assert count_lines(path) is None  # a progress bar without a total, not the compressed newlines


def test_a_trickling_live_input_still_gets_batches_every_few_seconds(monkeypatch):
    """Lines that come just often enough never to stall a batch: it closes once it is
    MAX_BATCH_SECONDS old and no line is waiting (here stalls would take a minute)."""
    import threading

    from cdaflow.io import text
    from cdaflow.io.text import LiveLines, chunks, close_live_input

    monkeypatch.setattr(text, "STALL_SECONDS", 60.0)
    monkeypatch.setattr(text, "MAX_BATCH_SECONDS", 0.2)
    gate = threading.Event()

    def lines():
        yield 1, "a"
        yield 2, "b"
        gate.wait(300)
        yield 3, "c"

    try:
        batches = chunks(LiveLines(lines()), 100)
        assert next(batches) == [(1, "a"), (2, "b")]
        gate.set()
        assert list(batches) == [[(3, "c")]]
    finally:
        gate.set()
        close_live_input()
