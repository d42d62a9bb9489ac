"""cdaflow.settings: declared ranges and choices of a settings dataclass, refused together in one error."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest

from cdaflow.settings import (
    FRACTION,
    NON_EMPTY,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    check_settings,
    in_range,
    one_of,
    settings_from,
)


@dataclass(frozen=True)
class Example:
    epochs: int = field(default=3, metadata=POSITIVE_INT)
    patience: int = field(default=0, metadata=NON_NEGATIVE_INT)
    dropout: float = field(default=0.1, metadata=FRACTION)
    lr: float = field(default=0.01, metadata=POSITIVE)
    decay: float = field(default=0.0, metadata=NON_NEGATIVE)
    split: float = field(default=0.5, metadata=in_range(0, 1, brackets="()"))
    solver: str = field(default="adam", metadata=one_of("adam", "sgd"))
    model: str = field(default="base", metadata=NON_EMPTY)
    shuffle: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        check_settings(self, "example settings")


def test_a_dataclass_with_nothing_wrong_passes():
    assert Example() == settings_from(Example, {}, "example settings")
    given = {"epochs": 1, "patience": 2, "dropout": 0, "lr": 1e-5, "decay": 0.5, "split": 0.9, "solver": "sgd",
             "model": "x", "shuffle": False, "seed": -1}
    assert settings_from(Example, given, "example settings") == Example(**given)


def test_one_error_lists_every_problem_with_its_field_value_and_what_is_allowed():
    with pytest.raises(ValueError) as error:
        Example(epochs=0, dropout=1.0, solver="adamw", shuffle=1)
    assert str(error.value) == (
        "example settings: epochs=0 must be a positive integer; dropout=1.0 must be in [0, 1); "
        "solver='adamw' must be one of adam, sgd; shuffle=1 must be true or false"
    )


def test_settings_from_refuses_unknown_keys_and_bad_values_together():
    with pytest.raises(ValueError) as error:
        settings_from(Example, {"epoch": 3, "lr": 0, "seed": "7"}, "example settings")
    assert str(error.value) == (
        "example settings: unknown key(s) epoch; known: decay, dropout, epochs, lr, model, patience, seed, shuffle, "
        "solver, split; lr=0 must be > 0; seed='7' must be an integer"
    )
    with pytest.raises(ValueError, match=r"^example settings: expected a mapping of settings, got \[1\]$"):
        settings_from(Example, [1], "example settings")  # type: ignore[arg-type]


def test_choices():
    assert Example(solver="sgd").solver == "sgd"
    with pytest.raises(ValueError, match=re.escape("solver='SGD' must be one of adam, sgd")):
        Example(solver="SGD")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"epochs": 2.0}, "epochs=2.0 must be an integer"),
        ({"epochs": True}, "epochs=True must be an integer"),  # a bool is no count
        ({"patience": -1}, "patience=-1 must be an integer >= 0"),
        ({"dropout": -0.1}, "dropout=-0.1 must be in [0, 1)"),
        ({"dropout": "0.1"}, "dropout='0.1' must be a number"),  # YAML reads some numbers as text
        ({"lr": float("inf")}, "lr=inf must be > 0"),
        ({"decay": -1e-9}, "decay=-1e-09 must be >= 0"),
        ({"split": 0}, "split=0 must be in (0, 1)"),
        ({"split": 1}, "split=1 must be in (0, 1)"),
        ({"model": ""}, "model='' must be non-empty"),
    ],
)
def test_ranges(values, message):
    with pytest.raises(ValueError, match=f"^example settings: {re.escape(message)}$"):
        Example(**values)


def test_range_ends_that_are_allowed_pass():
    assert Example(dropout=0, split=0.999, patience=0, decay=0.0).dropout == 0
    assert Example(lr=3).lr == 3  # an int will do for a float
