"""Rewrite one test set with one Sockeye set-up (rule regender_translate)."""

import tempfile
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.rewriter import add_tags, apply_bpe, remove_bpe, run_sockeye
from cdaflow.regender.testsets import read_tagged_test_set

with rule_context(snakemake) as (smk, log):  # noqa: F821
    setup = smk.wildcards.setup
    records = read_tagged_test_set(smk.input.testset)
    sources = [r["text"] or " ".join(r["tokens"]) for r in records]
    if setup == "nmt_t":
        sources = add_tags(sources, [r["label"] for r in records])  # gold tags
    elif setup == "nmt_at":
        sources = add_tags(sources, Path(smk.input.tags).read_text(encoding="utf-8").splitlines())
    use_cpu = rule_device(smk) == "cpu"
    with tempfile.TemporaryDirectory() as work:
        source_path, output_path = Path(work) / "input.bpe", Path(work) / "output.bpe"
        source_path.write_text("".join(line + "\n" for line in apply_bpe(smk.input.bpe, sources)), encoding="utf-8")
        arguments = ["--models", smk.input.model, "--input", source_path, "--output", output_path,
                     "--beam-size", smk.params.beam_size, "--seed", smk.params.seed]
        run_sockeye("sockeye-translate", arguments + (["--use-cpu"] if use_cpu else []), log_path=smk.log[0],
                    env={"OMP_NUM_THREADS": str(smk.threads)})
        outputs = remove_bpe(smk.input.bpe, output_path.read_text(encoding="utf-8").splitlines())
    if len(outputs) != len(sources):
        raise RuntimeError(f"sockeye-translate returned {len(outputs)} lines for {len(sources)} inputs")
    with atomic_file(smk.output[0], "w") as handle:
        handle.writelines(line + "\n" for line in outputs)
    log.info("%s: %d segments rewritten", setup, len(outputs))
