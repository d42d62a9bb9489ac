import pytest

from cdaflow.text.case import match_case


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
