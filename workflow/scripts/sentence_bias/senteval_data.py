"""SentEval's data folder assembled from separately acquired parts (rule sentence_bias_senteval_data)."""

import os
from pathlib import Path

from cdaflow.io.atomic import atomic_directory
from cdaflow.pipeline.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    with atomic_directory(Path(smk.output[0])) as tmp:
        for folder, part, member in zip(smk.params.folders, smk.input.parts, smk.params.members, strict=True):
            source = input_path(part, member).resolve()
            if not source.exists():
                raise FileNotFoundError(f"SentEval folder {folder}: {source} does not exist")
            target = tmp / folder
            target.parent.mkdir(parents=True, exist_ok=True)
            # A link, not a copy: the parts stay where the download rule put them.
            os.symlink(source, target, target_is_directory=source.is_dir())
            log.info("%s -> %s", folder, source)
