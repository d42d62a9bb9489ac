"""Counterfactual sentences (§4): intervene on animate nouns, infer tags, reinflect, rebuild.

`CounterfactualGenerator` runs the whole pipeline on a batch of parsed sentences at once: the
analysis (:mod:`~cdaflow.morph_cda.sentence_analysis`), one batched MAP inference for all of them,
then one batched reinflection of every changed word, then the surface rebuild (contractions,
multiword tokens). Which words are intervened on is :mod:`~cdaflow.morph_cda.interventions`'.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from cdaflow.io.conllu import Sentence, words
from cdaflow.morph_cda.agreement_reach import agreeing_words, agreement_reach
from cdaflow.morph_cda.hunspell import Hunspell, agrees
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.sentence_analysis import SentenceAnalyser
from cdaflow.morph_cda.surface import detokenize, surface
from cdaflow.morph_cda.tags import GENDER_SWAP, Tag, feats_with_tag, gender_of
from cdaflow.morph_cda.tree_encoding import POS_INDEX, Batch, EncodedSentence
from cdaflow.text import language as languages
from cdaflow.text.case import match_case
from cdaflow.text.normalization import in_form_of, in_style_of, read_sentence

DIRECTIONS = ("flip", "to-fem", "to-masc")


# Parts of speech whose gender is their own, not agreement: only an intervention changes it. In
# the annotated sentences of Table 3 no Spanish noun but the intervened one changes (1 of 280
# changes); letting them flip only adds whole noun phrases changed by weak arcs.
INHERENT_GENDER = ("NOUN", "PROPN")


@dataclass
class Intervention:
    """Fix word `index` (0-based) to `tag`; its new form is `form`, or reinflected from `lemma`."""

    index: int
    tag: Tag
    form: str | None = None
    lemma: str | None = None
    upos: str | None = None  # the part of speech the MRF reads for the word, when not the parser's


@dataclass(frozen=True)
class _Query:
    """One changed word to reinflect: its lemma, part of speech, new features and tags."""

    lemma: str
    upos: str
    features: dict[str, str]
    tag: Tag
    old_features: dict[str, str] | None  # the word's own, for by_analogy (None: a new lemma)
    old_tag: Tag


@dataclass
class Counterfactual:
    original: str
    counterfactual: str
    forms: list[str]  # every syntactic word's new form
    tags: list[Tag]  # every syntactic word's new tag
    changed: list[int]  # 0-based indices of words whose tag or form changed (nouns included)
    intervened: list[int] = dataclasses.field(default_factory=list)  # 0-based indices of the interventions
    # word index -> the `cdaflow cda` option that made the change ("animals", "persons"); the
    # default run's changes have none
    by: dict[int, str] = dataclasses.field(default_factory=dict)


class CounterfactualGenerator:
    """The MRF + reinflector pipeline for one language."""

    def __init__(
        self,
        mrf: AgreementMRF,
        reinflector: Reinflector | None,
        lang: str,
        log_alpha: float,
        *,
        carry_gender: bool = False,
        inherent_gender: Sequence[str] = INHERENT_GENDER,
        lexicon_check: bool = False,
    ) -> None:
        self.mrf = mrf
        self.lang = lang
        self.language = languages.load(lang)  # the language file: fails here, not midway, if absent
        self.log_alpha = log_alpha
        self.carry_gender = carry_gender  # see AgreementMRF.intervene
        self.inherent_gender = tuple(inherent_gender)  # parts of speech that keep their gender
        self.inventory = mrf.inventory
        self.device = next(iter(mrf.buffers())).device
        # The lexicon check (hunspell.py): the language's Hunspell dictionaries rank and veto
        # reinflection candidates and fill features a parser left out. Off unless asked for, and
        # off where the dictionaries are not installed, so the workflow's tables never depend on
        # the machine; `cdaflow cda` asks for it.
        hunspell = self._lexicon() if lexicon_check else None
        self.lexicon_stats: Counter[str] = Counter()
        self.unknown_forms: Counter[str] = Counter()  # generated forms no dictionary knows
        self.vetoed_forms: Counter[tuple[str, str]] = Counter()  # (the reinflector's, the one chosen)
        # the analysis (tree repairs, tags a parser left out) reads the same reinflector and dictionaries
        self.analyser = SentenceAnalyser(self.language, self.inventory, reinflector, hunspell)

    def _lexicon(self):
        """The lexicon check's dictionaries: the language file's Hunspell ones, or hspell where it
        names it (he.yaml ``lexicon: hspell``: analyses with gender and number); None if not installed."""
        if self.language.lexicon == "hspell":
            from cdaflow.text.hspell import HspellLexicon

            return HspellLexicon.find()
        return Hunspell.find(self.language.hunspell)

    @property
    def reinflector(self) -> Reinflector | None:
        return self.analyser.reinflector

    @reinflector.setter
    def reinflector(self, reinflector: Reinflector | None) -> None:
        self.analyser.reinflector = reinflector

    @property
    def hunspell(self) -> Hunspell | None:
        """The lexicon check's dictionaries (None: off)."""
        return self.analyser.hunspell

    @hunspell.setter
    def hunspell(self, hunspell: Hunspell | None) -> None:
        self.analyser.hunspell = hunspell

    def word_tag(self, word: dict) -> Tag:
        return self.analyser.word_tag(word)

    def analyse(self, sentence: Sentence, nouns: Collection[int] = ()) -> list[dict]:
        """See :meth:`SentenceAnalyser.analyse`."""
        return self.analyser.analyse(sentence, nouns)

    def frozen(self, ws: Sequence[dict]) -> list[bool]:
        """See :meth:`SentenceAnalyser.frozen`."""
        return self.analyser.frozen(ws)

    def generate(
        self,
        sentences: Sequence[Sentence],
        interventions: Sequence[Sequence[Intervention]],
        *,
        propagate: bool = True,
    ) -> list[Counterfactual]:
        """Counterfactuals of a batch. With ``propagate=False`` only the intervened nouns change:
        the naive swap baseline of §5.2 (the MRF is not consulted)."""
        if len(sentences) != len(interventions):
            raise ValueError("one list of interventions per sentence")
        # Corpus augmentation sends one sentence several times (one copy per gender
        # combination): encode each distinct sentence once.
        cache: dict[int, Any] = {}
        nouns: dict[int, set[int]] = {}  # the person nouns of each distinct sentence
        for sentence, group in zip(sentences, interventions):
            nouns.setdefault(id(sentence), set()).update(i.index for i in group)
        encoded, analysed = [], []
        for sentence, group in zip(sentences, interventions):
            if id(sentence) not in cache:
                # analysis reads NFC, sentence case (text.normalization); the surface is rebuilt from `sentence`
                ws = self.analyser.analyse(read_sentence(sentence), nouns[id(sentence)])
                cache[id(sentence)] = (self.analyser.encode(sentence, ws), ws)
            one, ws = cache[id(sentence)]
            encoded.append(with_parts_of_speech(one, group))
            analysed.append(ws)
        batch = Batch.build(encoded, self.device)
        fixed = [[(i.index, self.inventory.index(i.tag)) for i in group] for group in interventions]
        if propagate:
            predicted = self.mrf.intervene(
                batch, fixed, self.log_alpha, carry_gender=self.carry_gender, inherent_gender=self.inherent_gender
            ).cpu()
            # MAP re-reads the whole sentence: a word no intervened one reaches keeps its tag
            for b, (ws, group) in enumerate(zip(analysed, interventions)):
                reached = agreement_reach(ws, [i.index for i in group])
                given = {i.index for i in group}
                for index in range(len(ws)):
                    # a personal pronoun's gender is its referent's: only an intervention changes it,
                    # never agreement (an impersonal il reached from a changed noun is no "ile")
                    if index not in reached or (index not in given and self._personal_pronoun(ws[index])):
                        predicted[b, index] = int(encoded[b].tags[index])
                if self.language.complete_agreement:
                    self._complete_agreement(ws, group, encoded[b], predicted[b])
        else:
            predicted = batch.tags.clone().cpu()
            for b, pairs in enumerate(fixed):
                for position, tag in pairs:
                    predicted[b, position] = tag
        # Every word whose tag changed is reinflected; collect them all first: one batched call.
        queries, slots = [], []
        results = []
        for b, (ws, group) in enumerate(zip(analysed, interventions)):
            given = {i.index: i for i in group}
            tags = [self.inventory.tags[int(t)] for t in predicted[b, : len(ws)]]
            forms = [w["form"] for w in ws]
            changed = []
            for index, (word, tag) in enumerate(zip(ws, tags)):
                old_tag = self.inventory.tags[int(encoded[b].tags[index])]
                if index in given and given[index].form is not None:
                    forms[index] = given[index].form
                    changed.append(index)
                elif tag != old_tag or index in given:
                    lemma = given[index].lemma if index in given and given[index].lemma else word["lemma"]
                    features = feats_with_tag(word["feats"], tag, self.inventory.features)
                    # The word's own features, for by_analogy, unless the intervention gave it a new lemma.
                    own = None if index in given and given[index].lemma else (word["feats"] or {})
                    queries.append(_Query(lemma or word["form"], word["upos"], features, tag, own, old_tag))
                    slots.append((b, index, word["form"]))
                    changed.append(index)
            results.append((forms, tags, changed))
        new_forms = self._reinflect(queries, slots) if queries else {}
        out = []
        for b, (sentence, (forms, tags, changed)) in enumerate(zip(sentences, results)):
            for index in changed:
                if (b, index) in new_forms:
                    forms[index] = new_forms[(b, index)]
            ws = analysed[b]
            changed = self._alternate(ws, forms, tags, changed)
            # every word as the user wrote it (NFD, capitals, ’); a changed one in the same normal
            # form, case and apostrophe (a line in capitals all in capitals: *L'* -> *LA*, *DEL* -> *DE LA*)
            written = words(sentence)
            text = sentence.metadata.get("text") or " ".join(w["form"] for w in written)
            replaced = {}
            for i, word in enumerate(written):
                if forms[i] == ws[i]["form"]:
                    forms[i] = word["form"]
                    continue
                new = in_style_of(text, match_case(word["form"], forms[i]))
                forms[i] = replaced[int(word["id"])] = in_form_of(word["form"], new)
            tokens, spaces = surface(sentence, replaced, self.language)
            tokens = [in_style_of(text, token) for token in tokens]
            out.append(
                Counterfactual(
                    original=sentence.metadata.get("text") or detokenize(*surface(sentence, {}, self.language)),
                    counterfactual=detokenize(tokens, spaces),
                    forms=forms,
                    tags=tags,
                    changed=changed,
                    intervened=sorted(i.index for i in interventions[b]),
                )
            )
        return out

    def _complete_agreement(self, ws: list[dict], group: Sequence[Intervention], encoded, predicted) -> None:
        """The language file's ``complete_agreement``: every word that agrees with an intervened word
        by plain rules (:func:`agreeing_words`) and that the MAP left with the word's old gender and
        its number takes the new gender (a small treebank's MRF misses many: *La giocatrice è stato
        espulsa*). `predicted` (the sentence's MAP tags) is changed in place."""
        frozen = encoded.frozen
        for intervention in group:
            new = dict(sub.split("=", 1) for sub in intervention.tag)
            if new.get("Gender") not in GENDER_SWAP:
                continue
            old = {"Gender": GENDER_SWAP[new["Gender"]]}  # a common noun's parser gender may be either
            for j in agreeing_words(ws, intervention.index, self.language):
                if frozen[j] or not self._gendered_form(ws[j]):
                    continue
                tag = self.inventory.tags[int(predicted[j])]
                feats = dict(sub.split("=", 1) for sub in tag)
                form = self.language.full_form((ws[j]["form"] or "").lower(), None)
                cell = self.language.paradigm_tag(form)
                if "Gender" not in feats and cell is not None:
                    # a closed-class form whose parser tag the inventory lacks, mapped to a tag without its
                    # gender (he אינם: Person=3): its paradigm cell's gender and number
                    feats = {"Gender": cell[0], "Number": cell[1]}
                # a distributive pronoun (chacun: singular forms only) of a plural noun keeps its number
                distributive = cell is not None and not any(
                    self.language.paradigm_form(form, g, "Plur") for g in GENDER_SWAP)
                number = feats.get("Number", new.get("Number"))
                if feats.get("Gender") != old["Gender"] or (number != new.get("Number") and not distributive):
                    continue
                swapped = tuple(f"{k}={v}" for k, v in sorted({**feats, "Gender": new["Gender"]}.items()))
                index = self.inventory.index(swapped)
                if self.inventory.tags[index] == swapped:
                    predicted[j] = index

    def _gendered_form(self, word: dict) -> bool:
        """Whether a word's form shows a gender: an article or closed-class word of the language file,
        or, with the lexicon check and ``ending_paradigms``, a form the dictionary confirms (not a
        finite verb the parser tagged an adjective: *sembra*, *teneva*)."""
        form = self.language.full_form((word["form"] or "").lower(), (word["feats"] or {}).get("Gender"))
        if self.language.article_tag(form) or self.language.paradigm_tag(form) or self.language.clitic_tag(form):
            return True
        if (word["feats"] or {}).get("VerbForm") == "Fin" and not self.language.finite_verbs_agree:
            return False  # a finite verb reached through a clause shows no gender (fr il fallait)
        if self.hunspell is not None and self.language.hunspell_marks_gender:
            # a dictionary that marks gender (French) has a gendered reading of the form: not a finite
            # verb reached through a clause (il fallait)
            return any(a & {"is:mas", "is:fem", "is:epi"} for a in self.hunspell.analyses([form]).get(form, ()))
        if self.hunspell is None or not self.language.ending_paradigms:
            return True
        return self.analyser.reading_by_ending(form) is not None

    def _personal_pronoun(self, word: dict) -> bool:
        """Whether a word is one of the language file's personal pronouns, in any relation."""
        form = (word["form"] or "").lower()
        return word["upos"] == "PRON" and any(form in pronoun.forms.values() for pronoun in self.language.pronouns)

    def _alternate(self, ws: list[dict], forms: list[str], tags: list[Tag], changed: list[int]) -> list[int]:
        """The forms words take before the next word (*le acteur* -> *l'acteur*, *la amie* ->
        *l'amie*, *ma amie* -> *mon amie*, *ce acteur* -> *cet acteur*, *la ama* -> *el ama*, and
        back where the next word changed), for words that changed or precede one that did;
        returns the changed indices, these included."""
        if not self.language.alternations:
            return changed
        touched = set(changed)
        for index in range(len(ws) - 1):
            if index not in touched and index + 1 not in touched:
                continue
            form = forms[index]
            pieces = form.split(" ")  # a fused preposition written out: "de la"
            if len(pieces) == 1 and form.lower() in self.language.fused and ws[index]["upos"] == "ADP":
                # a fused one's article alternates inside it: it del -> dell'uomo, dello studente
                pieces = [match_case(form, part) for part in self.language.fused[form.lower()]]
            gender = next(iter(gender_of(tags[index])), None)
            if gender is None and ws[index]["upos"] in ("DET", "ADP"):
                # an elided article shows no gender (it dell'uomo, fr l'homme): its noun's (della donna)
                gender = next(iter(gender_of(tags[index + 1])), None)
            last = self.language.alternate(pieces[-1].lower(), gender, forms[index + 1], ws[index + 1]["upos"])
            if last == pieces[-1].lower():
                continue
            pieces[-1] = match_case(pieces[-1], last)
            new = " ".join(pieces)
            if len(pieces) == 2:  # de + el -> del again
                new = match_case(pieces[0], self.language.contract(*pieces) or new)
            forms[index] = new
            touched.add(index)
        return sorted(touched)

    def _reinflect(self, queries: Sequence[_Query], slots) -> dict[tuple[int, int], str]:
        """New forms of the changed words: the reinflector's (see by_analogy), or with the
        lexicon check the first of its candidates the language's dictionaries know with the new
        gender and number (:meth:`_choose`)."""
        forms: dict[tuple[int, int], str] = {}
        fused = self.language.fused
        neural_queries, neural_slots, originals, kept = [], [], [], []
        old_queries, rebuilt_of = [], {}  # rebuilt_of: neural query -> its old-features query
        for query, (b, index, original) in zip(queries, slots):
            pair = fused.get(original.lower())
            if pair and query.upos == "ADP":
                article = self._article(pair[1], query.tag)
                contracted = self.language.contract(pair[0], article)
                forms[(b, index)] = match_case(original, contracted or f"{pair[0]} {article}")
                continue
            # an alternate form is reinflected from its full form (cet -> ce -> cette)
            full = self.language.full_form(original.lower(), next(iter(gender_of(query.old_tag)), None))
            gender = next(iter(gender_of(query.tag)), None)
            number = "Plur" if "Number=Plur" in query.tag else "Sing"
            if (query.upos == "PRON" and self.language.clitic_tag(original.lower())
                    and (gender, number) in self.language.object_clitics):
                # an object clitic is the language file's (its elided form before a vowel: _alternate)
                forms[(b, index)] = match_case(original, self.language.object_clitics[(gender, number)])
                continue
            if query.upos == "DET" and full in self.language.articles:
                # an article is the language file's (its elided or pre-vocalic form: _alternate)
                forms[(b, index)] = match_case(original, self._article(full, query.tag))
                continue
            neural_queries.append((query.lemma.lower(), query.upos, query.features))
            neural_slots.append((b, index, original))
            originals.append(full)
            kept.append(query)
            if query.old_features is not None:
                old_queries.append((query.lemma.lower(), query.upos, query.old_features))
                rebuilt_of[len(neural_queries) - 1] = len(old_queries) - 1
        if not neural_queries:
            return forms
        if self.reinflector is None:
            raise RuntimeError("a reinflector is needed to reinflect changed words")
        # One batched call for the new forms and for the words as they stand (see by_analogy).
        inflected = self.reinflector.inflect(neural_queries + old_queries)
        new, rebuilt = inflected[: len(neural_queries)], inflected[len(neural_queries) :]
        lists = []
        for k, (form, full, query) in enumerate(zip(new, originals, kept)):
            old = rebuilt[rebuilt_of[k]] if k in rebuilt_of else None
            primary = by_analogy(full, old, form) if old is not None else form
            gender, number = next(iter(gender_of(query.tag)), ""), "Plur" if "Number=Plur" in query.tag else "Sing"
            listed = self.language.paradigm_form(full, gender, number)  # éste -> ésta, as written
            if listed or full in self.language.invariable:
                lists.append([listed or full])
                continue
            if self.hunspell is None:
                lists.append([primary])
                continue
            swapped = self.language.gender_candidates(full, next(iter(gender_of(query.old_tag)), ""), gender, number,
                                                      query.features.get("Tense"))
            # where the lemma does not rebuild the word (a parser's wrong lemma: *content* as
            # *conter*), the word's own form with its ending swapped goes before the lemma's
            lemma_rebuilds = old is None or old == full
            # a form whose ending the language file's ending_paradigms read (the dictionary knowing its
            # other forms) swaps its ending first: it partite -> partiti (the reinflector: parti)
            by_ending = bool(self.language.ending_paradigms) and self.analyser.reading_by_ending(full) is not None
            # or a word the dictionary does not know at all (it italoamericano: italoamericana, the
            # reinflector italoamerica): its ending swapped is the better guess
            by_ending = by_ending or (bool(self.language.ending_paradigms) and not self.hunspell.known({full}))
            by_ending = by_ending or self.language.gender_endings_first  # he: נחמד -> נחמדה (the reinflector: נחמדת)
            ordered = [primary, form, *swapped] if lemma_rebuilds and not by_ending else [*swapped, primary, form]
            if self.language.hunspell_marks_gender and self._either_gender(full, query):
                ordered.insert(0, full)  # the dictionary gives the form both genders: it stays (he מרוצה, חולה)
            lists.append(list(dict.fromkeys(c for c in ordered if c)))
        chosen = self._choose(lists, [q.features for q in kept])
        for (b, index, original), form in zip(neural_slots, chosen):
            forms[(b, index)] = match_case(original, form)
        return forms

    def _either_gender(self, form: str, query: _Query) -> bool:
        """Whether a dictionary that marks gender gives `form` the query's new gender and its old one,
        with the new number (an epicene form: fr *jeune*, he *מרוצה*)."""
        old = next(iter(gender_of(query.old_tag)), None)
        if old not in GENDER_SWAP or "Gender" not in query.features:
            return False
        analyses = self.hunspell.analyses([form]).get(form, ())
        # where readings name their part of speech (French), an adjective's or participle's only: mort is
        # also the noun la mort, which makes no participle epicene
        analyses = tuple(a for a in analyses if a & {"po:adj", "po:ppas"}) or analyses
        return agrees(analyses, query.features, marks_gender=True) and agrees(
            analyses, {**query.features, "Gender": old}, marks_gender=True)

    def _choose(self, lists: list[list[str]], features: list[dict]) -> list[str]:
        """The first candidate of each list the dictionaries know with its gender and number; the
        first of the list where none is (counted in ``lexicon_stats``, kept in ``unknown_forms``).

        Where the dictionaries do not mark gender (Spanish, Italian, Hebrew), a candidate that
        looks like the other gender's form is passed over: it ends in the other gender's ending
        and swapping that ending gives a word the dictionaries know (*cansadas* for a masculine,
        when *cansados* exists)."""
        if self.hunspell is None:
            return [candidates[0] for candidates in lists]
        marks = self.language.hunspell_marks_gender
        other = {"Masc": "Fem", "Fem": "Masc"}
        swaps: dict[tuple[str, str, str], list[str]] = {}
        if not marks:
            for candidates, feats in zip(lists, features):
                gender, number = feats.get("Gender"), feats.get("Number", "Sing")
                if gender in other:
                    for c in candidates:
                        swaps[(c, gender, number)] = self.language.gender_candidates(c, other[gender], gender, number)
        words_to_check = [c for candidates in lists for c in candidates]
        words_to_check += [w for swapped in swaps.values() for w in swapped]
        analyses = self.hunspell.analyses(words_to_check)

        def fits(candidate: str, feats: dict) -> bool:
            if not agrees(analyses.get(candidate, ()), feats, marks_gender=marks):
                return False
            swapped = swaps.get((candidate, feats.get("Gender"), feats.get("Number", "Sing")), ())
            return not any(analyses.get(w) for w in swapped)

        chosen = []
        for candidates, feats in zip(lists, features):
            fit = next((c for c in candidates if fits(c, feats)), None)
            self.lexicon_stats["checked"] += 1
            if fit is None:
                self.lexicon_stats["unknown"] += 1
                self.unknown_forms[candidates[0]] += 1
                fit = candidates[0]
            elif fit != candidates[0]:
                self.lexicon_stats["vetoed"] += 1
                self.vetoed_forms[(candidates[0], fit)] += 1
            chosen.append(fit)
        return chosen

    def _article(self, article: str, tag: Tag) -> str:
        gender = "Fem" if "Gender=Fem" in tag else "Masc"
        number = "Plur" if "Number=Plur" in tag else "Sing"
        return self.language.article(gender, number) or article


