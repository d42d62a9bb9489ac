"""Parser options from the workflow config's `parsing` section."""

from __future__ import annotations

from typing import Any

from cdaflow.text.spacy_parser import spacy_pipeline
from cdaflow.text.stanza_models import model_dir as stanza_model_dir


def parser_options(
    parsing: dict[str, Any], backend: str, lang: str, *, gpu: int = 0, rule: str = "script"
) -> dict[str, Any]:
    """Keyword arguments of `get_parser(backend, lang, ...)` from config's `parsing` section.

    A spaCy job parses with the pipeline the language file names (`spacy_pipeline`), as
    ``cdaflow cda`` does.

    A stanza job given `gpu` GPUs parses on CUDA through the same check as every GPU rule
    (`cdaflow.device.gpu_device`, which logs the job's device as `rule`): one that was allocated a
    GPU it cannot use stops in one line instead of parsing on CPU for its GPU-sized wall time.
    """
    if backend == "spacy":
        model = spacy_pipeline(lang)
        return {"model": model} if model else {}
    if backend == "stanza":
        use_gpu = False
        if gpu > 0:
            from cdaflow.device import gpu_device  # imports torch, which stanza loads anyway

            use_gpu = gpu_device(gpu, rule) == "cuda"
        return {"model_dir": stanza_model_dir(parsing, lang), "use_gpu": use_gpu}
    return {}
