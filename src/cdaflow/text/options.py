"""Parser options from the workflow config's `parsing` section."""

from __future__ import annotations

from typing import Any


def parser_options(parsing: dict[str, Any], backend: str, lang: str, *, gpu: int = 0) -> dict[str, Any]:
    """Keyword arguments of `get_parser(backend, lang, ...)` from config's `parsing` section."""
    if backend == "spacy":
        model = parsing.get("spacy_models", {}).get(lang)
        return {"model": model} if model else {}
    if backend == "stanza":
        return {"model_dir": parsing.get("stanza_model_dir"), "use_gpu": gpu > 0}
    return {}
