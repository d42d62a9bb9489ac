"""Acquire one dataset (rule fetch_dataset)."""

import sys
from pathlib import Path

from cdaflow.data.datasets import ManualDownloadRequired, acquire, fetch_options
from cdaflow.data.lockfile import LockFile
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    options = smk.params.downloads
    try:
        acquire(
            smk.wildcards.dataset,
            smk.params.entry,
            Path(smk.output[0]),
            cache_dir=Path(smk.params.cache),
            lockfile=LockFile(Path(smk.params.lockfile)),
            log=log,
            fetch_kwargs=fetch_options(options),
            max_extracted_bytes=options["max_extracted_bytes"],
        )
    except ManualDownloadRequired as error:
        log.error("%s", error)
        sys.exit(1)
