"""A parsed sentence as the agreement MRF's input: integer arrays of heads, parts of speech, relations,
tags and arc frames (:class:`EncodedSentence`), and padded batches of them (:class:`Batch`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.bp import TreeBatch
from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
from cdaflow.text import language as languages

UPOS = "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()


DEPRELS = (
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det discourse "
    "dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl orphan "
    "parataxis punct reparandum root vocative xcomp"
).split()


POS_INDEX = {p: i for i, p in enumerate(UPOS)}  # unknown → len(UPOS)


REL_INDEX = {r: i for i, r in enumerate(DEPRELS)}


N_POS, N_REL = len(UPOS) + 1, len(DEPRELS) + 1


# Arc frames (``arc_frames=True``): what kind of predicate a clause-level arc belongs to, read off
# the tree the same way for gold UD trees and a parser's. A participle or adjective agrees with
# its subject under a copula or a "be" auxiliary (passives; *está cansado*, *fue elegido*; French
# and Italian perfects with être/essere) and not under another auxiliary (*ha elegido*): the
# arc type (head POS, dependent POS, relation) alone mixes the two.
#   none:  no copula or auxiliary on either end, or a relation inside the noun phrase;
#   be:    a copula, a passive auxiliary or an auxiliary whose lemma is a copula's (the language
#          file's be_lemmas);
#   aux:   another auxiliary (haber, avoir, avere, modals);
#   relay: a predicative conj/xcomp/advcl of a genderless verb, hung on that verb's subject
#          (*La periodista llegó tarde y estaba cansada*: *llegó* has no gender to pass on);
#   subject: a dependent clause with a subject of its own, which it agrees with instead
#          (*el día en que el niño estaba cansado*), or a relative clause predicate whose
#          subject is elided (*los lugares donde están empadronadas*); a relative pronoun
#          subject (*que*, *quien*) stands for the head noun and keeps the predicate's frame.
FRAMES = ("none", "be", "aux", "relay", "subject")


N_FRAMES = len(FRAMES)


# Relations inside a noun phrase (and function words): a copula of the clause says nothing of them.
PHRASE_RELATIONS = frozenset(
    "det amod nummod nmod case compound flat fixed punct cc mark cop aux clf goeswith".split()
)


RELAY_RELATIONS = frozenset({"conj", "xcomp", "advcl"})


SUBJECT_POS = frozenset({"NOUN", "PROPN", "PRON"})


def relation(deprel: str | None) -> str:
    return (deprel or "dep").split(":", 1)[0]


@dataclass
class EncodedSentence:
    """One sentence's syntactic words as integer arrays (heads 1-based, 0 = root).

    ``framed_heads`` and ``frames`` are the tree and arc frames of ``arc_frames`` models
    (:func:`arc_frames`); the paper's models use ``heads`` and no frame.
    """

    heads: np.ndarray
    pos: np.ndarray
    rel: np.ndarray
    tags: np.ndarray
    framed_heads: np.ndarray | None = None
    frames: np.ndarray | None = None
    # bool: the word keeps its tag (it heads a fixed expression; the caller may add others, e.g.
    # the participle of a perfect)
    frozen: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.framed_heads is None:
            self.framed_heads = self.heads.copy()
        if self.frames is None:
            self.frames = np.zeros_like(self.heads)
        if self.frozen is None:
            self.frozen = np.zeros(len(self.heads), dtype=bool)


def _predicate_frame(children: list[dict], be_lemmas: Collection[str]) -> str:
    """The frame a word's own copula or auxiliaries give it (``none`` without either)."""
    frame = "none"
    for child in children:
        rel, lemma = (child["deprel"] or ""), (child["lemma"] or "").lower()
        if rel.split(":")[0] == "cop" or (rel.split(":")[0] == "aux" and (rel.endswith(":pass") or lemma in be_lemmas)):
            return "be"
        if rel.split(":")[0] == "aux":
            frame = "aux"
    return frame


def _is_relative(word: dict) -> bool:
    return "Rel" in ((word["feats"] or {}).get("PronType") or "")


