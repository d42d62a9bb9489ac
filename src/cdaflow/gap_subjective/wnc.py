"""The Wiki Neutrality Corpus (Pryzant et al. 2020): biased/neutralised sentence pairs (§3.1.2).

Two layouts are read:

* ``full``: ``bias_data/WNC/biased.full`` (or ``biased.word.*``) of ``bias_data.zip``, one pair a
  line, seven tab-separated fields ``id, src_tok, tgt_tok, src_raw, tgt_raw, src_POS_tags,
  tgt_parse_tags``; src is the biased (subjective) sentence, tgt its neutralised (objective) edit.
  The raw (cased, untokenised) fields are used: GAP's sentences are raw text too.
* ``prepost``: a folder of aligned ``pre.<split>`` (biased) and ``post.<split>`` (neutralised)
  files, one sentence a line, as neutralizing-bias's ``test_data`` and the project's demo.

Study C trains the subjectivity detector on both sides (biased = subjective) and the style
transfer from the neutralised side to the biased one (objective → subjective).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

__all__ = ["WncError", "WncPair", "pairs_frame", "read_wnc", "split_pairs"]

FULL_FIELDS = ("id", "src_tok", "tgt_tok", "src_raw", "tgt_raw", "src_POS_tags", "tgt_parse_tags")


class WncError(ValueError):
    """A malformed WNC file; the message names the file, line and field."""


@dataclass(frozen=True)
class WncPair:
    """One edit: the biased sentence and its neutralised version."""

    id: str
    subjective: str
    objective: str


def _read_full(path: Path) -> Iterator[WncPair]:
    with path.open(encoding="utf-8", errors="strict") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != len(FULL_FIELDS):
                expected = f"{len(FULL_FIELDS)} ({', '.join(FULL_FIELDS)})"
                raise WncError(f"{path}: line {number}: {len(fields)} fields, expected {expected}")
            record = dict(zip(FULL_FIELDS, fields))
            for name in ("src_raw", "tgt_raw"):
                if not record[name].strip():
                    raise WncError(f"{path}: line {number}: field {name}: empty")
            yield WncPair(record["id"], record["src_raw"].strip(), record["tgt_raw"].strip())


def _read_prepost(folder: Path) -> Iterator[WncPair]:
    splits = sorted(p.name.split(".", 1)[1] for p in folder.glob("pre.*"))
    if not splits:
        raise WncError(f"{folder}: no pre.<split> files (expected aligned pre.*/post.* files)")
    for split in splits:
        pre, post = folder / f"pre.{split}", folder / f"post.{split}"
        if not post.is_file():
            raise WncError(f"{post}: missing (the neutralised side of {pre})")
        biased = pre.read_text(encoding="utf-8").splitlines()
        neutral = post.read_text(encoding="utf-8").splitlines()
        if len(biased) != len(neutral):
            raise WncError(f"{pre}, {post}: {len(biased)} and {len(neutral)} lines; they must be aligned")
        for number, (subjective, objective) in enumerate(zip(biased, neutral), 1):
            if not subjective.strip() or not objective.strip():
                side = pre if not subjective.strip() else post
                raise WncError(f"{side}: line {number}: empty sentence")
            yield WncPair(f"{split}-{number}", subjective.strip(), objective.strip())


def read_wnc(path: str | os.PathLike[str], layout: str = "full") -> list[WncPair]:
    """All pairs of a WNC file (``full``) or folder (``prepost``); pairs whose two sides are equal
    are dropped (no edit to learn), duplicates kept once."""
    path = Path(path)
    if layout == "full":
        if not path.is_file():
            raise WncError(f"{path}: not a file (layout 'full' expects bias_data/WNC/biased.full)")
        pairs = _read_full(path)
    elif layout == "prepost":
        if not path.is_dir():
            raise WncError(f"{path}: not a folder (layout 'prepost' expects pre.*/post.* files)")
        pairs = _read_prepost(path)
    else:
        raise WncError(f"unknown WNC layout {layout!r} (full, prepost)")
    seen: set[tuple[str, str]] = set()
    kept = []
    for pair in pairs:
        key = (pair.subjective, pair.objective)
        if pair.subjective != pair.objective and key not in seen:
            seen.add(key)
            kept.append(pair)
    if not kept:
        raise WncError(f"{path}: no sentence pairs")
    return kept


def split_pairs(pairs: Sequence[WncPair], valid_size: int, seed: int) -> tuple[list[WncPair], list[WncPair]]:
    """Seeded train/validation split of the pairs for the style-transfer model."""
    if not 0 < valid_size < len(pairs):
        raise ValueError(f"validation size {valid_size} must be between 1 and {len(pairs) - 1} pairs")
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    valid = sorted(order[:valid_size])
    train = sorted(order[valid_size:])
    return [pairs[i] for i in train], [pairs[i] for i in valid]


def pairs_frame(pairs: Sequence[WncPair]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": [p.id for p in pairs],
            "objective": [p.objective for p in pairs],
            "subjective": [p.subjective for p in pairs],
        }
    )
