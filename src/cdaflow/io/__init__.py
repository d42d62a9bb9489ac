"""File formats shared by the studies (CoNLL-U in :mod:`cdaflow.io.conllu`)."""

from cdaflow.io.conllu import (
    ConlluError,
    Sentence,
    SourceInfo,
    feats_dict,
    new_sentence,
    parse_conllu_string,
    read_conllu,
    source_info,
    surface_tokens,
    validate_sentence,
    words,
    write_conllu,
    write_conllu_atomic,
)

__all__ = [
    "ConlluError",
    "Sentence",
    "SourceInfo",
    "feats_dict",
    "new_sentence",
    "parse_conllu_string",
    "read_conllu",
    "source_info",
    "surface_tokens",
    "validate_sentence",
    "words",
    "write_conllu",
    "write_conllu_atomic",
]
