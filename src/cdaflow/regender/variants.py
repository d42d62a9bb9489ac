"""Study B's tool (``cdaflow regender``, :class:`cdaflow.api.Regenderer`): the languages and methods
it offers, and the parts of its records, the words a variant changed."""

from __future__ import annotations

LANGUAGES = ("es",)
METHODS = ("rules", "nmt")
# Segments per sockeye-translate call: each call pays the model's start-up once.
NMT_CHUNK = 5000


def changed_words(original: str, variant: str) -> list[dict[str, str]]:
    """The word spans `variant` changed in `original`, each as {"from": ..., "to": ...}."""
    from difflib import SequenceMatcher

    from cdaflow.regender.errors import tokens

    a, b = tokens(original), tokens(variant)
    return [
        {"from": " ".join(a[i1:i2]), "to": " ".join(b[j1:j2])}
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]


def blank_record(number: int, line: str) -> dict:
    """The record of a blank line: nothing to re-gender."""
    return {"line": number, "original": line, "variant": line, "label": None, "changes": []}


def failure_reason(error: Exception) -> str:
    """The exception line of a failed tool's output (its traceback's last ``SomeError: ...``)."""
    import re

    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[\w.]*(Error|Exception)\b:?", line):
            return line[:300]
    return lines[-1][:300] if lines else "no output"
