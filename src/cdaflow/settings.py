"""Settings dataclasses: what each field allows, declared beside it, and one error that lists every problem.

A field declares its range or choices in its metadata: ``epochs: int = field(default=10, metadata=POSITIVE_INT)``.
A field annotated ``int``, ``float``, ``bool`` or ``str`` must also hold that type, as config values come from
YAML, where ``1e-3`` is text. :func:`check_settings` (from the dataclass's ``__post_init__``) and
:func:`settings_from` (which also refuses unknown keys: a typo must not fall back to a default silently) raise
one ``ValueError`` naming each offending field, its value and what is allowed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = [
    "FRACTION", "NON_EMPTY", "NON_NEGATIVE", "NON_NEGATIVE_INT", "POSITIVE", "POSITIVE_INT", "Allowed", "allowed",
    "check_settings", "in_range", "one_of", "settings_from", "settings_problems",
]

Settings = TypeVar("Settings")


@dataclasses.dataclass(frozen=True)
class Allowed:
    """What a setting may hold: `test` says whether a value is allowed; the error says it "must be <text>"."""

    test: Callable[[Any], bool]
    text: str


def allowed(test: Callable[[Any], bool], text: str) -> dict[str, Allowed]:
    """Field metadata: the field's value must pass `test`; `text` says what passes (after "must be")."""
    return {"allowed": Allowed(test, text)}


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # True is an int to Python, not to a config


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return _number(value) and math.isfinite(value)


#: What a field annotated with a plain type must hold (an int will do for a float).
_TYPES = {
    "int": Allowed(_integer, "an integer"),
    "float": Allowed(_number, "a number"),
    "bool": Allowed(lambda value: isinstance(value, bool), "true or false"),
    "str": Allowed(lambda value: isinstance(value, str), "a string"),
}

POSITIVE_INT = allowed(lambda value: _integer(value) and value >= 1, "a positive integer")
NON_NEGATIVE_INT = allowed(lambda value: _integer(value) and value >= 0, "an integer >= 0")
POSITIVE = allowed(lambda value: _finite(value) and value > 0, "> 0")
NON_NEGATIVE = allowed(lambda value: _finite(value) and value >= 0, ">= 0")
NON_EMPTY = allowed(bool, "non-empty")


def in_range(low: float, high: float, *, brackets: str = "[)") -> dict[str, Allowed]:
    """A number from `low` to `high`; `brackets` say which ends are allowed, as in "[0, 1)" (the default)."""
    left, right = brackets

    def test(value: Any) -> bool:
        if not _finite(value):
            return False
        above = low <= value if left == "[" else low < value
        return above and (value <= high if right == "]" else value < high)

    return allowed(test, f"in {left}{low}, {high}{right}")


FRACTION = in_range(0, 1)


def one_of(*choices: Any) -> dict[str, Allowed]:
    """One of `choices`."""
    return allowed(lambda value: value in choices, f"one of {', '.join(map(str, choices))}")


def _type_name(annotation: Any) -> str | None:
    # With ``from __future__ import annotations`` a field's type is its annotation's text.
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None)


def settings_problems(cls: type, values: Mapping[str, Any]) -> list[str]:
    """``name=value must be ...`` for each of `values` (by field name) that its field of the settings
    dataclass `cls` does not allow: first its annotated type, then its declared `allowed` metadata."""
    problems = []
    for field in dataclasses.fields(cls):
        if field.name not in values:
            continue
        value = values[field.name]
        for rule in (_TYPES.get(_type_name(field.type) or ""), field.metadata.get("allowed")):
            if rule is not None and not rule.test(value):
                problems.append(f"{field.name}={value!r} must be {rule.text}")
                break
    return problems


def _refuse(problems: list[str], what: str) -> None:
    if problems:
        raise ValueError((f"{what}: " if what else "") + "; ".join(problems))


def check_settings(settings: Any, what: str = "") -> None:
    """Raise one ValueError listing every field of the settings dataclass instance `settings` whose value
    its declaration does not allow; `what` starts the message."""
    values = {field.name: getattr(settings, field.name) for field in dataclasses.fields(settings)}
    _refuse(settings_problems(type(settings), values), what)


def settings_from(cls: type[Settings], config: Mapping[str, Any], what: str) -> Settings:
    """The settings dataclass `cls` from a config mapping. Unknown keys and values out of range are
    refused together, in one ValueError that `what` starts."""
    if not isinstance(config, Mapping):
        raise ValueError(f"{what}: expected a mapping of settings, got {config!r}")
    known = {field.name for field in dataclasses.fields(cls)}  # type: ignore[arg-type]
    problems = []
    if unknown := sorted(set(config) - known):
        problems.append(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    _refuse(problems + settings_problems(cls, config), what)
    return cls(**dict(config))
