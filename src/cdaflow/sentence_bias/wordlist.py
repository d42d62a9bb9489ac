"""The gender word list L of Dolci et al. (2023, §3.3) and SSA given names.

L holds the words whose gender is definitional (he, sister, councilman, heroine, Mary, ...): their
bias is always 0 in the bias score. The paper builds it from

* the common nouns of Bolukbasi et al.'s ``gender_specific_full.json`` (debiaswe; paper: 409) and
  of Zhao et al.'s GN-GloVe ``male_word_file.txt`` / ``female_word_file.txt`` (paper: 388),
  each "in their lower-cased and capitalised version, in both singular and plural forms";
* 5,765 unique given names from US Social Security card applications (SSA).

What this module does, and where it has to choose:

* Source entries are kept when they are one word (letters, with inner ``'``, ``.`` or ``-``; the
  debiaswe list also holds word2vec phrases such as ``prostate_cancer`` and mojibake) and, for
  debiaswe, written in lower case: its capitalised-only entries are almost all proper names
  (``Baratheon``, ``Lannisters``) and upper-case junk, while its common nouns appear lower-cased.
  That gives 476 debiaswe and 403 GN-GloVe entries (the paper's hand selection kept 409 / 388).
* :data:`NEUTRAL_ENTRIES` (e.g. ``cousin``, ``teenager``, ``twins``, ``tailor``, ``blondes``) are
  gender-neutral words present in the sources; they are dropped by default because L zeroes their
  bias, and several carry exactly the stereotypes the score must see ("blonde", "ballet").
* Each kept noun is added lower-cased and Capitalised, with its plural from :func:`pluralize` when
  the entry is singular. Plural entries are not singularised: the singular is nearly always a
  source entry already, and singularising invents neutral words ("broads" → "broad").
* Given names are added as spelled by the SSA (Capitalised) only: lower-cased they are often
  ordinary words (will, may, mark, rose, grant) that must keep their bias. ``names_top`` per sex is
  configurable; 3,000 per sex is the default (the paper does not give its cut-off; the top 3,000
  of each sex overlap by a few hundred names, the order of the paper's 5,765).
"""

from __future__ import annotations

import io
import os
import re
import secrets
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "NEUTRAL_ENTRIES",
    "GenderWordList",
    "build_gender_word_list",
    "capitalise",
    "common_nouns",
    "iter_ssa_records",
    "noun_forms",
    "pluralize",
    "read_json_words",
    "read_lines",
    "ssa_counts",
    "ssa_names_by_rank",
    "top_ssa_names",
]

# Gender-neutral words found in gender_specific_full.json / the GN-GloVe lists (plus their
# obvious variants); L must not zero their bias. Override with build_gender_word_list(exclude=...).
NEUTRAL_ENTRIES: frozenset[str] = frozenset(
    """
    cousin cousins teenager teenagers twin twins eldest deer stepchildren grandbabies septuagenarian
    septugenarian fiftyish raspy yo yos youse yez hast filial elocutionist goatherd coalminer bankrobber
    jouster roastee desperates bloods blondes blonde submissives busch gonzales relaxin carryin famly
    clotheshorse tailor tailors barbershop ballet obstetrics macho hair_salon
    """.split()
)

# Never pluralised: pronouns, abbreviations and adjectives/verbs that sit in the source lists.
_NOT_NOUNS = frozenset(
    """
    he she him her his hers himself herself hisself shes thim thathe thatshe it they mr mrs ms
    feminine masculine macho effeminate virile penile fraternal maternal paternal sororal filial manly
    womanly sisterly motherly fatherly brotherly boyish girlish mannish wifely pregnant bosomed blowsy
    fathered mothered fathering mothering gynecological prostatic
    """.split()
)
# Suffixes of words that take no plural; kept few on purpose (a nonsense plural is harmless, a
# missing one is not): "king", "filly", "baroness", "fraternity" must still be pluralised.
_NOT_NOUN_SUFFIXES = ("ish", "ous", "hood", "ism", "ship", "ical", "folk")