def with_parts_of_speech(encoded: EncodedSentence, group: Sequence[Intervention]) -> EncodedSentence:
    """`encoded` with the parts of speech the interventions give their words (a copy if any)."""
    override = {i.index: POS_INDEX[i.upos] for i in group if i.upos and POS_INDEX.get(i.upos) != encoded.pos[i.index]}
    if not override:
        return encoded
    pos = encoded.pos.copy()
    for index, value in override.items():
        pos[index] = value
    return dataclasses.replace(encoded, pos=pos)


def by_analogy(original: str, rebuilt: str, new: str) -> str:
    """The new form of an irregular word, from its own form rather than its lemma.

    `rebuilt` is what the reinflector makes of the word's lemma and *current* features, `new` what it
    makes of the lemma and the new ones. Where `rebuilt` is the word as written, `new` stands. Where
    it is not (an irregular stem: *descubrir* → *descubiertos*, rebuilt as *descubridos*), the edit
    the reinflector makes between the two (*-os* → *-as*) is applied to the word itself
    (*descubiertas*), provided the word ends the way the edit expects.
    """
    if rebuilt == original or rebuilt == new:
        return new
    prefix = len(os.path.commonprefix([rebuilt, new]))
    old_ending, new_ending = rebuilt[prefix:], new[prefix:]
    if not old_ending or not original.endswith(old_ending) or len(original) == len(old_ending):
        return new
    return original[: len(original) - len(old_ending)] + new_ending


def gender_intervention(
    index: int,
    word: dict,
    generator: CounterfactualGenerator,
    new_gender: str,
    *,
    form: str | None = None,
    lemma: str | None = None,
) -> Intervention:
    """Fix word `index` to `new_gender` ("Masc" or "Fem"), every other subtag kept.

    The one intervention of both the augmentation path
    (:func:`~cdaflow.morph_cda.interventions.interventions_for`) and the evaluation. A common-gender
    noun (*periodista*, *joven*: no Gender feature in UD) is given `new_gender` outright; flipping its
    tag would leave it without gender, so nothing agreeing with it could change.
    """
    if new_gender not in GENDER_SWAP:
        raise ValueError(f"unknown gender {new_gender!r}; use one of {sorted(GENDER_SWAP)}")
    kept = [sub for sub in generator.word_tag(word) if not sub.startswith("Gender=")]
    return Intervention(index, tuple(sorted((*kept, f"Gender={new_gender}"))), form=form, lemma=lemma)
