"""Text processing shared by the studies: parser backends in :mod:`cdaflow.text.parsing`."""

from cdaflow.text.parsing import (
    BACKENDS,
    GoldParser,
    Parser,
    ParserUnavailable,
    SpacyParser,
    StanzaParser,
    get_parser,
    parse_text_file,
)

__all__ = [
    "BACKENDS",
    "GoldParser",
    "Parser",
    "ParserUnavailable",
    "SpacyParser",
    "StanzaParser",
    "get_parser",
    "parse_text_file",
]
