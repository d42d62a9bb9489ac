"""The rule-based re-genderer of Jain et al. (2021, §3 and appendix): POS sequences + rewriting rules.

A segment is a short sentence already split into surface tokens and tagged
(:mod:`cdaflow.regender.tagset`). Its whole tag sequence decides what happens:

* a token tagged ``VCL``, or a ``Vinf`` ending in lo/la/los/las (the appendix's footnote: the
  tagger often misses the clitic), makes it a clitic-on-verb candidate (Table 6);
* otherwise the sequence is looked up in ``sequences.tsv`` (Tables 2-5: re-genderable, G;
  Tables 7-8: neutral, N); a segment without final punctuation is matched as if it had one, and
  a sequence with a modal (VMfin) not listed as such is looked up as a plain finite verb (Vfin);
* any other sequence is *unstructured*: the rules do not apply (label ``None``).

A G sequence names the category whose words change (PPC, DM, Vadj, ADJ, VCL); each such word
gets the other gender by the rules of ``rules.yaml``. When none of them can change (a neutral
adjective such as *genial*, the neutral demonstrative *esto*, *lo* in *Lo siento*, *le*), the
segment is neutral after all. Only the changed words are replaced in the original text, so case,
accents, spacing and punctuation are kept.

Lookup is one dict access per segment on the joined tag string, so matching streams at well
over 100,000 tagged segments/s per core (``benchmarks/regender_rules.py``).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from cdaflow.regender.tagset import RESOURCES
from cdaflow.text.case import match_case

__all__ = ["DEFAULT_RULES_DIR", "Change", "Decision", "RuleSet", "Segment", "match_case"]

DEFAULT_RULES_DIR = RESOURCES / "es"
CATEGORIES = ("PPC", "DM", "Vadj", "ADJ", "VCL")
FINAL = "FS"


@dataclass(frozen=True)
class Segment:
    """Surface tokens, their tags and, when known, each token's character span in ``text``."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    text: str | None = None
    spans: tuple[tuple[int, int], ...] | None = None
    gendered: bool = False  # a word agreeing in gender (the parser's Gender on a non-noun)

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "tokens": list(self.tokens), "tags": list(self.tags),
                "spans": None if self.spans is None else [list(s) for s in self.spans], "gendered": self.gendered}

    @classmethod
    def from_json(cls, record: Mapping[str, object]) -> Segment:
        spans = record.get("spans")
        return cls(tuple(record["tokens"]), tuple(record["tags"]), record.get("text"),  # type: ignore[arg-type]
                   None if spans is None else tuple(tuple(s) for s in spans),  # type: ignore[union-attr]
                   bool(record.get("gendered", False)))

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.tags):
            raise ValueError(f"{len(self.tokens)} tokens but {len(self.tags)} tags")
        if self.spans is not None and len(self.spans) != len(self.tokens):
            raise ValueError(f"{len(self.tokens)} tokens but {len(self.spans)} spans")

    @property
    def n_words(self) -> int:
        """Untokenized words (whitespace-separated), as the paper's length filter counts them."""
        return len(self.text.split()) if self.text is not None else sum(t != FINAL and t != "CM" for t in self.tags)


@dataclass(frozen=True)
class Change:
    index: int  # token position
    old: str
    new: str


@dataclass(frozen=True)
class Decision:
    """What the rules say about one segment.

    ``label``: ``"G"`` (a variant exists), ``"N"`` (neutral) or ``None`` (not covered by the rules);
    ``category``: the word class that changes or was checked; ``reason``: why, in words;
    ``variant``: the other-gender segment (the original text for N); ``changes``: the words replaced.
    """

    label: str | None
    category: str | None
    sequence: str
    reason: str
    variant: str | None = None
    changes: tuple[Change, ...] = field(default=())


def _swap_suffix(word: str, suffixes: Sequence[tuple[str, str]]) -> str | None:
    """`word` with its longest listed suffix replaced, in the word's case; None if none applies."""
    lower = word.lower()
    for old, new in suffixes:  # longest first
        if lower.endswith(old) and len(lower) > len(old):
            return word[: len(word) - len(old)] + (new.upper() if word.isupper() else new)
    return None


def _by_length(mapping: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(((str(k).lower(), str(v).lower()) for k, v in mapping.items()), key=lambda kv: -len(kv[0])))


