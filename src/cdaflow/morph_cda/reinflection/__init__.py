"""Reinflection of lemmata to new morpho-syntactic tags (step 4 of Zmigrod et al. 2019).

After the tags of the agreeing words have been inferred, each changed word is regenerated
from its lemma and its new tag. :class:`Reinflector` first looks the triple
``(lemma, upos, features)`` up in a :class:`Lexicon` of attested forms and otherwise asks a
:class:`CharTransducer`, the character-level transducer with *hard* non-monotonic attention
of Wu, Shapiro & Cotterell (2018): at each output step the decoder computes an attention
distribution over lemma positions and marginalises the output distribution over them,

    p(y_t | y_<t, x) = sum_j  alpha_tj * p(y_t | h_j, s_t),

trained by exact negative log-likelihood.

The modules follow the seams: :mod:`.lexicon` (examples and attested forms),
:mod:`.vocabulary` (symbol ids), :mod:`.transducer` (the network), :mod:`.batching` (padded
tensors) and :mod:`.reinflector` (training, inference, persistence).
"""

from cdaflow.morph_cda.reinflection.lexicon import (
    DEFAULT_FEATURES,
    InflectionExample,
    Lexicon,
    Query,
    examples_from_sentences,
    normalize_features,
    split_heldout,
)
from cdaflow.morph_cda.reinflection.reinflector import Reinflector, ReinflectorLoadError
from cdaflow.morph_cda.reinflection.transducer import CharTransducer, TransducerConfig
from cdaflow.morph_cda.reinflection.vocabulary import CharVocab

__all__ = [
    "DEFAULT_FEATURES",
    "CharTransducer",
    "CharVocab",
    "InflectionExample",
    "Lexicon",
    "Query",
    "Reinflector",
    "ReinflectorLoadError",
    "TransducerConfig",
    "examples_from_sentences",
    "normalize_features",
    "split_heldout",
]
