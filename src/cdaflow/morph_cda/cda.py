"""Counterfactual sentences (§4): intervene on animate nouns, infer tags, reinflect, rebuild.

`CounterfactualGenerator` runs the whole pipeline on a batch of parsed sentences at once:
one batched MAP inference for all of them, then one batched reinflection of every changed
word, then the surface rebuild (contractions, multiword tokens).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.conllu import Sentence, words
from cdaflow.io.model_card import write_card
from cdaflow.io.models import check_settings
from cdaflow.io.structured import read_mapping
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.model import POS_INDEX, REL_INDEX, AgreementMRF, Batch, EncodedSentence, encode, relation
from cdaflow.morph_cda.reinflection import Reinflector
from cdaflow.morph_cda.surface import CONTRACTIONS, detokenize, match_case, surface
from cdaflow.morph_cda.tags import GENDER_SWAP, Tag, feats_with_tag, gender_of, tag_from_feats

DIRECTIONS = ("flip", "to-fem", "to-masc")
# Parts of speech whose gender is their own, not agreement: only an intervention changes it. In
# the annotated sentences of Table 3 no Spanish noun but the intervened one changes (1 of 280
# changes); letting them flip only adds whole noun phrases changed by weak arcs.
INHERENT_GENDER = ("NOUN", "PROPN")

# Single-word fused preposition + article (spaCy's output; UD AnCora 2.2's "del"/"al"): the
# word gets its article's agreement features so the MRF can flip them, and its new form is
# the preposition + the new article (contracted again where the language does).
FUSED = {lang: {joined: pair for pair, joined in table.items()} for lang, table in CONTRACTIONS.items()}
# Definite articles by (gender, number). Italian lo/gli (before s+consonant, z, vowels) are
# phonologically conditioned; il/i stand for them here.
ARTICLES = {
    "es": {("Masc", "Sing"): "el", ("Fem", "Sing"): "la", ("Masc", "Plur"): "los", ("Fem", "Plur"): "las"},
    "fr": {("Masc", "Sing"): "le", ("Fem", "Sing"): "la", ("Masc", "Plur"): "les", ("Fem", "Plur"): "les"},
    "it": {("Masc", "Sing"): "il", ("Fem", "Sing"): "la", ("Masc", "Plur"): "i", ("Fem", "Plur"): "le"},
}


def article_tag(lang: str, article: str) -> Tag | None:
    """Agreement subtags of a definite article (None when unknown or ambiguous in gender)."""
    matches = [key for key, form in ARTICLES.get(lang, {}).items() if form == article]
    if article in ("lo", "gli") and lang == "it":
        matches = [("Masc", "Sing" if article == "lo" else "Plur")]
    if len(matches) != 1:
        return None
    gender, number = matches[0]
    return (f"Gender={gender}", f"Number={number}")


@dataclass
class Intervention:
    """Fix word `index` (0-based) to `tag`; its new form is `form`, or reinflected from `lemma`."""

    index: int
    tag: Tag
    form: str | None = None
    lemma: str | None = None
    upos: str | None = None  # the part of speech the MRF reads for the word, when not the parser's


@dataclass
class Counterfactual:
    original: str
    counterfactual: str
    forms: list[str]  # every syntactic word's new form
    tags: list[Tag]  # every syntactic word's new tag
    changed: list[int]  # 0-based indices of words whose tag or form changed (nouns included)


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
    ) -> None:
        self.mrf = mrf
        self.reinflector = reinflector
        self._adjectives: frozenset[str] | None = None  # lemmas the reinflection lexicon has as ADJ
        self.lang = lang
        self.log_alpha = log_alpha
        self.carry_gender = carry_gender  # see AgreementMRF.intervene
        self.inherent_gender = tuple(inherent_gender)  # parts of speech that keep their gender
        self.inventory = mrf.inventory
        self.device = next(iter(mrf.buffers())).device

    def word_tag(self, word: dict) -> Tag:
        tag = tag_from_feats(word["feats"], self.inventory.features)
        fused = FUSED.get(self.lang, {}).get(word["form"].lower())
        if fused and word["upos"] == "ADP" and not gender_of(tag):
            tag = article_tag(self.lang, fused[1]) or tag
        return tag

    def _encode(self, sentence: Sentence):
        encoded = encode(sentence, self.inventory)
        ws = words(sentence)
        encoded.tags[:] = [self.inventory.index(self.word_tag(w)) for w in ws]
        for index in self._predicate_adjectives(ws):
            encoded.pos[index] = POS_INDEX["ADJ"]
        fused = FUSED.get(self.lang, {})
        for index, w in enumerate(ws):
            if w["upos"] == "ADP" and w["form"].lower() in fused and gender_of(self.word_tag(w)):
                # a fused preposition + article (*del*, *al*) is read as the treebanks split it:
                # its article, a det of the noun
                encoded.pos[index], encoded.rel[index] = POS_INDEX["DET"], REL_INDEX["det"]
        return encoded

    def _predicate_adjectives(self, ws: list[dict]) -> list[int]:
        """Bare predicate nouns the MRF reads as adjectives (0-based indices).

        A parser may tag a predicate adjective NOUN (spaCy: *El abuelo estaba enfermo*). In the
        training treebanks a predicate NOUN agrees with its subject about half the time, an ADJ
        nearly always, so the tag decides. A NOUN with a copula and no determiner whose lemma
        the reinflection lexicon (the same treebanks) attests as an adjective is read as one.
        """
        lexicon = getattr(self.reinflector, "lexicon", None)
        if lexicon is None:
            return []
        adjectives = self._adjective_lemmas(lexicon)
        children: dict[int, set[str]] = {}
        for w in ws:
            children.setdefault(int(w["head"] or 0), set()).add(relation(w["deprel"]))
        return [
            index
            for index, w in enumerate(ws)
            if w["upos"] == "NOUN"
            and "cop" in children.get(int(w["id"]), set())
            and "det" not in children.get(int(w["id"]), set())
            and (w["lemma"] or w["form"]).lower() in adjectives
        ]

    def _adjective_lemmas(self, lexicon) -> frozenset[str]:
        if self._adjectives is None:
            self._adjectives = frozenset(lemma for lemma, upos, *_ in lexicon.entries() if upos == "ADJ")
        return self._adjectives

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
        encoded = []
        for sentence, group in zip(sentences, interventions):
            if id(sentence) not in cache:
                cache[id(sentence)] = self._encode(sentence)
            encoded.append(_with_parts_of_speech(cache[id(sentence)], group))
        batch = Batch.build(encoded, self.device)
        fixed = [[(i.index, self.inventory.index(i.tag)) for i in group] for group in interventions]
        if propagate:
            predicted = self.mrf.intervene(
                batch, fixed, self.log_alpha, carry_gender=self.carry_gender, inherent_gender=self.inherent_gender
            ).cpu()
        else:
            predicted = batch.tags.clone().cpu()
            for b, pairs in enumerate(fixed):
                for position, tag in pairs:
                    predicted[b, position] = tag
        # Every word whose tag changed is reinflected; collect them all first: one batched call.
        queries, slots = [], []
        results = []
        for b, (sentence, group) in enumerate(zip(sentences, interventions)):
            ws = words(sentence)
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
                    queries.append((lemma or word["form"], word["upos"], features, tag, own))
                    slots.append((b, index, word["form"]))
                    changed.append(index)
            results.append((sentence, forms, tags, changed))
        new_forms = self._reinflect(queries, slots) if queries else {}
        out = []
        for b, (sentence, forms, tags, changed) in enumerate(results):
            for index in changed:
                if (b, index) in new_forms:
                    forms[index] = new_forms[(b, index)]
            ws = words(sentence)
            replaced = {int(ws[i]["id"]): forms[i] for i in changed if forms[i] != ws[i]["form"]}
            tokens, spaces = surface(sentence, replaced, self.lang)
            out.append(
                Counterfactual(
                    original=sentence.metadata.get("text") or detokenize(*surface(sentence, {}, self.lang)),
                    counterfactual=detokenize(tokens, spaces),
                    forms=forms,
                    tags=tags,
                    changed=changed,
                )
            )
        return out

    def _reinflect(self, queries, slots) -> dict[tuple[int, int], str]:
        forms: dict[tuple[int, int], str] = {}
        fused = FUSED.get(self.lang, {})
        neural_queries, neural_slots = [], []
        old_queries, rebuilt_of = [], {}  # rebuilt_of: neural query -> its old-features query
        for (lemma, upos, features, tag, old_features), (b, index, original) in zip(queries, slots):
            pair = fused.get(original.lower())
            if pair and upos == "ADP":
                article = self._article(pair[1], tag)
                contracted = CONTRACTIONS[self.lang].get((pair[0], article))
                forms[(b, index)] = match_case(original, contracted or f"{pair[0]} {article}")
                continue
            neural_queries.append((lemma.lower(), upos, features))
            neural_slots.append((b, index, original))
            if old_features is not None:
                old_queries.append((lemma.lower(), upos, old_features))
                rebuilt_of[len(neural_queries) - 1] = len(old_queries) - 1
        if neural_queries:
            if self.reinflector is None:
                raise RuntimeError("a reinflector is needed to reinflect changed words")
            # One batched call for the new forms and for the words as they stand (see by_analogy).
            inflected = self.reinflector.inflect(neural_queries + old_queries)
            new, rebuilt = inflected[: len(neural_queries)], inflected[len(neural_queries) :]
            for k, ((b, index, original), form) in enumerate(zip(neural_slots, new)):
                if k in rebuilt_of:
                    form = by_analogy(original.lower(), rebuilt[rebuilt_of[k]], form)
                forms[(b, index)] = match_case(original, form)
        return forms

    def _article(self, article: str, tag: Tag) -> str:
        gender = "Fem" if "Gender=Fem" in tag else "Masc"
        number = "Plur" if "Number=Plur" in tag else "Sing"
        return ARTICLES.get(self.lang, {}).get((gender, number), article)


def _with_parts_of_speech(encoded: EncodedSentence, group: Sequence[Intervention]) -> EncodedSentence:
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


def interventions_for(
    sentence: Sentence, gazetteer: Gazetteer, generator: CounterfactualGenerator, direction: str
) -> list[Intervention]:
    """Interventions on every animate noun of a sentence, in the given direction."""
    if direction not in DIRECTIONS:
        raise ValueError(f"unknown direction {direction!r}; use one of {DIRECTIONS}")
    out = []
    for index, word in enumerate(words(sentence)):
        found = gazetteer.lookup(word, sentence)
        if not found:
            continue
        new_lemma, new_gender = found.lemma, found.gender
        if (direction == "to-fem" and new_gender != "Fem") or (
            direction == "to-masc" and new_gender != "Masc"
        ):
            continue
        # The gazetteer's form (its plural columns for plurals); else reinflected from the lemma.
        form = match_case(word["form"], found.form) if found.form else None
        intervention = gender_intervention(index, word, generator, new_gender, form=form, lemma=new_lemma)
        if word["upos"] == "PROPN":
            # a lower-case PROPN the list knows is a tagging slip for a person noun (spaCy: "los
            # reyes" PROPN without features): the MRF reads a NOUN with the list's number
            intervention.upos = "NOUN"
            if not any(sub.startswith("Number=") for sub in intervention.tag):
                intervention.tag = tuple(sorted((*intervention.tag, f"Number={found.number}")))
        out.append(intervention)
    return out


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

    The one intervention of both the augmentation path (:func:`interventions_for`) and the
    evaluation. A common-gender noun (*periodista*, *joven*: no Gender feature in UD) is given
    `new_gender` outright; flipping its tag would leave it without gender, so nothing agreeing
    with it could change.
    """
    if new_gender not in GENDER_SWAP:
        raise ValueError(f"unknown gender {new_gender!r}; use one of {sorted(GENDER_SWAP)}")
    kept = [sub for sub in generator.word_tag(word) if not sub.startswith("Gender=")]
    return Intervention(index, tuple(sorted((*kept, f"Gender={new_gender}"))), form=form, lemma=lemma)


