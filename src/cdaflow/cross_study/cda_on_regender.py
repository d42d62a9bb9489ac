"""Study A on Study B's test sets.

Jain et al. (2021, §6, first paragraph) re-implemented the morphological CDA of Zmigrod et al.
(2019) and found it "generated the correct gender variant for only 1% of the sentences", because it
only intervenes on animate nouns, which conversational segments rarely contain; "augmenting the list
with character adjectives" raised that to 9% (and the neutral segments it wrongly converted from 1%
to 3%). :func:`cda_on_regender_testset` repeats this with our own implementations: the trained MRF +
reinflector of Study A (``cdaflow cda``) turns each segment of B's test sets into its other-gender
variant, with and without :class:`CharacterAdjectives`, and :func:`regender_comparison` scores those
outputs with exactly B's metrics (:mod:`cdaflow.regender.errors`, Table 3) next to B's rules and
rewriters.

The character adjectives are a data file (:data:`CHARACTER_ADJECTIVES`), inflected by the language
file's gender endings and plurals (:mod:`cdaflow.text.language`).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from cdaflow.regender.errors import closest, error_rates, tokens
from cdaflow.text import language as languages
from cdaflow.text.case import match_case, match_initial_case, with_initial_case
from cdaflow.text.language import PROJECT_ROOT, Language

if TYPE_CHECKING:  # heavy imports only where the functions that need them run
    from cdaflow.io.conllu import Sentence
    from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention
    from cdaflow.morph_cda.gazetteer import Gazetteer
    from cdaflow.text.parsing import Parser

__all__ = [
    "ADJECTIVE_UPOS",
    "CHARACTER_ADJECTIVES",
    "SEGMENT_TYPES",
    "CharacterAdjectives",
    "GoldLike",
    "adjective_interventions",
    "cda_counterfactuals",
    "cda_on_regender_testset",
    "parse_segments",
    "read_lemmas",
    "regender_comparison",
]

log = logging.getLogger(__name__)

# The rows of B's Table 3 (as rule regender_errors builds them).
SEGMENT_TYPES: dict[str, tuple[str, ...]] = {"all": ("G", "N"), "neutral": ("N",), "re-genderable": ("G",)}

# Character adjectives (Jain et al. 2021, §6): Spanish masculine singular lemmas, one a line; the
# file says where they come from.
CHARACTER_ADJECTIVES = PROJECT_ROOT / "resources" / "cross_study" / "character_adjectives.es.txt"
# Parts of speech an adjective from the list may carry in the parse: ADJ, or a noun when used as
# one ("el tonto"). Not ADP/ADV, so "bajo la mesa" and "solo quiero" stay untouched.
ADJECTIVE_UPOS = frozenset({"ADJ", "NOUN", "PROPN"})


def read_lemmas(path: str | Path = CHARACTER_ADJECTIVES) -> tuple[str, ...]:
    """The words of a list file: one a line; blank lines and ``#`` comment lines skipped."""
    with open(path, encoding="utf-8") as handle:
        return tuple(line.strip() for line in handle if line.strip() and not line.startswith("#"))


