"""Train one Sockeye transformer rewriter (rule regender_train)."""

import shutil
from pathlib import Path

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.model_card import card_from_rule, write_card
from cdaflow.io.resume import remove_resume_folder
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.rewriter import RESUME_STATE, rewriter_card, settle_model_folder, train_rewriter

with rule_context(snakemake) as (smk, log):  # noqa: F821
    use_cpu = rule_device(smk) == "cpu"
    # Sockeye trains in a folder that outlives a killed job (not an output: Snakemake deletes those); run
    # again, it continues from its last checkpoint. The kept model is a settled copy.
    trained = train_rewriter(smk.input.prepared, smk.input.dev[0], smk.input.dev[1], smk.params.checkpoints,
                             smk.params.settings, seed=smk.params.seed, use_cpu=use_cpu, log_path=smk.log[0],
                             env={"OMP_NUM_THREADS": str(smk.threads), "MKL_NUM_THREADS": str(smk.threads)})
    with atomic_directory(Path(smk.output[0])) as tmp:
        tmp.rmdir()
        shutil.copytree(trained, tmp, ignore=shutil.ignore_patterns(RESUME_STATE))
        # The model folder holds no wall time (the log does), so identical runs give identical folders.
        for checkpoint, wall_times in settle_model_folder(tmp, smk.output[0], trained_in=trained).items():
            log.info("checkpoint %d: %s", checkpoint, " ".join(f"{k}={v}" for k, v in sorted(wall_times.items())))
        write_card(tmp, **card_from_rule(smk, kind="regender-nmt", lang="es", tagged=smk.wildcards.setup == "nmt_t",
                                         **rewriter_card(tmp, smk.input.prepared, smk.input.dev[0])))
    log.info("trained %s on %s", smk.output[0], "CPU" if use_cpu else "GPU")
    remove_resume_folder(smk.params.checkpoints)  # the model is kept: the resume state is not needed any more
