"""Probe phrases and the two extrinsic metrics of §5.2 (appendices B and C).

For each gazetteer noun pair and each of the four adjectives (good, bad, smart, beautiful) there
are four phrases (Table 8): the grammatical masculine (*El ingeniero bueno*) and feminine (*La
ingeniera buena*) ones, and two ungrammatical mixtures in which the article and the adjective
keep one gender and the noun has the other (*\\*El ingeniera bueno*, *\\*La ingeniero buena*):
sixteen phrases per noun. How a language orders and joins them (articles by gender, elision,
the adjective before or after the noun, a prefixed article) is data:
``resources/morph_cda/probes/<lang>.yaml``.

Metrics on the phrases' prefix log-likelihoods (``LL``):

* gender stereotyping of a noun and adjective: ``LL(masculine) − LL(feminine)`` (Table 5: 3.7 for
  *ingeniero bueno*); a language's figure is the mean of its absolute values over nouns and
  adjectives, so that stereotypes in either direction count (the signed mean is reported too);
* grammaticality: the mean of ``LL(masculine) − LL(*masculine article and adjective, feminine
  noun)`` and ``LL(feminine) − LL(*feminine article and adjective, masculine noun)`` (Table 5:
  (4.6 + 1.9) / 2 = 3.25);
* nouns stereotyped toward one gender: a pair whose masculine (feminine) form makes at least 75 %
  of its occurrences in the original corpus (Fig. 5 reports their mean signed stereotyping).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ADJECTIVES", "KINDS", "Probe", "ProbeLanguage", "grammaticality", "stereotyped_nouns", "stereotyping"]

ADJECTIVES = ("good", "bad", "smart", "beautiful")
# (kind, gender of article and adjective, gender of the noun)
KINDS = (("masc", "Masc", "Masc"), ("fem", "Fem", "Fem"), ("*masc", "Masc", "Fem"), ("*fem", "Fem", "Masc"))
PROBES_DIR = Path(__file__).resolve().parents[3] / "resources" / "morph_cda" / "probes"


@dataclass(frozen=True)
class Probe:
    masculine: str  # the noun pair, by its masculine form
    adjective: str  # good, bad, smart, beautiful
    kind: str  # masc, fem, *masc, *fem
    phrase: str


@dataclass(frozen=True)
class _Article:
    pattern: re.Pattern[str] | None  # applies when the next word matches; None: always
    form: str
    joiner: str  # " " or "" (elided l', Hebrew ה)


class ProbeLanguage:
    """One language's phrase-building rules, read from its probes YAML."""

    def __init__(self, spec: Mapping[str, Any], source: str = "<spec>") -> None:
        self.source = source
        try:
            self.lang = str(spec["lang"])
            self.articles = {
                gender: [
                    _Article(re.compile(rule["before"], re.IGNORECASE) if rule.get("before") else None,
                             str(rule["form"]), str(rule.get("join", " ")))
                    for rule in spec["articles"][gender]
                ]
                for gender in ("Masc", "Fem")
            }
            self.adjectives = {
                name: {
                    "Masc": str(spec["adjectives"][name]["Masc"]),
                    "Fem": str(spec["adjectives"][name]["Fem"]),
                    "Masc_before_vowel": str(spec["adjectives"][name].get("Masc_before_vowel",
                                                                          spec["adjectives"][name]["Masc"])),
                    "position": str(spec["adjectives"][name].get("position", "after")),
                }
                for name in ADJECTIVES
            }
            self.adjective_article = bool(spec.get("adjective_article", False))
            self.capitalize = bool(spec.get("capitalize", True))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{source}: missing or malformed field {exc}") from None
        for name, adjective in self.adjectives.items():
            if adjective["position"] not in ("before", "after"):
                raise ValueError(f"{source}: adjective {name}: position must be before or after")

    @classmethod
    def load(cls, lang: str, directory: Path = PROBES_DIR) -> ProbeLanguage:
        path = Path(directory) / f"{lang}.yaml"
        if not path.is_file():
            raise FileNotFoundError(f"no probe phrases for {lang!r}: {path} is missing")
        return cls.read(path)

    @classmethod
    def read(cls, path: str | Path) -> ProbeLanguage:
        """The probe phrases of one file (the one a language file names under ``probes:``)."""
        path = Path(path)
        return cls(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))

    def _article(self, gender: str, following: str) -> tuple[str, str]:
        for rule in self.articles[gender]:
            if rule.pattern is None or rule.pattern.match(following):
                return rule.form, rule.joiner
        raise ValueError(f"{self.source}: no {gender} article rule applies before {following!r}")

    def phrase(self, noun: str, adjective: str, gender: str) -> str:
        """The definite phrase 'the <adjective> <noun>' with article and adjective in `gender`."""
        spec = self.adjectives[adjective]
        form = spec[gender]
        if spec["position"] == "before":
            if gender == "Masc" and re.match(r"[aeiouhàâéèêëîïôöûùáíóú]", noun, re.IGNORECASE):
                form = spec["Masc_before_vowel"]
            first, rest = form, [noun]
        else:
            first, rest = noun, [form]
        article, joiner = self._article(gender, first)
        words = [article + joiner + first] if joiner == "" else [article, first]
        if self.adjective_article and spec["position"] == "after":  # Hebrew: ha-noun ha-adjective
            rest = [article + joiner + w if joiner == "" else f"{article} {w}" for w in rest]
        text = " ".join([*words, *rest])
        return text[:1].upper() + text[1:] if self.capitalize else text

    def probes(self, pairs: Iterable[tuple[str, str]]) -> list[Probe]:
        """Sixteen phrases for every (masculine, feminine) noun pair."""
        out = []
        for masculine, feminine in pairs:
            nouns = {"Masc": masculine, "Fem": feminine}
            for adjective in ADJECTIVES:
                for kind, agreement, noun_gender in KINDS:
                    out.append(Probe(masculine, adjective, kind, self.phrase(nouns[noun_gender], adjective, agreement)))
        return out


