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

Two sequence sets (``sequences=`` of :meth:`RuleSet.load`, config key
``studies.regender.sequences``, ``cdaflow regender --sequences``): ``paper`` is the appendix alone
(``sequences.tsv``, ``rules.yaml``); ``extended`` (the default) adds the project's
``sequences_extension.tsv`` and ``rules_extension.yaml``: patterns for the paper's §3.1 contexts in
general, chunks of interjections and greetings set aside (*Gracias, estoy encantado*), segments of
several chunks decided chunk by chunk, articles, possessives, group quantifiers and pronouns
without their noun (*Eres la mejor*, *Gracias a todos*), and, for what no sequence covers,
predicative clauses: a first- or second-person linking verb and its adjectives, whatever follows
(*Estoy seguro de que vendrá*; ``predicative_clause`` in ``rules_extension.yaml``).

Lookup is one dict access per segment on the joined tag string (the extension's patterns are one
compiled regular expression, its answers cached per tag string), so matching streams at tens of
thousands of tagged segments/s per core (``benchmarks/regender_rules.py``).

The segment and decision types are in :mod:`cdaflow.regender.segment_types`, the reading of a rules
folder in :mod:`cdaflow.regender.rule_files` and the word rules in :mod:`cdaflow.regender.flipping`;
this module decides.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from cdaflow.regender.flipping import WordFlipper
from cdaflow.regender.rule_files import CATEGORIES, read_rule_folder
from cdaflow.regender.segment_types import FINAL, Change, Decision, Segment
from cdaflow.regender.tagset import RESOURCES

__all__ = ["DEFAULT_RULES_DIR", "RuleSet"]

DEFAULT_RULES_DIR = RESOURCES / "es"
CLITIC_ENDINGS = ("lo", "la", "los", "las")
HABER = ("VHfin", "VHinf", "VHger")
NO_GENDERED_VCL = "no gendered VCL"


