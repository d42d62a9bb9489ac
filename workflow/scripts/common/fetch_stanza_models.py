"""Fetch stanza's models for one language into resources/models/stanza/<lang> (rule fetch_stanza_models)."""

import sys
from pathlib import Path

from cdaflow.data.lockfile import LockFile
from cdaflow.pipeline.runtime import rule_context
from cdaflow.text.stanza_models import StanzaModelsError, fetch_stanza_models

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    try:
        fetch_stanza_models(
            smk.wildcards.lang, Path(smk.output[0]), resources_url=p.resources_url, model_url=p.model_url,
            lockfile=LockFile(Path(p.lockfile)), retries=p.downloads["retries"], backoff=p.downloads["backoff"],
        )
    except StanzaModelsError as error:
        log.error("%s", error)
        sys.exit(1)
