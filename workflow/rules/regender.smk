# Study B (Jain et al. 2021): Spanish conversational re-gendering. Subtitles are filtered and
# sharded, tagged (scatter), decided by the POS-sequence rules, gathered into a gender-parallel
# corpus; a classifier and the rewriters are scored on the hand-checked test sets.
# Logic: src/cdaflow/regender/; each rule regender_<stage> runs workflow/scripts/regender/<stage>.py,
# logs to logs/regender/<stage>, writes results/regender/es/<stage>/ or a named paper table. The
# rewriter's model folder `rewriter/` (bpe.model, {nmt,nmt_t}/model) is what
# `cdaflow regender --method nmt --model results/regender/es/rewriter/nmt` loads.

from cdaflow.regender.errors import RULES, SYSTEMS as REG_SYSTEMS

REG = config["studies"]["regender"]
REG_OUT = "results/regender/es"
# Test sets: the OpenSubtitles test split the rules made, then the hand-checked ones.
REG_TESTSETS = {"opensubs_test": f"{REG_OUT}/parallel/test.tsv", **REG["test_sets"]}
# The sequence set (studies.regender.sequences): the paper's files, and the extension's for `extended`.
REG_RULE_FILES = [f"{REG['rules']}/{name}" for name in (
    ["sequences.tsv", "rules.yaml"]
    + (["sequences_extension.tsv", "rules_extension.yaml"] if REG["sequences"] == "extended" else [])
)]
REG_TAGSET_FILES = [f"{REG['rules']}/tagset_map.tsv", f"{REG['rules']}/tag_corrections.yaml"]
REG_TAGGED_TESTSETS = [f"{REG_OUT}/tag_testset/{testset}.jsonl" for testset in REG_TESTSETS]
# Each system's output on every test set (regender_errors reads them in REG_TESTSETS' order).
REG_SYSTEM_OUTPUTS = {
    system: [f"{REG_OUT}/rules_output/{testset}.txt" if system == RULES else f"{REG_OUT}/translate/{system}/{testset}.txt"
             for testset in REG_TESTSETS]
    for system in REG_SYSTEMS
}

STUDY_TARGETS["regender"] = [f"{REG_OUT}/{name}" for name in ("tableA1_parallel_stats.tsv", "table2_classifier.tsv", "table3_error_rates.tsv")]