# Singular → plural for the words where a rule would go wrong.
_IRREGULAR = {
    "child": "children",
    "goose": "geese",
    "ox": "oxen",
    "alumnus": "alumni",
    "alumna": "alumnae",
    "monsieur": "messieurs",
    "madame": "mesdames",
    "mademoiselle": "mesdemoiselles",
    "hero": "heroes",
    "self": "selves",
    "fiancé": "fiancés",
    "fiancée": "fiancées",
}
_IRREGULAR_PLURALS = frozenset(_IRREGULAR.values()) | {"brethren", "sistren", "wimmin", "people"}
# Words in -man that are not compounds of "man" (human → humans).
_MAN_NOT_MEN = frozenset("human german roman shaman talisman ottoman caiman cayman walkman doberman brahman".split())
# Words in -men that are singular (semen, hymen, abdomen, ...).
_MEN_SINGULAR = frozenset("semen hymen omen amen abdomen specimen stamen regimen acumen".split())

_WORD = re.compile(r"[^\W\d_][\w'.\-]*", re.UNICODE)


def capitalise(word: str) -> str:
    """First letter upper-cased, the rest untouched (``str.capitalize`` would lower "McDonald")."""
    return word[:1].upper() + word[1:]


def _looks_plural(word: str) -> bool:
    if word in _IRREGULAR_PLURALS or word.endswith("women"):
        return True
    if word.endswith("men") and word not in _MEN_SINGULAR:
        return True
    if word.endswith(("ss", "us", "is")):
        return False
    return word.endswith("s")


def pluralize(word: str) -> str | None:
    """English plural of a singular gendered noun, or None when the word gets no plural.

    None for plurals (boys, women, ladies), pronouns, abbreviations, the adjectives/verbs of the
    source lists (``_NOT_NOUNS``: maternal, manly, fathered, ...), -hood/-ism/-ish/... words,
    words of two letters or fewer and words with ``'`` or ``.``. Rules: irregulars (child →
    children, alumna → alumnae); -man → -men (spokeswoman → spokeswomen, not human); -wife →
    -wives; consonant + y → -ies; -s/-ss/-sh/-ch/-x/-z → -es; otherwise -s. Case is preserved for
    the first letter.
    """
    lower = word.lower()
    if len(lower) <= 2 or "'" in lower or "." in lower or lower in _NOT_NOUNS:
        return None
    if lower.endswith(_NOT_NOUN_SUFFIXES):
        return None
    if _looks_plural(lower):
        return None
    if lower in _IRREGULAR:
        plural = _IRREGULAR[lower]
    elif lower.endswith("man") and lower not in _MAN_NOT_MEN:
        plural = lower[:-3] + "men"
    elif lower.endswith("wife"):
        plural = lower[:-4] + "wives"
    elif lower.endswith("y") and lower[-2] not in "aeiou":
        plural = lower[:-1] + "ies"
    elif lower.endswith(("s", "sh", "ch", "x", "z")):
        plural = lower + "es"
    else:
        plural = lower + "s"
    return capitalise(plural) if word[:1].isupper() else plural


def noun_forms(word: str) -> set[str]:
    """The lower-cased and Capitalised forms of `word` and of its plural (when it has one)."""
    lower = word.lower()
    forms = {lower, capitalise(lower)}
    plural = pluralize(lower)
    if plural is not None:
        forms |= {plural, capitalise(plural)}
    return forms


def _is_single_word(entry: str) -> bool:
    return bool(_WORD.fullmatch(entry)) and "_" not in entry


def read_lines(path: str | os.PathLike[str]) -> list[str]:
    """Non-empty stripped lines of a UTF-8 word file (GN-GloVe's male/female_word_file.txt)."""
    with open(path, encoding="utf-8-sig") as handle:  # a byte-order mark is not part of the first word
        return [line.strip() for line in handle if line.strip()]


