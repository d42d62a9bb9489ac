"""Summary counts of parsed CoNLL-U: sentences, words, multiword tokens, agreement features."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# The features Study A's tags are built from; counted so a parse without them shows up at once.
AGREEMENT_FEATURES = ("Gender", "Number", "Person")


def conllu_stats(sentences: Iterable[Any]) -> dict[str, int]:
    """Counts over conllu.TokenList sentences (syntactic words exclude multiword-token lines)."""
    counts = {"sentences": 0, "words": 0, "multiword_tokens": 0}
    counts |= {f"words_with_{feat}": 0 for feat in AGREEMENT_FEATURES}
    for sentence in sentences:
        counts["sentences"] += 1
        for token in sentence:
            token_id = token["id"]
            if isinstance(token_id, tuple):
                if token_id[1] == "-":
                    counts["multiword_tokens"] += 1
                continue  # empty nodes ("5.1") are not words
            counts["words"] += 1
            feats = token.get("feats") or {}
            for feat in AGREEMENT_FEATURES:
                if feat in feats:
                    counts[f"words_with_{feat}"] += 1
    return counts
