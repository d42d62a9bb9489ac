"""Gender swapping of English sentences for counterfactual data augmentation (Dolci et al. 2023, §4.2.2).

The paper duplicates stereotyped SNLI pairs "by converting all female words to their corresponding male words,
and vice versa": it tokenises with NLTK, swaps the 122 gender words of its Appendix A (and their capitalised
forms), and maps the 2,500 most popular US female given names to the equally popular male names and back
(SSA data). This module does the same without NLTK:

* :func:`tokenize` is a small regex tokenizer that keeps character offsets, so the swapped sentence keeps the
  original spacing and punctuation byte for byte; only the swapped words change. Like NLTK's Treebank
  tokenizer it splits clitics (``girl's`` -> ``girl`` + ``'s``, ``don't`` -> ``do`` + ``n't``), so possessives
  of gender words are swapped too (``girl's`` -> ``boy's``). Hyphens split words (``mother-in-law`` ->
  ``father-in-law``).
* Gender words (the rows of ``resources/sentence_bias/swap_pairs.tsv``) match in three case shapes:
  lower case, capitalised and upper case (``she``/``She``/``SHE`` -> ``he``/``He``/``HE``); the replacement takes
  the same shape. Other mixed-case spellings (``sHe``) are left alone. Plurals are swapped where the list has
  them as rows of their own (the paper's list has ``boys``, ``men``, ``wives`` ... but no ``grandmas``).
* Given names match only in their list spelling (``Mary``) or in upper case (``MARY``), never in lower case, so
  common words that are also names (``mark``, ``will``, ``rose``, ``guy``) are not touched in lower case.
  A capitalised common word at the start of a sentence that is also a name (``Will he come?``) is swapped; the
  paper's NLTK-based procedure has the same limitation. Gender words take precedence over names (``Guy``
  is the gender word *guy*, not the given name). A name on both lists (unisex, e.g. Jordan) is treated as the
  gender in which it ranks higher (more popular); on a tie, as female.
* Female name of rank *r* (0-based position in ``female_names_by_rank``) <-> male name of rank *r*; only the
  first ``n_names`` (2,500, as in the paper) of each list are used, truncated to the shorter list.

**her / his.** Appendix A lists ``him <=> her``, ``his <=> hers`` and ``his => her`` (one-way, male to female).
Read literally this is a context-free rule, implemented as ``her_rule="paper"`` (the default):

    her -> him,  hers -> his,  him -> her,  his -> her

(``his => her`` overrides the left-to-right half of ``his <=> hers``, which only contributes ``hers -> his``).
So possessive *her* becomes *him* (``her dog`` -> ``him dog``), as the paper's list prescribes.

``her_rule="context"`` is a grammatical alternative based on the next token only:

* ``her`` -> ``his`` (possessive) when the next token is *noun/adjective-like*: a word or number whose lower
  case is not in :data:`FUNCTION_WORDS` (determiners, pronouns, prepositions/particles, conjunctions,
  auxiliaries and a few adverbs); ``her`` -> ``him`` (object) when the next token is a function word,
  punctuation, or there is no next token (``saw her.`` -> ``saw him.``; ``gave her a hat`` -> ``gave him a hat``;
  ``her red hat`` -> ``his red hat``).
* ``his`` -> ``hers`` (independent pronoun) when there is no next token, or it is punctuation, or a word of
  :data:`INDEPENDENT_NEXT` (``is``, ``was``, ``too`` ...): ``the bag is his.`` -> ``the bag is hers.``; otherwise
  ``his`` -> ``her`` (determiner use; also ``his or her hand`` -> ``her or his hand``).
* ``hers`` -> ``his`` and ``him`` -> ``her`` always.

Known errors of the context rule: double-object verbs with a bare noun (``gave her flowers`` -> ``gave his
flowers``), and ``her`` before a verb or adverb not in the list (``watch her dance`` -> ``watch his dance``).

Any other word listed twice in one direction is resolved by its first row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "APPENDIX_A_NAME_EXAMPLES",
    "DEFAULT_SWAP_PAIRS",
    "FUNCTION_WORDS",
    "INDEPENDENT_NEXT",
    "Swapper",
    "Token",
    "load_swap_pairs",
    "read_ssa_names",
    "tokenize",
]

#: ``resources/sentence_bias/swap_pairs.tsv`` of the project checkout (female <TAB> male, Appendix A).
DEFAULT_SWAP_PAIRS = Path(__file__).resolve().parents[3] / "resources" / "sentence_bias" / "swap_pairs.tsv"

#: The 30 given-name examples of Appendix A as (female, male), in the paper's order (the paper writes
#: ``James <=> Mary`` ...). They are the head of the paper's rank-matched lists: usable as a tiny stand-in for the
#: SSA lists when those are not available (``Swapper(pairs, *zip(*APPENDIX_A_NAME_EXAMPLES))``).
APPENDIX_A_NAME_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Mary", "James"), ("Patricia", "John"), ("Elizabeth", "Robert"), ("Jennifer", "Michael"),
    ("Linda", "William"), ("Barbara", "David"), ("Margaret", "Richard"), ("Susan", "Joseph"),
    ("Dorothy", "Charles"), ("Jessica", "Thomas"), ("Sarah", "Christopher"), ("Nancy", "Daniel"),
    ("Betty", "Matthew"), ("Karen", "Anthony"), ("Lisa", "Donald"), ("Helen", "Paul"), ("Sandra", "Mark"),
    ("Ashley", "George"), ("Emily", "Steven"), ("Kimberly", "Andrew"), ("Donna", "Kenneth"),
    ("Carol", "Edward"), ("Michelle", "Joshua"), ("Amanda", "Kevin"), ("Melissa", "Brian"),
    ("Laura", "Ronald"), ("Anna", "Timothy"), ("Stephanie", "Jason"), ("Rebecca", "Jeffrey"),
    ("Deborah", "Ryan"),
)  # fmt: skip

#: Closed-class words after which ``her``/``his`` is read as object / independent pronoun (``her_rule="context"``).
FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    a an the this that these those my your his her its our their some any no every each all both either neither
    another such what which whose whom who whoever
    i me you he him she it we us they them myself yourself himself herself itself ourselves themselves hers
    mine yours ours theirs someone something somebody anyone anything everyone everything nobody nothing
    in on at to from with without within by for of about into onto over under up down out off away around
    through across along behind near beside besides between among against toward towards upon after
    before during since until till via per like than as inside outside above below beneath beyond
    and or but nor so yet because if when while where whereas although though unless whether then
    is are was were be been being am has have had do does did will would shall should can could may might must
    'm 're 's 've 'd 'll n't not too very also again now here there just only still even ever never always
    often already today tonight tomorrow yesterday together alone instead
    """.split()
)

