import pytest

from cdaflow.text.case import match_case


@pytest.mark.parametrize(("original", "new", "out"), [("LO", "la", "LA"), ("Lo", "la", "La"), ("lo", "la", "la"),
                                                       ("A", "el", "El"), ("", "x", "x")])
def test_match_case(original, new, out):
    assert match_case(original, new) == out
