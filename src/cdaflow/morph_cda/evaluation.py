"""Intrinsic evaluation of Study A (§5.1, Table 3): tag P/R/F1/accuracy and form accuracy.

For each annotated sentence the intervened noun is fixed to its gold new tag and form and is
excluded from every count. A word is *gold-changed* when the annotation lists it (its gender
flips) and *predicted-changed* when the system flips its gender. Counting over all words of all
sentences (micro-average):

* tag precision = |predicted ∩ gold| / |predicted|, recall = |predicted ∩ gold| / |gold|,
  F1 their harmonic mean (0 when undefined);
* tag accuracy = share of words whose predicted tag equals the gold tag, i.e. whose
  changed/unchanged status is right (only gender can change);
* form accuracy = share of words whose predicted form equals the gold form.

:func:`relation_rows` splits the same counts by how each word is linked to the intervened noun
in the tree (its dependent through ``det``, ``amod``, ``acl`` …; its head through ``nsubj`` …;
further away), so a reader sees which constructions a model gets, and whether a miss is the
tag's (MRF) or the form's (reinflection).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field

from cdaflow.io.conllu import words
from cdaflow.morph_cda.annotations import Annotation
from cdaflow.morph_cda.cda import Counterfactual, CounterfactualGenerator, Intervention, gender_intervention
from cdaflow.morph_cda.tags import GENDER_SWAP, feats_with_tag, gender_of

METRICS = ("tag_precision", "tag_recall", "tag_f1", "tag_accuracy", "form_accuracy")


@dataclass
class Scores:
    """Counts over the scored words: every word of an annotated sentence but the intervened noun."""

    true_positive: int = 0
    """Words whose tag both the model and the gold annotation change."""
    predicted: int = 0
    """Words whose tag the model changes."""
    gold: int = 0
    """Words whose tag the gold annotation changes."""
    tags_correct: int = 0
    """Words whose tag the model changes exactly when the gold annotation does."""
    forms_correct: int = 0
    """Words whose output form is the gold form."""
    words: int = 0
    sentences: int = 0

    @classmethod
    def of_word(cls, predicted: bool, gold: bool, form_right: bool) -> Scores:
        """The counts of one word: does the model change its tag, does the gold, is its form right."""
        return cls(int(predicted and gold), int(predicted), int(gold), int(predicted == gold), int(form_right), 1)

    def add(self, other: Scores) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_row(self) -> dict[str, float | int]:
        precision = self.true_positive / self.predicted if self.predicted else 0.0
        recall = self.true_positive / self.gold if self.gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "tag_precision": 100 * precision,
            "tag_recall": 100 * recall,
            "tag_f1": 100 * f1,
            "tag_accuracy": 100 * self.tags_correct / self.words if self.words else 0.0,
            "form_accuracy": 100 * self.forms_correct / self.words if self.words else 0.0,
            "sentences": self.sentences,
            "words": self.words,
            "gold_changes": self.gold,
            "predicted_changes": self.predicted,
        }


def score_sentence(
    annotation: Annotation, predicted_changed: set[int], predicted_forms: Sequence[str]
) -> Scores:
    """Scores of one sentence; word indices are 0-based, the noun is excluded."""
    scores = Scores(sentences=1)
    for _, word in word_scores(annotation, predicted_changed, predicted_forms):
        scores.add(word)
    return scores


def word_scores(
    annotation: Annotation, predicted_changed: Container[int], predicted_forms: Sequence[str]
) -> Iterator[tuple[int, Scores]]:
    """(0-based index, :meth:`Scores.of_word`) of every word of the sentence but the noun."""
    noun = annotation.noun.word_id - 1
    gold_changed = {c.word_id - 1 for c in annotation.changes}
    gold_forms = annotation.gold_forms()
    for index, gold_form in enumerate(gold_forms):
        if index != noun:
            right = predicted_forms[index] == gold_form
            yield index, Scores.of_word(index in predicted_changed, index in gold_changed, right)


def gold_new_gender(annotation: Annotation, generator: CounterfactualGenerator) -> str:
    """The gender the annotation gives the intervened noun.

    A noun with one gender takes the other. A common-gender noun (*artista*, *joven*: no Gender
    feature) takes the gender its annotated counterparts are written in: each changed word is
    inflected in both genders and votes for the one whose form is its gold form; failing that
    (no vote, or a tie), the opposite of the changed words' present gender; with no changed
    word at all, feminine (the noun is read as masculine, as the gazetteer does).
    """
    ws = words(annotation.sentence)
    own = gender_of(generator.word_tag(ws[annotation.noun.word_id - 1]))
    if len(own) == 1 and next(iter(own)) in GENDER_SWAP:
        return GENDER_SWAP[next(iter(own))]
    votes: Counter[str] = Counter()
    present: Counter[str] = Counter()
    queries, voters = [], []
    for change in annotation.changes:
        word = ws[change.word_id - 1]
        tag = generator.word_tag(word)
        genders = gender_of(tag)
        if len(genders) != 1 or next(iter(genders)) not in GENDER_SWAP:
            continue
        present[next(iter(genders))] += 1
        for gender in GENDER_SWAP:
            variant = tuple(sorted([t for t in tag if not t.startswith("Gender=")] + [f"Gender={gender}"]))
            features = feats_with_tag(word["feats"], variant, generator.inventory.features)
            queries.append(((word["lemma"] or word["form"]).lower(), word["upos"], features))
            voters.append((gender, change.new.lower()))
    if queries and generator.reinflector is not None:
        for (gender, gold), form in zip(voters, generator.reinflector.inflect(queries)):
            votes[gender] += form.lower() == gold
    for counter, pick in ((votes, lambda g: g), (present, lambda g: GENDER_SWAP[g])):
        ranked = counter.most_common()
        if ranked and ranked[0][1] > 0 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            return pick(ranked[0][0])
    return "Fem"


def noun_intervention(annotation: Annotation, generator: CounterfactualGenerator) -> Intervention:
    """The gold intervention: the noun set to the annotation's gender, its gold new form given."""
    index = annotation.noun.word_id - 1
    word = words(annotation.sentence)[index]
    return gender_intervention(
        index, word, generator, gold_new_gender(annotation, generator), form=annotation.noun.new
    )


