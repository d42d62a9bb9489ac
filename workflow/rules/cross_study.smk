# Cross-study comparisons and scale notes: Study A's CDA on Study B's test
# sets, Study D's bias score on D-swapped SNLI and on Study C's GAP-Subjective, and the measured cost
# of every rule with the paper-scale run it implies. Logic: src/cdaflow/cross_study/, pipeline/scale_notes.py.
# Included after every study's rule file: it reads their paths and final targets.

from cdaflow.pipeline.scale_notes import rule_benchmarks, rules_with_gpu

CS_OUT = "results/cross_study"
# Study A's packaged Spanish model (written by morph_cda_evaluate), the one `cdaflow cda` uses by default.
CS_CDA_MODEL = f"{MORPH_OUT}/es/models/lin"
CS_B_SYSTEMS = sorted(REG_SYSTEMS, key=lambda system: system != RULES)  # B's rules first, then its rewriters
CS_A_SYSTEMS = ("cda", "cda_adjectives")
# Study B's output of each system on each test set.
CS_B_OUTPUTS = [path for system in CS_B_SYSTEMS for path in REG_SYSTEM_OUTPUTS[system]]
# Everything Study D's bias score needs (as sentence_bias_score_snli).
CS_D_INPUTS = {
    "encoder": SB_ENCODER,
    "direction": f"{SB_OUT}/gender_direction.npy",
    "words": f"{SB_OUT}/gender_words.txt",
    "vectors": f"{SB_OUT}/vectors",
}
CS_D_PARAMS = {
    "encoder_member": file_ref_member(SB.get("pretrained_infersent")),
    "pretrained": bool(SB.get("pretrained_infersent")),
}
# The comparisons whose studies are all enabled.
CS_COMPARISONS = (
    [f"{CS_OUT}/cda_regender.tsv"]
    if enabled("morph_cda") and enabled("regender") and "es" in MORPH["languages"]
    else []
) + (
    [f"{CS_OUT}/bias_swap.tsv"]
    + ([f"{CS_OUT}/gap_subjective_bias.tsv"] if enabled("gap_subjective") else [])
    if enabled("sentence_bias")
    else []
)
# Final targets of every enabled study: the scale notes wait for them (all benchmarks written).
CS_STUDY_TARGETS = [
    path
    for study, targets in STUDY_TARGETS.items()
    if study in config["studies"] and enabled(study)
    for path in targets
]
# all_targets() (helpers.smk) adds these after every study's own.
CROSS_STUDY_TARGETS = CS_COMPARISONS + [
    f"{CS_OUT}/{name}" for name in ("scale_measured.tsv", "scale_rules.tsv", "scale_estimate.tsv")
]

rule cross_study_cda_regender:
    """Study A's MRF CDA (animate nouns; with character adjectives added) on Study B's test sets, scored as B's systems."""
    input:
        model=CS_CDA_MODEL,
        gold=list(REG_TESTSETS.values()),
        b_outputs=CS_B_OUTPUTS,
        adjectives="resources/cross_study/character_adjectives.es.txt",  # the character adjectives, Jain et al. 2021 §6
        stanza=stanza_models.parse_inputs(config, config["parsing"]["corpora"], "es"),  # parses Spanish with the corpus backend
    output:
        table=study_report(f"{CS_OUT}/cda_regender.tsv", "cross_study", "cda_regender"),
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
    threads: THREADS
    resources:
        **job_resources("cross_study_cda_regender", config["parsing"]["corpora"]),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cross_study/cda_regender.py"


rule cross_study_bias_swap:
    """Study D's bias score of SNLI sentences before and after D's own gender swap (Appendix A lists, SSA names)."""
    input:
        snli=f"{SB_OUT}/snli",
        names=file_ref_input(SB.get("ssa_names")),
        **CS_D_INPUTS,
    output:
        scores=f"{CS_OUT}/bias_swap/scores.tsv",
        summary=study_report(f"{CS_OUT}/bias_swap.tsv", "cross_study", "bias_swap"),
    log:
        "logs/cross_study/bias_swap.log",
    benchmark:
        "results/benchmarks/cross_study/bias_swap.tsv"
    params:
        ssa_member=file_ref_member(SB.get("ssa_names")),
        names=SB["names_swapped"],
        seed=config["seed"],
        scale=config["scale"],
        **CS_D_PARAMS,
    threads: THREADS
    resources:
        **job_resources("cross_study_bias_swap"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cross_study/bias_swap.py"


rule cross_study_gap_subjective_bias:
    """Study D's bias score of every GAP sentence Study C transferred and of its GAP-Subjective counterpart."""
    input:
        gap=expand(GS_GAP_FILES["gap"], gap_split=GAP_SPLITS),
        subjective=expand(GS_GAP_FILES["gap_subjective"], gap_split=GAP_SPLITS),
        **CS_D_INPUTS,
    output:
        scores=f"{CS_OUT}/gap_subjective_bias/scores.tsv",
        summary=study_report(f"{CS_OUT}/gap_subjective_bias.tsv", "cross_study", "gap_subjective_bias"),
    log:
        "logs/cross_study/gap_subjective_bias.log",
    benchmark:
        "results/benchmarks/cross_study/gap_subjective_bias.tsv"
    params:
        splits=list(GAP_SPLITS),
        seed=config["seed"],
        scale=config["scale"],
        **CS_D_PARAMS,
    threads: THREADS
    resources:
        **job_resources("cross_study_gap_subjective_bias"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/cross_study/gap_subjective_bias.py"


rule cross_study_scale_notes:
    """Each rule's measured wall time, CPU time and peak memory (benchmark files); paper-scale CPU/GPU hours per study."""
    input:
        CS_STUDY_TARGETS,
        CS_COMPARISONS,
        # each heavy rule's item (what its work grows with): data, so that editing one reruns only this rule
        jobs="resources/jobs.yaml",
        speedups="resources/jobs_gpu.tsv",  # each GPU rule family's measured speed-up (benchmarks/gpu_speedup.py)
    output:
        measured=study_report(f"{CS_OUT}/scale_measured.tsv", "cross_study", "scale_notes"),
        rules=f"{CS_OUT}/scale_rules.tsv",
        estimate=study_report(f"{CS_OUT}/scale_estimate.tsv", "cross_study", "scale_notes"),
    log:
        "logs/cross_study/scale_notes.log",
    params:
        benchmarks="results/benchmarks",
        results=lambda wildcards, output: str(Path(output.measured).parents[1]),
        # Functions of the wildcards: evaluated when the job runs, once every rule file is read.
        patterns=lambda wildcards: rule_benchmarks(workflow.rules),
        gpu_rules=lambda wildcards: rules_with_gpu(workflow.rules),
        gpu_speedup=config["cross_study"]["gpu_speedup"],
        scale=config["scale"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/cross_study/scale_notes.py"