@dataclass
class CharacterAdjectives:
    """The option "with character adjectives added": adjective forms whose gender A's CDA changes.

    ``forms`` maps a lower-cased form to ``(counterpart form, its own gender, its number)``.
    """

    forms: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]], language: Language | str) -> CharacterAdjectives:
        """From (masculine, feminine) singular pairs; plurals by the language file's ``plurals``."""
        language = languages.get(language)
        lexicon = cls()
        for masc, fem in pairs:
            masc, fem = masc.strip().lower(), fem.strip().lower()
            masc_plural, fem_plural = language.plural(masc, "Masc"), language.plural(fem, "Fem")
            for form, other, gender, number in (
                (masc, fem, "Masc", "Sing"), (fem, masc, "Fem", "Sing"),
                (masc_plural, fem_plural, "Masc", "Plur"), (fem_plural, masc_plural, "Fem", "Plur"),
            ):  # fmt: skip
                lexicon.forms.setdefault(form, (other, gender, number))
        return lexicon

    @classmethod
    def from_lemmas(cls, lemmas: Iterable[str], language: Language | str) -> CharacterAdjectives:
        """From masculine singular lemmas, their feminine by the language file's ``gender_endings``
        (the longest ending that fits: es -o/-a, -or/-ora, -ón/-ona ...)."""
        language = languages.get(language)
        pairs = []
        for lemma in lemmas:
            masc = lemma.strip().lower()
            feminines = language.gender_candidates(masc, "Masc", "Fem", "Sing")
            if not feminines:
                raise ValueError(
                    f"character adjective {lemma!r} has no gender ending of {language.source.name} (gender_endings)"
                )
            pairs.append((masc, feminines[0]))
        return cls.from_pairs(pairs, language)

    @classmethod
    def read(cls, path: str | Path, language: Language | str) -> CharacterAdjectives:
        """A ``masculine<TAB>feminine`` TSV (the gazetteer format of :class:`~cdaflow.morph_cda.cda.Gazetteer`)."""
        from cdaflow.morph_cda.gazetteer import Gazetteer

        return cls.from_pairs(Gazetteer.read(Path(path)).to_fem.items(), language)

    def __len__(self) -> int:
        return len(self.forms)

    def counterpart(self, word: Mapping[str, Any]) -> tuple[str, str] | None:
        """(counterpart form, the word's own gender) for a listed adjective, else None."""
        if word.get("upos") not in ADJECTIVE_UPOS:
            return None
        found = self.forms.get(str(word["form"]).lower())
        return (found[0], found[1]) if found else None


def adjective_interventions(
    sentence: Sentence, adjectives: CharacterAdjectives, generator: CounterfactualGenerator, direction: str = "flip"
) -> list[Intervention]:
    """Interventions on the listed adjectives of a sentence, like A's on animate nouns.

    The adjective's form is fixed to its counterpart and its tag to the other gender; the MRF then
    propagates the change to the words that agree with it (as for a noun).
    """
    from cdaflow.io.conllu import words
    from cdaflow.morph_cda.cda import DIRECTIONS, Intervention
    from cdaflow.morph_cda.tags import flip_gender

    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}; use one of {DIRECTIONS}")
    out = []
    for index, word in enumerate(words(sentence)):
        found = adjectives.counterpart(word)
        if not found:
            continue
        new_form, gender = found
        if (direction == "to-fem" and gender == "Fem") or (direction == "to-masc" and gender == "Masc"):
            continue
        # The list knows the word's gender better than a tagger that may have missed it.
        tag = tuple(sorted([s for s in generator.word_tag(word) if not s.startswith("Gender=")] + [f"Gender={gender}"]))
        out.append(Intervention(index, flip_gender(tag), form=match_case(word["form"], new_form)))
    return out


def parse_segments(parser: Parser, texts: Sequence[str], *, batch_size: int = 64) -> list[Sentence]:
    """One UD sentence per segment (parts merged), parsed with its first letter lower-cased.

    Same normalisation as :func:`cdaflow.regender.segments.tag_texts`, so A sees what B's rules see.
    """
    from cdaflow.text.parsing import merge_sentences

    # lower-cased first letter: small taggers read a capitalised first word of a short segment as a proper noun
    probes = [with_initial_case(" ".join(text.split()), upper=False) for text in texts]
    parsed = parser.parse(probes, batch_size=batch_size, sent_id_prefix="seg")
    out: list[Sentence] = []
    for line, parts in itertools.groupby(parsed, key=lambda s: int(str(s.metadata["sent_id"]).split("-")[1])):
        group = list(parts)
        sentence = group[0] if len(group) == 1 else merge_sentences(group, {"text": probes[line - 1]})
        sentence.metadata["text"] = probes[line - 1]
        out.append(sentence)
    if len(out) != len(texts):
        raise RuntimeError(f"{len(texts)} segments in, {len(out)} parsed")
    return out


