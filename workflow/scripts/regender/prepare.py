"""BPE-encode one set-up's training and dev data and run sockeye-prepare-data (rule regender_prepare)."""

from pathlib import Path

from cdaflow.io.atomic import atomic_directory, atomic_file
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.rewriter import add_tags, apply_bpe, run_sockeye

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    folder = Path(smk.input.corpus[0]).parent
    setup = smk.wildcards.setup

    def side(split, suffix):
        return (folder / f"{split}.{suffix}").read_text(encoding="utf-8").splitlines()

    encoded = {}
    for split in ("train", "dev"):
        source = side(split, "src")
        if setup == "nmt_t":
            source = add_tags(source, side(split, "label"))
        encoded[split] = (apply_bpe(smk.input.bpe, source), apply_bpe(smk.input.bpe, side(split, "tgt")))
    for path, lines in zip(smk.output.dev, encoded["dev"], strict=True):
        with atomic_file(path, "w") as handle:
            handle.writelines(line + "\n" for line in lines)
    with atomic_directory(Path(smk.output.prepared)) as tmp:
        work = tmp.parent / f".{tmp.name}.inputs"
        work.mkdir(exist_ok=True)
        for name, lines in zip(("train.src.bpe", "train.tgt.bpe"), encoded["train"], strict=True):
            (work / name).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        # sockeye-prepare-data creates its output folder itself.
        tmp.rmdir()
        run_sockeye("sockeye-prepare-data", [
            "--source", work / "train.src.bpe", "--target", work / "train.tgt.bpe", "--output", tmp,
            "--shared-vocab", "--max-seq-len", f"{p.max_seq_len}:{p.max_seq_len}",
            "--bucket-width", p.bucket_width, "--seed", p.seed, "--max-processes", 1,
        ], log_path=smk.log[0])
        for path in work.iterdir():
            path.unlink()
        work.rmdir()
    log.info("%s: %d training pairs prepared", setup, len(encoded["train"][0]))
