"""Train the OpenNMT-py copy-attention transfer model, objective → subjective (rule gap_subjective_transfer_train)."""

import json
import shutil
from pathlib import Path

from cdaflow.gap_subjective.pieces import encode_pieces
from cdaflow.gap_subjective.reports import transfer_table
from cdaflow.gap_subjective.transfer import TransferSettings
from cdaflow.gap_subjective.transfer_training import train_transfer, validation_metrics
from cdaflow.io.atomic import atomic_directory, atomic_file
from cdaflow.io.resume import remove_resume_folder
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    gpu = rule_device(smk) == "cuda"
    settings = TransferSettings.from_config({"seed": p.seed, **p.settings})
    train_src, train_tgt, valid_src, valid_tgt = smk.input.data
    # Training runs in a folder that outlives a killed job (not an output: Snakemake deletes those); a retry
    # goes on from its last checkpoint. The tokenised data lives there too, at a path that stays the same.
    work = Path(p.checkpoints)
    pieces = work / "pieces"
    with atomic_directory(Path(smk.output.model)) as tmp:
        for source in smk.input.data:  # SentencePiece-tokenised copies of the WNC split
            lines = Path(source).read_text(encoding="utf-8").splitlines()
            encoded = encode_pieces(smk.input.spm, lines)
            with atomic_file(pieces / Path(source).name) as handle:
                handle.write("".join(f"{line}\n" for line in encoded))
        tool_log = Path(smk.log[0]).with_suffix(".onmt.log")  # timings stay out of the model folder
        if not (work / "onmt").exists():  # the tools append: a fresh training's lines only, a resumed one's kept
            tool_log.unlink(missing_ok=True)
        checkpoint = train_transfer(
            *(pieces / Path(name).name for name in (train_src, train_tgt, valid_src, valid_tgt)),
            tmp / "onmt", settings, gpu=gpu, threads=smk.threads, log_path=tool_log, resume_dir=work / "onmt",
        )
        shutil.copy2(smk.input.spm, tmp / "spm.model")
        metrics = validation_metrics(tool_log.read_text(encoding="utf-8"))
        manifest = {
            "checkpoint": str(Path("onmt") / checkpoint.name),
            "spm_model": "spm.model",
            "beam_size": settings.beam_size,
            "max_length": settings.max_length,
            "settings": settings.to_dict() if hasattr(settings, "to_dict") else vars(settings),
            "validation": metrics,
        }
        (tmp / "transfer.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log.info("trained %s on %s; validation %s", checkpoint.name, "GPU" if gpu else "CPU", metrics)
    train_pairs, valid_pairs = (sum(1 for _ in open(path, encoding="utf-8")) for path in (train_src, valid_src))
    table = transfer_table(train_pairs, valid_pairs, settings, metrics, p.scale)
    write_tsv_atomic(table, Path(smk.output.table))
    remove_resume_folder(work)  # the model is kept: the resume state is not needed any more