class RuleSet:
    """Sequences and rewriting rules of one language, read from a rules folder."""

    def __init__(self, sequences: Mapping[str, tuple[str, str]], rules: Mapping[str, object], source: str) -> None:
        self.sequences = dict(sequences)
        self.source = source
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
        self.enclitic_suffixes = _by_length(r.get("enclitic_suffixes") or {})
        self.neutral_enclitic_verbs = words("neutral_enclitic_verbs")
        self.neutral_clitic_verbs = words("neutral_clitic_verbs")
        self.max_words = int(r.get("max_words", 10))

    @classmethod
    def load(cls, folder: str | Path = DEFAULT_RULES_DIR) -> RuleSet:
        """``sequences.tsv`` and ``rules.yaml`` of `folder`; errors name the file, line and field."""
        folder = Path(folder)
        seq_path, rules_path = folder / "sequences.tsv", folder / "rules.yaml"
        for path in (seq_path, rules_path):
            if not path.is_file():
                raise FileNotFoundError(f"rules folder {folder}: missing {path.name}")
        sequences: dict[str, tuple[str, str]] = {}
        with open(seq_path, encoding="utf-8") as handle:
            lines = [(n, line) for n, line in enumerate(handle, start=1) if line.strip() and not line.startswith("#")]
        reader = csv.reader((line for _, line in lines), delimiter="\t")
        header = next(reader, None)
        if header is None or header[:3] != ["sequence", "label", "category"]:
            raise ValueError(f"{seq_path}:{lines[0][0] if lines else 1}: header must start sequence, label, category")
        for (number, _), row in zip(lines[1:], reader, strict=True):
            if len(row) < 3:
                raise ValueError(f"{seq_path}:{number}: expected sequence, label, category")
            sequence, label, category = row[0].strip(), row[1].strip(), row[2].strip()
            if label not in ("G", "N"):
                raise ValueError(f"{seq_path}:{number}: field label: {label!r} is not G or N")
            if not category or any(c not in CATEGORIES for c in category.split(",")):
                raise ValueError(
                    f"{seq_path}:{number}: field category: {category!r} is not one of {CATEGORIES} "
                    "(or several joined by commas)"
                )
            if not sequence or " " in sequence:
                raise ValueError(f"{seq_path}:{number}: field sequence: {sequence!r} is not TAG-TAG-...")
            if sequence in sequences and sequences[sequence] != (label, category):
                raise ValueError(f"{seq_path}:{number}: sequence {sequence} listed twice with different labels")
            sequences[sequence] = (label, category)
        try:
            rules = yaml.safe_load(rules_path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ValueError(f"{rules_path}: not valid YAML ({exc})") from None
        if not isinstance(rules, dict):
            raise ValueError(f"{rules_path}: expected a mapping at the top level")
        return cls(sequences, rules, str(folder))

    # -- word rules ----------------------------------------------------------------------------
    def flip_word(self, category: str, word: str, next_word: str | None = None) -> str | None:
        """The other-gender form of `word` as a `category` word, or None when it has no gender."""
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
            if lower.endswith(self.neutral_adjective_endings):
                return None
            return _swap_suffix(word, self.adjective_suffixes)
        elif category == "VCL":
            if lower in self.neutral_enclitic_verbs:
                return None
            return _swap_suffix(word, self.enclitic_suffixes)
        else:
            raise ValueError(f"unknown category {category!r}")
        return None if new is None else match_case(word, new)

    # -- segments ------------------------------------------------------------------------------
    def _vcl_positions(self, segment: Segment) -> list[int]:
        positions = []
        for i, (token, tag) in enumerate(zip(segment.tokens, segment.tags)):
            if tag == "VCL" or (tag == "Vinf" and token.lower().endswith(("lo", "la", "los", "las"))):
                positions.append(i)
        return positions

    def decide(self, segment: Segment) -> Decision:
        """Label, category and (for G) the variant of one segment."""
        tags = segment.tags
        key = "-".join(tags) if tags and tags[-1] == FINAL else "-".join((*tags, FINAL))
        if segment.n_words > self.max_words:
            return Decision(None, None, key, f"longer than {self.max_words} words")
        vcl = self._vcl_positions(segment)
        if vcl:
            category, label = "VCL", "G"
            positions = [(i, "VCL") for i in vcl]
        elif key in self.sequences or (backoff := key.replace("VMfin", "Vfin")) in self.sequences:
            # A modal is a finite verb to sequences that do not name it (Quiero este = Vfin-DM).
            label, category = self.sequences[key if key in self.sequences else backoff]
            wanted = category.split(",")
            positions = [(i, t) for i, t in enumerate(tags) if t in wanted]
        else:
            return Decision(None, None, key, "sequence not covered by the rules")
        if label == "N":
            return Decision("N", category, key, f"neutral {category} sequence", segment.text, ())
        if "DM" in category.split(",") and any(
            t == "DM" and w.lower() in self.neutral_demonstratives for w, t in zip(segment.tokens, tags)
        ):
            # §3.1: nothing agrees with esto/eso/aquello ("Eso es bueno").
            return Decision("N", category, key, "neutral demonstrative", segment.text, ())
        changes = []
        for i, word_category in positions:
            following = segment.tokens[i + 1] if i + 1 < len(segment.tokens) else None
            new = self.flip_word(word_category, segment.tokens[i], following)
            if new is not None and new != segment.tokens[i]:
                changes.append(Change(i, segment.tokens[i], new))
        if not changes:
            return Decision("N", category, key, f"no gendered {category} word", segment.text, ())
        return Decision("G", category, key, f"re-genderable {category}", self.render(segment, changes), tuple(changes))

    @staticmethod
    def render(segment: Segment, changes: Iterable[Change]) -> str:
        """The segment's text with the changed tokens replaced (spaces joined when no text)."""
        by_index = {c.index: c.new for c in changes}
        if segment.text is None or segment.spans is None:
            return " ".join(by_index.get(i, t) for i, t in enumerate(segment.tokens))
        out, last = [], 0
        for i, (start, end) in enumerate(segment.spans):
            if i in by_index:
                out.append(segment.text[last:start])
                out.append(by_index[i])
                last = end
        out.append(segment.text[last:])
        return "".join(out)
