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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cdaflow.io.conllu import words
from cdaflow.morph_cda.annotations import Annotation
from cdaflow.morph_cda.cda import Counterfactual, CounterfactualGenerator, Intervention
from cdaflow.morph_cda.tags import flip_gender

METRICS = ("tag_precision", "tag_recall", "tag_f1", "tag_accuracy", "form_accuracy")


@dataclass
class Scores:
    true_positive: int = 0
    predicted: int = 0
    gold: int = 0
    tags_correct: int = 0
    forms_correct: int = 0
    words: int = 0
    sentences: int = 0

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
    noun = annotation.noun.word_id - 1
    gold_changed = {c.word_id - 1 for c in annotation.changes}
    gold_forms = annotation.gold_forms()
    scores = Scores(sentences=1)
    for index in range(len(gold_forms)):
        if index == noun:
            continue
        predicted = index in predicted_changed
        gold = index in gold_changed
        scores.words += 1
        scores.predicted += predicted
        scores.gold += gold
        scores.true_positive += predicted and gold
        scores.tags_correct += predicted == gold
        scores.forms_correct += predicted_forms[index] == gold_forms[index]
    return scores


def noun_intervention(annotation: Annotation, generator: CounterfactualGenerator | None) -> Intervention:
    """The gold intervention: the noun's gender flipped, its gold new form given."""
    word = words(annotation.sentence)[annotation.noun.word_id - 1]
    tag = generator.word_tag(word) if generator else ()
    return Intervention(annotation.noun.word_id - 1, flip_gender(tag), form=annotation.noun.new)


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


def evaluate_swap(annotations: Sequence[Annotation]) -> Scores:
    """Naive swap: only the noun changes (the reference row)."""
    total = Scores()
    for annotation in annotations:
        forms = [w["form"] for w in words(annotation.sentence)]
        total.add(score_sentence(annotation, set(), forms))
    return total


def tune_log_alpha(
    generator: CounterfactualGenerator, dev: Sequence[Annotation], grid: Sequence[float]
) -> tuple[float, list[tuple[float, dict]]]:
    """The log α of `grid` with the best dev tag F1 (ties: form accuracy, then the smaller α)."""
    results = []
    for log_alpha in grid:
        generator.log_alpha = log_alpha
        scores, _ = evaluate(generator, dev)
        results.append((log_alpha, scores.as_row()))
    best = max(results, key=lambda r: (round(r[1]["tag_f1"], 9), round(r[1]["form_accuracy"], 9), -r[0]))
    generator.log_alpha = best[0]
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
