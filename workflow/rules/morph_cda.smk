# Study A (Zmigrod et al. 2019): morphological counterfactual data augmentation.
# Per language: training data → reinflection model and MRFs (LIN, NN; BASE is hard-coded) → log α
# tuned on annotated dev sentences → Table 3 on test; then (§5.2) augmented corpora → one LM per
# corpus → probe phrases → stereotyping and grammaticality. Logic: src/cdaflow/morph_cda/; each
# rule morph_cda_<stage> runs workflow/scripts/morph_cda/<stage>.py, logs to logs/morph_cda/<stage> and
# writes results/morph_cda/<lang>/<stage>/ or a named table; models/ holds the folders `cdaflow cda` reads.


MORPH = config["studies"]["morph_cda"]
# Each language's knowledge (cdaflow.text.language), checked at start-up by the config check.
MORPH_LANGUAGE_FILES = "resources/morph_cda/languages"
MORPH_OUT = "results/morph_cda"
MORPH_LANGUAGES = list(MORPH["languages"]) if enabled("morph_cda") else []
LM_CORPORA = ("original", "swap", "mrf")
# Languages with corpora to augment (§5.2), and their parsed text: corpus shards, then treebank splits.
MORPH_EXTRINSIC_LANGUAGES = [
    lang
    for lang in MORPH_LANGUAGES
    if MORPH["languages"][lang]["corpora"] or MORPH["languages"][lang]["corpus_treebanks"]
]
MORPH_AUGMENT_INPUTS = {
    lang: [path for name in MORPH["languages"][lang]["corpora"] for path in corpus_shards(name)]
    + [split_file(name) for name in MORPH["languages"][lang]["corpus_treebanks"]]
    for lang in MORPH_EXTRINSIC_LANGUAGES
}

STUDY_TARGETS["morph_cda"] = (
    [
        f"{MORPH_OUT}/{lang}/{name}"
        for lang in MORPH_LANGUAGES
        for name in ("table3_intrinsic.tsv", "table1_reinflection.tsv", "examples.md")
    ]
    + (
        [
            f"{MORPH_OUT}/{lang}/wordnet_candidates.tsv"
            for lang in MORPH_LANGUAGES
            if MORPH["languages"][lang].get("wordnet")
        ]
        if MORPH.get("pwn_data_noun")
        else []
    )
    + (
        [f"{MORPH_OUT}/extrinsic/{name}" for name in ("stereotyping.tsv", "fig4.png")]
        if MORPH["extrinsic"]["enabled"] and MORPH_EXTRINSIC_LANGUAGES
        else []
    )
)


rule morph_cda_prepare:
    """Training/dev trees (annotated sentences removed) and the joined annotated sentences."""
    input:
        train=lambda wc: [split_file(s) for s in MORPH["languages"][wc.lang]["train"]],
        dev=lambda wc: [split_file(s) for s in MORPH["languages"][wc.lang]["dev"]],
        # The treebank splits the annotations point into (read when the job is built; the config
        # validation has checked that the file exists and names defined splits).
        annotated=lambda wc: [
            split_file(f"{treebank}/{split}")
            for treebank, split in cdaflow_config.annotated_splits(MORPH["languages"][wc.lang]["annotations"])
        ],
        annotations=lambda wc: MORPH["languages"][wc.lang]["annotations"],
    output:
        train=f"{MORPH_OUT}/{{lang}}/prepare/train.conllu",
        dev=f"{MORPH_OUT}/{{lang}}/prepare/dev.conllu",
        annotated=f"{MORPH_OUT}/{{lang}}/prepare/annotated.conllu",
        summary=f"{MORPH_OUT}/{{lang}}/prepare/summary.tsv",
    log:
        "logs/morph_cda/prepare/{lang}.log",
    params:
        lang=lambda wc: wc.lang,
        features=MORPH["features"],
        seed=config["seed"],
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/prepare.py"


