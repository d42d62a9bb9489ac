"""A counterfactual as a CoNLL-U sentence: `cdaflow cda --output-format conllu`.

The original annotation with every changed word's FORM and agreement features (Gender, Number,
Person of its new tag) replaced, multiword tokens rebuilt over their changed parts (*del* stays
*del* when *el* stays masculine, becomes two surface words, *de la*, when it does not), and
``# text`` the counterfactual; ``# original_text`` keeps the sentence as it was. Lemmas, heads and
relations are the original's.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from cdaflow.io.conllu import Sentence, is_multiword, words
from cdaflow.morph_cda.surface import WHOLE_WORD, rebuild_multiword
from cdaflow.morph_cda.tags import feats_with_tag
from cdaflow.text.language import Language
from cdaflow.text.language import get as language_of

__all__ = ["counterfactual_sentence"]


def counterfactual_sentence(sentence: Sentence, result, lang: Language | str, features: Iterable[str]) -> Sentence:
    """`sentence` rewritten as its counterfactual `result` (a :class:`cdaflow.morph_cda.cda.Counterfactual`);
    a sentence without one (None) is returned unchanged, as a copy."""
    new = copy.deepcopy(sentence)
    if result is None:
        return new
    features = tuple(features)
    old_forms = {word["id"]: word["form"] for word in words(sentence)}
    new_words = words(new)
    for index in result.changed:
        word = new_words[index]
        word["form"] = result.forms[index]
        word["feats"] = feats_with_tag(word["feats"], result.tags[index], features) or None
    by_id = {word["id"]: word for word in new_words}
    for token in [t for t in new if is_multiword(t)]:
        start, end = token["id"][0], token["id"][2]
        old_parts = [old_forms[i] for i in range(start, end + 1)]
        new_parts = [by_id[i]["form"] for i in range(start, end + 1)]
        if old_parts == new_parts:
            continue
        rebuilt = rebuild_multiword(language_of(lang), token["form"], old_parts, new_parts)
        for i in range(start, end + 1):  # a possessed noun given as a whole word (he אביו__): one word, אביו_
            if by_id[i]["form"].endswith(WHOLE_WORD):
                by_id[i]["form"] = by_id[i]["form"][: -len(WHOLE_WORD)] + "_"
        if len(rebuilt) == 1:
            token["form"] = rebuilt[0]
            continue
        # The contraction no longer holds: its words stand alone; the last keeps the token's spacing.
        if (token.get("misc") or {}).get("SpaceAfter") == "No":
            by_id[end]["misc"] = {**(by_id[end].get("misc") or {}), "SpaceAfter": "No"}
        new.remove(token)
    new.metadata["original_text"] = sentence.metadata.get("text") or result.original
    new.metadata["text"] = result.counterfactual
    return new