#: Words after which ``his`` is the independent pronoun *hers* (``his is``, ``his too``; ``her_rule="context"``).
INDEPENDENT_NEXT: frozenset[str] = frozenset(
    "is are was were 's has have had will would can could may might must should shall do does did too also now".split()
)

# Words (letters, incl. non-ASCII), clitics split as NLTK does, numbers, then any other single character.
_APOS = "'\u2019"
_TOKEN_RE = re.compile(
    rf"""
      [^\W\d_]+(?=n[{_APOS}]t\b)          # "do" / "ca" of don't / can't
    | n[{_APOS}]t\b                        # n't
    | [{_APOS}](?:s|m|d|ll|re|ve)\b        # 's 'm 'd 'll 're 've
    | [^\W\d_]+                            # word
    | \d+(?:[.,]\d+)*                      # number
    | \S                                   # punctuation / symbol
    """,
    re.VERBOSE | re.IGNORECASE,
)
_WORD_RE = re.compile(r"[^\W\d_]+")
_NUMBER_RE = re.compile(r"\d")

HerRule = Literal["paper", "context"]


@dataclass(frozen=True)
class Token:
    """A token and its character span ``sentence[start:end]``."""

    text: str
    start: int
    end: int


def tokenize(sentence: str) -> list[Token]:
    """Split ``sentence`` into word / clitic / number / punctuation tokens with offsets (whitespace dropped)."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(sentence)]


def load_swap_pairs(path: str | Path = DEFAULT_SWAP_PAIRS) -> list[tuple[str, str]]:
    """Read a ``female<TAB>male`` TSV (``#`` comment lines and blank lines skipped, header required)."""
    path = Path(path)
    pairs: list[tuple[str, str]] = []
    header_seen = False
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if not header_seen:
                if [f.strip().lower() for f in fields] != ["female", "male"]:
                    raise ValueError(f"{path}:{number}: expected header 'female<TAB>male', got {line!r}")
                header_seen = True
                continue
            if len(fields) != 2 or not all(f.strip() for f in fields):
                raise ValueError(f"{path}:{number}: expected two non-empty tab-separated fields, got {line!r}")
            pairs.append((fields[0].strip(), fields[1].strip()))
    if not header_seen:
        raise ValueError(f"{path}: no 'female<TAB>male' header")
    return pairs


def read_ssa_names(sources: str | Path | Iterable[str | Path], n: int = 2500) -> tuple[list[str], list[str]]:
    """The ``n`` most popular female and male names from SSA baby-name files (``yobYYYY.txt``: ``name,sex,count``).

    ``sources`` is one file, a folder (all ``yob*.txt`` in it) or several files. Counts are summed over all
    files, then names are ranked by total count (descending; ties by name). The paper does not say which years
    it used. Returns ``(female_names_by_rank, male_names_by_rank)``.
    """
    from cdaflow.sentence_bias.wordlist import ssa_names_by_rank

    if not isinstance(sources, (str, Path)):
        sources = list(sources)
    return ssa_names_by_rank(sources, "F", n), ssa_names_by_rank(sources, "M", n)


def _shape(token: str) -> str | None:
    """'lower', 'title' or 'upper' for the three case shapes the swapper matches, else None."""
    if token.islower():
        return "lower"
    if token.isupper():
        return "upper"
    if token[:1].isupper() and token[1:].islower():
        return "title"
    return None


def _apply_shape(word: str, shape: str) -> str:
    if shape == "upper":
        return word.upper()
    if shape == "title":
        return word[:1].upper() + word[1:].lower()
    return word.lower()


class Swapper:
    """Swap female and male words and given names in English sentences (both directions at once).

    ``pairs``: (female, male) word pairs, e.g. :func:`load_swap_pairs` (compared in lower case);
    ``female_names_by_rank`` / ``male_names_by_rank``: given names, most popular first (see :func:`read_ssa_names`);
    ``n_names``: how many names of each list to use (2,500 in the paper); ``her_rule``: ``"paper"`` or
    ``"context"`` (module docstring).
    """

    def __init__(
        self,
        pairs: Iterable[tuple[str, str]],
        female_names_by_rank: Sequence[str] = (),
        male_names_by_rank: Sequence[str] = (),
        *,
        n_names: int = 2500,
        her_rule: HerRule = "paper",
    ) -> None:
        if her_rule not in ("paper", "context"):
            raise ValueError(f"her_rule must be 'paper' or 'context', not {her_rule!r}")
        self.her_rule: HerRule = her_rule
        female_to_male: dict[str, str] = {}
        male_to_female: dict[str, str] = {}
        for female, male in pairs:
            f, m = female.strip().lower(), male.strip().lower()
            if not f or not m:
                raise ValueError(f"empty word in pair {(female, male)!r}")
            female_to_male.setdefault(f, m)
            male_to_female.setdefault(m, f)
        both = set(female_to_male) & set(male_to_female)
        if both:
            raise ValueError(f"words listed as both female and male: {sorted(both)}")
        # The pronoun rows of Appendix A, resolved as the paper's arrows say (his => her is one-way).
        for word, target in (("her", "him"), ("hers", "his")):
            if word in female_to_male and target in male_to_female:
                female_to_male[word] = target
        for word, target in (("him", "her"), ("his", "her")):
            if word in male_to_female and target in female_to_male:
                male_to_female[word] = target
        self._words: dict[str, str] = {**female_to_male, **male_to_female}
        self._female_words = frozenset(female_to_male)
        self._context_her = her_rule == "context" and {"her", "his", "him"} <= self._words.keys()
        self._context_his = her_rule == "context" and {"his", "her", "hers"} <= self._words.keys()

        self._names: dict[str, str] = {}
        if n_names < 0:
            raise ValueError("n_names must be >= 0")
        k = min(n_names, len(female_names_by_rank), len(male_names_by_rank))
        females = [name.strip() for name in female_names_by_rank[:k]]
        males = [name.strip() for name in male_names_by_rank[:k]]
        female_rank = {name: r for r, name in reversed(list(enumerate(females)))}
        male_rank = {name: r for r, name in reversed(list(enumerate(males)))}
        for name in set(female_rank) | set(male_rank):
            rf, rm = female_rank.get(name, k), male_rank.get(name, k)
            target = males[rf] if rf <= rm else females[rm]
            if target != name:
                self._names[name] = target
        self._names_upper = {name.upper(): target.upper() for name, target in self._names.items()}
        # A name is female when it ranks higher among female names (the swap's own rule).
        self._female_names = frozenset(
            name for name in self._names if female_rank.get(name, k) <= male_rank.get(name, k)
        )

    @classmethod
    def from_tsv(
        cls,
        path: str | Path = DEFAULT_SWAP_PAIRS,
        female_names_by_rank: Sequence[str] = (),
        male_names_by_rank: Sequence[str] = (),
        **kwargs: object,
    ) -> Swapper:
        """A swapper on the pairs of a ``female<TAB>male`` TSV (default: the paper's Appendix A list)."""
        return cls(load_swap_pairs(path), female_names_by_rank, male_names_by_rank, **kwargs)  # type: ignore[arg-type]

    @property
    def n_names(self) -> int:
        """Number of given names that are swapped (both genders)."""
        return len(self._names)

    def _replacement(self, tokens: list[Token], i: int) -> str | None:
        text = tokens[i].text
        shape = _shape(text)
        lower = text.lower()
        if shape is not None and lower in self._words:
            target = self._words[lower]
            following = tokens[i + 1].text if i + 1 < len(tokens) else None
            if self._context_her and lower == "her":
                target = "his" if following is not None and _content_like(following) else "him"
            elif self._context_his and lower == "his":
                independent = following is None or following.lower() in INDEPENDENT_NEXT or not _is_word(following)
                target = "hers" if independent else "her"
            return _apply_shape(target, shape)
        if text in self._names:
            return self._names[text]
        if text.isupper() and text in self._names_upper:
            return self._names_upper[text]
        return None

    def swap(self, sentence: str) -> tuple[str, int]:
        """``(swapped sentence, number of tokens replaced)``; everything but the swapped words is kept verbatim."""
        tokens = tokenize(sentence)
        pieces: list[str] = []
        last = 0
        count = 0
        for i, token in enumerate(tokens):
            new = self._replacement(tokens, i)
            if new is None:
                continue
            pieces.append(sentence[last : token.start])
            pieces.append(new)
            last = token.end
            count += 1
        pieces.append(sentence[last:])
        return "".join(pieces), count

    def gender_counts(self, sentence: str) -> tuple[int, int]:
        """``(female, male)``: how many of the tokens :meth:`swap` replaces are female / male.

        Tells which side of a (female, male) sentence pair a sentence is on: all-female
        sentences swap to their male counterpart and vice versa; mixed ones have no side.
        """
        tokens = tokenize(sentence)
        female = male = 0
        for i, token in enumerate(tokens):
            if self._replacement(tokens, i) is None:
                continue
            text = token.text
            is_female = (
                text.lower() in self._female_words
                if text.lower() in self._words
                else (text if text in self._names else text.title()) in self._female_names
            )
            female += is_female
            male += not is_female
        return female, male

    __call__ = swap


def _is_word(text: str) -> bool:
    return bool(_WORD_RE.fullmatch(text) or _NUMBER_RE.match(text))


def _content_like(text: str) -> bool:
    """Noun/adjective-like next token for the context rule: a word or number that is not a function word."""
    if _NUMBER_RE.match(text):
        return True
    return bool(_WORD_RE.fullmatch(text)) and text.lower() not in FUNCTION_WORDS