rule morph_cda_reinflection:
    """Character-level reinflection model (lexicon first, then the neural transducer)."""
    input:
        train=rules.morph_cda_prepare.output.train,
        dev=rules.morph_cda_prepare.output.dev,
    output:
        model=directory(f"{MORPH_OUT}/{{lang}}/models/reinflection"),
        table=study_report(f"{MORPH_OUT}/{{lang}}/table1_reinflection.tsv", "morph_cda", "reinflection", subcategory="{lang}"),
    log:
        "logs/morph_cda/reinflection/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/reinflection/{lang}.tsv"
    params:
        settings=MORPH["reinflection"],
        seed=config["seed"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("morph_cda_reinflection"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/reinflection.py"


rule morph_cda_train_mrf:
    """One MRF parameterization (lin or nn) trained by NLL until the dev loss settles."""
    input:
        train=rules.morph_cda_prepare.output.train,
        dev=rules.morph_cda_prepare.output.dev,
        language=f"{MORPH_LANGUAGE_FILES}/{{lang}}.yaml",
    output:
        directory(f"{MORPH_OUT}/{{lang}}/train_mrf/{{param}}"),
    log:
        "logs/morph_cda/train_mrf/{lang}_{param}.log",
    benchmark:
        "results/benchmarks/morph_cda/train_mrf/{lang}_{param}.tsv"
    wildcard_constraints:
        param="lin|nn",
    params:
        settings=MORPH["mrf"],
        features=MORPH["features"],
        seed=config["seed"],
    threads: THREADS
    resources:
        **job_resources("morph_cda_train_mrf"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/train_mrf.py"


rule morph_cda_evaluate:
    """Table 3: BASE, LIN, NN and SWAP on the annotated test sentences; models for `cdaflow cda`."""
    input:
        mrfs=[f"{MORPH_OUT}/{{lang}}/train_mrf/{param}" for param in MORPH["parameterizations"]],
        reinflector=rules.morph_cda_reinflection.output.model,
        annotated=rules.morph_cda_prepare.output.annotated,
        train=rules.morph_cda_prepare.output.train,
        annotations=lambda wc: MORPH["languages"][wc.lang]["annotations"],
        gazetteer=lambda wc: file_ref_input(MORPH["languages"][wc.lang]["gazetteer"]),
        language=f"{MORPH_LANGUAGE_FILES}/{{lang}}.yaml",
    output:
        table=study_report(f"{MORPH_OUT}/{{lang}}/table3_intrinsic.tsv", "morph_cda", "evaluate", subcategory="{lang}"),
        by_relation=f"{MORPH_OUT}/{{lang}}/intrinsic_by_relation.tsv",
        tuning=f"{MORPH_OUT}/{{lang}}/alpha_tuning.tsv",
        examples=f"{MORPH_OUT}/{{lang}}/examples.md",
        models=[directory(f"{MORPH_OUT}/{{lang}}/models/{param}") for param in MORPH["parameterizations"]],
    log:
        "logs/morph_cda/evaluate/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/evaluate/{lang}.tsv"
    params:
        lang=lambda wc: wc.lang,
        params=MORPH["parameterizations"],
        grid=MORPH["log_alpha_grid"],
        carry_gender=MORPH["carry_gender"],
        features=MORPH["features"],
        gazetteer_member=lambda wc: file_ref_member(MORPH["languages"][wc.lang]["gazetteer"]),
        seed=config["seed"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("morph_cda_evaluate", backend="cpu"),  # CPU work only
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/evaluate.py"


rule morph_cda_augment:
    """§5.2: the original corpus, its MRF counterfactuals and its naive-swap copies; Table 4."""
    input:
        parsed=lambda wc: MORPH_AUGMENT_INPUTS[wc.lang],
        model=f"{MORPH_OUT}/{{lang}}/models/lin",
    output:
        corpora=[f"{MORPH_OUT}/{{lang}}/augment/{corpus}.txt" for corpus in LM_CORPORA],
        stats=f"{MORPH_OUT}/{{lang}}/augment/stats.tsv",
        nouns=f"{MORPH_OUT}/{{lang}}/augment/noun_counts.tsv",
    log:
        "logs/morph_cda/augment/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/augment/{lang}.tsv"
    params:
        settings=MORPH["extrinsic"],
        scale=config["scale"],
    threads: THREADS
    resources:
        **job_resources("morph_cda_augment"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/augment.py"


rule morph_cda_lm:
    """The BPE-RNNLM of one language and corpus (original, swap, mrf); validation perplexity."""
    input:
        f"{MORPH_OUT}/{{lang}}/augment/{{corpus}}.txt",
    output:
        directory(f"{MORPH_OUT}/{{lang}}/lm/{{corpus}}"),
    wildcard_constraints:
        corpus="original|swap|mrf",
    log:
        "logs/morph_cda/lm/{lang}/{corpus}.log",
    benchmark:
        "results/benchmarks/morph_cda/lm/{lang}/{corpus}.tsv"
    params:
        settings=MORPH["extrinsic"],
        seed=config["seed"],
        # resume state kept when the job fails (not an output, which Snakemake deletes); removed once written
        checkpoints=lambda wc: f"{MORPH_OUT}/.checkpoints/lm/{wc.lang}/{wc.corpus}",
    threads: THREADS
    resources:
        **job_resources("morph_cda_lm"),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/lm.py"


rule morph_cda_probes:
    """Prefix log-likelihoods of the 16 probe phrases per gazetteer noun under each corpus's LM."""
    input:
        lms=[f"{MORPH_OUT}/{{lang}}/lm/{corpus}" for corpus in LM_CORPORA],
        model=f"{MORPH_OUT}/{{lang}}/models/lin",
        # named by the language file (checked at start-up: a language with corpora to augment has them)
        probes=lambda wc: morph_language(wc.lang).probes,
    output:
        f"{MORPH_OUT}/{{lang}}/probes.tsv",
    log:
        "logs/morph_cda/probes/{lang}.log",
    threads: THREADS
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/probes.py"


rule morph_cda_extrinsic:
    """Fig. 4 and Table 5 (stereotyping, grammaticality), the reduction factors, Fig. 5 and Table 8."""
    input:
        probes=expand(f"{MORPH_OUT}/{{lang}}/probes.tsv", lang=MORPH_EXTRINSIC_LANGUAGES),
        nouns=expand(f"{MORPH_OUT}/{{lang}}/augment/noun_counts.tsv", lang=MORPH_EXTRINSIC_LANGUAGES),
        stats=expand(f"{MORPH_OUT}/{{lang}}/augment/stats.tsv", lang=MORPH_EXTRINSIC_LANGUAGES),
        lms=expand(f"{MORPH_OUT}/{{lang}}/lm/{{corpus}}", lang=MORPH_EXTRINSIC_LANGUAGES, corpus=LM_CORPORA),
    output:
        table=study_report(f"{MORPH_OUT}/extrinsic/stereotyping.tsv", "morph_cda", "extrinsic"),
        reduction=f"{MORPH_OUT}/extrinsic/reduction.tsv",
        stereotyped=f"{MORPH_OUT}/extrinsic/stereotyped_nouns.tsv",
        table4=f"{MORPH_OUT}/extrinsic/table4_corpora.tsv",
        table8=f"{MORPH_OUT}/extrinsic/table8_probes.tsv",
        fig4=study_report(f"{MORPH_OUT}/extrinsic/fig4.png", "morph_cda", "extrinsic"),
        fig5=f"{MORPH_OUT}/extrinsic/fig5.png",
    log:
        "logs/morph_cda/extrinsic.log",
    params:
        langs=MORPH_EXTRINSIC_LANGUAGES,
        threshold=MORPH["extrinsic"]["stereotype_threshold"],
        scale=config["scale"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/extrinsic.py"


rule morph_cda_wordnet_gazetteer:
    """Optional: gazetteer candidates from a WordNet's person synsets, for checking by hand (§5.2)."""
    input:
        pwn=file_ref_input(MORPH.get("pwn_data_noun")),
        omw=lambda wc: file_ref_input(MORPH["languages"][wc.lang].get("wordnet")),
        language=f"{MORPH_LANGUAGE_FILES}/{{lang}}.yaml",
    output:
        f"{MORPH_OUT}/{{lang}}/wordnet_candidates.tsv",
    log:
        "logs/morph_cda/wordnet_gazetteer/{lang}.log",
    params:
        pwn_member=file_ref_member(MORPH.get("pwn_data_noun")),
        omw_member=lambda wc: file_ref_member(MORPH["languages"][wc.lang].get("wordnet")),
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/morph_cda/wordnet_gazetteer.py"


rule morph_cda_parser:
    """Optional: a small spaCy pipeline trained on the language's treebank splits, for raw text where
    no pipeline is installed (Italian; Hebrew on the treebank's syntactic words, which hspell splits
    raw text into); `cdaflow cda` loads it through the language file's parser list."""
    input:
        train=lambda wc: [split_file(s) for s in MORPH["languages"][wc.lang]["train"]],
    output:
        model=directory(f"{MORPH_OUT}/{{lang}}/parser"),
        scores=f"{MORPH_OUT}/{{lang}}/parser_scores.json",
    log:
        "logs/morph_cda/parser/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/parser/{lang}.tsv"
    params:
        seed=config["seed"],
    threads: THREADS
    resources:
        **job_resources("morph_cda_parser", backend="cpu"),  # spaCy trains on the CPU
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda/parser.py"


rule morph_cda_models:
    """Only the models of `cdaflow cda` (models/{lin,nn} of every language) and what they need."""
    input:
        [f"{MORPH_OUT}/{lang}/models/{param}" for lang in MORPH_LANGUAGES for param in MORPH["parameterizations"]],
