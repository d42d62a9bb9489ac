"""The NLI corpus in SNLI's own layout, from SNLI jsonl or SentEval's s1/s2/labels (rule sentence_bias_snli)."""

from pathlib import Path

from cdaflow.io.atomic import atomic_directory
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.nli import read_nli_corpus, write_snli_jsonl

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    source = input_path(smk.input.snli, p.member)
    splits = read_nli_corpus(source, p.format, dev_size=p.split["dev"], test_size=p.split["test"], seed=p.seed)
    with atomic_directory(Path(smk.output[0])) as tmp:
        for name, pairs in splits.items():
            write_snli_jsonl(pairs, tmp / f"snli_1.0_{name}.jsonl")
    log.info(
        "%s (%s): %s", source, p.format, ", ".join(f"{len(pairs)} {name}" for name, pairs in splits.items())
    )
