"""The error-rate counter of Table 3 on hand-made cases."""

import math

import pytest

from cdaflow.regender.errors import TOKENIZER, closest, error_rates, error_rates_tables, tokens, word_errors


def test_tokens_are_words_without_punctuation():
    assert tokens("¿Estás lista?") == ["Estás", "lista"]
    assert tokens("Mándamelo, ¡ya!") == ["Mándamelo", "ya"]
    assert tokens("¡¿...?!") == []


@pytest.mark.parametrize(
    ("output", "reference", "errors"),
    [
        ("Estoy cansada.", "Estoy cansada.", 0),
        ("Estoy cansado.", "Estoy cansada.", 1),  # unchanged where a change was due
        ("esto es perfecta", "esto es perfecto", 1),  # the paper's Table 4(a)
        ("esta la hemos recibido", "este lo hemos recibido", 2),  # Table 4(b) 9: both words unchanged
        ("esta lo hemos recibido", "este lo hemos recibido", 1),
        ("unos momentos extraordinarias arios", "unos momentos extraordinarios", 2),  # Table 4(b) 6
        ("Hola", "Hola.", 0),  # a dropped period is not a word
        ("¡Hola!", "Hola.", 0),
        ("", "Sí, la tengo.", 3),
        ("a b c", "x y", 3),  # a block of 3 against 2 costs 3
    ],
)
def test_word_errors(output, reference, errors):
    assert word_errors(output, reference) == errors


def test_closest_variant_counts():
    assert closest("Lo veo.", ["La veo.", "Lo veo."]) == (0, "Lo veo.")
    with pytest.raises(ValueError):
        closest("x", [])


def test_rates_by_hand():
    outputs = ["Estoy cansado.", "Hola.", "No es caro."]
    references = [["Estoy cansada."], ["Hola."], ["No es cara."]]
    rates = error_rates(outputs, references)
    assert (rates["sentences"], rates["words"], rates["errors"]) == (3, 6, 2)  # 2 + 1 + 3 words, no periods
    assert rates["per_sentence"] == pytest.approx(200 / 3)
    assert rates["per_word"] == pytest.approx(200 / 6)
    assert rates["tokenizer"] == TOKENIZER
    empty = error_rates([], [])
    assert math.isnan(empty["per_sentence"]) and math.isnan(empty["per_word"])


def _records(*rows):
    return [{"id": f"x{i}", "label": label, "text": text, "variants": [variant]} for i, (label, text, variant) in
            enumerate(rows)]


def test_paper_layout_leaves_rules_out_of_silver_and_unstructured_sets():
    silver = _records(("G", "Estoy cansado.", "Estoy cansada."), ("N", "Lo sé.", "Lo sé."))
    gold = _records(("G", "Estoy listo.", "Estoy lista."), ("N", "Hola.", "Hola."))
    outputs_silver = {"nmt": ["Estoy cansado.", "Lo sé."], "rules": ["Estoy cansada.", "Lo sé."]}
    outputs_gold = {"nmt": ["Estoy lista.", "Hola."], "rules": ["Estoy listo.", "Hola."]}
    paper, measured = error_rates_tables(
        {"opensubs_test": (silver, outputs_silver), "structured": (gold, outputs_gold),
         "unstructured": (gold, outputs_gold)},
        silver={"opensubs_test"}, rules_not_applicable={"unstructured"}, revised={"opensubs_test": 3},
    )
    rows = paper.set_index(["test_set", "type"])
    assert rows.at[("opensubs_test", "all"), "reference"] == "silver (rule output)"
    assert math.isnan(rows.at[("opensubs_test", "all"), "rules_per_sentence"])
    assert "silver" in rows.at[("opensubs_test", "all"), "note"]
    assert rows.at[("opensubs_test", "re-genderable"), "nmt_per_sentence"] == 100.0
    assert rows.at[("opensubs_test", "all"), "hand_revised"] == 3
    assert rows.at[("structured", "re-genderable"), "rules_per_sentence"] == 100.0
    assert rows.at[("structured", "all"), "reference"] == "hand-checked"
    assert math.isnan(rows.at[("unstructured", "re-genderable"), "rules_per_word"])
    assert "not applicable" in rows.at[("unstructured", "all"), "note"]
    assert set(paper["tokenizer"]) == {TOKENIZER}
    # Beside the layout, every figure is kept: the rules on the silver and the unstructured sets too.
    long = measured.set_index(["test_set", "type", "system"])
    assert long.at[("opensubs_test", "all", "rules"), "per_sentence"] == 0.0
    assert not long.at[("opensubs_test", "all", "rules"), "in_paper_layout"]
    assert long.at[("unstructured", "re-genderable", "rules"), "per_word"] == 50.0  # 1 of 2 words
    assert long.at[("structured", "all", "nmt"), "in_paper_layout"]
    assert len(measured) == 3 * 3 * 2
