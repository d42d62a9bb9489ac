"""Train one Sockeye transformer rewriter (rule regender_train)."""

from pathlib import Path

from cdaflow.device import rule_device
from cdaflow.io.atomic import atomic_directory
from cdaflow.io.model_card import card_from_rule, write_card
from cdaflow.regender.rewriter import rewriter_card, run_sockeye, settle_model_folder, train_command
from cdaflow.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    use_cpu = rule_device(smk) == "cpu"
    with atomic_directory(Path(smk.output[0])) as tmp:
        tmp.rmdir()  # sockeye-train refuses an existing output folder without --overwrite-output
        arguments = train_command(smk.input.prepared, smk.input.dev[0], smk.input.dev[1], tmp,
                                  smk.params.settings, seed=smk.params.seed, use_cpu=use_cpu)
        run_sockeye("sockeye-train", arguments, log_path=smk.log[0],
                    env={"OMP_NUM_THREADS": str(smk.threads), "MKL_NUM_THREADS": str(smk.threads)})
        # The model folder holds no wall time (the log does), so identical runs give identical folders.
        for checkpoint, wall_times in settle_model_folder(tmp, smk.output[0]).items():
            log.info("checkpoint %d: %s", checkpoint, " ".join(f"{k}={v}" for k, v in sorted(wall_times.items())))
        write_card(tmp, **card_from_rule(smk, kind="regender-nmt", lang="es", tagged=smk.wildcards.setup == "nmt_t",
                                         **rewriter_card(tmp, smk.input.prepared, smk.input.dev[0])))
    log.info("trained %s on %s", smk.output[0], "CPU" if use_cpu else "GPU")