def predict(generator: CounterfactualGenerator, annotations: Sequence[Annotation]) -> list[Counterfactual]:
    """Counterfactuals of all annotated sentences (one batched call)."""
    return generator.generate(
        [a.sentence for a in annotations], [[noun_intervention(a, generator)] for a in annotations]
    )


def evaluate(
    generator: CounterfactualGenerator, annotations: Sequence[Annotation]
) -> tuple[Scores, list[Counterfactual]]:
    total = Scores()
    outputs = predict(generator, annotations)
    for annotation, output in zip(annotations, outputs):
        noun = annotation.noun.word_id - 1
        changed = {i for i in output.changed if i != noun}
        total.add(score_sentence(annotation, changed, output.forms))
    return total, outputs


LINKS = ("dependent", "head", "sibling", "other")


def link_to_noun(annotation: Annotation, index: int) -> tuple[str, str]:
    """(link, UD relation) of word `index` (0-based) to the annotation's intervened noun.

    ``dependent``: the word hangs on the noun, by its own relation (``det``, ``amod``, ``acl``);
    ``head``: the noun hangs on the word, by the noun's relation (``nsubj`` of a predicative
    adjective or participle); ``sibling``: both hang on the same head (a copula or auxiliary
    beside a subject), by the word's relation; ``other``: further away, by the word's relation
    (``conj`` of a predicative adjective, a relative clause's participle).
    """
    ws = words(annotation.sentence)
    noun = annotation.noun.word_id - 1
    word_head, noun_head = int(ws[index]["head"] or 0), int(ws[noun]["head"] or 0)
    if word_head == noun + 1:
        return "dependent", _relation(ws[index]["deprel"])
    if noun_head == index + 1:
        return "head", _relation(ws[noun]["deprel"])
    if word_head and word_head == noun_head:
        return "sibling", _relation(ws[index]["deprel"])
    return "other", _relation(ws[index]["deprel"])


def _relation(deprel: str | None) -> str:
    return (deprel or "dep").split(":", 1)[0]


@dataclass
class RelationScores:
    """Scores of the words of one (link, relation), plus where their misses come from."""

    scores: Scores = field(default_factory=Scores)
    form_wrong_tag_right: int = 0  # reinflection's misses: the changed/unchanged status was right


