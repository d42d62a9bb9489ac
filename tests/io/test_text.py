import gzip

import pytest

from cdaflow.io.text import read_shard


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
