"""Corpus-scale counterfactual data augmentation (Zmigrod et al. 2019, §5.2).

For every sentence with animate nouns (found by the gazetteer) the augmented corpus keeps the
original and adds one counterfactual copy per combination of the nouns' genders ("for sentences
containing more than one animate noun, we generated a separate sentence for each possible
combination of genders"): with k nouns, the 2^k - 1 non-empty sets of nouns to flip, fewest
flips first, at most ``max_copies`` of them. Two corpora are made from the same sets:

* ``mrf``: the MRF infers the agreeing tags and the reinflector writes the new forms;
* ``swap``: the naive baseline, only the nouns change (the MRF is not consulted).

Sentences without an animate noun are copied as they are into both.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.cda import CounterfactualGenerator, Intervention
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.interventions import interventions_for

__all__ = ["CORPORA", "AugmentCounts", "augment_corpus", "count_gazetteer_nouns", "flip_sets", "write_corpora"]

METHODS = ("mrf", "swap")
# The three corpora of §5.2, each the language model's training text.
CORPORA = ("original", "swap", "mrf")


def flip_sets(n_nouns: int, max_copies: int | None = None) -> list[tuple[int, ...]]:
    """Which nouns to flip for each copy: every non-empty subset of ``range(n_nouns)``.

    Ordered by size, then lexicographically (single flips first), and cut at `max_copies`.
    """
    if n_nouns < 0:
        raise ValueError("n_nouns must be >= 0")
    if max_copies is not None and max_copies < 1:
        raise ValueError("max_copies must be >= 1")
    sets = [combo for size in range(1, n_nouns + 1) for combo in itertools.combinations(range(n_nouns), size)]
    return sets if max_copies is None else sets[:max_copies]


@dataclass
class AugmentCounts:
    sentences: int = 0
    animate_sentences: int = 0
    animate_nouns: int = 0
    copies: int = 0
    copies_by_nouns: dict[int, int] = field(default_factory=dict)

    @property
    def animate_percent(self) -> float:
        """Table 4's "% of animate sentences"."""
        return 100 * self.animate_sentences / self.sentences if self.sentences else 0.0


def _original_text(sentence: Sentence) -> str:
    text = sentence.metadata.get("text")
    if text is None:
        raise ValueError(f"sentence {sentence.metadata.get('sent_id', '?')} has no # text")
    return text


def augment_corpus(
    sentences: Iterable[Sentence],
    generator: CounterfactualGenerator,
    gazetteer: Gazetteer,
    *,
    max_copies: int | None = 8,
    batch_size: int = 256,
    counts: AugmentCounts | None = None,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """Per input sentence: (original text, its MRF counterfactuals, its naive-swap counterfactuals).

    Sentences are processed in chunks of `batch_size`: every copy of a chunk goes through one
    batched MAP call and one batched reinflection call per method.
    """
    counts = counts if counts is not None else AugmentCounts()
    iterator = iter(sentences)
    while chunk := list(itertools.islice(iterator, batch_size)):
        jobs: list[tuple[int, Sentence, list[Intervention]]] = []
        for position, sentence in enumerate(chunk):
            counts.sentences += 1
            nouns = interventions_for(sentence, gazetteer, generator, "flip")
            if not nouns:
                continue
            counts.animate_sentences += 1
            counts.animate_nouns += len(nouns)
            sets = flip_sets(len(nouns), max_copies)
            counts.copies += len(sets)
            counts.copies_by_nouns[len(nouns)] = counts.copies_by_nouns.get(len(nouns), 0) + 1
            jobs += [(position, sentence, [nouns[i] for i in chosen]) for chosen in sets]
        made: dict[str, list[list[str]]] = {method: [[] for _ in chunk] for method in METHODS}
        if jobs:
            for method in METHODS:
                results = generator.generate(
                    [s for _, s, _ in jobs], [i for _, _, i in jobs], propagate=method == "mrf"
                )
                for (position, _, _), result in zip(jobs, results, strict=True):
                    made[method][position].append(result.counterfactual)
        for position, sentence in enumerate(chunk):
            yield _original_text(sentence), made["mrf"][position], made["swap"][position]


def count_gazetteer_nouns(
    sentences: Iterable[Sentence], gazetteer: Gazetteer, counts: Counter[tuple[str, str]]
) -> Iterator[Sentence]:
    """Pass the sentences on, counting each gazetteer noun in `counts` by (masculine lemma, its gender)."""
    for sentence in sentences:
        for word in words(sentence):
            found = gazetteer.counterpart(word)
            if found is None:
                continue
            new_lemma, new_gender = found
            masculine = new_lemma if new_gender == "Masc" else gazetteer.to_masc.get(new_lemma, new_lemma)
            counts[(masculine, "Fem" if new_gender == "Masc" else "Masc")] += 1
        yield sentence


def write_corpora(
    augmented: Iterable[tuple[str, list[str], list[str]]],
    paths: Mapping[str, str | Path],
    progress: Callable[[int], None] | None = None,
    every: int = 10000,
) -> int:
    """Write the original, swap and mrf corpora (one sentence a line, each original followed by its
    copies), all three atomically; `progress` hears every `every` sentences. Returns the sentences."""
    n = 0
    with contextlib.ExitStack() as stack:
        files = {name: stack.enter_context(atomic_file(paths[name], "w")) for name in CORPORA}
        for n, (text, mrf_copies, swap_copies) in enumerate(augmented, start=1):
            files["original"].write(text + "\n")
            files["swap"].write(text + "\n" + "".join(c + "\n" for c in swap_copies))
            files["mrf"].write(text + "\n" + "".join(c + "\n" for c in mrf_copies))
            if progress is not None and n % every == 0:
                progress(n)
    return n
