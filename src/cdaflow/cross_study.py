"""Cross-study comparisons: one study's method on another study's data.

(a) **Study A on Study B's test sets.** Jain et al. (2021, §6, first paragraph) re-implemented the
    morphological CDA of Zmigrod et al. (2019) and found it "generated the correct gender variant for
    only 1% of the sentences", because it only intervenes on animate nouns, which conversational
    segments rarely contain; "augmenting the list with character adjectives" raised that to 9% (and the
    neutral segments it wrongly converted from 1% to 3%). :func:`cda_on_regender_testset` repeats this
    with our own implementations: the trained MRF + reinflector of Study A (``cdaflow cda``) turns each
    segment of B's test sets into its other-gender variant, with and without
    :class:`CharacterAdjectives`, and :func:`regender_comparison` scores those outputs with exactly
    B's metrics (:mod:`cdaflow.regender.errors`, Table 3) next to B's rules and rewriters.
(b) **Study D's bias score on D-swapped English** (:func:`bias_scores_of_swapped`): every sentence
    with a gender word or given name is scored before and after D's own swap (§4.2.2, Appendix A).
(c) **Study D's bias score on Study C's data** (:func:`gap_subjective_bias`): every GAP context
    sentence the subjectivizer transferred (Pant & Dadu 2022, §3.2) is scored against its
    GAP-Subjective counterpart.

:func:`bias_summary` gives, for (b) and (c), mean scores, mean absolute scores and the paired
difference (counterpart - original) with a seeded percentile-bootstrap confidence interval
(``scipy.stats.bootstrap``).

Scores come from any batched scorer ``sentences -> object with f, m, abs arrays`` (eq. 1-3 of Dolci et
al. 2023); :func:`infersent_scorer` builds the one rule ``sentence_bias_score_snli`` uses from the same
files. The signed score
``net = f + m`` (``m`` is ≤ 0) says which way a sentence leans: > 0 female, < 0 male.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from cdaflow.regender.errors import closest, error_rates, tokens
from cdaflow.text.case import match_case, match_initial_case, with_initial_case

if TYPE_CHECKING:  # heavy imports only where the functions that need them run
    from cdaflow.gap_subjective.gap import GapExample
    from cdaflow.io.conllu import Sentence
    from cdaflow.morph_cda.cda import CounterfactualGenerator, Gazetteer, Intervention
    from cdaflow.text.parsing import Parser

__all__ = [
    "CHARACTER_ADJECTIVES_ES",
    "MEASURES",
    "SEGMENT_TYPES",
    "CharacterAdjectives",
    "ScoresLike",
    "adjective_interventions",
    "bias_scores_of_swapped",
    "bias_summary",
    "cda_counterfactuals",
    "cda_on_regender_testset",
    "gap_subjective_bias",
    "infersent_scorer",
    "infersent_scorer_of_rule",
    "parse_segments",
    "paired_difference",
    "regender_comparison",
    "transferred_sentence_pairs",
]

log = logging.getLogger(__name__)

# The rows of B's Table 3 (as rule regender_errors builds them).
SEGMENT_TYPES: dict[str, tuple[str, ...]] = {"all": ("G", "N"), "neutral": ("N",), "re-genderable": ("G",)}

# Character adjectives (Jain et al. 2021, §6): Spanish adjectives that describe a person's character,
# mood or looks, masculine singular, written for cdaflow from general knowledge (not from B's test
# sets). Only adjectives with a gender contrast are useful (-o/-a, -or/-ora, -ón/-ona); invariant
# ones (amable, feliz, egoísta) cannot change. Past participles (cansado, aburrido) are left out on
# purpose: the paper considered adding them as a further, abandoned step.
CHARACTER_ADJECTIVES_ES: tuple[str, ...] = (
    "alto", "bajo", "bonito", "guapo", "feo", "gordo", "flaco", "rubio", "moreno", "viejo",
    "rico", "malo", "bueno", "listo", "tonto", "loco", "sano", "enfermo", "contento", "tranquilo",
    "nervioso", "ansioso", "celoso", "orgulloso", "generoso", "cariñoso", "gracioso", "curioso",
    "furioso", "famoso", "mentiroso", "chismoso", "tímido", "simpático", "antipático", "sincero",
    "honesto", "perezoso", "vago", "tacaño", "travieso", "serio", "atento", "maduro", "solo",
    "seguro", "lento", "raro", "tierno", "terco", "estúpido", "bello",
    "trabajador", "encantador", "hablador", "soñador", "luchador", "llorón", "mandón", "dormilón",
)  # fmt: skip
# Parts of speech an adjective from the list may carry in the parse: ADJ, or a noun when used as
# one ("el tonto"). Not ADP/ADV, so "bajo la mesa" and "solo quiero" stay untouched.
ADJECTIVE_UPOS = frozenset({"ADJ", "NOUN", "PROPN"})


def _inflections(lemma: str) -> dict[tuple[str, str], str] | None:
    """{(gender, number): form} of a masculine singular adjective, or None if it has no gender contrast."""
    if lemma.endswith("o"):
        stem = lemma[:-1]
        return {
            ("Masc", "Sing"): lemma,
            ("Fem", "Sing"): stem + "a",
            ("Masc", "Plur"): stem + "os",
            ("Fem", "Plur"): stem + "as",
        }
    if lemma.endswith("or"):
        return {
            ("Masc", "Sing"): lemma,
            ("Fem", "Sing"): lemma + "a",
            ("Masc", "Plur"): lemma + "es",
            ("Fem", "Plur"): lemma + "as",
        }
    if lemma.endswith("ón"):  # the written accent goes when a syllable is added: llorón, llorona
        stem = lemma[:-2] + "on"
        return {
            ("Masc", "Sing"): lemma,
            ("Fem", "Sing"): stem + "a",
            ("Masc", "Plur"): stem + "es",
            ("Fem", "Plur"): stem + "as",
        }
    return None


@dataclass
class CharacterAdjectives:
    """The option "with character adjectives added": adjective forms whose gender A's CDA changes.

    ``forms`` maps a lower-cased form to ``(counterpart form, its own gender, its number)``.
    """

    forms: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> CharacterAdjectives:
        """From (masculine, feminine) singular pairs; plurals are added (vowel + s, z + ces, consonant + es)."""
        lexicon = cls()
        for masc, fem in pairs:
            masc, fem = masc.strip().lower(), fem.strip().lower()
            plural = {masc: _plural(masc), fem: _plural(fem)}
            for form, other, gender, number in (
                (masc, fem, "Masc", "Sing"), (fem, masc, "Fem", "Sing"),
                (plural[masc], plural[fem], "Masc", "Plur"), (plural[fem], plural[masc], "Fem", "Plur"),
            ):  # fmt: skip
                lexicon.forms.setdefault(form, (other, gender, number))
        return lexicon

    @classmethod
    def from_lemmas(cls, lemmas: Iterable[str] = CHARACTER_ADJECTIVES_ES) -> CharacterAdjectives:
        """From masculine singular lemmas inflected by the regular Spanish patterns (-o, -or, -ón)."""
        lexicon = cls()
        for lemma in lemmas:
            table = _inflections(lemma.strip().lower())
            if table is None:
                raise ValueError(f"character adjective {lemma!r} has no regular gender contrast (-o, -or, -ón)")
            for (gender, number), form in table.items():
                other = table[("Fem" if gender == "Masc" else "Masc", number)]
                lexicon.forms.setdefault(form, (other, gender, number))
        return lexicon

    @classmethod
    def read(cls, path: str | Path) -> CharacterAdjectives:
        """A ``masculine<TAB>feminine`` TSV (the gazetteer format of :class:`~cdaflow.morph_cda.cda.Gazetteer`)."""
        from cdaflow.morph_cda.cda import Gazetteer

        return cls.from_pairs(Gazetteer.read(Path(path)).to_fem.items())

    def __len__(self) -> int:
        return len(self.forms)

    def counterpart(self, word: Mapping[str, Any]) -> tuple[str, str] | None:
        """(counterpart form, the word's own gender) for a listed adjective, else None."""
        if word.get("upos") not in ADJECTIVE_UPOS:
            return None
        found = self.forms.get(str(word["form"]).lower())
        return (found[0], found[1]) if found else None


def _plural(word: str) -> str:
    if word.endswith("ón"):
        return word[:-2] + "ones"
    if word.endswith("z"):
        return word[:-1] + "ces"
    return word + ("s" if word[-1:] in "aeiouáéó" else "es")


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
    from cdaflow.morph_cda.cda import interventions_for

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


class _GoldLike(Protocol):
    label: str
    segment: str
    variants: tuple[str, ...]


def regender_comparison(
    test_sets: Mapping[str, Sequence[_GoldLike]], outputs: Mapping[str, Mapping[str, Sequence[str]]]
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
    gold: Sequence[_GoldLike],
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


# -- (b), (c): Study D's bias score --------------------------------------------------------------

MEASURES: tuple[str, ...] = ("f", "m", "abs", "net")


class ScoresLike(Protocol):
    f: np.ndarray
    m: np.ndarray
    abs: np.ndarray


Scorer = Callable[[Sequence[str]], ScoresLike]


def infersent_scorer(
    vectors: str | Path, encoder: str | Path, direction: str | Path, words: str | Path, *,
    pretrained: bool, device: str = "cpu",
) -> Scorer:
    """Study D's batched bias score from its files: the vectors folder, the InferSent encoder (a
    trained model folder, or the pretrained weights with ``pretrained``), the gender direction
    (``.npy``) and the gender word list, as rule ``sentence_bias_score_snli`` scores."""
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent
    from cdaflow.sentence_bias.score import encoder_bias_scorer
    from cdaflow.sentence_bias.wordlist import GenderWordList

    opened = open_vectors(vectors)
    model = InferSent.load_any(encoder, opened, pretrained=pretrained, device=device)
    return encoder_bias_scorer(model, opened, np.load(direction), GenderWordList.load(words))


def infersent_scorer_of_rule(smk: Any) -> Scorer:
    """:func:`infersent_scorer` from a rule's files: inputs ``vectors``, ``encoder``, ``direction``
    and ``words``, params ``pretrained`` and ``encoder_member``; on CUDA when the rule holds a GPU."""
    from cdaflow.device import rule_device
    from cdaflow.runtime import input_path

    p = smk.params
    return infersent_scorer(
        smk.input.vectors, input_path(smk.input.encoder, p.encoder_member if p.pretrained else None),
        smk.input.direction, smk.input.words, pretrained=p.pretrained,
        device=rule_device(smk),
    )  # fmt: skip


def _score_pairs(table: pd.DataFrame, score: Scorer) -> pd.DataFrame:
    """Add original_/counterpart_ f, m, abs, net columns: one batched scorer call for both sides."""
    texts = list(table["original"]) + list(table["counterpart"])
    scores = score(texts)
    n = len(table)
    for name in ("f", "m", "abs"):
        values = np.asarray(getattr(scores, name), dtype=np.float64)
        if values.shape != (2 * n,):
            raise ValueError(f"the scorer returned {values.shape} {name} scores for {2 * n} sentences")
        table[f"original_{name}"], table[f"counterpart_{name}"] = values[:n], values[n:]
    for side in ("original", "counterpart"):
        table[f"{side}_net"] = table[f"{side}_f"] + table[f"{side}_m"]
    return table


def bias_scores_of_swapped(sentences: Iterable[str], swapper: Any, score: Scorer) -> pd.DataFrame:
    """D's bias score of each distinct sentence the swapper changes, before and after the swap.

    `swapper` is a :class:`~cdaflow.sentence_bias.swap.Swapper` (``swap(s) -> (swapped, count)``).
    Columns: original, counterpart, words_swapped, then original_/counterpart_ f, m, abs, net.
    """
    rows = []
    for sentence in dict.fromkeys(sentences):
        swapped, count = swapper.swap(sentence)
        if count:
            rows.append({"original": sentence, "counterpart": swapped, "words_swapped": count})
    table = pd.DataFrame(rows, columns=["original", "counterpart", "words_swapped"])
    log.info("%d sentences with something to swap", len(table))
    return _score_pairs(table, score)


def transferred_sentence_pairs(
    gap: Sequence[GapExample], subjective: Sequence[GapExample], *, source: str = "GAP-Subjective"
) -> pd.DataFrame:
    """(id, original, counterpart) for every GAP sentence the released GAP-Subjective context changed.

    Both contexts are cut with Study C's splitter and their sentences aligned (difflib): unchanged
    sentences match; each changed run becomes one pair, its sentences joined by a space (a transfer
    may come back as two sentences, or be cut differently). Contexts must come in the same order.
    """
    from cdaflow.gap_subjective.sentences import split_sentences

    if [e.id for e in gap] != [e.id for e in subjective]:
        raise ValueError(f"{source}: its examples are not GAP's, in GAP's order")
    rows = []
    for original, released in zip(gap, subjective, strict=True):
        if original.text == released.text:
            continue
        before = [s.text for s in split_sentences(original.text)]
        after = [s.text for s in split_sentences(released.text)]
        matcher = SequenceMatcher(None, before, after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if i1 == i2 or j1 == j2:  # a sentence added or dropped: nothing to pair it with
                log.warning("%s: example %s has a sentence %s", source, original.id, "added" if i1 == i2 else "dropped")
                continue
            rows.append({"id": original.id, "original": " ".join(before[i1:i2]), "counterpart": " ".join(after[j1:j2])})
    return pd.DataFrame(rows, columns=["id", "original", "counterpart"])


def gap_subjective_bias(
    gap: Sequence[GapExample], subjective: Sequence[GapExample], score: Scorer, *, source: str = "GAP-Subjective"
) -> pd.DataFrame:
    """D's bias score of every transferred GAP sentence and of its GAP-Subjective counterpart.

    Columns: id, original, counterpart, then original_/counterpart_ f, m, abs, net.
    """
    table = transferred_sentence_pairs(gap, subjective, source=source)
    log.info("%d transferred sentences in %d contexts", len(table), table["id"].nunique())
    return _score_pairs(table, score)


def paired_difference(
    original: Sequence[float] | np.ndarray,
    counterpart: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 9999,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, float]:
    """Mean of counterpart - original and its percentile-bootstrap CI (NaN CI with fewer than 2 pairs)."""
    from scipy.stats import bootstrap

    a = np.asarray(original, dtype=np.float64)
    b = np.asarray(counterpart, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired scores must be two 1-d arrays of one length, got {a.shape} and {b.shape}")
    difference = b - a
    mean = float(difference.mean()) if difference.size else float("nan")
    if difference.size < 2:
        return {"mean_difference": mean, "ci_low": float("nan"), "ci_high": float("nan")}
    if np.all(difference == difference[0]):  # every resample has the same mean
        return {"mean_difference": mean, "ci_low": mean, "ci_high": mean}
    result = bootstrap(
        (difference,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        # Resamples per vectorised call: about 10M values in memory whatever the number of pairs.
        batch=max(1, min(n_resamples, 10_000_000 // difference.size)),
        rng=np.random.default_rng(seed),
    )
    return {
        "mean_difference": mean,
        "ci_low": float(result.confidence_interval.low),
        "ci_high": float(result.confidence_interval.high),
    }


def bias_summary(
    table: pd.DataFrame,
    *,
    comparison: str,
    measures: Sequence[str] = MEASURES,
    n_resamples: int = 9999,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per measure: n, mean and mean |score| of both sides, paired difference and its CI."""
    rows = []
    for measure in measures:
        a, b = table[f"original_{measure}"].to_numpy(float), table[f"counterpart_{measure}"].to_numpy(float)
        rows.append(
            {
                "comparison": comparison,
                "measure": measure,
                "n": len(a),
                "mean_original": float(a.mean()) if len(a) else float("nan"),
                "mean_counterpart": float(b.mean()) if len(b) else float("nan"),
                "mean_abs_original": float(np.abs(a).mean()) if len(a) else float("nan"),
                "mean_abs_counterpart": float(np.abs(b).mean()) if len(b) else float("nan"),
                **paired_difference(a, b, n_resamples=n_resamples, confidence=confidence, seed=seed),
                "confidence": confidence,
            }
        )
    return pd.DataFrame(rows)