def cda_counterfactuals(
    generator: CounterfactualGenerator,
    gazetteer: Gazetteer,
    sentences: Sequence[Sentence],
    originals: Sequence[str],
    *,
    adjectives: CharacterAdjectives | None = None,
    direction: str = "flip",
    batch_size: int = 256,
) -> list[str]:
    """Study A's other-gender variant of each parsed segment (the original where A changes nothing).

    Interventions are A's own (animate nouns of the gazetteer) plus, with `adjectives`, the listed
    character adjectives; a word both lists know is intervened on once, as a noun. Sentences with
    interventions go through the MRF + reinflector `batch_size` at a time.
    """
    from cdaflow.morph_cda.interventions import interventions_for

    if len(sentences) != len(originals):
        raise ValueError(f"{len(sentences)} parsed sentences but {len(originals)} original segments")
    groups = []
    for sentence in sentences:
        group = interventions_for(sentence, gazetteer, generator, direction)
        if adjectives is not None:
            taken = {i.index for i in group}
            group += [
                i for i in adjective_interventions(sentence, adjectives, generator, direction) if i.index not in taken
            ]
        groups.append(group)
    outputs = list(originals)
    todo = [k for k, group in enumerate(groups) if group]
    for start in range(0, len(todo), batch_size):
        chunk = todo[start : start + batch_size]
        results = generator.generate([sentences[k] for k in chunk], [groups[k] for k in chunk])
        for k, result in zip(chunk, results, strict=True):
            outputs[k] = match_initial_case(result.counterfactual, originals[k])
    log.info("%d of %d segments had something to intervene on", len(todo), len(sentences))
    return outputs


class GoldLike(Protocol):
    label: str
    segment: str
    variants: tuple[str, ...]


def regender_comparison(
    test_sets: Mapping[str, Sequence[GoldLike]], outputs: Mapping[str, Mapping[str, Sequence[str]]]
) -> pd.DataFrame:
    """Tidy error table: test_set, type, system, segments, per_sentence, per_word, correct_pct, changed_pct.

    `outputs[system][test_set]` holds one output line per gold segment. ``per_sentence`` and
    ``per_word`` are B's Table 3 error rates; ``correct_pct`` is the share of segments whose output is
    a correct variant (no word error: "generated the correct gender variant"); ``changed_pct`` the
    share whose output differs from the segment in some token (for neutral segments: wrongly converted).
    """
    rows = []
    for name, gold in test_sets.items():
        for system, by_set in outputs.items():
            if name not in by_set:
                continue
            out = list(by_set[name])
            if len(out) != len(gold):
                raise ValueError(f"system {system}, test set {name}: {len(out)} outputs for {len(gold)} segments")
            for kind, labels in SEGMENT_TYPES.items():
                chosen = [i for i, g in enumerate(gold) if g.label in labels]
                rates = error_rates([out[i] for i in chosen], [gold[i].variants for i in chosen])
                n = len(chosen)
                correct = sum(closest(out[i], gold[i].variants)[0] == 0 for i in chosen)
                changed = sum(tokens(out[i]) != tokens(gold[i].segment) for i in chosen)
                rows.append(
                    {
                        "test_set": name,
                        "type": kind,
                        "system": system,
                        "segments": n,
                        "per_sentence": rates["per_sentence"],
                        "per_word": rates["per_word"],
                        "correct_pct": 100 * correct / n if n else float("nan"),
                        "changed_pct": 100 * changed / n if n else float("nan"),
                    }
                )
    return pd.DataFrame(
        rows,
        columns=["test_set", "type", "system", "segments", "per_sentence", "per_word", "correct_pct", "changed_pct"],
    )


def cda_on_regender_testset(
    generator: CounterfactualGenerator,
    gazetteer: Gazetteer,
    parsed: Sequence[Sentence],
    gold: Sequence[GoldLike],
    *,
    test_set: str,
    adjectives: CharacterAdjectives | None = None,
    other_systems: Mapping[str, Sequence[str]] | None = None,
    direction: str = "flip",
    batch_size: int = 256,
) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Study A's CDA on one of Study B's test sets, scored like B's systems.

    `parsed` holds one UD sentence per gold segment (:func:`parse_segments`); `other_systems` maps a
    system name (rules, nmt, ...) to its output lines. Returns the :func:`regender_comparison` table
    (systems ``cda``, and ``cda_adjectives`` when `adjectives` is given, then the others) and A's outputs.
    """
    originals = [g.segment for g in gold]
    outputs = {
        "cda": cda_counterfactuals(generator, gazetteer, parsed, originals, direction=direction, batch_size=batch_size)
    }
    if adjectives is not None:
        outputs["cda_adjectives"] = cda_counterfactuals(
            generator, gazetteer, parsed, originals, adjectives=adjectives, direction=direction, batch_size=batch_size
        )
    systems = {system: {test_set: lines} for system, lines in outputs.items()}
    for system, lines in (other_systems or {}).items():
        systems[system] = {test_set: list(lines)}
    return regender_comparison({test_set: gold}, systems), outputs
