import pytest

from cdaflow.text.case import match_case, match_initial_case, name_cased, with_initial_case


@pytest.mark.parametrize(
    ("original", "new", "out"),
    [
        ("LO", "la", "LA"),
        ("Lo", "la", "La"),
        ("lo", "la", "la"),
        ("A", "el", "El"),  # one capital letter: capitalised, not all caps
        ("", "x", "x"),
        ("Ingenieros", "ingenieras", "Ingenieras"),
        ("INGENIEROS", "ingenieras", "INGENIERAS"),
        ("McEnroe", "mcenroa", "Mcenroa"),
        ("l'Homme", "femme", "femme"),
        ("L'", "la", "La"),  # French elided article: one letter, capitalised
        ("123", "abc", "abc"),
        ("Él", "ella", "Ella"),
        ("ÉL", "ella", "ELLA"),
        ("Aquél", "aquélla", "Aquélla"),
        ("איש", "אישה", "אישה"),
        ("Los", "¡las", "¡Las"),
    ],
)
def test_match_case(original, new, out):
    assert match_case(original, new) == out


def test_with_initial_case_skips_leading_punctuation():
    assert with_initial_case("¿Estás lista?", upper=False) == "¿estás lista?"
    assert with_initial_case('"dijo" ella', upper=True) == '"Dijo" ella'
    assert with_initial_case("... 42", upper=True) == "... 42"


def test_match_initial_case():
    assert match_initial_case("¿estás lista?", "¿Estás listo?") == "¿Estás lista?"
    assert match_initial_case("estoy lista.", "estoy listo.") == "estoy lista."
    assert match_initial_case("Estoy lista.", "estoy listo.") == "Estoy lista."  # never lower-cased
    assert match_initial_case("...", "Sí") == "..."


def test_a_name_is_capitalised_or_in_a_script_without_case():
    assert name_cased("Pérez") and name_cased("דני")
    assert not name_cased("moreno") and not name_cased("") and not name_cased("3M")
