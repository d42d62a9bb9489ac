"""Train one Sockeye transformer rewriter (rule regender_train)."""

from pathlib import Path

import torch

from cdaflow.io.atomic import atomic_directory
from cdaflow.regender.rewriter import run_sockeye, train_command
from cdaflow.runtime import rule_context

with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    use_cpu = not (smk.resources.gpu and torch.cuda.is_available())
    with atomic_directory(Path(smk.output[0])) as tmp:
        tmp.rmdir()  # sockeye-train refuses an existing output folder without --overwrite-output
        arguments = train_command(smk.input.prepared, smk.input.dev[0], smk.input.dev[1], tmp,
                                  smk.params.settings, seed=smk.params.seed, use_cpu=use_cpu)
        run_sockeye("sockeye-train", arguments, log_path=smk.log[0],
                    env={"OMP_NUM_THREADS": str(smk.threads), "MKL_NUM_THREADS": str(smk.threads)})
    log.info("trained %s on %s", smk.output[0], "CPU" if use_cpu else "GPU")
