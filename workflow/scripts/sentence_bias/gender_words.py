"""The gender word list L (rule sentence_bias_gender_words)."""

from pathlib import Path

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.pipeline.runtime import input_path, rule_context
from cdaflow.sentence_bias.reports import gender_words_table
from cdaflow.sentence_bias.wordlist import build_gender_word_list

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    debiaswe, gn_glove_dir, ssa = (
        input_path(smk.input[key], p.members[key]) for key in ("debiaswe", "gn_glove", "ssa")
    )
    gn_glove = (
        [gn_glove_dir / name for name in ("male_word_file.txt", "female_word_file.txt")]
        if gn_glove_dir
        else []
    )
    words = build_gender_word_list(
        debiaswe_full=debiaswe / "gender_specific_full.json" if debiaswe else None,
        gn_glove_files=gn_glove,
        names_sources=ssa,
        names_top=p.top,
    )
    words.save(smk.output.words)
    counts = words.counts()
    write_tsv_atomic(gender_words_table(counts, p.scale), Path(smk.output.counts))
    log.info("L: %s", counts)
