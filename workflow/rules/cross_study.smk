# Cross-study comparisons and scale notes: Study A's CDA on Study B's test
# sets, Study D's bias score on D-swapped SNLI and on Study C's GAP-Subjective, and the measured cost
# of every rule with the paper-scale run it implies. Logic: src/cdaflow/cross_study.py, scale_notes.py.
# Input functions and targets: helpers.smk (cross-study section).


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
        gap=expand(f"{GS_OUT}/gap/gap-{{gap_split}}.tsv", gap_split=GAP_SPLITS),
        subjective=expand(f"{GS_OUT}/GAP-Subjective/gap-{{gap_split}}.tsv", gap_split=GAP_SPLITS),
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
