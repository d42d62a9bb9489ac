"""Symbol vocabularies of the transducer: lemma/form characters and feature symbols."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cdaflow.morph_cda.reinflection.lexicon import Features

__all__ = ["CHAR_SPECIALS", "FEAT_SPECIALS", "CharVocab", "feature_symbols"]


class CharVocab:
    """Symbol <-> id map with reserved PAD/UNK(/BOS/EOS) ids at the front."""

    PAD, UNK, BOS, EOS = 0, 1, 2, 3

    def __init__(self, symbols: Iterable[str], specials: Sequence[str]) -> None:
        self.specials = tuple(specials)
        self.symbols: list[str] = list(self.specials) + sorted(set(symbols) - set(self.specials))
        self.index = {symbol: i for i, symbol in enumerate(self.symbols)}

    def __len__(self) -> int:
        return len(self.symbols)

    def encode(self, symbols: Iterable[str]) -> list[int]:
        return [self.index.get(symbol, self.UNK) for symbol in symbols]

    def items(self) -> list[str]:
        """Non-special symbols (what is saved)."""
        return self.symbols[len(self.specials) :]


CHAR_SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")
FEAT_SPECIALS = ("<pad>", "<unk>")


def feature_symbols(upos: str, features: Features) -> list[str]:
    return [*features, f"POS={upos}"]
