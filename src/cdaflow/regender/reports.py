"""Study B's result tables, each with the run's ``scale`` in front:

* :func:`corpus_table`: the gender-parallel corpus per split and type (appendix Table 1);
* :func:`classifier_table`: the re-genderability classifier on every test set (Table 2);
* :func:`error_rate_tables`: Table 3 in the paper's layout, and every measured rate;
* :func:`examples_markdown`: the first wrong outputs of each system (as the paper's Table 4).

The paper's own numbers are in ``resources/regender/paper.yaml`` (:mod:`cdaflow.paper`), where the
claims ledger compares them with these tables.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import pandas as pd

from cdaflow.regender.classifier import scores
from cdaflow.regender.corpus import ParallelPair, corpus_stats
from cdaflow.regender.errors import GOLD, RULES, SEGMENT_TYPES, SILVER, TOKENIZER, closest, error_rates

__all__ = ["EXAMPLES_PER_SYSTEM", "classifier_table", "corpus_table", "error_rate_tables", "examples_markdown"]

# Wrong outputs listed per system and test set in table4_examples.md.
EXAMPLES_PER_SYSTEM = 10


def _with_scale(table: pd.DataFrame, scale: str) -> pd.DataFrame:
    table.insert(0, "scale", scale)
    return table


def corpus_table(splits: Mapping[str, Sequence[ParallelPair]], scale: str) -> pd.DataFrame:
    """Segments and running words (source side) per split and type."""
    return _with_scale(pd.DataFrame(corpus_stats(dict(splits))), scale)


def classifier_table(predictions: Iterable[tuple[str, Sequence[str], Sequence[str]]], scale: str) -> pd.DataFrame:
    """One row per (test set, gold labels, predicted labels): accuracy, and each class's precision and recall."""
    return pd.DataFrame([{"scale": scale, "test_set": name, **scores(gold, predicted)}
                         for name, gold, predicted in predictions])


def error_rate_tables(
    sets: Mapping[str, tuple[Sequence[Mapping], Mapping[str, Sequence[str]]]],
    scale: str,
    *,
    silver: Collection[str] = (),
    rules_not_applicable: Collection[str] = (),
    revised: Mapping[str, int] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3 in the paper's layout, and every measured rate in long form (rates: :mod:`cdaflow.regender.errors`).

    `sets` maps a test set to its records (``label``, ``variants``) and each system's output lines.
    The paper layout leaves the rules' cells empty (with a note) on `silver` sets, whose
    references are the rules' own output, so the rules score ~0 by construction, and on the sets
    where the paper reports the rules as not applicable; the long table keeps every figure, with
    ``in_paper_layout`` saying which ones the layout shows.
    """
    revised = dict(revised or {})
    paper_rows, measured_rows = [], []
    for name, (records, outputs) in sets.items():
        reference = SILVER if name in silver else GOLD
        for kind, labels in SEGMENT_TYPES.items():
            chosen = [i for i, r in enumerate(records) if r["label"] in labels]
            row: dict[str, object] = {"test_set": name, "reference": reference, "type": kind, "segments": len(chosen)}
            notes = []
            for system, lines in outputs.items():
                rates = error_rates([lines[i] for i in chosen], [records[i]["variants"] for i in chosen])
                shown = True
                if system == RULES and name in silver:
                    shown = False
                    notes.append("rules left out: the silver references are the rules' own output")
                elif system == RULES and name in rules_not_applicable:
                    shown = False
                    notes.append(
                        "rules not applicable in the paper's layout; measured in table3_error_rates_measured.tsv"
                    )
                row[f"{system}_per_sentence"] = rates["per_sentence"] if shown else float("nan")
                row[f"{system}_per_word"] = rates["per_word"] if shown else float("nan")
                measured_rows.append(
                    {
                        "test_set": name,
                        "reference": reference,
                        "hand_revised": revised.get(name, 0),
                        "type": kind,
                        "system": system,
                        **{key: rates[key] for key in ("sentences", "words", "errors", "per_sentence", "per_word")},
                        "in_paper_layout": shown,
                        "tokenizer": rates["tokenizer"],
                    }
                )
            row |= {"note": "; ".join(notes), "hand_revised": revised.get(name, 0), "tokenizer": TOKENIZER}
            paper_rows.append(row)
    return _with_scale(pd.DataFrame(paper_rows), scale), _with_scale(pd.DataFrame(measured_rows), scale)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def examples_markdown(
    sets: Mapping[str, tuple[Sequence[Mapping], Mapping[str, Sequence[str]]]],
    *,
    silver: Collection[str] = (),
    limit: int = EXAMPLES_PER_SYSTEM,
) -> str:
    """Per test set and system: how many segments are wrong, and a table of the first `limit` of them."""
    parts = ["# Study B: first errors per system and test set\n"]
    for name, (records, outputs) in sets.items():
        reference = "silver: the references are the rules' own output" if name in silver else "hand-checked"
        for system, lines in outputs.items():
            wrong = [(r, out) for r, out in zip(records, lines, strict=True) if closest(out, r["variants"])[0]]
            parts.append(f"\n## {name} ({reference}), {system}: {len(wrong)} of {len(records)} segments wrong\n\n")
            parts.append("| label | original | correct | output |\n|---|---|---|---|\n")
            for record, out in wrong[:limit]:
                cells = [record["label"], record["text"], " / ".join(record["variants"]), out]
                parts.append("| " + " | ".join(_cell(c) for c in cells) + " |\n")
    return "".join(parts)
