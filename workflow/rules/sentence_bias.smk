# Study D (Dolci et al. 2023): the bias score of sentence encoders, SNLI reshaped by it,
# InferSent retrained on each corpus, SEAT and SentEval. Logic: src/cdaflow/sentence_bias/.


SB = config["studies"]["sentence_bias"]
SB_OUT = "results/sentence_bias"
# The SentEval data folder: `senteval.root`, else the one assembled from `senteval.folders`.
SB_SENTEVAL_ROOT = (
    file_ref_input(SB["senteval"]["root"])
    if SB["senteval"].get("root")
    else [f"{SB_OUT}/senteval_data"] if SB["senteval"]["folders"] else []
)
# Training corpora: the original SNLI, then SubNN and AugNN for each percentile.
SB_CORPORA = ["original"] + [
    f"{kind}{int(p) if float(p).is_integer() else p}" for kind in ("sub", "aug") for p in SB["percentiles"]
]
SB_MODELS = SB_CORPORA + (["hard_debias"] if SB["hard_debias"] else [])
# The encoder the bias score uses: the pretrained InferSent, else the one trained on SNLI.
SB_ENCODER = file_ref_input(SB.get("pretrained_infersent")) or [f"{SB_OUT}/train_infersent/original"]

STUDY_TARGETS["sentence_bias"] = [
    f"{SB_OUT}/{name}"
    for name in (
        "gender_direction.tsv",
        "gender_words_counts.tsv",
        "table2_example.tsv",
        "table3_top_sentences.tsv",
        "table5_corpora.tsv",
        "seat.tsv",
        "senteval.tsv",
        "models.tsv",
        "tables6_7_11_seat.tsv",
        "tables8_9_senteval.tsv",
        "table10_senteval_overall.tsv",
    )
] + (
    [f"{SB_OUT}/transformer/{name}" for name in ("gender_direction.tsv", "table12_example.tsv", "table13_examples.tsv")]
    if SB["transformer"]["enabled"]
    else []
)

rule sentence_bias_vectors:
    """GloVe vectors, converted once to a memory-mapped matrix (or the offline package's)."""
    input:
        source=file_ref_input(SB.get("vectors")),
    output:
        directory(f"{SB_OUT}/vectors"),
    log:
        "logs/sentence_bias/vectors.log",
    benchmark:
        "results/benchmarks/sentence_bias/vectors.tsv"
    params:
        spec=SB.get("vectors"),
        member=file_ref_member(SB.get("vectors")),
    resources:
        **job_resources("sentence_bias_vectors", backend="cpu"),  # CPU work only
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/sentence_bias/vectors.py"


