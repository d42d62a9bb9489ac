"""Study D's bias score of SNLI sentences before and after D's gender swap (rule cross_study_bias_swap)."""

from pathlib import Path

from cdaflow.cross_study.bias_swap import bias_scores_of_swapped
from cdaflow.cross_study.statistics import bias_summary
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.bias_scorer import infersent_scorer_of_rule
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.nli import read_snli
from cdaflow.sentence_bias.swap import Swapper, read_ssa_names

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    score = infersent_scorer_of_rule(smk)
    # The swapper of rule sentence_bias_corpora: Appendix A's word pairs and the top SSA names.
    ssa = input_path(smk.input.names, p.ssa_member)
    female, male = read_ssa_names(ssa, n=p.names) if ssa else ([], [])
    swapper = Swapper.from_tsv(female_names_by_rank=female, male_names_by_rank=male, n_names=p.names)
    sentences = [
        sentence
        for split in ("train", "dev", "test")
        for pair in read_snli(Path(smk.input.snli) / f"snli_1.0_{split}.jsonl")
        for sentence in (pair.premise, pair.hypothesis)
    ]
    table = bias_scores_of_swapped(sentences, swapper, score)
    write_tsv_atomic(table, Path(smk.output.scores))
    summary = bias_summary(table, comparison="snli_swapped", seed=p.seed)
    summary.insert(0, "scale", p.scale)
    write_tsv_atomic(summary, Path(smk.output.summary))
    log.info("%d swapped sentences scored", len(table))
