"""Error rates of a re-gendering system (Jain et al. 2021, §6.1, Table 3).

"Count of incorrectly converted words normalised by the total number of sentences (left) and by
the total number of words (right)". The paper does not spell the count out; here it is:

* both the system output and the correct variant are split into tokens (words and punctuation
  marks: ``\\w+`` runs and single other non-space characters), so *cansado.* vs *cansada.* is one
  word apart, not one "word+period";
* the two token lists are aligned with difflib's ``SequenceMatcher`` (longest matching blocks,
  no junk heuristic); every non-matching block costs the larger of its two sides, i.e. a replaced
  word costs 1, a dropped or an inserted word 1 each, and a block of 2 replaced by 3 costs 3;
* with several correct variants, the closest one counts;
* per sentence: errors / sentences × 100; per word: errors / reference tokens × 100, where the
  reference is the correct variant (the segment itself for neutral segments).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

__all__ = ["error_rates", "tokens", "word_errors"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def word_errors(output: str, reference: str) -> int:
    """Incorrectly converted tokens of `output` against one correct `reference`."""
    out, ref = tokens(output), tokens(reference)
    matcher = SequenceMatcher(None, out, ref, autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def closest(output: str, references: Sequence[str]) -> tuple[int, str]:
    """(errors, reference) for the correct variant nearest to `output`."""
    if not references:
        raise ValueError("no reference variant")
    return min((word_errors(output, ref), ref) for ref in references)


def error_rates(outputs: Iterable[str], references: Iterable[Sequence[str]]) -> dict[str, float | int]:
    """Errors per sentence and per word (in %) of a system on one set of segments."""
    errors = words = sentences = 0
    for output, refs in zip(outputs, references, strict=True):
        count, ref = closest(output, refs)
        errors += count
        words += len(tokens(ref))
        sentences += 1
    return {
        "sentences": sentences,
        "words": words,
        "errors": errors,
        "per_sentence": 100 * errors / sentences if sentences else float("nan"),
        "per_word": 100 * errors / words if words else float("nan"),
    }
