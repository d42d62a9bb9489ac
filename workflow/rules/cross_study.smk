# Cross-study comparisons and scale notes: Study A's CDA on Study B's test
# sets, Study D's bias score on D-swapped SNLI and on Study C's GAP-Subjective, and the measured cost
# of every rule with the paper-scale run it implies. Logic: src/cdaflow/cross_study.py, scale_notes.py.


CS_OUT = "results/cross_study"  # the report outputs below spell it out: tests/test_reporting.py reads them
# Study A's packaged Spanish model (written by morph_cda_evaluate), the one `cdaflow cda` uses by default.
CS_CDA_MODEL = "results/morph_cda/es/models/lin"
CS_B_SYSTEMS = ("rules", "nmt", "nmt_t", "nmt_at")
CS_A_SYSTEMS = ("cda", "cda_adjectives")


def cs_b_output(system, testset):
    """Study B's output of one system on one test set."""
    if system == "rules":
        return f"{REG_OUT}/rules/output/{testset}.txt"
    return f"{REG_OUT}/rewriter/{system}/output/{testset}.txt"


def cs_d_encoder():
    """The encoder that sb_score_snli scores with: the pretrained InferSent, else the one trained on SNLI."""
    return file_ref_input(SB.get("pretrained_infersent")) or [f"{SB_OUT}/models/original"]


def cs_d_inputs():
    """Everything Study D's bias score needs (as sb_score_snli)."""
    return {
        "encoder": cs_d_encoder(),
        "direction": f"{SB_OUT}/gender_direction.npy",
        "words": f"{SB_OUT}/gender_words.txt",
        "vectors": f"{SB_OUT}/vectors",
    }


def cs_d_params():
    return {
        "encoder_member": file_ref_member(SB.get("pretrained_infersent")),
        "pretrained": bool(SB.get("pretrained_infersent")),
    }


def cs_comparison_targets():
    """The comparisons whose studies are all enabled."""
    targets = []
    if enabled("morph_cda") and enabled("regender") and "es" in morph_languages():
        targets.append(f"{CS_OUT}/cda_regender.tsv")
    if enabled("sentence_bias"):
        targets.append(f"{CS_OUT}/bias_swap.tsv")
        if enabled("gap_subjective"):
            targets.append(f"{CS_OUT}/gap_subjective_bias.tsv")
    return targets


def cross_study_targets():
    return cs_comparison_targets() + [
        f"{CS_OUT}/{name}" for name in ("scale_measured.tsv", "scale_rules.tsv", "scale_estimate.tsv")
    ]


def cs_study_targets():
    """Final targets of every enabled study: the scale notes wait for them (all benchmarks written)."""
    return [
        path
        for study, targets_of in STUDY_TARGETS.items()
        if study != "cross_study" and study in config["studies"] and enabled(study)
        for path in targets_of()
    ]


def cs_benchmark_patterns():
    """Rule name -> its `benchmark:` pattern, for naming the benchmark files (read at job time)."""
    return {r.name: str(r.benchmark) for r in workflow.rules if r.benchmark is not None}


def cs_gpu_rules():
    """Rules that ask for a GPU (a `gpu` resource): where the paper-scale run would use one."""
    return sorted(r.name for r in workflow.rules if r.resources is not None and "gpu" in r.resources)


rule cs_cda_regender:
    """Study A's MRF CDA (animate nouns; with character adjectives added) on Study B's test sets, scored as B's systems."""
    input:
        model=CS_CDA_MODEL,
        gold=list(REG_TESTSETS.values()),
        b_outputs=[cs_b_output(system, testset) for system in CS_B_SYSTEMS for testset in REG_TESTSETS],
    output:
        table=report("results/cross_study/cda_regender.tsv", caption="../report/cross_study.rst", category="Cross-study"),
        outputs=[f"{CS_OUT}/cda_regender/{system}/{testset}.txt" for system in CS_A_SYSTEMS for testset in REG_TESTSETS],
    log:
        "logs/cross_study/cda_regender.log",
    benchmark:
        "results/benchmarks/cross_study/cda_regender.tsv"
    params:
        testsets=list(REG_TESTSETS),
        b_systems=list(CS_B_SYSTEMS),
        a_systems=list(CS_A_SYSTEMS),
        out=lambda wildcards, output: str(Path(output.outputs[0]).parents[1]),
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(config["parsing"]["corpora"]),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cs_cda_regender.py"


rule cs_bias_swap:
    """Study D's bias score of SNLI sentences before and after D's own gender swap (Appendix A lists, SSA names)."""
    input:
        snli=f"{SB_OUT}/snli",
        names=file_ref_input(SB.get("ssa_names")),
        **cs_d_inputs(),
    output:
        scores=f"{CS_OUT}/bias_swap/scores.tsv",
        summary=report("results/cross_study/bias_swap.tsv", caption="../report/cross_study.rst", category="Cross-study"),
    log:
        "logs/cross_study/bias_swap.log",
    benchmark:
        "results/benchmarks/cross_study/bias_swap.tsv"
    params:
        ssa_member=file_ref_member(SB.get("ssa_names")),
        names=SB["names_swapped"],
        seed=config["seed"],
        scale=config["scale"],
        **cs_d_params(),
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cs_bias_swap.py"


rule cs_gap_subjective_bias:
    """Study D's bias score of every GAP sentence Study C transferred and of its GAP-Subjective counterpart."""
    input:
        gap=expand(GS_GAP_FILES["gap"], gap_split=GAP_SPLITS),
        subjective=expand(GS_GAP_FILES["gap_subjective"], gap_split=GAP_SPLITS),
        **cs_d_inputs(),
    output:
        scores=f"{CS_OUT}/gap_subjective_bias/scores.tsv",
        summary=report("results/cross_study/gap_subjective_bias.tsv", caption="../report/cross_study.rst", category="Cross-study"),
    log:
        "logs/cross_study/gap_subjective_bias.log",
    benchmark:
        "results/benchmarks/cross_study/gap_subjective_bias.tsv"
    params:
        splits=list(GAP_SPLITS),
        seed=config["seed"],
        scale=config["scale"],
        **cs_d_params(),
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cs_gap_subjective_bias.py"


rule cs_scale_notes:
    """Each rule's measured wall time, CPU time and peak memory (benchmark files); paper-scale CPU/GPU hours per study."""
    input:
        cs_study_targets(),
        cs_comparison_targets(),
    output:
        measured=report("results/cross_study/scale_measured.tsv", caption="../report/cross_study.rst", category="Cross-study"),
        rules=f"{CS_OUT}/scale_rules.tsv",
        estimate=report("results/cross_study/scale_estimate.tsv", caption="../report/cross_study.rst", category="Cross-study"),
    log:
        "logs/cross_study/scale_notes.log",
    params:
        benchmarks="results/benchmarks",
        results=lambda wildcards, output: str(Path(output.measured).parents[1]),
        # Functions of the wildcards: evaluated when the job runs, once every rule file is read.
        patterns=lambda wildcards: cs_benchmark_patterns(),
        gpu_rules=lambda wildcards: cs_gpu_rules(),
        gpu_speedup=config["cross_study"]["gpu_speedup"],
        scale=config["scale"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/cs_scale_notes.py"