def read_json_words(path: str | os.PathLike[str]) -> list[str]:
    """A JSON list of words (debiaswe's gender_specific_full.json / _seed.json)."""
    import json

    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, list) or not all(isinstance(w, str) for w in data):
        raise ValueError(f"{path}: expected a JSON list of strings")
    return data


def common_nouns(
    entries: Iterable[str], *, lowercase_only: bool = False, exclude: Iterable[str] = NEUTRAL_ENTRIES
) -> list[str]:
    """Source entries kept as L's common nouns: single words, lower-cased, de-duplicated, sorted.

    `lowercase_only` keeps only entries written in lower case (debiaswe, see the module doc);
    `exclude` drops lower-cased entries in it.
    """
    excluded = {e.lower() for e in exclude}
    kept = set()
    for entry in entries:
        entry = entry.strip()
        if not _is_single_word(entry) or (lowercase_only and entry != entry.lower()):
            continue
        if entry.lower() not in excluded:
            kept.add(entry.lower())
    return sorted(kept)


# ---------------------------------------------------------------------------------------------
# SSA baby names (names.zip: yob1880.txt ... with lines "Mary,F,7065")
# ---------------------------------------------------------------------------------------------

_YOB = re.compile(r"yob(\d{4})\.txt$", re.IGNORECASE)


def _ssa_texts(
    sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], years: Iterable[int] | None
) -> Iterator[tuple[str, Iterable[str]]]:
    """(label, lines) of every yobYYYY.txt in `sources` (files, folders, or names.zip archives)."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    wanted = None if years is None else set(years)

    def keep(name: str) -> bool:
        match = _YOB.search(name)
        return match is not None and (wanted is None or int(match.group(1)) in wanted)

    found = False
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"SSA names source {path} does not exist")
        if path.is_dir():
            for file in sorted(p for p in path.iterdir() if keep(p.name)):
                found = True
                with open(file, encoding="utf-8-sig") as handle:
                    yield str(file), handle
        elif path.suffix.lower() == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in sorted(n for n in archive.namelist() if keep(Path(n).name)):
                    found = True
                    with archive.open(name) as raw:
                        yield f"{path}[{name}]", io.TextIOWrapper(raw, encoding="utf-8-sig")
        else:
            if wanted is not None and not keep(path.name):
                continue
            found = True
            with open(path, encoding="utf-8-sig") as handle:
                yield str(path), handle
    if not found:
        raise FileNotFoundError(f"no SSA yobYYYY.txt files in {[str(s) for s in sources]}")


def iter_ssa_records(
    sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, years: Iterable[int] | None = None
) -> Iterator[tuple[str, str, int]]:
    """(name, sex "F"/"M", count) of every line of the SSA files; malformed lines name file:line."""
    for label, lines in _ssa_texts(sources, years):
        for number, line in enumerate(lines, start=1):
            line = line.strip()
            if not line:
                continue
            parts = line.split(",")
            if len(parts) != 3 or parts[1] not in ("F", "M") or not parts[0]:
                raise ValueError(f"{label}:{number}: expected 'name,F|M,count', got {line!r}")
            try:
                count = int(parts[2])
            except ValueError:
                raise ValueError(f"{label}:{number}: count {parts[2]!r} is not an integer") from None
            yield parts[0], parts[1], count


def ssa_counts(
    sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, years: Iterable[int] | None = None
) -> Counter[tuple[str, str]]:
    """Total count per (name, sex) over all the given years."""
    totals: Counter[tuple[str, str]] = Counter()
    for name, sex, count in iter_ssa_records(sources, years=years):
        totals[(name, sex)] += count
    return totals


def _ranked(totals: Mapping[tuple[str, str], int], sex: str, top: int | None) -> list[str]:
    if sex not in ("F", "M"):
        raise ValueError(f"sex must be 'F' or 'M', got {sex!r}")
    ranked = sorted(((n, c) for (n, s), c in totals.items() if s == sex), key=lambda item: (-item[1], item[0]))
    names = [n for n, _ in ranked]
    return names if top is None else names[:top]


def ssa_names_by_rank(
    files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    sex: str,
    top: int | None = None,
    *,
    years: Iterable[int] | None = None,
) -> list[str]:
    """Names of one sex ("F"/"M") by total count over the files, most popular first (ties by name).

    `files`: yobYYYY.txt files, folders holding them, or the SSA's names.zip. Used for L and, rank
    by rank, to pair female and male names for gender swapping.
    """
    return _ranked(ssa_counts(files, years=years), sex, top)


def top_ssa_names(
    files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    top: int | None,
    *,
    years: Iterable[int] | None = None,
) -> list[str]:
    """The union of the `top` female and `top` male names (sorted)."""
    totals = ssa_counts(files, years=years)
    return sorted(set(_ranked(totals, "F", top)) | set(_ranked(totals, "M", top)))


# ---------------------------------------------------------------------------------------------
# The list
# ---------------------------------------------------------------------------------------------


@dataclass
class GenderWordList:
    """The set L of gender words (exact, case-sensitive membership) and how it was assembled."""

    words: frozenset[str]
    sources: dict[str, int] = field(default_factory=dict)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.words))

    def counts(self) -> dict[str, int]:
        """How many words came from each source (for the report); always has "total"."""
        return {**self.sources, "total": len(self.words)}

    def save(self, path: str | os.PathLike[str]) -> None:
        """One word per line, sorted, UTF-8, written atomically."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        for word in self.words:
            if "\n" in word or "\r" in word or word != word.strip() or not word:
                raise ValueError(f"cannot save word {word!r}: one word per line")
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
                handle.writelines(f"{w}\n" for w in sorted(self.words))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GenderWordList:
        words = frozenset(read_lines(path))
        return cls(words, {"loaded": len(words)})


