"""Animacy gazetteers: the person nouns whose gender a counterfactual changes (Zmigrod et al. 2019, §4).

One TSV, read by :meth:`Gazetteer.read`; ``#`` lines are comments (the provenance of the list).
The project's format has a header and up to six columns::

    masculine  feminine  english  kind  masculine_plural  feminine_plural

* ``kind`` is ``pair`` (the default when the column is absent or empty: *hijo/hija*, *actor/actriz*;
  a row without a kind whose two columns hold the same form is ``common``),
  ``pair-common`` (a pair whose masculine form also names women, as a common-gender noun does:
  *cliente/clienta* with *la cliente*, *presidente/presidenta* with *la presidente*, French
  *professeur/professeure* with *la professeur*: the masculine form's gender is read off its
  determiners and adjectives, as a common-gender noun's; a man becomes a woman with the standard
  feminine, a woman named by either form becomes a man with the masculine),
  ``one-way`` (the masculine becomes the feminine, but the feminine form mostly names a thing and
  is never looked up: *músico/música* "music", *político/política* "politics"),
  ``common`` (one form for both genders, *periodista*, *joven*: the noun stays, the words agreeing
  with it change; masculine and feminine hold the same form) or ``epicene`` (a noun whose gender
  is fixed whoever it names, *persona*, *víctima*, *individuo*: never changed, and it never makes
  its agreeing words change; only the column of its grammatical gender is filled).
* The plural columns give the plural forms (*rey/reyes*, *reina/reinas*, *actor/actores*,
  *actriz/actrices*); a plural noun gets the other gender's plural from them. Where they are empty
  the new form is left to the reinflection model (as for singular-only lists).

Older lists are read too: ``masculine, feminine, english`` with a header, and rycolab/biasCDA's
``english, fem, masc`` (its French list without a header). :meth:`Gazetteer.fill_plurals` writes
regular plurals into the plural columns of a list (``python -m cdaflow.morph_cda.gazetteer``), the
build step of the project's lists in ``resources/morph_cda/gazetteers/``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.io.conllu import words
from cdaflow.text import language as languages

__all__ = ["KINDS", "Counterpart", "Gazetteer", "regular_plural"]

KINDS = ("pair", "pair-common", "one-way", "common", "epicene")
COLUMNS = ("masculine", "feminine", "english", "kind", "masculine_plural", "feminine_plural")
GENDERS = ("Masc", "Fem")


# Inside a noun (fr *grand-mère*, it *capo'officina*, he *ג׳ינג׳י*, *מנכ"ל*): anything else but letters and
# combining marks means the cell holds something other than a noun.
_WORD_JOINERS = frozenset("-'’׳״\". ")


def _is_word(text: str) -> bool:
    """A gazetteer cell that can be a noun: letters and marks, joined by hyphens, apostrophes, spaces."""
    categories = [unicodedata.category(char)[0] for char in text]
    return "L" in categories and all(
        category in "LM" or char in _WORD_JOINERS for char, category in zip(text, categories)
    )


@dataclass(frozen=True)
class Counterpart:
    """What an animate noun becomes: its new lemma, gender and (when known) surface form."""

    lemma: str  # the new gender's singular
    gender: str  # "Masc" or "Fem": the new gender
    form: str | None  # the new form in the word's number (lower case), None: reinflect from `lemma`
    kind: str  # "pair", "pair-common", "one-way" or "common"
    number: str = "Sing"  # "Sing" or "Plur": the word's number, from its form when the list knows it


@dataclass
class Gazetteer:
    """Animate nouns (masculine ↔ feminine), looked up by form or lemma, lower-cased.

    ``to_fem``/``to_masc`` map singulars; ``common`` holds the common-gender nouns (their form is
    both genders'), ``epicene`` maps a fixed-gender noun's forms to its gender, ``plurals`` maps
    ``(singular, gender)`` to the plural; ``one_way`` holds the masculines of one-way pairs,
    ``shared`` those of ``pair-common`` rows (a masculine form that also names women).
    ``source`` is the list's provenance (its path and comment lines), carried into a model
    folder by :meth:`write`.
    """

    to_fem: dict[str, str] = field(default_factory=dict)
    to_masc: dict[str, str] = field(default_factory=dict)
    common: set[str] = field(default_factory=set)
    one_way: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)
    epicene: dict[str, str] = field(default_factory=dict)
    plurals: dict[tuple[str, str], str] = field(default_factory=dict)
    english: dict[str, str] = field(default_factory=dict)
    source: list[str] = field(default_factory=list)

    # -- reading and writing -----------------------------------------------------------------
    @classmethod
    def read(cls, path: Path) -> Gazetteer:
        """Read the project's format or an older one (module docstring); errors name the row."""
        path = Path(path)
        comments, rows = [], []
        number = 0
        try:
            with open(path, encoding="utf-8-sig", newline="") as handle:
                for number, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
                    if row and row[0].startswith("#"):
                        if not rows:  # the header's comments are the provenance; later ones are notes
                            comments.append("\t".join(row).lstrip("#").strip())
                    elif any(cell.strip() for cell in row):
                        rows.append((number, [cell.strip() for cell in row]))
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not valid UTF-8 near row {number + 1} ({exc.reason})") from None
        except csv.Error as exc:
            raise ValueError(f"{path}: row {number + 1}: not a tab-separated gazetteer ({exc})") from None
        if not rows:
            raise ValueError(f"{path}: empty gazetteer")
        header = [cell.lower() for cell in rows[0][1]]
        if {"masculine", "feminine"} <= set(header):
            columns = {name: header.index(name) for name in COLUMNS if name in header}
            body = rows[1:]
        elif {"fem", "masc"} <= set(header):
            columns = {"masculine": header.index("masc"), "feminine": header.index("fem")}
            if "english" in header:
                columns["english"] = header.index("english")
            body = rows[1:]
        else:  # biasCDA's French list has no header: english, fem, masc
            columns, body = {"masculine": 2, "feminine": 1, "english": 0}, rows
        gazetteer = cls(source=[f"read from {path.name}", *comments])
        headerless = body is rows
        for number, row in body:
            if headerless and len(row) < 3:
                raise ValueError(
                    f"{path}: row {number}: {len(row)} column(s); a gazetteer has a header naming masculine and "
                    "feminine columns, or (biasCDA's lists) three columns: english, feminine, masculine"
                )
            cells = {name: (row[i].lower() if i < len(row) else "") for name, i in columns.items()}
            gazetteer._add(cells, path, number, row)
        if not (gazetteer.to_fem or gazetteer.to_masc or gazetteer.common or gazetteer.epicene):
            raise ValueError(f"{path}: no nouns read (columns {', '.join(COLUMNS)}, with a header)")
        return gazetteer

    def _add(self, cells: dict[str, str], path: Path, number: int, row: list[str]) -> None:
        masc, fem = cells.get("masculine", ""), cells.get("feminine", "")
        # without a kind, one form in both columns is a common-gender noun (biasCDA's lists
        # write *masajista*, *bébé* so); a kind written out must agree with the forms
        kind = cells.get("kind", "") or ("common" if masc and masc == fem else "pair")
        where = f"{path}: row {number}"
        if kind not in KINDS:
            raise ValueError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
        if not masc and not fem:
            if any(cells.get(name) for name in ("kind", "masculine_plural", "feminine_plural")):
                raise ValueError(f"{where}: expected masculine and feminine columns, got {row}")
            return  # a note row (biasCDA's Spanish list ends with one)
        for column in ("masculine", "feminine", "masculine_plural", "feminine_plural"):
            if cells.get(column) and not _is_word(cells[column]):
                raise ValueError(
                    f"{where}: {column} {cells[column]!r} is not a word; a gazetteer's columns are "
                    f"{', '.join(COLUMNS)} (a header names them)"
                )
        plural = {"Masc": cells.get("masculine_plural", ""), "Fem": cells.get("feminine_plural", "")}
        if kind == "epicene":
            if bool(masc) == bool(fem):
                raise ValueError(f"{where}: an epicene noun fills only the column of its gender, got {row}")
            gender, singular = ("Masc", masc) if masc else ("Fem", fem)
            self.epicene.setdefault(singular, gender)
            if plural[gender]:
                self.plurals.setdefault((singular, gender), plural[gender])
            return
        if not (masc and fem):
            raise ValueError(f"{where}: expected masculine and feminine columns, got {row}")
        if kind == "common" and masc != fem:
            raise ValueError(f"{where}: a common-gender noun has one form, got {masc!r} and {fem!r}")
        if kind in ("pair", "pair-common", "one-way") and masc == fem:
            raise ValueError(f"{where}: {masc!r} is the same form for both genders: use kind 'common'")
        self.to_fem.setdefault(masc, fem)
        if kind == "one-way":
            self.one_way.add(masc)  # the feminine form is mostly a thing: never looked up
        else:
            self.to_masc.setdefault(fem, masc)
        if kind == "pair-common" and self.to_fem[masc] == fem:
            self.shared.add(masc)
        if kind == "common" and self.to_fem[masc] == masc:  # an earlier pair row keeps its kind
            self.common.add(masc)
        for gender, singular in (("Masc", masc), ("Fem", fem)):
            if plural[gender]:
                self.plurals.setdefault((singular, gender), plural[gender])
        if cells.get("english"):
            self.english.setdefault(masc, cells["english"])

    def __len__(self) -> int:
        return len(self.to_fem)

    def counts(self) -> dict[str, int]:
        """Entries per kind (what a model's provenance reports)."""
        counts = {
            "pair": len(self.to_fem) - len(self.common) - len(self.one_way) - len(self.shared),
            "pair-common": len(self.shared),
            "one-way": len(self.one_way),
            "common": len(self.common),
            "epicene": len(self.epicene),
        }
        if not self.shared:
            del counts["pair-common"]  # lists without such rows report as before
        return counts

    def describe(self) -> str:
        """One line for users: where the list came from and what it holds."""
        origins = [line.removeprefix("read from ") for line in self.source if line.startswith("read from ")]
        notes = [line for line in self.source if not line.startswith("read from ")]
        counts = ", ".join(f"{n} {kind}" for kind, n in self.counts().items())
        return f"{' <- '.join(origins) or 'built in memory'} ({counts})" + (f": {notes[0]}" if notes else "")

    def write(self, path: Path) -> None:
        """The project's format, provenance first (as ``#`` lines), every kind and plural kept."""
        lines = [f"# {line}\n" for line in self.source]
        lines.append("\t".join(COLUMNS) + "\n")
        for masc, fem in sorted(self.to_fem.items()):
            kind = self._kind(masc)
            cells = [masc, fem, self.english.get(masc, ""), kind]
            cells += [self.plurals.get((masc, "Masc"), ""), self.plurals.get((fem, "Fem"), "")]
            lines.append("\t".join(cells) + "\n")
        for form, gender in sorted(self.epicene.items()):
            plural = self.plurals.get((form, gender), "")
            cells = [form, "", "", "epicene", plural, ""] if gender == "Masc" else ["", form, "", "epicene", "", plural]
            lines.append("\t".join(cells) + "\n")
        with atomic_file(path, "w") as handle:
            handle.writelines(lines)

    # -- look-up ------------------------------------------------------------------------------
    def is_epicene(self, word: dict) -> bool:
        """A fixed-gender person noun (*persona*, *víctima*): it must keep its form and gender."""
        if word["upos"] not in ("NOUN", "PROPN"):
            return False
        plural_forms = {self.plurals.get((singular, gender)) for singular, gender in self.epicene.items()}
        form, lemma = word["form"].lower(), (word["lemma"] or "").lower()
        return form in self.epicene or form in plural_forms or lemma in self.epicene

    def lookup(self, word: dict, sentence=None) -> Counterpart | None:
        """What an animate noun becomes, or None when the word is not one (or is epicene).

        The word's own form, then its Gender feature decide the current gender: UD lemmatises
        feminine nouns to the masculine (niña → niño), so the lemma alone cannot. A common-gender
        noun's gender comes from its determiners, adjectives and predicate adjective in `sentence`
        (when given and they agree), else from its Gender feature, else it is taken as masculine
        (the augmentation's convention).
        """
        if word["upos"] == "ADJ" and not _used_as_noun(word, sentence):
            return None
        if _participle_after_a_determiner(word, sentence):  # spaCy: dicho empleado/VERB, nul employé/VERB
            word = dict(word, upos="NOUN")
        # a capitalised title before a name is looked up as a noun: el Doctor Pérez
        if word["upos"] not in ("NOUN", "PROPN", "ADJ") or self.is_epicene(word):
            return None
        if word["upos"] == "PROPN" and not word["form"].islower() and not _title_before_a_name(word, sentence):
            return None  # a name (China, Argentina, Hebrew דוד "David"), not a lower-case tagging slip
        form, lemma = word["form"].lower(), (word["lemma"] or "").lower()
        feats = word["feats"] or {}
        gender, number = feats.get("Gender"), feats.get("Number")
        singular_of = {(p, g): s for (s, g), p in self.plurals.items()}
        found = None  # (masculine singular, current gender, number or None)
        if form in self.common or (form, "Masc") in singular_of and singular_of[(form, "Masc")] in self.common:
            masc = form if form in self.common else singular_of[(form, "Masc")]
            current = self._context_gender(word, sentence) or gender or "Masc"
            found = (masc, current, "Sing" if form == masc else "Plur")
        elif (form in self.to_fem and (form, "Fem") in singular_of and singular_of[(form, "Fem")] in self.to_masc
              and self._determiners_number(word, sentence) == "Plur"):
            # a masculine singular that is also a feminine plural (it infermiere, cameriere): its
            # determiners' number tells them apart (le infermiere, alcune infermiere)
            found = (self.to_masc[singular_of[(form, "Fem")]], "Fem", "Plur")
        elif form in self.to_fem:
            found = (form, self._shared_gender(form, word, sentence), "Sing")
        elif form in self.to_masc:
            # a feminine form the parser calls masculine is a homograph, a thing (fr *son martyre*:
            # martyrdom), not the woman
            if gender == "Masc" and not self._context_gender(word, sentence) == "Fem":
                return None
            found = (self.to_masc[form], "Fem", "Sing")
        elif (form, "Masc") in singular_of:
            masc = singular_of[(form, "Masc")]
            found = (masc, self._shared_gender(masc, word, sentence), "Plur")
        elif (form, "Fem") in singular_of and singular_of[(form, "Fem")] in self.to_masc:
            found = (self.to_masc[singular_of[(form, "Fem")]], "Fem", "Plur")
        elif lemma in self.common:
            found = (lemma, self._context_gender(word, sentence) or gender or "Masc", None)
        elif gender == "Masc" and lemma in self.to_fem:
            found = (lemma, "Masc", None)
        elif gender == "Fem" and lemma in self.to_masc:
            found = (self.to_masc[lemma], "Fem", None)
        elif gender == "Fem" and lemma in self.to_fem and lemma not in self.one_way:  # niña, lemma niño
            found = (lemma, "Fem", None)
        elif gender is None and lemma in self.to_fem:
            found = (lemma, "Masc", None)
        if found is None:
            return None
        masc, current, found_number = found
        own_singular = masc if current == "Masc" else self.to_fem[masc]
        if self.plurals.get((own_singular, current)) == own_singular:
            found_number = None  # one form for both numbers (fils, français, re): the feature decides
        new_gender = "Fem" if current == "Masc" else "Masc"
        new_lemma = self.to_fem[masc] if new_gender == "Fem" else masc
        number = found_number or number or "Sing"
        if number == "Sing":
            new_form = new_lemma
        else:
            new_form = self.plurals.get((new_lemma, new_gender))
        return Counterpart(new_lemma, new_gender, new_form, self._kind(masc), number)

    def _shared_gender(self, masculine: str, word: dict, sentence) -> str:
        """The gender of a pair's masculine form: masculine, unless the pair is ``pair-common`` and
        the form names a woman (*la presidente*, *las jefes*: its determiners and adjectives say so,
        or else its Gender feature), as a common-gender noun's gender is read."""
        if masculine not in self.shared:
            return "Masc"
        return self._context_gender(word, sentence) or (word["feats"] or {}).get("Gender") or "Masc"

    def _kind(self, masculine: str) -> str:
        if masculine in self.shared:
            return "pair-common"
        return "common" if masculine in self.common else "one-way" if masculine in self.one_way else "pair"

    def counterpart(self, word: dict) -> tuple[str, str] | None:
        """(new lemma, new gender) for an animate noun, or None when the word is not one."""
        found = self.lookup(word)
        return (found.lemma, found.gender) if found else None

    @staticmethod
    def _determiners_number(word: dict, sentence) -> str | None:
        """The number the determiners and adjectives of a noun show (it Care signore: plural), when they
        show one; else None."""
        if sentence is None:
            return None
        numbers = {
            (w["feats"] or {}).get("Number")
            for w in words(sentence)
            if w["head"] == word["id"] and w["deprel"].split(":")[0] in ("det", "amod")
        } - {None}
        return numbers.pop() if len(numbers) == 1 else None

    @staticmethod
    def _context_gender(word: dict, sentence) -> str | None:
        """The gender a common-gender noun's determiners, adjectives, predicate adjective or subject
        show (*cet élève*, *l'architecte est créative*, *elle sera l'auteur*), when they show one; the words around a
        common-gender noun tell its gender better than a parser's guess on the noun itself."""
        if sentence is None:
            return None
        ws = words(sentence)
        fused = languages.fused_forms()  # a preposition fused with its article (it al nipote) shows it too
        genders = {
            (dependent["feats"] or {}).get("Gender")
            for dependent in ws
            if dependent["head"] == word["id"] and (dependent["deprel"].split(":")[0] in ("det", "amod") or (
                dependent["deprel"].split(":")[0] == "case" and (dependent["form"] or "").lower() in fused))
        } - {None}
        if len(genders) == 1 and genders <= set(GENDERS):
            return genders.pop()
        # no determiner says it: the subject it is the predicate of (elle sera l'auteur), or the
        # predicate it is the subject of (nous sommes contentes)
        own = [w for w in ws if w["head"] == word["id"]]
        if any(w["deprel"].split(":")[0] == "cop" for w in own):
            subjects = {(w["feats"] or {}).get("Gender") for w in own if w["deprel"].split(":")[0] == "nsubj"
                        and w["upos"] in ("PRON", "NOUN")} - {None}
            if len(subjects) == 1 and subjects <= set(GENDERS):
                return subjects.pop()
        head = next((w for w in ws if w["id"] == word["head"]), None)
        if head is not None and word["deprel"].split(":")[0] in ("nsubj", "expl") and head["upos"] in ("ADJ", "VERB"):
            if any(w["head"] == head["id"] and w["deprel"].split(":")[0] in ("cop", "aux") for w in ws):
                gender = (head["feats"] or {}).get("Gender")
                return gender if gender in GENDERS else None
        if head is not None and word["deprel"].split(":")[0] == "nsubj":
            # or the copula or auxiliary of a predicate that shows none (he המורה היה בבית: היה, a man)
            shown = {(w["feats"] or {}).get("Gender") for w in ws if w["head"] == head["id"]
                     and w["deprel"].split(":")[0] in ("cop", "aux") and w["upos"] in ("AUX", "VERB")} - {None}
            if len(shown) == 1 and shown <= set(GENDERS):
                return shown.pop()
        return None

    # -- building -----------------------------------------------------------------------------
    @staticmethod
    def fill_plurals(path: Path, lang: str) -> int:
        """Write :func:`regular_plural` into the empty plural cells of a project-format list.

        Comment lines and filled cells (the irregular plurals written by hand) are kept as they
        are; returns the number of cells filled. The file is rewritten atomically.
        """
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        out, filled, header = [], 0, None
        for number, line in enumerate(text.splitlines(), start=1):
            if line.startswith("#") or not line.strip():
                out.append(line)
                continue
            cells = line.split("\t")
            if header is None:
                header = [c.strip().lower() for c in cells]
                if header[: len(COLUMNS)] != list(COLUMNS):
                    raise ValueError(f"{path}: row {number}: expected the header {' '.join(COLUMNS)}")
                out.append(line)
                continue
            cells += [""] * (len(COLUMNS) - len(cells))
            for singular_at, plural_at, gender in ((0, 4, "Masc"), (1, 5, "Fem")):
                if cells[singular_at] and not cells[plural_at]:
                    cells[plural_at] = regular_plural(lang, cells[singular_at], gender)
                    filled += 1
            out.append("\t".join(cells))
        with atomic_file(path, "w") as handle:
            handle.write("\n".join(out) + "\n")
        return filled


def _title_before_a_name(word: dict, sentence) -> bool:
    """A capitalised title right before a name (*el Doctor Pérez*, *la Presidenta Sánchez*)."""
    if sentence is None or not isinstance(word["id"], int):
        return False
    after = next((w for w in words(sentence) if w["id"] == word["id"] + 1), None)
    return after is not None and after["upos"] == "PROPN" and after["form"][:1].isupper()


# Relations of a noun phrase's head: an adjective in one of them with a determiner of its own is
# an adjective used as a noun (spaCy tags "el sospechoso", "los detenidos" ADJ).
NOMINAL_RELATIONS = ("nsubj", "obj", "iobj", "obl", "nmod", "appos", "root", "conj")


def _used_as_noun(word: dict, sentence) -> bool:
    """An adjective with a determiner of its own, or right after a determiner and not before a
    noun (spaCy: *La vecina parecía*, with *La* on the verb), is used as a noun."""
    if sentence is None:
        return False
    ws = words(sentence)
    position = next((i for i, w in enumerate(ws) if w["id"] == word["id"]), None)
    if position:
        before = ws[position - 1]
        after = ws[position + 1] if position + 1 < len(ws) else None
        determiner = before["upos"] == "DET" or (before["form"] or "").lower() in languages.determiner_forms()
        if determiner and (after is None or after["upos"] not in ("NOUN", "PROPN")):
            return True  # also after a determiner tagged otherwise (Dichas/ADJ alumnas/ADJ)
    if word["deprel"].split(":")[0] not in NOMINAL_RELATIONS:
        return False
    # a fused preposition + article (es "al", fr "du", spaCy's one token) carries the determiner
    fused = languages.fused_forms()
    return any(
        w["head"] == word["id"]
        and (w["deprel"].split(":")[0] == "det" or (w["deprel"] == "case" and w["form"].lower() in fused))
        for w in words(sentence)
    )


def _participle_after_a_determiner(word: dict, sentence) -> bool:
    """A participle right after a determiner (an article or a closed-class form of a language file:
    *Dicho empleado fue despedido*, *Ledit employé*, *Nul employé*) is a noun the parser took for a
    verb."""
    if sentence is None or word["upos"] != "VERB" or (word["feats"] or {}).get("VerbForm") != "Part":
        return False
    ws = words(sentence)
    position = next((i for i, w in enumerate(ws) if w["id"] == word["id"]), None)
    if not position:
        return False
    before = ws[position - 1]
    return before["upos"] == "DET" or (before["form"] or "").lower() in languages.determiner_forms()


def regular_plural(lang: str, singular: str, gender: str) -> str:
    """The regular plural of a person noun: the language file's ``plurals`` rules (irregular ones
    are written in the list by hand)."""
    return languages.load(lang).plural(singular, gender)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cdaflow.morph_cda.gazetteer",
        description="Fill the empty plural cells of a gazetteer TSV with regular plurals (in place).",
    )
    parser.add_argument("lang", choices=languages.available())
    parser.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    try:
        filled = Gazetteer.fill_plurals(args.path, args.lang)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{args.path}: {filled} plural cells filled", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