def intervene_in_batches(
    generator: CounterfactualGenerator,
    items: Iterable[tuple[Sentence, list[Intervention]]],
    batch_size: int = 256,
) -> Iterable[Counterfactual]:
    """Stream counterfactuals, `batch_size` sentences per MAP/reinflection call."""
    chunk: list[tuple[Sentence, list[Intervention]]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == batch_size:
            yield from generator.generate([s for s, _ in chunk], [i for _, i in chunk])
            chunk = []
    if chunk:
        yield from generator.generate([s for s, _ in chunk], [i for _, i in chunk])


# -- packaged models for `cdaflow cda` -------------------------------------------------------
MODEL_FILES = ("cda.json", "mrf", "reinflection", "gazetteer.tsv")


def save_model(
    destination: Path,
    mrf: AgreementMRF,
    reinflector_dir: Path,
    gazetteer: Path,
    log_alpha: float,
    *,
    carry_gender: bool = False,
    inherent_gender: Sequence[str] = INHERENT_GENDER,
    card: dict[str, Any] | None = None,
) -> None:
    """One self-contained folder: the MRF, the reinflector, the gazetteer and the tuned settings;
    `card` (scale, data, size, held-out scores) becomes its model_card.json."""
    with atomic_directory(destination) as tmp:
        if card is not None:
            write_card(tmp, kind="cda", lang=mrf.lang, **card)
        mrf.save(tmp / "mrf")
        shutil.copytree(reinflector_dir, tmp / "reinflection")
        Gazetteer.read(gazetteer).write(tmp / "gazetteer.tsv")  # normalised to one format
        settings = {
            "lang": mrf.lang,
            "parameterization": mrf.parameterization,
            "log_alpha": log_alpha,
            "carry_gender": carry_gender,
            "inherent_gender": list(inherent_gender),
        }
        (tmp / "cda.json").write_text(json.dumps(settings, indent=1))


def check_model_folder(directory: Path) -> None:
    """FileNotFoundError unless `directory` holds a model's files (cheap: nothing is read)."""
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: model folder not found (the workflow writes results/morph_cda/<lang>/models/lin)"
        )
    missing = [name for name in MODEL_FILES if not (directory / name).exists()]
    if missing:
        raise FileNotFoundError(f"{directory}: not a cdaflow CDA model (missing {', '.join(missing)})")


def load_model(
    directory: Path, device: str = "cpu", threads: int | None = None
) -> tuple[CounterfactualGenerator, Gazetteer]:
    """Load a folder written by `save_model`; a clear error when it is not one."""
    check_model_folder(directory)
    settings = check_settings(
        read_mapping(directory / "cda.json", fmt="json"),
        directory / "cda.json",
        {"lang": str, "log_alpha": float},
    )
    for key, expected in (("carry_gender", bool), ("inherent_gender", list)):
        if key in settings and not isinstance(settings[key], expected):
            raise ValueError(f"{directory / 'cda.json'}: {key}: expected {expected.__name__}, found {settings[key]!r}")
    mrf = AgreementMRF.load(directory / "mrf", device)
    reinflector = Reinflector.load(directory / "reinflection", device=device, threads=threads)
    generator = CounterfactualGenerator(
        mrf,
        reinflector,
        settings["lang"],
        settings["log_alpha"],
        carry_gender=settings.get("carry_gender", False),
        # folders saved before the setting existed let every word change, as they did then
        inherent_gender=settings.get("inherent_gender", ()),
    )
    return generator, Gazetteer.read(directory / "gazetteer.tsv")