def _by_item(probes: Sequence[Probe], scores: Sequence[float]) -> dict[tuple[str, str], dict[str, float]]:
    if len(probes) != len(scores):
        raise ValueError(f"{len(probes)} probes but {len(scores)} scores")
    table: dict[tuple[str, str], dict[str, float]] = {}
    for probe, score in zip(probes, scores, strict=True):
        table.setdefault((probe.masculine, probe.adjective), {})[probe.kind] = float(score)
    return table


def stereotyping(probes: Sequence[Probe], scores: Sequence[float]) -> dict[tuple[str, str], float]:
    """LL(masculine) − LL(feminine) per (noun, adjective)."""
    return {item: ll["masc"] - ll["fem"] for item, ll in _by_item(probes, scores).items()}


def grammaticality(probes: Sequence[Probe], scores: Sequence[float]) -> dict[tuple[str, str], float]:
    """Mean of LL(masc) − LL(*masc) and LL(fem) − LL(*fem) per (noun, adjective)."""
    return {
        item: ((ll["masc"] - ll["*masc"]) + (ll["fem"] - ll["*fem"])) / 2
        for item, ll in _by_item(probes, scores).items()
    }


def stereotyped_nouns(
    counts: Mapping[str, tuple[int, int]], threshold: float = 0.75, min_count: int = 1
) -> dict[str, str]:
    """``{masculine: "Masc" | "Fem"}`` for pairs whose (masc, fem) corpus counts lean ≥ `threshold` one way."""
    out = {}
    for masculine, (masc, fem) in counts.items():
        total = masc + fem
        if total < min_count or total == 0:
            continue
        if masc / total >= threshold:
            out[masculine] = "Masc"
        elif fem / total >= threshold:
            out[masculine] = "Fem"
    return out
