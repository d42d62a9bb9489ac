# Study C (Pant & Dadu 2022): GAP-Subjective. A subjectivity detector and a copy-attention style
# transfer model are trained on the Wiki Neutrality Corpus; every GAP sentence is detected,
# transferred and thresholded; the contexts are rebuilt with new offsets; a BERT-feature MLP is
# benchmarked on GAP and GAP-Subjective. Logic: src/cdaflow/gap_subjective/; each rule
# gap_subjective_<stage> runs workflow/scripts/gap_subjective/<stage>.py, logs to
# logs/gap_subjective/<stage>, writes results/gap_subjective/<stage>/ or a named paper table.


GS = config["studies"]["gap_subjective"]
GS_OUT = "results/gap_subjective"
GAP_SPLITS = ("development", "validation", "test")
# One split of each dataset the benchmark reads: GAP as validated (first `max_contexts`), and the release.
GS_GAP_FILES = {
    "gap": f"{GS_OUT}/sentences/gap-{{gap_split}}.tsv",
    "gap_subjective": f"{GS_OUT}/GAP-Subjective/gap-{{gap_split}}.tsv",
}
# Benchmark (§4.2, Table 8): the MLP trains on GAP development; it is scored on both tests.
GS_FEATURE_SETS = [("gap", "development"), ("gap", "test"), ("gap_subjective", "test")]
GS_FLUENCY_LM = [f"{GS_OUT}/fluency/lm"] if GS["fluency"]["backend"] == "lstm" else []

STUDY_TARGETS["gap_subjective"] = (
    [
        f"{GS_OUT}/{name}"
        for name in (
            "wnc_stats.tsv",
            "table_detector.tsv",
            "table_transfer.tsv",
            "table2_thresholding.tsv",
            "table3_examples.md",
            "table4_converted.tsv",
            "table7_offsets.tsv",
            "table8_benchmark.tsv",
            "human_eval/sheet.tsv",
            "subjectivizer/manifest.json",
        )
    ]
    + [GS_GAP_FILES["gap_subjective"].format(gap_split=split) for split in GAP_SPLITS]
    + ([f"{GS_OUT}/table6_human_eval.tsv"] if GS["human_eval"]["ratings"] else [])
    if enabled("gap_subjective")
    else []
)


