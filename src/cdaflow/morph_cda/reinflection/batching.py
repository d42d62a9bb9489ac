"""Padded id tensors of lemma, feature and form rows, and training-time UNK replacement."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from cdaflow.morph_cda.reinflection.vocabulary import CHAR_SPECIALS, CharVocab

__all__ = ["Batch", "collate", "pad", "replace_with_unk"]


@dataclass
class Batch:
    """Lemma ids, feature ids and (in training) form ids, padded, with their masks."""

    src: Tensor
    src_mask: Tensor
    feats: Tensor
    tgt: Tensor | None
    tgt_mask: Tensor | None

    def to(self, device: torch.device) -> Batch:
        tensors = (self.src, self.src_mask, self.feats, self.tgt, self.tgt_mask)
        return Batch(*(None if t is None else t.to(device) for t in tensors))


def pad(rows: Sequence[Sequence[int]]) -> tuple[Tensor, Tensor]:
    """Rows of ids padded with PAD to one width, and the mask of real ids."""
    width = max(1, max(len(row) for row in rows))
    data = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        data[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return data, data != CharVocab.PAD


def collate(rows: Sequence[tuple[list[int], ...]]) -> Batch:
    """One batch of ``(lemma ids, feature ids[, form ids])`` rows."""
    src, src_mask = pad([row[0] for row in rows])
    feats, _ = pad([row[1] for row in rows])
    if len(rows[0]) > 2:
        tgt, tgt_mask = pad([row[2] for row in rows])
        return Batch(src, src_mask, feats, tgt, tgt_mask)
    return Batch(src, src_mask, feats, None, None)


def replace_with_unk(
    row: tuple[list[int], list[int], list[int]], rate: float, rng: random.Random
) -> tuple[list[int], list[int], list[int]]:
    """Replace some character types by UNK in lemma and form alike.

    Unseen characters are UNK at test time; this teaches the model to pass an UNK through,
    and decoding then copies the lemma character that the hard attention points at.
    """
    if rate <= 0.0:
        return row
    src, feats, tgt = row
    chosen = {c for c in sorted(set(src[1:-1])) if c >= len(CHAR_SPECIALS) and rng.random() < rate}
    if not chosen:
        return row
    return (
        [CharVocab.UNK if c in chosen else c for c in src],
        feats,
        [CharVocab.UNK if c in chosen else c for c in tgt],
    )
