"""Error rates of a re-gendering system (Jain et al. 2021, §6.1, Table 3).

"Count of incorrectly converted words normalised by the total number of sentences (left) and by
the total number of words (right)". The paper does not spell the count out; here it is:

* both the system output and the correct variant are split into words, the Unicode ``\\w+`` runs
  (:data:`TOKENIZER` names this; the tables carry the name, as sacrebleu signs its scores).
  Punctuation marks are not words: the paper normalises "by the total number of words in the
  corpus", so *cansado.* vs *cansada.* is one word apart and a dropped period costs nothing;
* the two word lists are aligned with difflib's ``SequenceMatcher`` (longest matching blocks,
  no junk heuristic); every non-matching block costs the larger of its two sides, i.e. a replaced
  word costs 1, a dropped or an inserted word 1 each, and a block of 2 replaced by 3 costs 3;
* with several correct variants, the closest one counts;
* per sentence: errors / sentences × 100; per word: errors / reference words × 100, where the
  reference is the correct variant (the segment itself for neutral segments).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from pathlib import Path

from cdaflow.regender.rewriter import SETUPS
from cdaflow.text.tokens import words

__all__ = [
    "GOLD", "RULES", "SEGMENT_TYPES", "SILVER", "SYSTEMS", "TOKENIZER", "closest", "error_rates", "read_outputs",
    "tokens", "word_errors",
]

# The name the tables print beside the rates: how words were counted.
TOKENIZER = "words:re-unicode-\\w+|punctuation:not-counted|v2"
# The words of a text (Unicode \w+ runs; punctuation marks are not words).
tokens = words


def word_errors(output: str, reference: str) -> int:
    """Incorrectly converted words of `output` against one correct `reference`."""
    out, ref = tokens(output), tokens(reference)
    matcher = SequenceMatcher(None, out, ref, autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def closest(output: str, references: Sequence[str]) -> tuple[int, str]:
    """(errors, reference) for the correct variant nearest to `output`."""
    if not references:
        raise ValueError("no reference variant")
    return min((word_errors(output, ref), ref) for ref in references)


def error_rates(outputs: Iterable[str], references: Iterable[Sequence[str]]) -> dict[str, float | int | str]:
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
        "tokenizer": TOKENIZER,
    }


# Table 3's row groups: the segment labels each covers.
SEGMENT_TYPES = {"all": ("G", "N"), "neutral": ("N",), "re-genderable": ("G",)}
SILVER = "silver (rule output)"
GOLD = "hand-checked"
#: Study B's systems in Table 3's order: the rewriter set-ups, then the POS-sequence rules.
RULES = "rules"
SYSTEMS = (*SETUPS, RULES)


def read_outputs(paths: Mapping[str, str | Path], segments: int) -> dict[str, list[str]]:
    """Each system's output lines on one test set; every file must have one line per segment."""
    outputs = {}
    for system, path in paths.items():
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        if len(lines) != segments:
            raise ValueError(f"{path}: {len(lines)} lines for {segments} segments")
        outputs[system] = lines
    return outputs