def relation_scores(
    annotations: Sequence[Annotation], outputs: Sequence[Counterfactual]
) -> dict[tuple[str, str], RelationScores]:
    """The counts of :func:`score_sentence` per (link, relation) of each word to its noun."""
    table: dict[tuple[str, str], RelationScores] = {}
    for annotation, output in zip(annotations, outputs):
        for index, word in word_scores(annotation, output.changed, output.forms):
            entry = table.setdefault(link_to_noun(annotation, index), RelationScores())
            entry.scores.add(word)
            entry.form_wrong_tag_right += int(word.tags_correct and not word.forms_correct)
    return table


def relation_rows(model: str, table: dict[tuple[str, str], RelationScores]) -> list[dict]:
    """Rows of ``intrinsic_by_relation.tsv`` for one model: relations where a change is due or made."""
    rows = []
    for (link, relation), entry in table.items():
        counts = entry.scores
        if not counts.gold and not counts.predicted:
            continue
        row = counts.as_row()
        rows.append(
            {
                "model": model,
                "link": link,
                "relation": relation,
                "words": counts.words,
                "gold_changes": counts.gold,
                "predicted_changes": counts.predicted,
                "true_positives": counts.true_positive,
                **{metric: row[metric] for metric in METRICS},
                "tag_errors": counts.words - counts.tags_correct,
                "form_errors_tag_right": entry.form_wrong_tag_right,
            }
        )
    order = {link: i for i, link in enumerate(LINKS)}
    return sorted(rows, key=lambda r: (order[r["link"]], -r["gold_changes"], -r["predicted_changes"], r["relation"]))


def evaluate_swap(annotations: Sequence[Annotation]) -> Scores:
    """Naive swap: only the noun changes (the reference row)."""
    total = Scores()
    for annotation in annotations:
        forms = [w["form"] for w in words(annotation.sentence)]
        total.add(score_sentence(annotation, set(), forms))
    return total


def tune_log_alpha(
    generator: CounterfactualGenerator,
    dev: Sequence[Annotation],
    grid: Sequence[float],
    carry_gender: Sequence[bool] = (False,),
) -> tuple[float, list[tuple[float, bool, dict]]]:
    """The log α of `grid` (and gender carrying, of `carry_gender`) with the best dev tag F1.

    Ties go to form accuracy, then to carrying, then to the smaller α: carrying changes nothing
    where no genderless word stands between agreeing ones, so a tie means the dev sentences
    have no such case, and users' sentences do (*el mejor*, *la plus jeune*). The generator is left
    set to the best pair; the result is (best log α, [(log α, carry, dev scores), ...]).
    """
    results = []
    for carry in carry_gender:
        for log_alpha in grid:
            generator.log_alpha, generator.carry_gender = log_alpha, carry
            scores, _ = evaluate(generator, dev)
            results.append((log_alpha, carry, scores.as_row()))
    best = max(
        results,
        key=lambda r: (round(r[2]["tag_f1"], 9), round(r[2]["form_accuracy"], 9), r[1], -r[0]),
    )
    generator.log_alpha, generator.carry_gender = best[0], best[1]
    return best[0], results


def example_markdown(annotation: Annotation, output: Counterfactual) -> str:
    """One examples.md entry: original, ours and gold, changed words in bold, errors listed."""
    ws = words(annotation.sentence)
    gold = annotation.gold_forms()
    mark = lambda forms, changed: " ".join(  # noqa: E731
        f"**{f}**" if i in changed else f for i, f in enumerate(forms)
    )
    gold_changed = {c.word_id - 1 for c in annotation.changes} | {annotation.noun.word_id - 1}
    errors = [
        f"{ws[i]['form']} → {output.forms[i]} (gold {gold[i]})"
        for i in range(len(ws))
        if output.forms[i] != gold[i]
    ]
    return (
        f"- `{annotation.treebank}/{annotation.sent_id}` ({annotation.eval_split})\n"
        f"  - original: {annotation.sentence.metadata.get('text', '')}\n"
        f"  - ours: {output.counterfactual}\n"
        f"  - words ours: {mark(output.forms, set(output.changed))}\n"
        f"  - words gold: {mark(gold, gold_changed)}\n"
        + (f"  - errors: {'; '.join(errors)}\n" if errors else "  - errors: none\n")
    )
