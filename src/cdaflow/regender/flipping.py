"""Word flipping for Study B's rules: the other-gender form of one word of a word class (clitic, demonstrative,
participle, adjective, verb with enclitic, and the extension's articles, possessives, quantifiers and
pronouns), by the word rules of ``rules.yaml`` and ``rules_extension.yaml``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from cdaflow.text.case import match_case

__all__ = ["WordFlipper"]


def _swap_suffix(word: str, suffixes: Sequence[tuple[str, str]]) -> str | None:
    """`word` with its longest listed suffix replaced, in the word's case; None if none applies."""
    lower = word.lower()
    for old, new in suffixes:  # longest first
        if lower.endswith(old) and len(lower) > len(old):
            return word[: len(word) - len(old)] + (new.upper() if word.isupper() else new)
    return None


def _by_length(mapping: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(((str(k).lower(), str(v).lower()) for k, v in mapping.items()), key=lambda kv: -len(kv[0])))


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


class WordFlipper:
    """The word rules of one language (a rules folder's merged ``rules.yaml`` mapping)."""

    def __init__(self, rules: Mapping[str, object]) -> None:
        r = rules

        def words(key: str) -> frozenset[str]:
            return frozenset(str(w).lower() for w in r.get(key, []) or [])

        self.clitics = {str(k).lower(): str(v).lower() for k, v in (r.get("clitics") or {}).items()}
        self.demonstratives = {str(k).lower(): str(v).lower() for k, v in (r.get("demonstratives") or {}).items()}
        self.neutral_demonstratives = words("neutral_demonstratives")
        self.participle_suffixes = _by_length(r.get("participle_suffixes") or {})
        self.adjective_suffixes = _by_length(r.get("adjective_suffixes") or {})
        self.neutral_adjective_endings = tuple(sorted(words("neutral_adjective_endings"), key=len, reverse=True))
        self.neutral_adjectives = words("neutral_adjectives")
        self.gendered_adjectives = words("gendered_adjectives")
        self.enclitic_suffixes = _by_length(r.get("enclitic_suffixes") or {})
        self.neutral_enclitic_verbs = words("neutral_enclitic_verbs")
        self.neutral_clitic_verbs = words("neutral_clitic_verbs")
        # The extension's words (empty with the paper's rules alone).
        self.word_maps = {
            category: {str(k).lower(): str(v).lower() for k, v in (r.get(key) or {}).items()}
            for category, key in (("ART", "articles"), ("PPO", "possessives"), ("QU", "quantifiers"),
                                  ("PPX", "pronouns"))
        }
        self.neutral_enclitic_bases = frozenset(_strip_accents(w) for w in words("neutral_enclitic_bases"))

    def flip(self, category: str, word: str, next_word: str | None = None) -> str | None:
        """The other-gender form of `word` as a `category` word, or None when it has no gender.

        `next_word` is the verb after a clitic (lo in *Lo siento* stands for a general concept).
        """
        lower = word.lower()
        if category == "PPC":
            if lower == "lo" and next_word is not None and next_word.lower() in self.neutral_clitic_verbs:
                return None
            new = self.clitics.get(lower)
        elif category == "DM":
            new = None if lower in self.neutral_demonstratives else self.demonstratives.get(lower)
        elif category == "Vadj":
            return _swap_suffix(word, self.participle_suffixes)
        elif category == "ADJ":
            if lower in self.neutral_adjectives:
                return None
            # Derivational suffixes (-dor/-dora ...) first: -dores must not pass for neutral -es.
            long = _swap_suffix(word, [(old, new) for old, new in self.adjective_suffixes if len(old) > 2])
            if long is not None:
                return long
            if lower.endswith(self.neutral_adjective_endings) and lower not in self.gendered_adjectives:
                return None
            return _swap_suffix(word, self.adjective_suffixes)
        elif category == "VCL":
            if lower in self.neutral_enclitic_verbs or self._neutral_enclitic_base(lower):
                return None
            return _swap_suffix(word, self.enclitic_suffixes)
        elif category in self.word_maps:
            new = self.word_maps[category].get(lower)
        else:
            raise ValueError(f"unknown category {category!r}")
        return None if new is None else match_case(word, new)

    def _neutral_enclitic_base(self, lower: str) -> bool:
        """The verb of a verb + lo (dímelo -> di, pensarlo -> pensar) is one whose lo is neuter; its
        la/los/las still name someone or something (olvídala)."""
        if not self.neutral_enclitic_bases or not lower.endswith("lo"):
            return False
        base = lower[:-2]
        base = re.sub(r"(me|te|se|nos|os)+$", "", base) or base
        return _strip_accents(base) in self.neutral_enclitic_bases