class RuleSet:
    """Sequences and rewriting rules of one language, read from a rules folder."""

    def __init__(self, sequences: Mapping[str, tuple[str, str]], rules: Mapping[str, object], source: str,
                 patterns: Sequence[tuple[str, str, str]] = (), sequence_set: str = "paper") -> None:
        self.sequences = dict(sequences)
        self.source = source
        self.sequence_set = sequence_set
        self.extended = sequence_set == "extended"
        self.patterns = tuple(patterns)
        # One regex, one named group per pattern: the first pattern that matches wins.
        self._pattern_regex = re.compile("|".join(f"(?P<p{i}>{regex})" for i, (regex, _, _) in enumerate(patterns)))
        self._match_cached = functools.lru_cache(maxsize=65_536)(self._match)
        r = rules

        def words(key: str) -> frozenset[str]:
            return frozenset(str(w).lower() for w in r.get(key, []) or [])

        self.flipper = WordFlipper(rules)  # how each word class changes (rules.yaml's word rules)
        # A clitic before a periphrasis is its non-finite verb's (Lo tengo que hacer); lo before que,
        # de or an adjective is the neuter article (Lo que dices, Lo mejor).
        self.climbing_links = words("clitic_climbing_links")
        self.article_lo_words = words("article_lo_before_words")
        self.article_lo_tags = frozenset(str(t) for t in r.get("article_lo_before_tags") or ())
        self.max_words = int(r.get("max_words", 10))
        # The extension's words (empty with the paper's rules alone).
        self.neutral_articles = words("neutral_articles")
        self.referent_pronouns = words("referent_pronouns")
        self.fillers = frozenset(" ".join(str(f).lower().split()) for f in r.get("fillers", []) or [])
        self._filler_words = max((len(f.split()) for f in self.fillers), default=0)
        self.trailing_interjections = re.compile(str(r.get("trailing_interjections") or "(?!)"))
        clause = r.get("predicative_clause") or {}

        def regex(key: str) -> re.Pattern[str]:
            return re.compile("".join(str(clause.get(key) or "(?!)").split()))

        self.clause_first_person, self.clause_other_persons = regex("first_person"), regex("other_persons")
        self.clause_reflexive = regex("reflexive")
        self.clause_reflexive_clitics = frozenset(str(w).lower() for w in clause.get("reflexive_clitics") or ())
        self.clause_before_verb = frozenset(clause.get("before_verb") or ())
        self.clause_starts = frozenset(clause.get("clause_starts") or ())
        self.clause_adverbs = frozenset(clause.get("adverbs") or ())
        self.clause_coordinators = frozenset(clause.get("coordinators") or ())

    @classmethod
    def load(cls, folder: str | Path = DEFAULT_RULES_DIR, sequences: str = "extended") -> RuleSet:
        """The rules of `folder`: ``sequences.tsv`` and ``rules.yaml``, and for ``sequences="extended"``
        also ``sequences_extension.tsv`` and ``rules_extension.yaml``; errors name the file, line and field."""
        found = read_rule_folder(folder, sequences)
        return cls(found.sequences, found.rules, str(Path(folder)), found.patterns, sequences)

    # -- segments ------------------------------------------------------------------------------
    @staticmethod
    def _is_vcl(token: str, tag: str) -> bool:
        # Table 6's footnote: a clitic the tagger missed on an infinitive still ends it.
        return tag == "VCL" or (tag == "Vinf" and token.lower().endswith(CLITIC_ENDINGS))

    def _match(self, key: str, patterns: bool) -> tuple[str, str] | None:
        """(label, category) of a tag sequence: exact sequences first, then the extension's patterns."""
        backoff = key.replace("VMfin", "Vfin")  # a modal is a finite verb to sequences that do not name it
        for candidate in (key, backoff):
            if candidate in self.sequences:
                return self.sequences[candidate]
        if patterns and self.patterns:
            match = self._pattern_regex.fullmatch(key + "-")
            if match is not None:
                _, label, category = self.patterns[int(match.lastgroup[1:])]  # type: ignore[index]
                return label, category
        return None

    @staticmethod
    def _key(tags: Sequence[str]) -> str:
        return "-".join(tags) if tags and tags[-1] == FINAL else "-".join((*tags, FINAL))

    def _following_verb(self, segment: Segment, i: int) -> str | None:
        """The verb whose object a clitic at position `i` is: the next word, past an auxiliary haber
        (Lo he dicho -> dicho), or the infinitive or gerund of a periphrasis the clitic climbed from
        (Lo tengo que hacer -> hacer, Lo voy a hacer -> hacer, Lo estoy buscando -> buscando)."""
        tags, tokens = segment.tags, segment.tokens
        j = i + 1
        if j < len(tags) and tags[j] in HABER:
            j += 1
        if j < len(tags) and tags[j] in ("Vfin", "VMfin"):
            k = j + 1
            if k < len(tags) and tokens[k].lower() in self.climbing_links:
                k += 1
            if k < len(tags) and tags[k] in ("Vinf", "Vger"):
                j = k
        return tokens[j] if j < len(tokens) else None

    def _is_article_lo(self, segment: Segment, i: int) -> bool:
        """*lo* at position `i` is the neuter article: before que, de or an adjective (Lo que dices,
        Lo de ayer, Lo mejor es esperar; rules.yaml ``article_lo_before_*``)."""
        if segment.tokens[i].lower() != "lo" or i + 1 >= len(segment.tokens):
            return False
        return (segment.tokens[i + 1].lower() in self.article_lo_words
                or segment.tags[i + 1] in self.article_lo_tags)

    def _flip_at(self, segment: Segment, i: int, category: str) -> str | None:
        """The flipped word at position `i`, in its context (the verb after a clitic)."""
        if category == "PPC" and self._is_article_lo(segment, i):
            return None
        return self.flipper.flip(category, segment.tokens[i], self._following_verb(segment, i))

    def _decide_part(self, segment: Segment, indices: Sequence[int] | None, patterns: bool) -> Decision:
        """The decision on the tokens at `indices` (a part of the segment; None: all of it)."""
        if indices is None:
            tags: Sequence[str] = segment.tags
            indices = range(len(tags))
        else:
            tags = [segment.tags[i] for i in indices]
        key = self._key(tags)
        vcl = [i for i, t in zip(indices, tags) if t == "VCL" or (t == "Vinf" and self._is_vcl(segment.tokens[i], t))]
        neutral_vcl = False
        if vcl and (not self.extended or any(self.flipper.flip("VCL", segment.tokens[i]) is not None for i in vcl)):
            category, label = "VCL", "G"
            positions = [(i, "VCL", None) for i in vcl]
        else:
            # Extension: a verb whose clitic has no gender (conocerte, pensarlo) is just a verb here.
            neutral_vcl = bool(vcl)
            found = self._match_cached(key, patterns)
            if found is None:
                if neutral_vcl:
                    return Decision("N", "VCL", key, NO_GENDERED_VCL, segment.text, ())
                return Decision(None, None, key, "sequence not covered by the rules")
            label, category = found
            if label == "N":
                return Decision("N", category, key, f"neutral {category} sequence", segment.text, ())
            wanted = category.split(",")
            # (position, category, the tag before it in this part)
            positions = [(i, t, tags[k - 1] if k else None) for k, (i, t) in enumerate(zip(indices, tags))
                         if t in wanted]
        if label == "N":
            return Decision("N", category, key, f"neutral {category} sequence", segment.text, ())
        for blocker, words, reason in (("DM", self.flipper.neutral_demonstratives, "neutral demonstrative"),
                                       ("ART", self.neutral_articles, "neutral article")):
            if blocker in category.split(",") and any(
                segment.tags[i] == blocker and segment.tokens[i].lower() in words for i in indices
            ):
                # §3.1: nothing agrees with esto/eso/aquello ("Eso es bueno"), nor with neuter lo.
                return Decision("N", category, key, reason, segment.text, ())
        changes = []
        for i, word_category, previous in positions:
            if word_category == "Vadj" and previous in HABER:
                continue  # §3.1: the participle of a perfect (he descansado) does not agree
            new = self._flip_at(segment, i, word_category)
            if new is not None and new != segment.tokens[i]:
                changes.append(Change(i, segment.tokens[i], new))
        if not changes:
            return Decision("N", category, key, f"no gendered {category} word", segment.text, ())
        return Decision("G", category, key, f"re-genderable {category}", self.render(segment, changes), tuple(changes))

    def _chunks(self, segment: Segment) -> list[list[int]]:
        """Token positions of each chunk: the runs between commas and sentence marks."""
        chunks: list[list[int]] = [[]]
        for i, tag in enumerate(segment.tags):
            if tag in ("CM", FINAL):
                if chunks[-1]:
                    chunks.append([])
            else:
                chunks[-1].append(i)
        return [chunk for chunk in chunks if chunk]

    def _is_filler(self, segment: Segment, chunk: Sequence[int]) -> bool:
        if all(segment.tags[i] in ("ITJN", "SYM") for i in chunk):
            return True
        return len(chunk) <= self._filler_words and " ".join(segment.tokens[i] for i in chunk).lower() in self.fillers

    def _inert(self, segment: Segment, chunk: Sequence[int]) -> bool:
        """No noun and no word that could change (Me voy a dormir, no pasa nada, igualmente)."""
        for i in chunk:
            tag = segment.tags[i]
            if tag in ("NC", "NP"):
                return False
            category = "VCL" if self._is_vcl(segment.tokens[i], tag) else tag
            if category in CATEGORIES and self._flip_at(segment, i, category) is not None:
                return False
        return True

    def _content(self, segment: Segment, chunks: list[list[int]], fillers: list[bool]) -> list[int]:
        """Positions left once filler chunks (and their commas) and final interjections are set aside."""
        dropped: set[int] = set()
        tags = segment.tags
        for chunk, filler in zip(chunks, fillers):
            if not filler:
                continue
            dropped.update(chunk)
            after, before = chunk[-1] + 1, chunk[0] - 1
            if after < len(tags) and tags[after] == "CM":
                dropped.add(after)
            elif before >= 0 and tags[before] == "CM":
                dropped.add(before)
        kept = [i for i in range(len(tags)) if i not in dropped]
        # interjections and symbols ending the segment (ya estoy lista jaja)
        end = len(kept)
        while end and tags[kept[end - 1]] == FINAL:
            end -= 1
        start_of_tail = end
        while start_of_tail and (tags[kept[start_of_tail - 1]] == "SYM" or self.trailing_interjections.fullmatch(
                segment.tokens[kept[start_of_tail - 1]].lower())):
            start_of_tail -= 1
        if start_of_tail < end and start_of_tail > 0:
            kept = kept[:start_of_tail] + kept[end:]
        # a closing mark left first by a dropped chunk (Hola. ¿Estás lista?)
        while (kept and kept[0] - 1 in dropped and tags[kept[0]] == FINAL
               and segment.tokens[kept[0]] not in ("¿", "¡")):
            dropped.add(kept[0])
            kept = kept[1:]
        return kept

    def _may_end_in_laughter(self, segment: Segment) -> bool:
        """Whether the last word before the final marks could be set aside (jaja, gracias, a symbol)."""
        i = len(segment.tags) - 1
        while i >= 0 and segment.tags[i] == FINAL:
            i -= 1
        return i > 0 and (segment.tags[i] == "SYM" or self.trailing_interjections.fullmatch(
            segment.tokens[i].lower()) is not None)

    def decide(self, segment: Segment) -> Decision:
        """Label, category and (for G) the variant of one segment."""
        key = self._key(segment.tags)
        if segment.n_words > self.max_words:
            return Decision(None, None, key, f"longer than {self.max_words} words")
        if not self.extended or any(t.lower() in self.referent_pronouns for t in segment.tokens):
            return self._decide_part(segment, None, patterns=False)
        chunks = self._chunks(segment)
        if not chunks:  # punctuation only
            return self._decide_part(segment, None, patterns=False)
        fillers = [self._is_filler(segment, chunk) for chunk in chunks]
        content = [chunk for chunk, filler in zip(chunks, fillers) if not filler]
        if not content:
            return Decision("N", None, key, "interjections and greetings only", segment.text, ())
        dropping = len(content) < len(chunks) or self._may_end_in_laughter(segment)
        decision = self._decide_part(segment, self._content(segment, chunks, fillers) if dropping else None,
                                     patterns=True)
        if decision.label is None or decision.reason == NO_GENDERED_VCL:
            kept = self._content(segment, chunks, fillers) if dropping else range(len(segment.tags))
            clauses = self._predicative_clauses(segment, list(kept))
            if clauses is not None:
                return clauses
        if decision.label is not None or len(content) == 1:
            return decision
        # Several chunks: each decided alone, when none names a noun (a referent) and none is left
        # uncovered unless nothing in it can change (Tranquilo, no pasa nada).
        parts = []
        for chunk in content:
            if any(segment.tags[i] in ("NC", "NP") for i in chunk):
                return decision
            part = self._decide_part(segment, chunk, patterns=True)
            if part.label is None and not self._inert(segment, chunk):
                return decision
            parts.append(part)
        changes = tuple(c for part in parts for c in part.changes)
        categories = ",".join(dict.fromkeys(c for p in parts if p.label == "G" for c in (p.category or "").split(",")))
        if not changes:
            return Decision("N", categories or None, key, "no gendered word in any chunk", segment.text, ())
        return Decision("G", categories, key, f"re-genderable {categories}, chunk by chunk",
                        self.render(segment, changes), changes)

    def _predicative_clauses(self, segment: Segment, positions: Sequence[int]) -> Decision | None:
        """G when some clause of the segment opens with a first- or second-person linking verb
        followed by gendered adjectives (rules_extension.yaml, ``predicative_clause``): those change,
        nothing else does. None when there is no such clause."""
        tags, tokens = segment.tags, segment.tokens
        changes: list[Change] = []
        clause_open = True  # at the segment's start, or right after a clause start
        noun_before = False  # a noun may be the referent (Chicos, ¿estáis listos?; La tienda estaba cerrada)
        names_someone = any(tags[i] in ("NC", "NP") for i in positions)
        for k, i in enumerate(positions):
            tag = tags[i]
            if tag in ("NC", "NP"):
                noun_before = True
            if tag in self.clause_starts:
                clause_open = True
                continue
            if not clause_open or tag in self.clause_before_verb:
                continue
            clause_open = False
            if tag in ("ADJ", "Vadj") and not names_someone:
                # an adjective alone between commas or marks (Tranquila, ya estoy acostumbrada), in a
                # segment naming no one (Encantada, yo soy Marta names its referent)
                alone, end = self._predicates_after(segment, positions[k:], frozenset({"CC"}))
                if end == len(positions) or tags[positions[end]] in ("CM", FINAL):
                    changes.extend(alone)
                continue
            word = tokens[i].lower()
            if self.clause_reflexive.fullmatch(word) and not (
                    k and tokens[positions[k - 1]].lower() in self.clause_reflexive_clitics):
                continue  # Lo siento; Quedamos mañana
            if self.clause_first_person.fullmatch(word) or (
                    not noun_before and self.clause_other_persons.fullmatch(word)):
                changes.extend(self._predicates_after(segment, positions[k + 1:])[0])
        if not changes:
            return None
        key = self._key(tags)
        return Decision("G", "ADJ,Vadj", key, "re-genderable ADJ,Vadj after a linking verb",
                        self.render(segment, changes), tuple(changes))

    def _predicates_after(self, segment: Segment, positions: Sequence[int],
                          coordinators: frozenset[str] | None = None) -> tuple[list[Change], int]:
        """The changes of the adjectives right after a linking verb: adverbs before them (un poco
        too), coordinated ones; none when the last one stands before a noun (it is that noun's).
        Also the index in `positions` of the first token after them."""
        tags, tokens = segment.tags, segment.tokens
        coordinators = self.clause_coordinators if coordinators is None else coordinators
        changes: list[Change] = []
        k = 0
        while True:
            while k < len(positions) and (tags[positions[k]] in self.clause_adverbs or (
                    tags[positions[k]] == "ART" and k + 1 < len(positions) and tags[positions[k + 1]] == "ADV")):
                k += 1
            if k == len(positions) or tags[positions[k]] not in ("ADJ", "Vadj"):
                break
            i = positions[k]
            if k + 1 < len(positions) and tags[positions[k + 1]] in ("NC", "NP"):
                return [], k  # Soy buena persona: an attributive adjective agrees with its noun
            new = self.flipper.flip(tags[i], tokens[i], None)
            if new is None or new == tokens[i]:
                break
            changes.append(Change(i, tokens[i], new))
            k += 1
            if not (k + 1 < len(positions) and tags[positions[k]] in coordinators):
                break
            k += 1
        return changes, k

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