def arc_frames(ws: Sequence[dict], be_lemmas: Collection[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(1-based heads, frame id of each word's arc to its head) of an ``arc_frames`` tree.

    `be_lemmas` are the language's copulas (its file's ``be_lemmas``); None: every language's.

    The tree is UD's but for relayed words. A predicate without a subject of its own that is a
    conj, xcomp or advcl (or an adjective in obj: AnCora's *quedó encantado*, *se hizo famosa*)
    of a word without a gender (a finite verb), or a conj of any predicate, hangs on that word's
    subject instead, with frame ``relay``. The subject is found as enhanced UD propagates it: a
    head's own nominal subject, the antecedent of a relative pronoun subject (*el camarero, que
    parecía cansado*), or the subject of the predicate the head is itself conjoined to
    (*publicó … y se hizo famosa*).
    A move that would make a cycle is not made, so the result is always a tree.
    """
    children: dict[int, list[dict]] = {}
    for w in ws:
        children.setdefault(int(w["head"] or 0), []).append(w)
    by_id = {int(w["id"]): w for w in ws}
    be = languages.be_lemmas_of_all() if be_lemmas is None else be_lemmas
    own = {int(w["id"]): _predicate_frame(children.get(int(w["id"]), []), be) for w in ws}
    heads = np.array([int(w["head"] or 0) for w in ws], dtype=np.int64)
    frames = np.zeros(len(ws), dtype=np.int64)

    def subject_of(word_id: int, depth: int = 0) -> int | None:
        word = by_id[word_id]
        for child in children.get(word_id, []):
            if relation(child["deprel"]) == "nsubj" and child["upos"] in SUBJECT_POS:
                if _is_relative(child):
                    head = int(word["head"] or 0)
                    return head if relation(word["deprel"]) == "acl" and head else None
                return int(child["id"])
        head = int(word["head"] or 0)
        if head and depth < len(ws) and relation(word["deprel"]) in RELAY_RELATIONS:
            return subject_of(head, depth + 1)
        return None

    def below(node: int, ancestor: int) -> bool:  # in the current tree
        steps = 0
        while node and steps <= len(ws):
            if node == ancestor:
                return True
            node, steps = int(heads[node - 1]), steps + 1
        return False

    for index, w in enumerate(ws):
        head, rel = int(w["head"] or 0), relation(w["deprel"])
        if head == 0 or rel in PHRASE_RELATIONS:
            continue
        head_word = by_id[head]
        subjects_of_word = [c for c in children.get(int(w["id"]), []) if relation(c["deprel"]) == "nsubj"]
        relative = any(_is_relative(c) for c in subjects_of_word)
        if rel != "nsubj" and subjects_of_word and not relative:
            frames[index] = FRAMES.index("subject")
            continue
        if rel == "acl" and own[int(w["id"])] != "none" and not relative:
            # a relative clause predicate without a relative pronoun subject (*donde están
            # empadronadas*, *de la cual está enamorado*): its subject is elided, rarely the noun
            frames[index] = FRAMES.index("subject")
            continue
        predicative = rel in RELAY_RELATIONS or (
            rel == "obj"
            and w["upos"] == "ADJ"
            and not any(relation(c["deprel"]) in ("det", "case") for c in children.get(int(w["id"]), []))
        )
        # conjoined predicates share the subject (*están cansados pero contentos*): each hangs on
        # it rather than on the conjunct before, so one changed subject is one arc away from all
        if predicative and (rel == "conj" or "Gender" not in (head_word["feats"] or {})):
            subject = subject_of(head)
            if subject and subject != int(w["id"]) and not below(subject, int(w["id"])):
                heads[index] = subject
                frames[index] = FRAMES.index("relay")
                continue
        frame = own[int(w["id"])] if own[int(w["id"])] != "none" else own[head]
        frames[index] = FRAMES.index(frame)
    return heads, frames


def encode(sentence: Sentence, inventory: TagInventory, be_lemmas: Collection[str] | None = None) -> EncodedSentence:
    """A sentence's arrays; `be_lemmas` as :func:`arc_frames` reads them."""
    return encode_words(words(sentence), inventory, be_lemmas)


def encode_words(
    ws: Sequence[dict], inventory: TagInventory, be_lemmas: Collection[str] | None = None
) -> EncodedSentence:
    """:func:`encode` of a sentence's syntactic words (copies whose features a caller repaired)."""
    framed_heads, frames = arc_frames(ws, be_lemmas)
    return EncodedSentence(
        heads=np.array([int(w["head"] or 0) for w in ws], dtype=np.int64),
        pos=np.array([POS_INDEX.get(w["upos"], len(UPOS)) for w in ws], dtype=np.int64),
        rel=np.array([REL_INDEX.get(relation(w["deprel"]), len(DEPRELS)) for w in ws], dtype=np.int64),
        tags=np.array(
            [inventory.index(tag_from_feats(w["feats"], inventory.features)) for w in ws],
            dtype=np.int64,
        ),
        framed_heads=framed_heads,
        frames=frames,
        frozen=np.array(
            [any(relation(c["deprel"]) == "fixed" and c["head"] == w["id"] for c in ws) for w in ws], dtype=bool
        ),
    )


@dataclass
class Batch:
    """A padded batch ready for the MRF: trees grouped by depth plus per-arc features.

    Two views of the same sentences: UD's tree with (head POS, dependent POS, relation) arc
    types (``trees``, ``triple``: the paper's model), and the ``arc_frames`` tree with the
    frame folded into each arc type (``framed_trees``, ``framed_type``).
    """

    trees: TreeBatch
    triple: Tensor  # [B, N] (head POS, dependent POS, relation) id; 0 for roots/padding
    head_pos: Tensor  # [B, N]
    dep_pos: Tensor  # [B, N]
    rel: Tensor  # [B, N]
    tags: Tensor  # [B, N] observed tag ids; 0 for padding
    size: int
    framed_trees: TreeBatch | None = None
    framed_type: Tensor | None = None  # [B, N] ((head POS, dependent POS, relation), frame) id
    frozen: Tensor | None = None  # [B, N] bool: the word keeps its tag (EncodedSentence.frozen)

    @classmethod
    def build(cls, sentences: Sequence[EncodedSentence], device: torch.device | str = "cpu") -> Batch:
        trees = TreeBatch.from_heads([s.heads.tolist() for s in sentences], device=device)
        same = all(np.array_equal(s.heads, s.framed_heads) for s in sentences)
        framed_trees = (
            trees if same else TreeBatch.from_heads([s.framed_heads.tolist() for s in sentences], device=device)
        )
        b, n = len(sentences), int(max((len(s.heads) for s in sentences), default=0))
        pos = np.zeros((b, n), dtype=np.int64)
        rel = np.zeros((b, n), dtype=np.int64)
        tags = np.zeros((b, n), dtype=np.int64)
        head_pos = np.zeros((b, n), dtype=np.int64)
        framed_head_pos = np.zeros((b, n), dtype=np.int64)
        frames = np.zeros((b, n), dtype=np.int64)
        frozen = np.zeros((b, n), dtype=bool)
        for i, s in enumerate(sentences):
            length = len(s.heads)
            pos[i, :length], rel[i, :length], tags[i, :length] = s.pos, s.rel, s.tags
            head_pos[i, :length] = np.where(s.heads > 0, s.pos[np.maximum(s.heads - 1, 0)], 0)
            framed_head_pos[i, :length] = np.where(s.framed_heads > 0, s.pos[np.maximum(s.framed_heads - 1, 0)], 0)
            frames[i, :length] = s.frames
            frozen[i, :length] = s.frozen
        triple = (head_pos * N_POS + pos) * N_REL + rel
        # relayed arcs (conj, xcomp, advcl, an adjective's obj) are one relation: a predicative
        # complement of the subject, whatever the parser called it
        framed_rel = np.where(frames == FRAMES.index("relay"), REL_INDEX["xcomp"], rel)
        framed_type = ((framed_head_pos * N_POS + pos) * N_REL + framed_rel) * N_FRAMES + frames

        def t(a: np.ndarray) -> Tensor:
            return torch.as_tensor(a, device=device)

        return cls(
            trees, t(triple), t(head_pos), t(pos), t(rel), t(tags), b, framed_trees, t(framed_type), t(frozen)
        )