def build_gender_word_list(
    *,
    debiaswe_full: str | os.PathLike[str] | None = None,
    gn_glove_files: Iterable[str | os.PathLike[str]] = (),
    names_sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None = None,
    names_top: int | None = 3000,
    names_years: Iterable[int] | None = None,
    names: Iterable[str] = (),
    extra: Iterable[str] = (),
    exclude: Iterable[str] = NEUTRAL_ENTRIES,
) -> GenderWordList:
    """Assemble L (see the module doc).

    `debiaswe_full`: gender_specific_full.json; `gn_glove_files`: male/female_word_file.txt;
    `names_sources`: SSA files/folder/names.zip, of which the `names_top` names of each sex are
    taken (None: all); `names`: given names to add directly; `extra`: nouns to add (inflected like
    the sources). Counts: entries kept per source, the union of nouns, their forms, names, total.
    """
    exclude = frozenset(e.lower() for e in exclude)
    counts: dict[str, int] = {}
    nouns: set[str] = set()
    if debiaswe_full is not None:
        kept = common_nouns(read_json_words(debiaswe_full), lowercase_only=True, exclude=exclude)
        counts["debiaswe_nouns"] = len(kept)
        nouns.update(kept)
    gn_files = list(gn_glove_files)
    if gn_files:
        entries = [w for f in gn_files for w in read_lines(f)]
        kept = common_nouns(entries, exclude=exclude)
        counts["gn_glove_nouns"] = len(kept)
        nouns.update(kept)
    extra_kept = common_nouns(extra, exclude=())
    if extra_kept:
        counts["extra_nouns"] = len(extra_kept)
        nouns.update(extra_kept)
    counts["common_nouns"] = len(nouns)
    forms: set[str] = set()
    for noun in nouns:
        forms |= {f for f in noun_forms(noun) if f.lower() not in exclude}
    counts["noun_forms"] = len(forms)
    given: set[str] = {n.strip() for n in names if n.strip()}
    if names_sources is not None:
        given |= set(top_ssa_names(names_sources, names_top, years=names_years))
    if given:
        counts["names"] = len(given)
        counts["names_not_nouns"] = len(given - forms)
    return GenderWordList(frozenset(forms | given), counts)
