"""A Hebrew noun with a possessive suffix, written with its counterpart noun: *אמו* ("his mother") ->
*אביו* ("his father"), *דודי* -> *דודתי*, *חברתה* -> *חברה*, *תלמידותיה* -> *תלמידיה*, *אשתו* -> *בעלו*.

The suffix stays as written (its possessor changes apart, :mod:`cdaflow.morph_cda.surface`); the noun's
stem before it is the counterpart's, in the shapes a suffix attaches to (a feminine -ה as -ת, דודה ->
דודת-; אב and אח with -י, אביו; a plural's -ים dropped, -ות kept), and hspell says which of those is a
word: the counterpart's lemma with the same suffix."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cdaflow.text.hspell import Hspell, gender_number, has_possessive_suffix, own_features

__all__ = ["counterpart_with_suffix", "same_lemma", "suffixed_readings"]

# letters written otherwise at a word's end, and their medial forms (אם -> אמו)
_MEDIAL = {"ך": "כ", "ם": "מ", "ן": "נ", "ף": "פ", "ץ": "צ"}


def _stems(lemma: str, number: str, plural: str | None) -> list[str]:
    """The shapes a possessive suffix may attach to, longest first."""
    if number == "Plur":
        if plural is None:
            return []
        return [plural[:-2], plural] if plural.endswith("ים") else [plural]
    medial = lemma[:-1] + _MEDIAL.get(lemma[-1], lemma[-1])
    out = [medial + "י", medial]
    if lemma.endswith("ה"):
        out.insert(0, lemma[:-1] + "ת")
    return sorted(dict.fromkeys(out), key=len, reverse=True)


def suffixed_readings(hspell: Hspell, word: str) -> list[tuple[str, tuple[str, ...]]]:
    """hspell's whole-word readings of `word` as a noun with a possessive suffix: (lemma, features)."""
    readings = hspell.readings([word]).get(word, ())
    return [(lemma, f) for r in readings if not r.prefix for lemma, f in r.analyses
            if f[:1] == ("ע",) and has_possessive_suffix(f)]


def _suffix(features: tuple[str, ...]) -> tuple[str, ...]:
    return features[next(i for i, f in enumerate(features) if f.startswith("כינוי")):]


def same_lemma(a: str, b: str) -> bool:
    """Whether two spellings are one lemma's, written with or without the vowel letters (hspell's אישה,
    the gazetteer's אשה)."""
    return a == b or a.replace("י", "").replace("ו", "") == b.replace("י", "").replace("ו", "")


def counterpart_with_suffix(hspell: Hspell, written: str, lemma: str, number: str, new_lemma: str,
                            plurals: Mapping[str, str | None]) -> str | None:
    """`written` (a noun of `lemma` with a possessive suffix) with `new_lemma` for its noun, the suffix
    kept; None where hspell knows no such word. `plurals`: each lemma's plural (the gazetteer's)."""
    old = [f for lem, f in suffixed_readings(hspell, written)
           if same_lemma(lem, lemma) and gender_number(own_features(f))[1] == number]
    if not old:
        return None
    suffix = _suffix(old[0])
    stem = next((s for s in _stems(lemma, number, plurals.get(lemma)) if s and written.startswith(s)
                 and len(written) > len(s)), None)
    if stem is None:
        return None
    letters = written[len(stem):]
    candidates: Sequence[str] = [s + letters for s in _stems(new_lemma, number, plurals.get(new_lemma)) if s]
    # a singular's suffix after a stem in -י (אבי-ו) is the same letters as a plural's (-יו): try both cuts
    if letters.startswith("י") and number == "Sing":
        candidates = [*candidates, *(s + letters[1:] for s in _stems(new_lemma, number, None) if s)]
    found = hspell.readings(list(dict.fromkeys(candidates)))
    for candidate in dict.fromkeys(candidates):
        for r in found.get(candidate, ()):
            if not r.prefix and any(same_lemma(lem, new_lemma) and f[:1] == ("ע",) and has_possessive_suffix(f)
                                    and _suffix(f) == suffix and gender_number(own_features(f))[1] == number
                                    for lem, f in r.analyses):
                return candidate
    return None
