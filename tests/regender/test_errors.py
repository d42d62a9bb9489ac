"""The error-rate counter of Table 3 on hand-made cases."""

import math

import pytest

from cdaflow.regender.errors import closest, error_rates, tokens, word_errors


def test_tokens_split_punctuation():
    assert tokens("¿Estás lista?") == ["¿", "Estás", "lista", "?"]
    assert tokens("Mándamelo, ¡ya!") == ["Mándamelo", ",", "¡", "ya", "!"]


@pytest.mark.parametrize(
    ("output", "reference", "errors"),
    [
        ("Estoy cansada.", "Estoy cansada.", 0),
        ("Estoy cansado.", "Estoy cansada.", 1),  # unchanged where a change was due
        ("esto es perfecta", "esto es perfecto", 1),  # the paper's Table 4(a)
        ("esta la hemos recibido", "este lo hemos recibido", 2),  # Table 4(b) 9: both words unchanged
        ("esta lo hemos recibido", "este lo hemos recibido", 1),
        ("unos momentos extraordinarias arios", "unos momentos extraordinarios", 2),  # Table 4(b) 6
        ("Hola", "Hola.", 1),  # a dropped period
        ("", "Sí, la tengo.", 5),
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
    assert (rates["sentences"], rates["words"], rates["errors"]) == (3, 9, 2)  # 3 + 2 + 4 tokens
    assert rates["per_sentence"] == pytest.approx(200 / 3)
    assert rates["per_word"] == pytest.approx(200 / 9)
    empty = error_rates([], [])
    assert math.isnan(empty["per_sentence"]) and math.isnan(empty["per_word"])