rule regender_candidates:
    """Candidate segments (≤ max_words, alphanumeric), hashed into shards (duplicates meet in one shard)."""
    input:
        corpus=file_ref_input(REG.get("corpus")),
    output:
        shards=[f"{REG_OUT}/candidates/shard{k}.txt" for k in range(REG["shards"])],
        counts=f"{REG_OUT}/candidates/counts.tsv",
    log:
        "logs/regender/candidates.log",
    params:
        member=file_ref_member(REG.get("corpus")),
        max_words=REG["max_words"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender/candidates.py"


rule regender_tag:
    """Tag one shard's distinct segments with the corpus backend, mapped onto the paper's tagset."""
    input:
        segments=f"{REG_OUT}/candidates/shard{{shard}}.txt",
        tagset=REG_TAGSET_FILES,
        stanza=stanza_models.parse_inputs(config, config["parsing"]["corpora"], "es"),
    output:
        f"{REG_OUT}/tag/shard{{shard}}.jsonl",
    log:
        "logs/regender/tag/shard{shard}.log",
    benchmark:
        "results/benchmarks/regender/tag/shard{shard}.tsv"
    params:
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
        dedupe=REG["dedupe"],
    threads: THREADS
    resources:
        **job_resources("regender_tag", config["parsing"]["corpora"]),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/tag.py"


rule regender_tag_testset:
    """Tag one hand-checked test set (structured, unstructured) the same way."""
    input:
        segments=lambda wc: REG_TESTSETS[wc.testset],
        tagset=REG_TAGSET_FILES,
        stanza=stanza_models.parse_inputs(config, config["parsing"]["corpora"], "es"),
    output:
        f"{REG_OUT}/tag_testset/{{testset}}.jsonl",
    log:
        "logs/regender/tag_testset/{testset}.log",
    benchmark:
        "results/benchmarks/regender/tag_testset/{testset}.tsv"
    params:
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
    threads: THREADS
    resources:
        **job_resources("regender_tag_testset", config["parsing"]["corpora"]),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/tag.py"


rule regender_rules:
    """The POS-sequence rules on one tagged shard: label, variant, category, sequence."""
    input:
        segments=f"{REG_OUT}/tag/shard{{shard}}.jsonl",
        rule_files=REG_RULE_FILES,
    output:
        f"{REG_OUT}/rules/shard{{shard}}.tsv",
    log:
        "logs/regender/rules/shard{shard}.log",
    params:
        sequences=REG["sequences"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender/rules.py"


rule regender_parallel:
    """The gender-parallel corpus: both directions of G segments plus neutral ones, split (Table 1)."""
    input:
        decided=[f"{REG_OUT}/rules/shard{k}.tsv" for k in range(REG["shards"])],
        test_sets=list(REG["test_sets"].values()),
    output:
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev", "test"), part=("src", "tgt", "label", "gendered")),
        test_set=f"{REG_OUT}/parallel/test.tsv",
        stats=study_report(f"{REG_OUT}/tableA1_parallel_stats.tsv", "regender", "parallel"),
    log:
        "logs/regender/parallel.log",
    benchmark:
        "results/benchmarks/regender/parallel.tsv"
    params:
        neutral_ratio=REG["neutral_ratio"],
        split=REG["split"],
        seed=config["seed"],
        scale=config["scale"],
    resources:
        **job_resources("regender_parallel", backend="cpu"),  # CPU work; memory grows with the candidates
    conda:
        f"{ENVS}/sklearn.yaml"
    script:
        "../scripts/regender/parallel.py"


rule regender_classifier:
    """Re-genderability classifier (TF-IDF char 4-7 + word 1-3 grams + gendered-word flag, linear SVM): Table 2."""
    input:
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev"), part=("src", "label", "gendered")),
        testsets=REG_TAGGED_TESTSETS,
    output:
        model=f"{REG_OUT}/classifier/model.joblib",
        predictions=expand(f"{REG_OUT}/classifier/predictions/{{name}}.label", name=["opensubs_dev", *REG_TESTSETS]),
        table=study_report(f"{REG_OUT}/table2_classifier.tsv", "regender", "classifier"),
    log:
        "logs/regender/classifier.log",
    benchmark:
        "results/benchmarks/regender/classifier.tsv"
    params:
        settings=REG["classifier"],
        testsets=list(REG_TESTSETS),
        seed=config["seed"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("regender_classifier", backend="cpu"),  # CPU work only
    conda:
        f"{ENVS}/sklearn.yaml"
    script:
        "../scripts/regender/classifier.py"


rule regender_rules_output:
    """The rules' output on one tagged test set (unchanged where they do not apply)."""
    input:
        segments=f"{REG_OUT}/tag_testset/{{testset}}.jsonl",
        rule_files=REG_RULE_FILES,
    output:
        f"{REG_OUT}/rules_output/{{testset}}.txt",
    log:
        "logs/regender/rules_output/{testset}.log",
    params:
        sequences=REG["sequences"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender/rules_output.py"


rule regender_bpe:
    """SentencePiece BPE on both sides of the training corpus (tag tokens kept whole), in the rewriter's folder."""
    input:
        expand(f"{REG_OUT}/parallel/train.{{part}}", part=("src", "tgt")),
    output:
        model=f"{REG_OUT}/rewriter/bpe.model",
        vocab=f"{REG_OUT}/rewriter/bpe.vocab",
    log:
        "logs/regender/bpe.log",
    benchmark:
        "results/benchmarks/regender/bpe.tsv"
    params:
        vocab_size=REG["bpe"]["vocab_size"],
    threads: THREADS
    resources:
        **job_resources("regender_bpe", backend="cpu"),  # CPU work only
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/bpe.py"


rule regender_prepare:
    """BPE-encode the training and dev data of one set-up (nmt: plain; nmt_t: gold tags) and run sockeye-prepare-data."""
    input:
        bpe=f"{REG_OUT}/rewriter/bpe.model",
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev"), part=("src", "tgt", "label")),
    output:
        prepared=directory(f"{REG_OUT}/prepare/{{setup}}/data"),
        dev=expand(f"{REG_OUT}/prepare/{{{{setup}}}}/dev.{{side}}.bpe", side=("src", "tgt")),
    wildcard_constraints:
        setup="nmt|nmt_t",
    log:
        "logs/regender/prepare/{setup}.log",
    params:
        max_seq_len=REG["sockeye"]["max_seq_len"],
        bucket_width=REG["sockeye"]["bucket_width"],
        seed=config["seed"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/prepare.py"


rule regender_train:
    """sockeye-train: the transformer rewriter of one set-up (the paper's base model at full scale)."""
    input:
        prepared=f"{REG_OUT}/prepare/{{setup}}/data",
        dev=expand(f"{REG_OUT}/prepare/{{{{setup}}}}/dev.{{side}}.bpe", side=("src", "tgt")),
    output:
        directory(f"{REG_OUT}/rewriter/{{setup}}/model"),
    wildcard_constraints:
        setup="nmt|nmt_t",
    log:
        "logs/regender/train/{setup}.log",
    benchmark:
        "results/benchmarks/regender/train/{setup}.tsv"
    params:
        settings=REG["sockeye"],
        seed=config["seed"],
        # resume state kept when the job fails (not an output, which Snakemake deletes); removed once written
        checkpoints=lambda wc: f"{REG_OUT}/.checkpoints/train/{wc.setup}",
    threads: THREADS
    resources:
        **job_resources("regender_train"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/train.py"


rule regender_translate:
    """sockeye-translate one test set with one set-up (nmt_at: the nmt_t model, classifier tags)."""
    input:
        model=lambda wc: f"{REG_OUT}/rewriter/{'nmt_t' if wc.setup == 'nmt_at' else wc.setup}/model",
        bpe=f"{REG_OUT}/rewriter/bpe.model",
        testset=f"{REG_OUT}/tag_testset/{{testset}}.jsonl",
        tags=lambda wc: f"{REG_OUT}/classifier/predictions/{wc.testset}.label" if wc.setup == "nmt_at" else [],
    output:
        f"{REG_OUT}/translate/{{setup}}/{{testset}}.txt",
    wildcard_constraints:
        setup="nmt|nmt_t|nmt_at",
    log:
        "logs/regender/translate/{setup}/{testset}.log",
    benchmark:
        "results/benchmarks/regender/translate/{setup}/{testset}.tsv"
    params:
        beam_size=REG["sockeye"]["beam_size"],
        seed=config["seed"],
    threads: THREADS
    resources:
        **job_resources("regender_translate"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/regender/translate.py"


rule regender_errors:
    """Table 3: error rates per sentence and per word of NMT, NMT-T, NMT-AT and the rules (paper layout, and all measured)."""
    input:
        testsets=REG_TAGGED_TESTSETS,
        **REG_SYSTEM_OUTPUTS,
        revisions=REG["hand_revisions"] or [],
    output:
        table=study_report(f"{REG_OUT}/table3_error_rates.tsv", "regender", "errors"),
        measured=study_report(f"{REG_OUT}/table3_error_rates_measured.tsv", "regender", "errors"),
        examples=study_report(f"{REG_OUT}/table4_examples.md", "regender", "errors"),
    log:
        "logs/regender/errors.log",
    params:
        testsets=list(REG_TESTSETS),
        # The OpenSubtitles split's references are the rules' own output; the paper gives the rules no
        # figure on the unstructured set ("not applicable").
        silver=["opensubs_test"],
        rules_not_applicable=["unstructured"],
        scale=config["scale"],
    conda:
        f"{ENVS}/sklearn.yaml"
    script:
        "../scripts/regender/errors.py"


rule regender_models:
    """Only the rewriters of `cdaflow regender --method nmt` (nmt, nmt_t) and their BPE model."""
    input:
        [f"{REG_OUT}/rewriter/{setup}/model" for setup in ("nmt", "nmt_t")] + [f"{REG_OUT}/rewriter/bpe.model"]
        if enabled("regender")
        else [],