rule gap_subjective_wnc:
    """WNC pairs (objective, subjective), and the style transfer's train/valid split."""
    input:
        wnc=file_ref_input(GS.get("wnc")),
    output:
        pairs=f"{GS_OUT}/wnc/pairs.tsv",
        transfer=expand(f"{GS_OUT}/wnc/transfer/{{part}}.{{side}}", part=("train", "valid"), side=("src", "tgt")),
        stats=study_report(f"{GS_OUT}/wnc_stats.tsv", "gap_subjective", "wnc"),
    log:
        "logs/gap_subjective/wnc.log",
    params:
        member=file_ref_member(GS.get("wnc")),
        layout=GS["wnc_layout"],
        max_pairs=GS["wnc_max_pairs"],
        valid_size=GS["transfer"]["valid_size"],
        seed=config["seed"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/wnc.py"


rule gap_subjective_detector:
    """Fine-tune the subjectivity detector on WNC sentences, 90:10 split (§3.2.1)."""
    input:
        pairs=f"{GS_OUT}/wnc/pairs.tsv",
        model=model_ref_input(GS["detector"]["model"]),
    output:
        model=directory(f"{GS_OUT}/detector/model"),
        predictions=f"{GS_OUT}/detector/test_predictions.tsv",
        table=study_report(f"{GS_OUT}/table_detector.tsv", "gap_subjective", "detector"),
    log:
        "logs/gap_subjective/detector.log",
    benchmark:
        "results/benchmarks/gap_subjective/detector.tsv"
    params:
        settings=GS["detector"],
        model_member=file_ref_member(GS["detector"]["model"]),
        seed=config["seed"],
        scale=config["scale"],
        # resume state kept when the job fails (not an output, which Snakemake deletes); removed once written
        checkpoints=f"{GS_OUT}/.checkpoints/detector",
    threads: THREADS
    resources:
        **job_resources("gap_subjective_detector"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/detector.py"


rule gap_subjective_sentences:
    """One GAP split, validated (first `max_contexts`), cut into sentences with their offsets."""
    input:
        gap=file_ref_input(GS.get("gap")),
    output:
        gap=GS_GAP_FILES["gap"],
        sentences=f"{GS_OUT}/sentences/{{gap_split}}.tsv",
    log:
        "logs/gap_subjective/sentences/{gap_split}.log",
    params:
        member=file_ref_member(GS.get("gap")),
        max_contexts=GS["max_contexts"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/sentences.py"


rule gap_subjective_subjectivity:
    """The detector's P(subjective) for every sentence of one GAP split (Table 2's objective column)."""
    input:
        model=f"{GS_OUT}/detector/model",
        sentences=f"{GS_OUT}/sentences/{{gap_split}}.tsv",
    output:
        f"{GS_OUT}/subjectivity/{{gap_split}}.tsv",
    log:
        "logs/gap_subjective/subjectivity/{gap_split}.log",
    benchmark:
        "results/benchmarks/gap_subjective/subjectivity/{gap_split}.tsv"
    params:
        threshold=GS["detector"]["threshold"],
    threads: THREADS
    resources:
        **job_resources("gap_subjective_subjectivity"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/subjectivity.py"


rule gap_subjective_transfer_spm:
    """SentencePiece for the transfer model, numbers as user-defined symbols (§3.2.2)."""
    input:
        texts=file_ref_input(GS["transfer"].get("spm_corpus")) or expand(f"{GS_OUT}/wnc/transfer/train.{{side}}", side=("src", "tgt")),
    output:
        model=f"{GS_OUT}/transfer/spm.model",
        vocab=f"{GS_OUT}/transfer/spm.vocab",
    log:
        "logs/gap_subjective/transfer_spm.log",
    benchmark:
        "results/benchmarks/gap_subjective/transfer_spm.tsv"
    params:
        member=file_ref_member(GS["transfer"].get("spm_corpus")),
        vocab_size=GS["transfer"]["vocab_size"],
        max_number_symbols=GS["transfer"]["max_number_symbols"],
    threads: THREADS
    resources:
        **job_resources("gap_subjective_transfer_spm", backend="cpu"),  # CPU work only
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/transfer_spm.py"


rule gap_subjective_transfer_train:
    """OpenNMT-py: BiLSTM encoder, MLP attention, copy attention, objective → subjective (§3.2.2)."""
    input:
        spm=f"{GS_OUT}/transfer/spm.model",
        data=expand(f"{GS_OUT}/wnc/transfer/{{part}}.{{side}}", part=("train", "valid"), side=("src", "tgt")),
    output:
        model=directory(f"{GS_OUT}/transfer/model"),
        table=study_report(f"{GS_OUT}/table_transfer.tsv", "gap_subjective", "transfer"),
    log:
        "logs/gap_subjective/transfer_train.log",
    benchmark:
        "results/benchmarks/gap_subjective/transfer_train.tsv"
    params:
        settings=GS["transfer"]["onmt"],
        seed=config["seed"],
        scale=config["scale"],
        # resume state kept when the job fails (not an output, which Snakemake deletes); removed once written
        checkpoints=f"{GS_OUT}/.checkpoints/transfer_train",
    threads: THREADS
    resources:
        **job_resources("gap_subjective_transfer_train"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/transfer_train.py"


rule gap_subjective_transfer:
    """Transfer every sentence of one GAP split (our copy-attention inference wrapper)."""
    input:
        model=f"{GS_OUT}/transfer/model",
        sentences=f"{GS_OUT}/sentences/{{gap_split}}.tsv",
    output:
        f"{GS_OUT}/transfer/output/{{gap_split}}.tsv",
    log:
        "logs/gap_subjective/transfer/{gap_split}.log",
    benchmark:
        "results/benchmarks/gap_subjective/transfer/{gap_split}.tsv"
    params:
    threads: THREADS
    resources:
        **job_resources("gap_subjective_transfer"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/transfer.py"


rule gap_subjective_fluency_lm:
    """Offline fluency LM (backend lstm): SentencePiece + LSTM LM trained on the WNC text."""
    input:
        pairs=f"{GS_OUT}/wnc/pairs.tsv",
    output:
        directory(f"{GS_OUT}/fluency/lm"),
    log:
        "logs/gap_subjective/fluency_lm.log",
    benchmark:
        "results/benchmarks/gap_subjective/fluency_lm.tsv"
    params:
        settings=GS["fluency"],
        seed=config["seed"],
        # resume state kept when the job fails (not an output, which Snakemake deletes); removed once written
        checkpoints=f"{GS_OUT}/.checkpoints/fluency_lm",
    threads: THREADS
    resources:
        **job_resources("gap_subjective_fluency_lm"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/fluency_lm.py"


rule gap_subjective_threshold:
    """GLEU, perplexity change and original attribute of each transferred sentence; verdicts (§3.2.3)."""
    input:
        transfer=f"{GS_OUT}/transfer/output/{{gap_split}}.tsv",
        subjectivity=f"{GS_OUT}/subjectivity/{{gap_split}}.tsv",
        lm=GS_FLUENCY_LM[0] if GS_FLUENCY_LM else model_ref_input(GS["fluency"]["model"]),
    output:
        f"{GS_OUT}/threshold/{{gap_split}}.tsv",
    log:
        "logs/gap_subjective/threshold/{gap_split}.log",
    benchmark:
        "results/benchmarks/gap_subjective/threshold/{gap_split}.tsv"
    params:
        fluency=GS["fluency"],
        lm_member=file_ref_member(GS["fluency"]["model"]),
        thresholds=GS["thresholds"],
        detector_threshold=GS["detector"]["threshold"],
    threads: THREADS
    resources:
        **job_resources("gap_subjective_threshold"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/threshold.py"


rule gap_subjective_offsets:
    """GAP-Subjective: contexts rebuilt from kept sentences, offsets found again, else the original (§3.2.5)."""
    input:
        gap=GS_GAP_FILES["gap"],
        sentences=f"{GS_OUT}/sentences/{{gap_split}}.tsv",
        verdicts=f"{GS_OUT}/threshold/{{gap_split}}.tsv",
    output:
        gap=f"{GS_OUT}/GAP-Subjective/gap-{{gap_split}}.tsv",
        offsets=f"{GS_OUT}/offsets/{{gap_split}}.tsv",
    log:
        "logs/gap_subjective/offsets/{gap_split}.log",
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/offsets.py"


rule gap_subjective_tables:
    """Tables 2, 4 and 7, and Table 3's examples of kept transfers."""
    input:
        verdicts=expand(f"{GS_OUT}/threshold/{{gap_split}}.tsv", gap_split=GAP_SPLITS),
        offsets=expand(f"{GS_OUT}/offsets/{{gap_split}}.tsv", gap_split=GAP_SPLITS),
    output:
        table2=study_report(f"{GS_OUT}/table2_thresholding.tsv", "gap_subjective", "tables"),
        table3=study_report(f"{GS_OUT}/table3_examples.md", "gap_subjective", "tables"),
        table4=study_report(f"{GS_OUT}/table4_converted.tsv", "gap_subjective", "tables"),
        table7=study_report(f"{GS_OUT}/table7_offsets.tsv", "gap_subjective", "tables"),
    log:
        "logs/gap_subjective/tables.log",
    params:
        splits=list(GAP_SPLITS),
        seed=config["seed"],
        scale=config["scale"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/tables.py"


rule gap_subjective_benchmark_features:
    """Contextual features of pronoun, A and B (Yang et al. 2019) for one dataset split."""
    input:
        gap=lambda wc: GS_GAP_FILES[wc.dataset].format(gap_split=wc.gap_split),
        encoder=model_ref_input(GS["benchmark"]["encoder"]),
    output:
        f"{GS_OUT}/benchmark/features/{{dataset}}/{{gap_split}}.npz",
    wildcard_constraints:
        dataset="gap|gap_subjective",
    log:
        "logs/gap_subjective/benchmark_features/{dataset}/{gap_split}.log",
    benchmark:
        "results/benchmarks/gap_subjective/benchmark_features/{dataset}/{gap_split}.tsv"
    params:
        settings=GS["benchmark"],
        encoder_member=file_ref_member(GS["benchmark"]["encoder"]),
    threads: THREADS
    resources:
        **job_resources("gap_subjective_benchmark_features"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/benchmark_features.py"


rule gap_subjective_benchmark:
    """Table 8: the MLP trained on GAP development, scored on GAP and GAP-Subjective test (official scorer)."""
    input:
        features=[f"{GS_OUT}/benchmark/features/{dataset}/{split}.npz" for dataset, split in GS_FEATURE_SETS],
        gold=[GS_GAP_FILES[dataset].format(gap_split=split) for dataset, split in GS_FEATURE_SETS],
    output:
        table=study_report(f"{GS_OUT}/table8_benchmark.tsv", "gap_subjective", "benchmark"),
        predictions=expand(f"{GS_OUT}/benchmark/predictions/{{dataset}}-test.tsv", dataset=("gap", "gap_subjective")),
    log:
        "logs/gap_subjective/benchmark.log",
    benchmark:
        "results/benchmarks/gap_subjective/benchmark.tsv"
    params:
        sets=GS_FEATURE_SETS,
        mlp=GS["benchmark"]["mlp"],
        seed=config["seed"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("gap_subjective_benchmark"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/benchmark.py"


rule gap_subjective_human_eval_sheet:
    """A randomised, blinded rating sheet: kept transfers and other originals (§3.2.4)."""
    input:
        verdicts=expand(f"{GS_OUT}/threshold/{{gap_split}}.tsv", gap_split=GAP_SPLITS),
    output:
        sheet=f"{GS_OUT}/human_eval/sheet.tsv",
        key=f"{GS_OUT}/human_eval/key.tsv",
    log:
        "logs/gap_subjective/human_eval_sheet.log",
    params:
        per_group=GS["human_eval"]["per_group"],
        seed=config["seed"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/human_eval_sheet.py"


rule gap_subjective_human_eval_table:
    """Table 6 from the judges' filled sheets (`human_eval.ratings`)."""
    input:
        key=f"{GS_OUT}/human_eval/key.tsv",
        ratings=GS["human_eval"]["ratings"],
    output:
        study_report(f"{GS_OUT}/table6_human_eval.tsv", "gap_subjective", "human_eval"),
    log:
        "logs/gap_subjective/human_eval_table.log",
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/gap_subjective/human_eval_table.py"


rule gap_subjective_subjectivizer:
    """A manifest tying transfer model, detector, fluency LM and thresholds together for `cdaflow subjectivize`."""
    input:
        transfer=f"{GS_OUT}/transfer/model",
        detector=f"{GS_OUT}/detector/model",
        detector_table=f"{GS_OUT}/table_detector.tsv",
        lm=GS_FLUENCY_LM,
    output:
        f"{GS_OUT}/subjectivizer/manifest.json",
    log:
        "logs/gap_subjective/subjectivizer.log",
    params:
        fluency=GS["fluency"],
        thresholds=GS["thresholds"],
        threshold=GS["detector"]["threshold"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/gap_subjective/subjectivizer.py"


rule gap_subjective_models:
    """Only the folder `cdaflow subjectivize` loads: transfer model, detector and fluency LM bundled."""
    input:
        [f"{GS_OUT}/subjectivizer/manifest.json"] if enabled("gap_subjective") else [],
