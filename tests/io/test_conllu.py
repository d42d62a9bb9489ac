"""CoNLL-U reading, validation and writing."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import pytest

from cdaflow.io.conllu import (
    ConlluError,
    feats_dict,
    new_sentence,
    parse_conllu_string,
    read_conllu,
    source_info,
    surface_tokens,
    validate_sentence,
    words,
    write_conllu,
    write_conllu_atomic,
)

UD_FILES = [
    f"UD_{treebank}/{prefix}-ud-{split}.conllu"
    for treebank, prefix in [
        ("Spanish-GSD", "es_gsd"),
        ("Spanish-AnCora", "es_ancora"),
        ("French-GSD", "fr_gsd"),
        ("Italian-ISDT", "it_isdt"),
        ("Hebrew-HTB", "he_htb"),
    ]
    for split in ("dev", "test")
]


def row(*fields: object) -> str:
    return "\t".join(str(f) for f in fields) + "\n"


def word(i: int, form: str, head: object, deprel: str = "dep", misc: str = "_") -> str:
    return row(i, form, form.lower(), "X", "_", "_", head, deprel, "_", misc)


# Spanish sentence with a multiword token, a free-form comment, newdoc/newpar, SpaceAfter.
MWT = (
    "# newdoc id = demo\n"
    "# newpar\n"
    "# sent_id = es-1\n"
    "# text = La hija del rey.\n"
    "# orig_file_sentence 001#1\n"
    + row(
        1,
        "La",
        "el",
        "DET",
        "DA0FS0",
        "Definite=Def|Gender=Fem|Number=Sing|PronType=Art",
        2,
        "det",
        "_",
        "_",
    )
    + row(2, "hija", "hija", "NOUN", "_", "Gender=Fem|Number=Sing", 0, "root", "0:root", "_")
    + row("3-4", "del", "_", "_", "_", "_", "_", "_", "_", "_")
    + row(3, "de", "de", "ADP", "_", "_", 5, "case", "_", "_")
    + row(
        4,
        "el",
        "el",
        "DET",
        "_",
        "Definite=Def|Gender=Masc|Number=Sing|PronType=Art",
        5,
        "det",
        "_",
        "_",
    )
    + row(5, "rey", "rey", "NOUN", "_", "Gender=Masc|Number=Sing", 2, "nmod", "_", "SpaceAfter=No")
    + row(6, ".", ".", "PUNCT", "_", "_", 2, "punct", "_", "Gloss=a=b|SpaceAfter=No")
    + "\n"
)

# English-style ellipsis with an empty node and enhanced dependencies.
EMPTY = (
    "# sent_id = en-2\n"
    "# text = Sue likes coffee and Bill tea\n"
    + row(1, "Sue", "Sue", "PROPN", "_", "_", 2, "nsubj", "2:nsubj|2.1:nsubj", "_")
    + row(2, "likes", "like", "VERB", "_", "_", 0, "root", "0:root", "_")
    + row(3, "coffee", "coffee", "NOUN", "_", "_", 2, "obj", "2:obj", "_")
    + row(4, "and", "and", "CCONJ", "_", "_", 5, "cc", "2.1:cc", "_")
    + row(5, "Bill", "Bill", "PROPN", "_", "_", 3, "conj", "2.1:nsubj", "_")
    + row("5.1", "likes", "like", "VERB", "_", "_", "_", "_", "2:conj", "CopyOf=2")
    + row(6, "tea", "tea", "NOUN", "_", "_", 5, "orphan", "2.1:obj", "_")
    + "\n"
)

# A form with spaces inside (allowed since UD v2); conllu alone would split it.
SPACED = (
    "# sent_id = fr-3\n"
    "# text = 100  000 euros\n"
    + row(1, "100  000", "100  000", "NUM", "_", "_", 2, "nummod", "_", "_")
    + row(2, "euros", "euro", "NOUN", "_", "_", 0, "root", "_", "_")
    + "\n"
)


def roundtrip(text: str) -> str:
    out = io.StringIO()
    write_conllu(read_conllu(io.StringIO(text)), out)
    return out.getvalue()


@pytest.mark.parametrize(
    "text", [MWT, EMPTY, SPACED, MWT + EMPTY + SPACED], ids=["mwt", "empty", "spaced", "all"]
)
def test_roundtrip_handmade_is_byte_identical(text: str) -> None:
    assert roundtrip(text) == text


def test_comments_mwt_and_empty_nodes_are_kept() -> None:
    [mwt, empty] = parse_conllu_string(MWT + EMPTY)
    assert mwt.metadata["sent_id"] == "es-1"
    assert mwt.metadata["text"] == "La hija del rey."
    assert "orig_file_sentence 001#1" in mwt.metadata
    assert [t["form"] for t in words(mwt)] == ["La", "hija", "de", "el", "rey", "."]
    assert [t["form"] for t in surface_tokens(mwt)] == ["La", "hija", "del", "rey", "."]
    assert feats_dict(mwt[1]) == {"Gender": "Fem", "Number": "Sing"}
    assert feats_dict(mwt[2]) == {}
    assert mwt[-1]["misc"] == {"Gloss": "a=b", "SpaceAfter": "No"}
    assert [t["form"] for t in words(empty)] == ["Sue", "likes", "coffee", "and", "Bill", "tea"]
    assert empty[5]["id"] == (5, ".", 1)
    assert "5.1\tlikes" in empty.serialize()


def test_source_info_tracks_lines() -> None:
    sentences = parse_conllu_string("\n" + MWT + "\n" + EMPTY, path="x.conllu")
    first, second = (source_info(s) for s in sentences)
    assert first is not None and second is not None
    assert (first.path, first.line) == ("x.conllu", 2)
    assert first.token_lines[0] == 7  # after the leading blank line and five comments
    assert second.line == 2 + MWT.count("\n") + 1
    assert second.token_lines[-1] == second.line + 2 + 6


def test_read_path_and_write_path_roundtrip(tmp_path: Path) -> None:
    source = tmp_path / "in.conllu"
    source.write_text(MWT + EMPTY, encoding="utf-8")
    target = tmp_path / "out.conllu"
    assert write_conllu(read_conllu(source), target) == 2
    assert target.read_bytes() == source.read_bytes()


def test_read_missing_file_fails_at_call(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_conllu(tmp_path / "nope.conllu")


@pytest.mark.shared_data
@pytest.mark.parametrize("relpath", UD_FILES)
def test_roundtrip_real_ud_files(shared_data: Path, relpath: str) -> None:
    path = shared_data / "ud-treebanks-v2.2" / relpath
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    out = io.StringIO()
    count = write_conllu(read_conllu(path), out)
    assert count > 100
    assert out.getvalue().encode("utf-8") == path.read_bytes()


# ---------------------------------------------------------------------------
# malformed input


def sentence_text(*rows: str, sent_id: str = "es-dev-001") -> str:
    return f"# sent_id = {sent_id}\n# text = x\n" + "".join(rows) + "\n"


GOOD_WORDS = [word(1, "Ella", 2, "nsubj"), word(2, "canta", 0, "root"), word(3, ".", 2, "punct")]

MALFORMED = {
    # name: (text, line, reason)
    "field count": (
        sentence_text(
            word(1, "Ella", 2), "2\tcanta\tcantar\tVERB\t_\t_\t0\troot\n", word(3, ".", 2)
        ),
        4,
        "expected 10 tab-separated fields, got 8",
    ),
    "non-integer id": (
        sentence_text(word(1, "Ella", 2), word("x", "canta", 0, "root"), word(3, ".", 2)),  # type: ignore[arg-type]
        4,
        "'x' is not a valid ID",
    ),
    "id gap": (
        sentence_text(word(1, "Ella", 2), word(2, "canta", 0, "root"), word(4, ".", 2)),
        5,
        "sentence 'es-dev-001': token id 4 where 3 was expected",
    ),
    "head out of range": (
        sentence_text(*GOOD_WORDS[:2], word(3, "bien", 2), word(4, ".", 9)),
        6,
        "sentence 'es-dev-001' token 4: HEAD 9 out of range 0..4",
    ),
    "head underscore": (
        sentence_text(word(1, "Ella", "_"), *GOOD_WORDS[1:]),
        3,
        "sentence 'es-dev-001' token 1: HEAD must be an integer, got None",
    ),
    "missing deprel": (
        sentence_text(word(1, "Ella", 2, "_"), *GOOD_WORDS[1:]),
        3,
        "sentence 'es-dev-001' token 1: DEPREL is missing",
    ),
    "two roots": (
        sentence_text(
            word(1, "Ella", 2),
            word(2, "canta", 0, "root"),
            word(3, "y", 2),
            word(4, "baila", 2),
            word(5, "hoy", 6),
            word(6, "ya", 0, "root"),
        ),
        8,
        "sentence 'es-dev-001': 2 roots (tokens 2, 6)",
    ),
    "no root": (
        sentence_text(word(1, "Ella", 2), word(2, "canta", 1), word(3, ".", 2)),
        1,
        "sentence 'es-dev-001': no root (no word has HEAD 0)",
    ),
    "cycle": (
        sentence_text(
            word(1, "Ella", 2),
            word(2, "canta", 0, "root"),
            word(3, "muy", 5),
            word(4, "bien", 2),
            word(5, "hoy", 3),
        ),
        5,
        "sentence 'es-dev-001': cycle through tokens 3 -> 5 -> 3",
    ),
    "self loop": (
        sentence_text(word(1, "Ella", 1), word(2, "canta", 0, "root")),
        3,
        "sentence 'es-dev-001': cycle through tokens 1 -> 1",
    ),
    "reversed mwt range": (
        sentence_text(
            word(1, "Ella", 2),
            word(2, "canta", 0, "root"),
            row("4-3", "x", *["_"] * 8),
            word(3, "a", 2),
            word(4, "b", 2),
        ),
        5,
        "'4-3' is not a valid ID",
    ),
    "mwt range of one": (
        sentence_text(
            word(1, "Ella", 2), row("2-2", "canta", *["_"] * 8), word(2, "canta", 0, "root")
        ),
        4,
        "sentence 'es-dev-001': multiword token 2-2: range start must be below its end",
    ),
    "mwt beyond sentence": (
        sentence_text(
            word(1, "Ella", 2),
            row("2-4", "cantalo", *["_"] * 8),
            word(2, "canta", 0, "root"),
            word(3, "lo", 2),
        ),
        4,
        "sentence 'es-dev-001': multiword token 2-4: covers word 4 but the sentence has 3 words",
    ),
    "overlapping mwt": (
        sentence_text(
            row("1-2", "ab", *["_"] * 8),
            word(1, "a", 2),
            row("2-3", "bc", *["_"] * 8),
            word(2, "b", 0, "root"),
            word(3, "c", 2),
        ),
        5,
        "sentence 'es-dev-001': multiword token 2-3 overlaps 1-2",
    ),
    "misplaced mwt": (
        sentence_text(
            row("2-3", "bc", *["_"] * 8), word(1, "a", 2), word(2, "b", 0, "root"), word(3, "c", 2)
        ),
        3,
        "sentence 'es-dev-001': multiword token 2-3: must come right before word 2",
    ),
    "garbage text": (
        sentence_text(*GOOD_WORDS) + "this is not conllu at all\n",
        7,
        "expected 10 tab-separated fields, got 1",
    ),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_names_path_line_and_reason(tmp_path: Path, name: str) -> None:
    text, line, reason = MALFORMED[name]
    path = tmp_path / "bad.conllu"
    path.write_text(sentence_text(*GOOD_WORDS, sent_id="ok") + text, encoding="utf-8")
    offset = 6  # the valid first sentence takes six lines
    with pytest.raises(ConlluError) as info:
        list(read_conllu(path))
    err = info.value
    assert err.path == str(path)
    assert err.line == line + offset, err
    assert reason in err.reason
    assert str(err) == f"{path}:{line + offset}: {err.reason}"


def test_garbage_without_validation_still_reports_library_error() -> None:
    text = sentence_text(*GOOD_WORDS) + "garbage\n"
    with pytest.raises(ConlluError) as info:
        list(read_conllu(io.StringIO(text), validate=False))
    assert info.value.line == 7  # its own block after the blank line
    assert info.value.path == "<stream>"
    assert "Invalid line format" in info.value.reason


def test_validate_false_accepts_bad_trees() -> None:
    text, _, _ = MALFORMED["cycle"]
    [sentence] = read_conllu(io.StringIO(text), validate=False)
    assert len(sentence) == 5


def test_invalid_utf8_is_a_conllu_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.conllu"
    path.write_bytes(sentence_text(word(1, "niña", 0, "root")).encode("latin-1"))
    with pytest.raises(ConlluError, match="not valid UTF-8"):
        list(read_conllu(path))


def test_validate_generated_sentence_and_error_pickles() -> None:
    sentence = new_sentence(
        [
            {"id": 1, "form": "Hola", "head": 0, "deprel": "root"},
            {"id": 2, "form": "!", "head": 3, "deprel": "punct"},
        ],
        {"sent_id": "g-1"},
    )
    with pytest.raises(ConlluError) as info:
        validate_sentence(sentence, "gen.conllu", 10)
    assert info.value.line == 12  # one comment line, then token 2
    assert info.value.reason == "sentence 'g-1' token 2: HEAD 3 out of range 0..2"
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.path, copy.line, copy.reason) == ("gen.conllu", 12, info.value.reason)


# ---------------------------------------------------------------------------
# atomic writing


def test_atomic_write_replaces_target(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.conllu"
    assert write_conllu_atomic(parse_conllu_string(MWT), target) == 1
    assert target.read_text(encoding="utf-8") == MWT
    write_conllu_atomic(parse_conllu_string(EMPTY), target)
    assert target.read_text(encoding="utf-8") == EMPTY
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.conllu"]


def test_atomic_write_leaves_nothing_on_exception(tmp_path: Path) -> None:
    def failing():
        yield from parse_conllu_string(MWT)
        raise RuntimeError("boom")

    target = tmp_path / "out.conllu"
    with pytest.raises(RuntimeError, match="boom"):
        write_conllu_atomic(failing(), target)
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_keeps_old_file_on_exception(tmp_path: Path) -> None:
    target = tmp_path / "out.conllu"
    target.write_text("old", encoding="utf-8")

    def failing():
        yield from parse_conllu_string(MWT)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_conllu_atomic(failing(), target)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.conllu"]
