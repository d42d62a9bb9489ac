"""How a line is read and how it was written: analysis reads NFC and sentence case, the output
keeps the user's spelling.

macOS (and text copied from it) writes decomposed NFD: *niña* as n, i, n, U+0303, a. No lexicon,
gazetteer or language file lists that spelling, so a word in NFD is looked up in NFC; a line in
capitals is parsed in sentence case. The output gives back every unchanged word as it was written.
"""

from __future__ import annotations

import copy
import unicodedata
from collections.abc import Sequence

from cdaflow.io.conllu import Sentence
from cdaflow.text.case import with_initial_case

__all__ = [
    "in_capitals", "in_form_of", "in_style_of", "is_nfc", "nfc", "read_sentence", "read_word", "reading",
    "written_spans",
]


# Typographic apostrophes read as the ASCII one the language files write (*l’homme* as *l'homme*).
APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def read_word(text: str) -> str:
    """A word or text as the lexicons read it: NFC, with the ASCII apostrophe."""
    return nfc(text).translate(APOSTROPHES)


def in_style_of(text: str, token: str) -> str:
    """A rebuilt token of `text` written in its style: in capitals where `text` is, with its
    typographic apostrophe where it uses one and no ASCII one, decomposed where it is (NFD: a
    new *él* in a text written on macOS)."""
    if in_capitals(text):
        token = token.upper()
    if "\u2019" in text and "'" not in text:
        token = token.replace("'", "\u2019")
    if not is_nfc(text) and unicodedata.is_normalized("NFD", text):
        token = unicodedata.normalize("NFD", token)
    return token


def is_nfc(text: str) -> bool:
    return unicodedata.is_normalized("NFC", text)


def in_form_of(written: str, new: str) -> str:
    """`new` (NFC) in the normal form `written` is in: NFD where `written` is NFD and not NFC, so a
    changed word of a decomposed text is decomposed too; else `new` as it is."""
    if not is_nfc(written) and unicodedata.is_normalized("NFD", written):
        return unicodedata.normalize("NFD", new)
    return new


def read_sentence(sentence: Sentence) -> Sentence:
    """`sentence` as analysis reads it (see :func:`reading`): FORM, LEMMA and ``# text`` in NFC with
    the ASCII apostrophe, and in sentence case where the sentence is in capitals, a run of two or
    more words tagged names capitalised (a full name: *ALBERTO FUJIMORI*, *SANTA BÁRBARA*); the
    sentence itself when it reads as written, else a copy (the same tokens and ids, so an index
    into one is an index into the other)."""
    text = str(sentence.metadata.get("text") or " ".join(t["form"] or "" for t in sentence))
    capitals = in_capitals(text)
    fields = [t.get(name) or "" for t in sentence for name in ("form", "lemma")]
    if not capitals and all(read_word(value) == value for value in fields + [text]):
        return sentence
    out = copy.deepcopy(sentence)
    start = True  # the next cased word begins a sentence
    for token in out:
        form, lemma = read_word(token.get("form") or ""), read_word(token.get("lemma") or "")
        cased = form != form.lower() or form != form.upper()
        if capitals:
            form, lemma = form.lower(), lemma.lower()
            if start and cased:
                form = with_initial_case(form, upper=True)
        if isinstance(token["id"], int):  # a word, not a multiword token's range
            start = (start and not cased) or form in (".", "!", "?", "…")
        token["form"] = form if token.get("form") else token.get("form")
        token["lemma"] = lemma if token.get("lemma") else token.get("lemma")
    if capitals:
        ws = [t for t in out if isinstance(t["id"], int)]
        names = [w.get("upos") == "PROPN" for w in ws]
        for i, w in enumerate(ws):
            if names[i] and (i > 0 and names[i - 1] or i + 1 < len(ws) and names[i + 1]) and w.get("form"):
                w["form"] = with_initial_case(w["form"], upper=True)
    if out.metadata.get("text"):
        out.metadata["text"] = reading(out.metadata["text"])
    return out


def in_capitals(text: str) -> bool:
    """Whether every cased letter of `text` is a capital, and there are two or more (a headline
    or a line typed in capitals; a lone *A* or *Y* is no such line)."""
    cased = [char for char in text if char.isupper() or char.islower()]
    return len(cased) > 1 and all(char.isupper() for char in cased)


def _clusters(text: str) -> list[tuple[int, int]]:
    """(start, end) of each character with the combining marks after it."""
    spans: list[tuple[int, int]] = []
    for index, char in enumerate(text):
        if spans and unicodedata.combining(char):
            spans[-1] = (spans[-1][0], index + 1)
        else:
            spans.append((index, index + 1))
    return spans


def _read_pieces(written: str) -> list[tuple[tuple[int, int], str]]:
    """Each character of `written` with its combining marks, and how a parser is to read it: in
    NFC with the ASCII apostrophe (spaCy's French lemma of *l’* is *l’*, of *l'* *le*), and in a
    line in capitals, in sentence case (a parser reads *EL PROFESOR ESTÁ CANSADO* as a name and
    an apposition, its lower-case words right)."""
    pieces = [(span, read_word(written[span[0] : span[1]])) for span in _clusters(written)]
    if not in_capitals(written):
        return pieces
    out, start = [], True
    for span, piece in pieces:
        cased = piece != piece.lower() or piece != piece.upper()
        out.append((span, piece.upper() if start and cased else piece.lower()))
        if cased:
            start = False
        elif piece in ".!?…":
            start = True
    return out


def reading(written: str) -> str:
    """`written` as the parser and the lexicons read it: NFC, ASCII apostrophes, a line in capitals
    in sentence case.
    Each of its tokens maps back to `written` (:func:`written_spans`)."""
    return "".join(piece for _, piece in _read_pieces(written))


def written_spans(written: str, tokens: Sequence[str], start: int = 0) -> tuple[list[tuple[int, int]], int] | None:
    """Where `written` spells each of `tokens` (substrings of ``reading(written)``, in order from
    its offset `start`): (start, end) offsets into `written`, and the offset in the reading after
    the last token; None where a token is not found or begins or ends inside a character's
    combining sequence.

    A character and its combining marks are read on their own (NFC composes such sequences, case
    changes them one by one), so an offset in the reading maps back to one in `written`."""
    pieces = _read_pieces(written)
    read = "".join(piece for _, piece in pieces)
    begins: dict[int, int] = {}  # offset of a piece in `read` -> its offset in `written`
    ends: dict[int, int] = {}  # offset after a piece in `read` -> the offset after it in `written`
    offset = 0
    for (first, last), piece in pieces:
        begins[offset] = first
        offset += len(piece)
        ends[offset] = last
    spans = []
    cursor = start
    for token in tokens:
        found = read.find(token, cursor)
        if not token or found < 0 or found not in begins or found + len(token) not in ends:
            return None
        spans.append((begins[found], ends[found + len(token)]))
        cursor = found + len(token)
    return spans, cursor
