"""SentencePiece for Pant & Dadu's (2022, §3.2.2) style transfer: the model trained with numbers as
user-defined symbols ("numerical tokens as user-defined symbols to preserve them during the
transfer"), and sentences encoded to pieces and decoded back.

Decoding (:func:`decode_pieces`) keeps pieces the SentencePiece model does not know, which copy
attention can emit (an unseen name copied from the source).
"""

from __future__ import annotations

import io
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cdaflow.io.atomic import atomic_file

__all__ = ["DIGITS", "decode_pieces", "encode_pieces", "number_symbols", "train_sentencepiece"]

log = logging.getLogger(__name__)

DIGITS = tuple("0123456789")
# A number is a run of ASCII digits; separators ("1,000", "3.5") stay separate pieces, so every
# digit run is still copied whole or digit by digit.
_NUMBER = re.compile(r"[0-9]+")
_SPIECE_SPACE = "\u2581"  # SentencePiece's word-boundary mark "▁"
# SentencePiece reserves <unk>, <s> and </s> in every model.
_SPM_RESERVED_PIECES = 3


def number_symbols(texts: Iterable[str], max_symbols: int = 500, *, min_count: int = 2) -> list[str]:
    """The numeric tokens to declare as SentencePiece user-defined symbols (§3.2.2).

    Rule: the ten digits always, then the numbers (runs of two or more ASCII digits) seen at
    least `min_count` times in `texts`, most frequent first, ties in string order, up to
    `max_symbols` symbols in all. SentencePiece cuts user-defined symbols out
    before segmenting, longest first, so a frequent number ("1875") is one piece, any other
    number is split into known symbols down to single digits, and a digit is never merged with
    letters: every number survives the transfer piece by piece and copy attention can copy it.
    """
    if max_symbols < len(DIGITS):
        raise ValueError(f"max_symbols={max_symbols} is below the {len(DIGITS)} digits that are always symbols")
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, not {min_count}")
    counts = Counter(number for text in texts for number in _NUMBER.findall(text) if len(number) > 1)
    frequent = sorted((number for number, count in counts.items() if count >= min_count),
                      key=lambda number: (-counts[number], number))
    return [*DIGITS, *frequent[: max_symbols - len(DIGITS)]]


def train_sentencepiece(texts: Iterable[str], model_prefix: str | os.PathLike[str], vocab_size: int, *,
                        user_defined_symbols: Sequence[str] = DIGITS, model_type: str = "unigram",
                        character_coverage: float = 1.0, threads: int = 1) -> Path:
    """Train a SentencePiece model on `texts`; returns ``<model_prefix>.model`` (and writes ``.vocab``).

    Deterministic without a seed: every sentence is read (no sampling, no shuffling), one thread
    is the default, and the same input gives the same bytes. `vocab_size` is a ceiling
    (``hard_vocab_limit=False``): a corpus too small for it gets the largest vocabulary it
    supports instead of an error, so a demo corpus trains; a ceiling that cannot even hold the
    user-defined symbols is refused. The model type is SentencePiece's default (unigram); the
    paper does not name one. Empty lines are skipped.
    """
    import sentencepiece as spm

    symbols = list(dict.fromkeys(user_defined_symbols))  # SentencePiece rejects duplicates
    if vocab_size <= len(symbols) + _SPM_RESERVED_PIECES:
        raise ValueError(f"vocab_size={vocab_size} leaves no room for pieces beyond the {len(symbols)} "
                         f"user-defined symbols and {_SPM_RESERVED_PIECES} reserved pieces")
    sentences = [text for text in texts if text.strip()]
    if not sentences:
        raise ValueError("no non-empty sentence to train SentencePiece on")
    # The model is serialised into memory rather than to a model_prefix: the proto would record
    # that prefix, and a scratch path in it would make two identical trainings differ in bytes.
    serialised = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_writer=serialised,
        model_type=model_type,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=character_coverage,
        user_defined_symbols=symbols,
        input_sentence_size=0,  # read everything, so no random sampling
        shuffle_input_sentence=False,
        num_threads=threads,
        minloglevel=2,
    )
    processor = spm.SentencePieceProcessor(model_proto=serialised.getvalue())
    with atomic_file(f"{model_prefix}.vocab") as handle:  # the listing SentencePiece itself would write
        handle.writelines(f"{processor.id_to_piece(i)}\t{processor.get_score(i):g}\n"
                          for i in range(processor.get_piece_size()))
    destination = Path(f"{model_prefix}.model")
    with atomic_file(destination, "wb") as handle:
        handle.write(serialised.getvalue())
    log.info("SentencePiece model %s trained on %d sentences", destination, len(sentences))
    return destination


def _processor(model: str | os.PathLike[str]) -> Any:
    import sentencepiece as spm

    if not Path(model).is_file():
        raise FileNotFoundError(f"SentencePiece model {model} does not exist")
    return spm.SentencePieceProcessor(model_file=str(model))


def encode_pieces(model: str | os.PathLike[str], sentences: Iterable[str]) -> list[str]:
    """Each sentence as its SentencePiece pieces joined by single spaces (OpenNMT-py's input)."""
    processor = _processor(model)
    return [" ".join(pieces) for pieces in processor.encode(list(sentences), out_type=str)]


def decode_pieces(model: str | os.PathLike[str], lines: Iterable[str]) -> list[str]:
    """Space-separated pieces back to text.

    SentencePiece keeps a piece it does not know (copy attention can emit one, e.g. an unseen
    name copied from the source) verbatim, word mark included, so remaining marks become spaces
    and whitespace is normalised as SentencePiece's own normaliser does.
    """
    processor = _processor(model)
    texts = processor.decode([line.split() for line in lines])
    return [" ".join(text.replace(_SPIECE_SPACE, " ").split()) for text in texts]
