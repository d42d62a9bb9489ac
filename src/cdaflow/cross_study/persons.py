"""Every person in one run: `cdaflow cda --persons all`.

Study A changes the gender of the people a sentence names in the third person (nouns, pronouns);
a first- or second-person sentence shows its speaker's or addressee's gender only in agreement
(*Estoy cansado*, *¡Qué contenta estás!*) and Study A leaves it alone. Study B's rules
(:mod:`cdaflow.regender.rules`, `cdaflow regender --method rules`) re-gender exactly those words.
:class:`SpeakerRules` applies them to the sentences Study A parsed, after Study A:

* the sentence is tagged from its parse (:func:`cdaflow.regender.segments.segment_from_sentence`)
  and the rules decide on it, as `cdaflow regender` does on a segment;
* a change the rules propose is kept only on a word whose gender is agreement alone (not a
  clitic: *Déjalo*, *La vi* name a third person or a thing) governed by a first- or
  second-person verb or pronoun (its own Person, or that of its head's or its own copula,
  auxiliary or subject, up the tree): the rules also re-gender *Está rota.*, a third person
  Study A answers for;
* words Study A changed keep Study A's form (*Estoy cansado y mi hermana está cansada*: Study A
  changes *hermana … cansada*, the rules *cansado*); under ``--direction to-fem`` / ``to-masc``
  only words of the other gender change;
* the result is one :class:`~cdaflow.morph_cda.cda.Counterfactual`, each rule change marked
  ``by["persons"]``.

Only languages with Study B rules (``resources/regender/<lang>/``: Spanish) have it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from cdaflow.io.conllu import Sentence, is_multiword, surface_tokens, words
from cdaflow.morph_cda.surface import detokenize, surface
from cdaflow.morph_cda.tags import Tag, flip_gender, tag_from_feats
from cdaflow.morph_cda.tree_encoding import relation
from cdaflow.text.case import match_case
from cdaflow.text.normalization import in_form_of, read_sentence

__all__ = ["PERSONS", "SpeakerRules", "rules_languages"]

PERSONS = ("third", "all")
SPEAKER_PERSONS = frozenset({"1", "2"})
# Children that tell a predicate's person: its copula or auxiliary (the finite verb) and its subject.
PERSON_RELATIONS = frozenset({"cop", "aux", "nsubj", "expl"})
# Relations along which a word agrees with what governs it (an article with its adjective, an
# adjective complement with its verb): the search for a person climbs only along these.
CLIMB_RELATIONS = frozenset({"det", "amod", "advmod", "xcomp", "conj", "obl", "nmod", "acl", "appos", "flat"})
SOURCE_GENDER = {"to-fem": "Masc", "to-masc": "Fem"}


def rules_languages() -> list[str]:
    """The languages Study B has rules for (a folder with rules.yaml in resources/regender)."""
    from cdaflow.regender.tagset import RESOURCES

    return sorted(path.parent.name for path in RESOURCES.glob("*/rules.yaml"))


class SpeakerRules:
    """Study B's rules, loaded once, applied to Study A's parsed sentences (module docstring)."""

    def __init__(self, lang: str, sequences: str = "extended") -> None:
        from cdaflow.regender.rules import RuleSet
        from cdaflow.regender.tagset import RESOURCES, TagMap

        if lang not in rules_languages():
            raise ValueError(
                f"--persons all: Study B has re-gendering rules for {', '.join(rules_languages())} only, "
                f"not {lang!r}; first- and second-person sentences of {lang!r} cannot be re-gendered"
            )
        folder = RESOURCES / lang
        self.lang = lang
        self.rules = RuleSet.load(folder, sequences)
        self.tagmap = TagMap.load(folder / "tagset_map.tsv")
        self.dropped = 0  # rule changes that could not be placed in Study A's counterfactual

    def describe(self) -> str:
        return f"Study B's rules ({self.rules.source}) on first- and second-person agreement"

    def apply(self, sentence: Sentence, result, direction: str, features: Iterable[str]):
        """`result` (Study A's Counterfactual of `sentence`, or None) with the rules' changes added;
        `result` itself when the rules change nothing (then None stays None)."""
        from cdaflow.regender.segments import segment_from_sentence

        read = read_sentence(sentence)
        try:
            segment = segment_from_sentence(read, self.tagmap)
        except ValueError:  # a backend that normalised the text: no spans to replace in
            return result
        decision = self.rules.decide(segment)
        if decision.label != "G" or not decision.changes:
            return result
        ws, written = words(read), words(sentence)
        tokens = _surface_words(sentence)
        if len(tokens) != len(segment.tokens):
            return result
        done = set(result.changed) if result is not None else set()
        new_forms: dict[int, str] = {}  # word index -> its new form, as written
        for change in decision.changes:
            covered = tokens[change.index]
            if done & set(covered) or not _agrees_only(ws[covered[-1]]) or not _speaker_governed(ws, covered[-1]):
                continue
            target = covered[-1]
            source = SOURCE_GENDER.get(direction)
            if source is not None and (ws[target]["feats"] or {}).get("Gender") != source:
                continue
            new = _word_change(change.old, change.new, [ws[i]["form"] for i in covered])
            if new is None:
                self.dropped += 1
                continue
            old_written = written[target]["form"]
            new_forms[target] = in_form_of(old_written, match_case(old_written, new))
        if not new_forms:
            return result
        return self._merged(sentence, result, new_forms, tokens, features)

    def _merged(self, sentence, result, new_forms: dict[int, str], tokens, features):
        written = words(sentence)
        original = sentence.metadata.get("text") or detokenize(*surface(sentence, {}, self.lang))
        spans = _spans(original, [_token_text(sentence, t, written) for t in tokens])
        if spans is None:
            self.dropped += len(new_forms)
            return result
        base = original if result is None else result.counterfactual
        mapped = _mapping(original, base)
        edits = []  # (start, end, new token text) in `base`
        for t, covered in enumerate(tokens):
            if covered[-1] not in new_forms:
                continue
            start, end = spans[t]
            where = mapped(start, end)
            if where is None:  # Study A rewrote the text around this word
                self.dropped += 1
                del new_forms[covered[-1]]
                continue
            old = written[covered[-1]]["form"]
            text = original[start:end]
            edits.append((*where, text[: len(text) - len(old)] + new_forms[covered[-1]] if text.endswith(old)
                          else new_forms[covered[-1]]))
        if not edits:
            return result
        text = base
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        feature_names = tuple(features)
        if result is None:
            forms = [w["form"] for w in written]
            tags: list[Tag] = [tag_from_feats(w["feats"], feature_names) for w in written]
            changed: list[int] = []
            intervened: list[int] = []
            by: dict[int, str] = {}
            original_text = original
        else:
            forms, tags = list(result.forms), list(result.tags)
            changed, intervened, by = list(result.changed), list(result.intervened), dict(result.by)
            original_text = result.original
        for index, form in new_forms.items():
            forms[index] = form
            tags[index] = flip_gender(tags[index])
            by[index] = "persons"
        from cdaflow.morph_cda.cda import Counterfactual

        return Counterfactual(
            original=original_text, counterfactual=text, forms=forms, tags=tags,
            changed=sorted(set(changed) | set(new_forms)), intervened=intervened, by=by,
        )


def _surface_words(sentence: Sentence) -> list[list[int]]:
    """The 0-based word indices each surface token covers (a multiword token: several), in the
    token order of :func:`cdaflow.regender.segments.segment_from_sentence`."""
    ws = words(sentence)
    position = {w["id"]: i for i, w in enumerate(ws)}
    if all(type(token["id"]) is int for token in sentence):
        return [[i] for i in range(len(ws))]
    out = []
    for token in surface_tokens(sentence):
        if is_multiword(token):
            first, last = token["id"][0], token["id"][2]
            out.append([position[i] for i in range(first, last + 1)])
        else:
            out.append([position[token["id"]]])
    return out


def _token_text(sentence: Sentence, covered: Sequence[int], written: list[dict]) -> str:
    if len(covered) == 1:
        return written[covered[0]]["form"]
    first = written[covered[0]]["id"]
    return next(t["form"] for t in sentence if is_multiword(t) and t["id"][0] == first)


def _word_change(old_token: str, new_token: str, parts: Sequence[str]) -> str | None:
    """The new form of a token's changing word (its last): the token's own change where the token
    is one word, or, for a multiword token (*dámelo*), the new ending over the last word's form."""
    if len(parts) == 1:
        return new_token
    last = parts[-1]
    stem = len(old_token) - len(last)
    if stem < 0 or not old_token.lower().endswith(last.lower()) or new_token[:stem] != old_token[:stem]:
        return None
    return new_token[stem:]


def _agrees_only(word: dict) -> bool:
    """A word whose gender is agreement alone (an adjective, participle, article, quantifier), not
    a verb carrying a clitic (*Déjalo*) or a third-person pronoun (*la* in *La vi*): those name a
    third person or a thing, Study A's part."""
    feats = word["feats"] or {}
    if word["upos"] in ("VERB", "AUX"):
        return feats.get("VerbForm") == "Part"
    return not (word["upos"] == "PRON" and feats.get("Person") == "3")


def _speaker_governed(ws: Sequence[dict], index: int) -> bool:
    """Whether word `index` agrees with a first- or second-person verb or pronoun: the nearest
    person found climbing from it (its own, its copula's, auxiliary's or subject's, then its
    head's, along agreement relations) is 1 or 2."""
    by_id = {w["id"]: w for w in ws}
    node, steps = ws[index], 0
    while node is not None and steps < 6:
        found = [_person(node)] + [
            _person(w) for w in ws if w["head"] == node["id"] and relation(w["deprel"]) in PERSON_RELATIONS
        ]
        found = [person for person in found if person]
        if found:
            return found[0] in SPEAKER_PERSONS if len(set(found)) == 1 else bool(set(found) & SPEAKER_PERSONS)
        if relation(node["deprel"]) not in CLIMB_RELATIONS and not _predicative_slip(node):
            return False
        node, steps = by_id.get(node["head"]), steps + 1
    return False


def _predicative_slip(word: dict) -> bool:
    """An adjective or participle a parser made a verb's object (*Me siento orgulloso*: obj):
    a complement agreeing with the verb's subject."""
    predicative = word["upos"] == "ADJ" or (word["feats"] or {}).get("VerbForm") == "Part"
    return predicative and relation(word["deprel"]) in ("obj", "ccomp")


# A copula or auxiliary a small parser read without features (spaCy: sentence-initial *Eres*
# tagged PROPN): its person from its ending, Spanish (*soy, estoy, somos* 1; *eres, estás, sois* 2).
COPULA_ENDINGS = (("mos", "1"), ("oy", "1"), ("is", "2"), ("s", "2"))
THIRD_PERSON_COPULAS = frozenset({"es"})


def _person(word: dict) -> str | None:
    feats = word["feats"] or {}
    if relation(word["deprel"]) in ("cop", "aux") and "Person" not in feats and word["upos"] != "PRON":
        form = word["form"].lower()
        if form not in THIRD_PERSON_COPULAS:
            return next((person for ending, person in COPULA_ENDINGS if form.endswith(ending)), None)
        return "3"
    if word["upos"] not in ("VERB", "AUX", "PRON"):
        return None
    if word["upos"] == "PRON" and feats.get("Poss") == "Yes":
        return None
    return feats.get("Person")


def _spans(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    spans, position = [], 0
    for token in tokens:
        start = text.find(token, position)
        if start < 0:
            return None
        spans.append((start, start + len(token)))
        position = start + len(token)
    return spans


def _mapping(original: str, rebuilt: str):
    """A function from a span of `original` to the same characters' span in `rebuilt`, None when
    they are not left as they were (one character-level alignment of the two)."""
    if original == rebuilt:
        return lambda start, end: (start, end)
    blocks = SequenceMatcher(None, original, rebuilt, autojunk=False).get_matching_blocks()

    def mapped(start: int, end: int) -> tuple[int, int] | None:
        for a, b, size in blocks:
            if a <= start and end <= a + size:
                # the whole word, and the letters around it, unchanged: not part of a rewritten word
                return start - a + b, end - a + b
        return None

    return mapped