rule sentence_bias_snli:
    """The NLI training corpus in SNLI's layout (SentEval-format samples are pooled and re-split)."""
    input:
        snli=file_ref_input(SB.get("snli")),
    output:
        directory(f"{SB_OUT}/snli"),
    log:
        "logs/sentence_bias/snli.log",
    params:
        member=file_ref_member(SB.get("snli")),
        format=SB["snli_format"],
        split=SB["split"],
        seed=config["seed"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/snli.py"


rule sentence_bias_gender_words:
    """The gender word list L (§3.3): gendered nouns in all forms plus SSA given names."""
    input:
        debiaswe=file_ref_input(SB.get("debiaswe")),
        gn_glove=file_ref_input(SB.get("gn_glove")),
        ssa=file_ref_input(SB.get("ssa_names")),
    output:
        words=f"{SB_OUT}/gender_words.txt",
        counts=study_report(f"{SB_OUT}/gender_words_counts.tsv", "sentence_bias", "gender_words"),
    log:
        "logs/sentence_bias/gender_words.log",
    params:
        members={name: file_ref_member(SB.get(key)) for name, key in (("debiaswe", "debiaswe"), ("gn_glove", "gn_glove"), ("ssa", "ssa_names"))},
        top=SB["names_in_list"],
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/gender_words.py"


rule sentence_bias_gender_direction:
    """The gender direction (§3.2): PCA over the paper's 10 pairs, checked against the equalize pairs."""
    input:
        vectors=f"{SB_OUT}/vectors",
        debiaswe=file_ref_input(SB.get("debiaswe")),
    output:
        direction=f"{SB_OUT}/gender_direction.npy",
        table=study_report(f"{SB_OUT}/gender_direction.tsv", "sentence_bias", "gender_direction"),
        plot=study_report(f"{SB_OUT}/gender_direction.png", "sentence_bias", "gender_direction"),
    log:
        "logs/sentence_bias/gender_direction.log",
    params:
        member=file_ref_member(SB.get("debiaswe")),
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/gender_direction.py"


rule sentence_bias_train_infersent:
    """InferSent (BiLSTM-max) trained on one NLI corpus with the paper's settings (§4.3)."""
    input:
        corpus=lambda wc: f"{SB_OUT}/snli" if wc.model in ("original", "hard_debias") else f"{SB_OUT}/corpora/{wc.model}",
        vectors=f"{SB_OUT}/vectors",
        direction=f"{SB_OUT}/gender_direction.npy",
        debiaswe=file_ref_input(SB.get("debiaswe")),
    output:
        directory(f"{SB_OUT}/train_infersent/{{model}}"),
    log:
        "logs/sentence_bias/train_infersent/{model}.log",
    benchmark:
        "results/benchmarks/sentence_bias/train_infersent/{model}.tsv"
    params:
        debiaswe_member=file_ref_member(SB.get("debiaswe")),
        encoder=SB["encoder"],
        training=SB["training"],
        seed=config["seed"],
        # Resume state, kept when the job fails (a wall-time kill): not an output, which Snakemake would
        # delete; the script removes it once the model is written.
        checkpoints=lambda wc: f"{SB_OUT}/.checkpoints/train_infersent/{wc.model}",
    threads: THREADS
    resources:
        **job_resources("sentence_bias_train_infersent"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/train_infersent.py"


rule sentence_bias_score_snli:
    """Bias score of every SNLI training sentence (§3.1, §4.2); Tables 2-3 and Fig. 5."""
    input:
        snli=f"{SB_OUT}/snli",
        encoder=SB_ENCODER,
        direction=f"{SB_OUT}/gender_direction.npy",
        words=f"{SB_OUT}/gender_words.txt",
        vectors=f"{SB_OUT}/vectors",
    output:
        scores=f"{SB_OUT}/snli_scores.tsv",
        table2=study_report(f"{SB_OUT}/table2_example.tsv", "sentence_bias", "score_snli"),
        table3=study_report(f"{SB_OUT}/table3_top_sentences.tsv", "sentence_bias", "score_snli"),
        histogram=study_report(f"{SB_OUT}/fig5_score_histogram.png", "sentence_bias", "score_snli"),
    log:
        "logs/sentence_bias/score_snli.log",
    benchmark:
        "results/benchmarks/sentence_bias/score_snli.tsv"
    params:
        encoder_member=file_ref_member(SB.get("pretrained_infersent")),
        pretrained=bool(SB.get("pretrained_infersent")),
        example=SB["example_sentence"],
        percentiles=SB["percentiles"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("sentence_bias_score_snli"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/score_snli.py"


rule sentence_bias_corpora:
    """SubNN and AugNN corpora (§4.2.1-4.2.2), re-split into train/dev/test."""
    input:
        scores=f"{SB_OUT}/snli_scores.tsv",
        names=file_ref_input(SB.get("ssa_names")),
    output:
        corpora=[directory(f"{SB_OUT}/corpora/{name}") for name in SB_CORPORA if name != "original"],
        table=study_report(f"{SB_OUT}/table5_corpora.tsv", "sentence_bias", "corpora"),
    log:
        "logs/sentence_bias/corpora.log",
    params:
        ssa_member=file_ref_member(SB.get("ssa_names")),
        names=SB["names_swapped"],
        percentiles=SB["percentiles"],
        split=SB["split"],
        out=lambda wc, output: str(Path(output.table).parent / "corpora"),
        seed=config["seed"],
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/corpora.py"


rule sentence_bias_senteval_data:
    """SentEval's data folder, laid out as its get_transfer_data.bash does, from the acquired parts."""
    input:
        parts=[file_ref_input(ref)[0] for ref in SB["senteval"]["folders"].values()],
    output:
        directory(f"{SB_OUT}/senteval_data"),
    log:
        "logs/sentence_bias/senteval_data.log",
    params:
        folders=list(SB["senteval"]["folders"]),
        members=[file_ref_member(ref) for ref in SB["senteval"]["folders"].values()],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/sentence_bias/senteval_data.py"


rule sentence_bias_evaluate:
    """SEAT (§5.1.1) and SentEval (§5.1.2) for one trained encoder."""
    input:
        model=f"{SB_OUT}/train_infersent/{{model}}",
        vectors=f"{SB_OUT}/vectors",
        direction=f"{SB_OUT}/gender_direction.npy",
        debiaswe=file_ref_input(SB.get("debiaswe")),
        seat=file_ref_input(SB["seat"].get("tests")),
        senteval=SB_SENTEVAL_ROOT,
    output:
        seat=f"{SB_OUT}/evaluate/{{model}}/seat.tsv",
        senteval=f"{SB_OUT}/evaluate/{{model}}/senteval.tsv",
    log:
        "logs/sentence_bias/evaluate/{model}.log",
    benchmark:
        "results/benchmarks/sentence_bias/evaluate/{model}.tsv"
    params:
        debiaswe_member=file_ref_member(SB.get("debiaswe")),
        seat_member=file_ref_member(SB["seat"].get("tests")),
        seat=SB["seat"],
        senteval_member=file_ref_member(SB["senteval"].get("root")) if SB["senteval"].get("root") else None,
        tasks=SB["senteval"]["tasks"],
        kfold=SB["senteval"]["kfold"],
        classifier=SB["senteval"]["classifier"],
        seed=config["seed"],
    threads: THREADS
    resources:
        **job_resources("sentence_bias_evaluate"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/evaluate.py"


rule sentence_bias_tables:
    """Tables 6-8 (SEAT, SentEval) across all retrained models, Fig. 6, and the models' NLI accuracy."""
    input:
        seat=expand(f"{SB_OUT}/evaluate/{{model}}/seat.tsv", model=SB_MODELS),
        senteval=expand(f"{SB_OUT}/evaluate/{{model}}/senteval.tsv", model=SB_MODELS),
        models=expand(f"{SB_OUT}/train_infersent/{{model}}", model=SB_MODELS),
    output:
        seat=study_report(f"{SB_OUT}/seat.tsv", "sentence_bias", "tables"),
        senteval=study_report(f"{SB_OUT}/senteval.tsv", "sentence_bias", "tables"),
        models=study_report(f"{SB_OUT}/models.tsv", "sentence_bias", "tables"),
        figure=study_report(f"{SB_OUT}/fig6_seat.png", "sentence_bias", "tables"),
        seat_wide=study_report(f"{SB_OUT}/tables6_7_11_seat.tsv", "sentence_bias", "tables"),
        senteval_wide=study_report(f"{SB_OUT}/tables8_9_senteval.tsv", "sentence_bias", "tables"),
        senteval_overall=study_report(f"{SB_OUT}/table10_senteval_overall.tsv", "sentence_bias", "tables"),
    log:
        "logs/sentence_bias/tables.log",
    params:
        models=SB_MODELS,
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/tables.py"


rule sentence_bias_transformer:
    """Bias score for a transformer encoder (§6): sentence-pair direction, Tables 12-13, Fig. 7."""
    input:
        model=model_ref_input(SB["transformer"]["model"]),
        sentences=file_ref_input(SB["transformer"].get("direction_sentences")),
        snli=f"{SB_OUT}/snli",
        words=f"{SB_OUT}/gender_words.txt",
    output:
        direction=f"{SB_OUT}/transformer/gender_direction.npy",
        pairs=f"{SB_OUT}/transformer/direction_pairs.tsv",
        table=study_report(f"{SB_OUT}/transformer/gender_direction.tsv", "sentence_bias", "transformer"),
        table12=study_report(f"{SB_OUT}/transformer/table12_example.tsv", "sentence_bias", "transformer"),
        table13=study_report(f"{SB_OUT}/transformer/table13_examples.tsv", "sentence_bias", "transformer"),
        figure=study_report(f"{SB_OUT}/transformer/fig7_direction_importance.png", "sentence_bias", "transformer"),
    log:
        "logs/sentence_bias/transformer.log",
    benchmark:
        "results/benchmarks/sentence_bias/transformer.tsv"
    params:
        spec=SB["transformer"],
        model_member=file_ref_member(SB["transformer"]["model"]),
        sentences_member=file_ref_member(SB["transformer"].get("direction_sentences")),
        example=SB["example_sentence"],
        seed=config["seed"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("sentence_bias_transformer"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/sentence_bias/transformer.py"


rule sentence_bias_models:
    """Only what `cdaflow bias-score` and `cdaflow seat` read: InferSent trained on SNLI, the vectors,
    the gender word list and both gender directions (GloVe's and the transformer's)."""
    input:
        [f"{SB_OUT}/train_infersent/original"]
        + [f"{SB_OUT}/{name}" for name in ("vectors", "gender_words.txt", "gender_direction.npy")]
        + ([f"{SB_OUT}/transformer/gender_direction.npy"] if SB["transformer"]["enabled"] else [])
        if enabled("sentence_bias")
        else [],
