"""Fetch one Hub model into resources/models (rule fetch_model)."""

import sys
from pathlib import Path

from cdaflow.data.hub import HubError, fetch_hub_model
from cdaflow.data.lockfile import LockFile
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    try:
        fetch_hub_model(
            p.ref["hub"], Path(smk.output[0]), revision=p.ref["revision"], endpoint=p.endpoint,
            lockfile=LockFile(Path(p.lockfile)), retries=p.downloads["retries"], backoff=p.downloads["backoff"],
            timeout=p.downloads["timeout"],
        )
    except HubError as error:
        log.error("%s", error)
        sys.exit(1)
