# Study B (Jain et al. 2021): Spanish conversational re-gendering. Subtitles are filtered and
# sharded, tagged (scatter), decided by the POS-sequence rules, gathered into a gender-parallel
# corpus; a classifier and the rewriters are scored on the hand-checked test sets.
# Logic: src/cdaflow/regender/.


rule regender_shard:
    """Candidate segments (≤ max_words, alphanumeric), deduplicated, hashed into shards."""
    input:
        corpus=file_ref_input(REG.get("corpus")),
    output:
        shards=[f"{REG_OUT}/candidates/shard{k}.txt" for k in range(REG["shards"])],
        counts=f"{REG_OUT}/candidates/counts.tsv",
    log:
        "logs/regender/shard.log",
    params:
        member=file_ref_member(REG.get("corpus")),
        max_words=REG["max_words"],
        dedupe=REG["dedupe"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_shard.py"


rule regender_tag:
    """Tag one shard with the corpus backend, mapped onto the paper's tagset."""
    input:
        f"{REG_OUT}/candidates/shard{{shard}}.txt",
    output:
        f"{REG_OUT}/tagged/shard{{shard}}.jsonl",
    log:
        "logs/regender/tag/shard{shard}.log",
    benchmark:
        "results/benchmarks/regender/tag/shard{shard}.tsv"
    params:
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
        rules=REG["rules"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(config["parsing"]["corpora"]),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/parsing.yaml"
    script:
        "../scripts/regender_tag.py"


rule regender_tag_testset:
    """Tag one hand-checked test set (structured, unstructured) the same way."""
    input:
        lambda wc: REG["test_sets"][wc.testset],
    output:
        f"{REG_OUT}/testsets/{{testset}}.jsonl",
    log:
        "logs/regender/tag_testset/{testset}.log",
    params:
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
        rules=REG["rules"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(config["parsing"]["corpora"]),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/parsing.yaml"
    script:
        "../scripts/regender_tag.py"


rule regender_rules:
    """The POS-sequence rules on one tagged shard: label, variant, category, sequence."""
    input:
        f"{REG_OUT}/tagged/shard{{shard}}.jsonl",
    output:
        f"{REG_OUT}/decided/shard{{shard}}.tsv",
    log:
        "logs/regender/rules/shard{shard}.log",
    params:
        rules=REG["rules"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_rules.py"


rule regender_parallel:
    """The gender-parallel corpus: both directions of G segments plus neutral ones, split (Table 1)."""
    input:
        decided=[f"{REG_OUT}/decided/shard{k}.tsv" for k in range(REG["shards"])],
        test_sets=list(REG["test_sets"].values()),
    output:
        corpus=directory(f"{REG_OUT}/parallel"),
        stats=report(f"{REG_OUT}/parallel_stats.tsv", caption="../report/regender_parallel.rst", category="Study B: re-gendering"),
    log:
        "logs/regender/parallel.log",
    params:
        neutral_ratio=REG["neutral_ratio"],
        split=REG["split"],
        seed=config["seed"],
        scale=config["scale"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_parallel.py"


rule regender_classifier:
    """Re-genderability classifier (TF-IDF char 4-7 + word 1-3 grams + gendered-word flag, linear SVM): Table 2."""
    input:
        corpus=f"{REG_OUT}/parallel",
        testsets=expand(f"{REG_OUT}/testsets/{{testset}}.jsonl", testset=list(REG["test_sets"])),
    output:
        model=f"{REG_OUT}/classifier/model.joblib",
        predictions=directory(f"{REG_OUT}/classifier/predictions"),
        table=report(f"{REG_OUT}/classifier.tsv", caption="../report/regender_classifier.rst", category="Study B: re-gendering"),
    log:
        "logs/regender/classifier.log",
    params:
        settings=REG["classifier"],
        testsets=list(REG["test_sets"]),
        seed=config["seed"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    conda:
        f"{ENVS}/sklearn.yaml"
    script:
        "../scripts/regender_classifier.py"
