# Study B (Jain et al. 2021): Spanish conversational re-gendering. Subtitles are filtered and
# sharded, tagged (scatter), decided by the POS-sequence rules, gathered into a gender-parallel
# corpus; a classifier and the rewriters are scored on the hand-checked test sets.
# Logic: src/cdaflow/regender/.


REG = config["studies"]["regender"]
REG_OUT = "results/regender/es"
# Test sets: the OpenSubtitles test split the rules made, then the hand-checked ones.
REG_TESTSETS = {"opensubs_test": f"{REG_OUT}/parallel/test.tsv", **REG["test_sets"]}


def regender_targets():
    return [f"{REG_OUT}/{name}" for name in ("parallel_stats.tsv", "classifier.tsv", "error_rates.tsv")]


STUDY_TARGETS["regender"] = regender_targets


rule regender_shard:
    """Candidate segments (≤ max_words, alphanumeric), hashed into shards (duplicates meet in one shard)."""
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
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_shard.py"


rule regender_tag:
    """Tag one shard's distinct segments with the corpus backend, mapped onto the paper's tagset."""
    input:
        segments=f"{REG_OUT}/candidates/shard{{shard}}.txt",
        tagset=f"{REG['rules']}/tagset_map.tsv",
    output:
        f"{REG_OUT}/tagged/shard{{shard}}.jsonl",
    log:
        "logs/regender/tag/shard{shard}.log",
    benchmark:
        "results/benchmarks/regender/tag/shard{shard}.tsv"
    params:
        scale_items="regender_candidates",
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
        dedupe=REG["dedupe"],
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
        segments=lambda wc: REG_TESTSETS[wc.testset],
        tagset=f"{REG['rules']}/tagset_map.tsv",
    output:
        f"{REG_OUT}/testsets/{{testset}}.jsonl",
    log:
        "logs/regender/tag_testset/{testset}.log",
    params:
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
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
        segments=f"{REG_OUT}/tagged/shard{{shard}}.jsonl",
        rule_files=[f"{REG['rules']}/sequences.tsv", f"{REG['rules']}/rules.yaml"],
    output:
        f"{REG_OUT}/decided/shard{{shard}}.tsv",
    log:
        "logs/regender/rules/shard{shard}.log",
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
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev", "test"), part=("src", "tgt", "label", "gendered")),
        test_set=f"{REG_OUT}/parallel/test.tsv",
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
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev"), part=("src", "label", "gendered")),
        testsets=expand(f"{REG_OUT}/testsets/{{testset}}.jsonl", testset=list(REG_TESTSETS)),
    output:
        model=f"{REG_OUT}/classifier/model.joblib",
        predictions=expand(f"{REG_OUT}/classifier/predictions/{{name}}.label", name=["opensubs_dev", *REG_TESTSETS]),
        table=report(f"{REG_OUT}/classifier.tsv", caption="../report/regender_classifier.rst", category="Study B: re-gendering"),
    log:
        "logs/regender/classifier.log",
    params:
        settings=REG["classifier"],
        testsets=list(REG_TESTSETS),
        seed=config["seed"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    conda:
        f"{ENVS}/sklearn.yaml"
    script:
        "../scripts/regender_classifier.py"


rule regender_rules_output:
    """The rules' output on one tagged test set (unchanged where they do not apply)."""
    input:
        segments=f"{REG_OUT}/testsets/{{testset}}.jsonl",
        rule_files=[f"{REG['rules']}/sequences.tsv", f"{REG['rules']}/rules.yaml"],
    output:
        f"{REG_OUT}/rules/output/{{testset}}.txt",
    log:
        "logs/regender/rules_output/{testset}.log",
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_rules_output.py"


rule regender_bpe:
    """SentencePiece BPE on both sides of the training corpus (tag tokens kept whole)."""
    input:
        expand(f"{REG_OUT}/parallel/train.{{part}}", part=("src", "tgt")),
    output:
        model=f"{REG_OUT}/rewriter/bpe.model",
        vocab=f"{REG_OUT}/rewriter/bpe.vocab",
    log:
        "logs/regender/bpe.log",
    params:
        vocab_size=REG["bpe"]["vocab_size"],
    threads: config["compute"]["threads"]
    conda:
        f"{ENVS}/sockeye.yaml"
    script:
        "../scripts/regender_bpe.py"


rule regender_prepare:
    """BPE-encode the training and dev data of one set-up (nmt: plain; nmt_t: gold tags) and run sockeye-prepare-data."""
    input:
        bpe=f"{REG_OUT}/rewriter/bpe.model",
        corpus=expand(f"{REG_OUT}/parallel/{{split}}.{{part}}", split=("train", "dev"), part=("src", "tgt", "label")),
    output:
        prepared=directory(f"{REG_OUT}/rewriter/{{setup}}/prepared"),
        dev=expand(f"{REG_OUT}/rewriter/{{{{setup}}}}/dev.{{side}}.bpe", side=("src", "tgt")),
    wildcard_constraints:
        setup="nmt|nmt_t",
    log:
        "logs/regender/prepare/{setup}.log",
    params:
        max_seq_len=REG["sockeye"]["max_seq_len"],
        bucket_width=REG["sockeye"]["bucket_width"],
        seed=config["seed"],
    conda:
        f"{ENVS}/sockeye.yaml"
    script:
        "../scripts/regender_prepare.py"


rule regender_train:
    """sockeye-train: the transformer rewriter of one set-up (the paper's base model at full scale)."""
    input:
        prepared=f"{REG_OUT}/rewriter/{{setup}}/prepared",
        dev=expand(f"{REG_OUT}/rewriter/{{{{setup}}}}/dev.{{side}}.bpe", side=("src", "tgt")),
    output:
        directory(f"{REG_OUT}/rewriter/{{setup}}/model"),
    wildcard_constraints:
        setup="nmt|nmt_t",
    log:
        "logs/regender/train/{setup}.log",
    benchmark:
        "results/benchmarks/regender/train/{setup}.tsv"
    params:
        scale_items="regender_train_pairs",
        settings=REG["sockeye"],
        seed=config["seed"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/sockeye.yaml"
    script:
        "../scripts/regender_train.py"


rule regender_translate:
    """sockeye-translate one test set with one set-up (nmt_at: the nmt_t model, classifier tags)."""
    input:
        model=lambda wc: f"{REG_OUT}/rewriter/{'nmt_t' if wc.setup == 'nmt_at' else wc.setup}/model",
        bpe=f"{REG_OUT}/rewriter/bpe.model",
        testset=f"{REG_OUT}/testsets/{{testset}}.jsonl",
        tags=lambda wc: f"{REG_OUT}/classifier/predictions/{wc.testset}.label" if wc.setup == "nmt_at" else [],
    output:
        f"{REG_OUT}/rewriter/{{setup}}/output/{{testset}}.txt",
    wildcard_constraints:
        setup="nmt|nmt_t|nmt_at",
    log:
        "logs/regender/translate/{setup}/{testset}.log",
    params:
        beam_size=REG["sockeye"]["beam_size"],
        seed=config["seed"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/sockeye.yaml"
    script:
        "../scripts/regender_translate.py"


rule regender_errors:
    """Table 3: error rates per sentence and per word of NMT, NMT-T, NMT-AT and the rules (paper layout, and all measured)."""
    input:
        testsets=expand(f"{REG_OUT}/testsets/{{testset}}.jsonl", testset=list(REG_TESTSETS)),
        nmt=expand(f"{REG_OUT}/rewriter/nmt/output/{{testset}}.txt", testset=list(REG_TESTSETS)),
        nmt_t=expand(f"{REG_OUT}/rewriter/nmt_t/output/{{testset}}.txt", testset=list(REG_TESTSETS)),
        nmt_at=expand(f"{REG_OUT}/rewriter/nmt_at/output/{{testset}}.txt", testset=list(REG_TESTSETS)),
        rules=expand(f"{REG_OUT}/rules/output/{{testset}}.txt", testset=list(REG_TESTSETS)),
        revisions=REG["hand_revisions"] or [],
    output:
        table=report(f"{REG_OUT}/error_rates.tsv", caption="../report/regender_errors.rst", category="Study B: re-gendering"),
        measured=report(f"{REG_OUT}/error_rates_measured.tsv", caption="../report/regender_errors.rst", category="Study B: re-gendering"),
        examples=report(f"{REG_OUT}/examples.md", caption="../report/regender_errors.rst", category="Study B: re-gendering"),
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
        f"{ENVS}/base.yaml"
    script:
        "../scripts/regender_errors.py"
