# Study A (Zmigrod et al. 2019): morphological counterfactual data augmentation.
# Logic: src/cdaflow/morph_cda/. Per language: training data → reinflection model and MRFs
# (LIN, NN; BASE is hard-coded) → log α tuned on annotated dev sentences → Table 3 on test.


MORPH = config["studies"]["morph_cda"]


def morph_languages():
    return list(MORPH["languages"]) if enabled("morph_cda") else []


def annotated_split_files(lang):
    """Treebank splits the language's annotations point into (read when the DAG is built; the
    config validation has checked that the file exists and names defined splits)."""
    pairs = cdaflow_config.annotated_splits(MORPH["languages"][lang]["annotations"])
    return [f"results/common/treebanks/{treebank}/{split}.conllu" for treebank, split in pairs]


def morph_cda_targets():
    targets = [
        f"results/morph_cda/{lang}/{name}"
        for lang in morph_languages()
        for name in ("intrinsic.tsv", "reinflection.tsv", "examples.md")
    ]
    if MORPH.get("pwn_data_noun"):
        targets += [
            f"results/morph_cda/{lang}/wordnet_candidates.tsv"
            for lang in morph_languages()
            if MORPH["languages"][lang].get("wordnet")
        ]
    if MORPH["extrinsic"]["enabled"] and extrinsic_languages():
        targets += [f"results/morph_cda/extrinsic/{name}" for name in ("stereotyping.tsv", "fig4.png")]
    return targets


LM_CORPORA = ("original", "swap", "mrf")


def extrinsic_languages():
    """Languages with corpora to augment (§5.2)."""
    return [
        lang for lang in morph_languages()
        if MORPH["languages"][lang]["corpora"] or MORPH["languages"][lang]["corpus_treebanks"]
    ]


def augment_inputs(lang):
    """Parsed text of a language's extrinsic corpora: corpus shards, then treebank splits."""
    spec = MORPH["languages"][lang]
    return [path for name in spec["corpora"] for path in corpus_shards(name)] + [
        split_file(name) for name in spec["corpus_treebanks"]
    ]


STUDY_TARGETS["morph_cda"] = morph_cda_targets


rule morph_cda_prepare:
    """Training/dev trees (annotated sentences removed) and the joined annotated sentences."""
    input:
        train=lambda wc: [split_file(s) for s in MORPH["languages"][wc.lang]["train"]],
        dev=lambda wc: [split_file(s) for s in MORPH["languages"][wc.lang]["dev"]],
        annotated=lambda wc: annotated_split_files(wc.lang),
        annotations=lambda wc: MORPH["languages"][wc.lang]["annotations"],
    output:
        train="results/morph_cda/{lang}/data/train.conllu",
        dev="results/morph_cda/{lang}/data/dev.conllu",
        annotated="results/morph_cda/{lang}/data/annotated.conllu",
        summary="results/morph_cda/{lang}/data/summary.tsv",
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
        "../scripts/morph_cda_prepare.py"


rule morph_cda_reinflection:
    """Character-level reinflection model (lexicon first, then the neural transducer)."""
    input:
        train=rules.morph_cda_prepare.output.train,
        dev=rules.morph_cda_prepare.output.dev,
    output:
        model=directory("results/morph_cda/{lang}/models/reinflection"),
        table=report(
            "results/morph_cda/{lang}/reinflection.tsv",
            caption="../report/morph_cda_reinflection.rst",
            category="Study A: morphological CDA",
            subcategory="{lang}",
        ),
    log:
        "logs/morph_cda/reinflection/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/reinflection/{lang}.tsv"
    params:
        scale_items="morph_train_sentences",
        settings=MORPH["reinflection"],
        seed=config["seed"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_reinflection.py"


rule morph_cda_train_mrf:
    """One MRF parameterization (lin or nn) trained by NLL until the dev loss settles."""
    input:
        train=rules.morph_cda_prepare.output.train,
        dev=rules.morph_cda_prepare.output.dev,
    output:
        directory("results/morph_cda/{lang}/mrf/{param}"),
    log:
        "logs/morph_cda/train_mrf/{lang}_{param}.log",
    benchmark:
        "results/benchmarks/morph_cda/train_mrf/{lang}_{param}.tsv"
    wildcard_constraints:
        param="lin|nn",
    params:
        scale_items="morph_train_sentences",
        settings=MORPH["mrf"],
        features=MORPH["features"],
        seed=config["seed"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_train_mrf.py"


rule morph_cda_evaluate:
    """Table 3: BASE, LIN, NN and SWAP on the annotated test sentences; models for `cdaflow cda`."""
    input:
        mrfs=expand("results/morph_cda/{{lang}}/mrf/{param}", param=MORPH["parameterizations"]),
        reinflector=rules.morph_cda_reinflection.output.model,
        annotated=rules.morph_cda_prepare.output.annotated,
        train=rules.morph_cda_prepare.output.train,
        annotations=lambda wc: MORPH["languages"][wc.lang]["annotations"],
        gazetteer=lambda wc: file_ref_input(MORPH["languages"][wc.lang]["gazetteer"]),
    output:
        table=report(
            "results/morph_cda/{lang}/intrinsic.tsv",
            caption="../report/morph_cda_intrinsic.rst",
            category="Study A: morphological CDA",
            subcategory="{lang}",
        ),
        by_relation="results/morph_cda/{lang}/intrinsic_by_relation.tsv",
        tuning="results/morph_cda/{lang}/alpha_tuning.tsv",
        examples="results/morph_cda/{lang}/examples.md",
        models=[
            directory(f"results/morph_cda/{{lang}}/models/{param}")
            for param in MORPH["parameterizations"]
        ],
    log:
        "logs/morph_cda/evaluate/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/evaluate/{lang}.tsv"
    params:
        scale_items="morph_train_sentences",
        lang=lambda wc: wc.lang,
        params=MORPH["parameterizations"],
        grid=MORPH["log_alpha_grid"],
        carry_gender=MORPH["carry_gender"],
        features=MORPH["features"],
        gazetteer_member=lambda wc: file_ref_member(MORPH["languages"][wc.lang]["gazetteer"]),
        seed=config["seed"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_evaluate.py"


rule morph_cda_augment:
    """§5.2: the original corpus, its MRF counterfactuals and its naive-swap copies; Table 4."""
    input:
        parsed=lambda wc: augment_inputs(wc.lang),
        model="results/morph_cda/{lang}/models/lin",
    output:
        corpora=expand("results/morph_cda/{{lang}}/corpora/{corpus}.txt", corpus=LM_CORPORA),
        stats="results/morph_cda/{lang}/corpora/stats.tsv",
        nouns="results/morph_cda/{lang}/corpora/noun_counts.tsv",
    log:
        "logs/morph_cda/augment/{lang}.log",
    benchmark:
        "results/benchmarks/morph_cda/augment/{lang}.tsv"
    params:
        scale_items="corpus_sentences",
        settings=MORPH["extrinsic"],
        scale=config["scale"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_augment.py"


rule morph_cda_lm:
    """The BPE-RNNLM of one language and corpus (original, swap, mrf); validation perplexity."""
    input:
        "results/morph_cda/{lang}/corpora/{corpus}.txt",
    output:
        directory("results/morph_cda/{lang}/lm/{corpus}"),
    wildcard_constraints:
        corpus="original|swap|mrf",
    log:
        "logs/morph_cda/lm/{lang}/{corpus}.log",
    benchmark:
        "results/benchmarks/morph_cda/lm/{lang}/{corpus}.tsv"
    params:
        scale_items="corpus_sentences",
        settings=MORPH["extrinsic"],
        seed=config["seed"],
    threads: config["compute"]["threads"]
    resources:
        gpu=gpus_for(),
        mem_mb=config["compute"]["mem_mb"],
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_lm.py"


rule morph_cda_probes:
    """Prefix log-likelihoods of the 16 probe phrases per gazetteer noun under each corpus's LM."""
    input:
        lms=expand("results/morph_cda/{{lang}}/lm/{corpus}", corpus=LM_CORPORA),
        model="results/morph_cda/{lang}/models/lin",
        probes="resources/morph_cda/probes/{lang}.yaml",
    output:
        "results/morph_cda/{lang}/extrinsic/probes.tsv",
    log:
        "logs/morph_cda/probes/{lang}.log",
    threads: config["compute"]["threads"]
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/morph_cda_probes.py"


rule morph_cda_extrinsic:
    """Fig. 4 and Table 5 (stereotyping, grammaticality), the reduction factors, Fig. 5 and Table 8."""
    input:
        probes=expand("results/morph_cda/{lang}/extrinsic/probes.tsv", lang=extrinsic_languages()),
        nouns=expand("results/morph_cda/{lang}/corpora/noun_counts.tsv", lang=extrinsic_languages()),
        stats=expand("results/morph_cda/{lang}/corpora/stats.tsv", lang=extrinsic_languages()),
        lms=expand("results/morph_cda/{lang}/lm/{corpus}", lang=extrinsic_languages(), corpus=LM_CORPORA),
    output:
        table=report("results/morph_cda/extrinsic/stereotyping.tsv", caption="../report/morph_cda_extrinsic.rst", category="Study A: morphological CDA"),
        reduction="results/morph_cda/extrinsic/reduction.tsv",
        stereotyped="results/morph_cda/extrinsic/stereotyped_nouns.tsv",
        table4="results/morph_cda/extrinsic/table4_corpora.tsv",
        table8="results/morph_cda/extrinsic/table8_probes.tsv",
        fig4=report("results/morph_cda/extrinsic/fig4.png", caption="../report/morph_cda_extrinsic.rst", category="Study A: morphological CDA"),
        fig5="results/morph_cda/extrinsic/fig5.png",
    log:
        "logs/morph_cda/extrinsic.log",
    params:
        langs=extrinsic_languages(),
        threshold=MORPH["extrinsic"]["stereotype_threshold"],
        scale=config["scale"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/morph_cda_extrinsic.py"


rule morph_cda_wordnet_gazetteer:
    """Optional: gazetteer candidates from a WordNet's person synsets, for checking by hand (§5.2)."""
    input:
        pwn=file_ref_input(MORPH.get("pwn_data_noun")),
        omw=lambda wc: file_ref_input(MORPH["languages"][wc.lang].get("wordnet")),
        suffixes="resources/morph_cda/wordnet_suffixes.yaml",
    output:
        "results/morph_cda/{lang}/wordnet_candidates.tsv",
    log:
        "logs/morph_cda/wordnet_gazetteer/{lang}.log",
    params:
        pwn_member=file_ref_member(MORPH.get("pwn_data_noun")),
        omw_member=lambda wc: file_ref_member(MORPH["languages"][wc.lang].get("wordnet")),
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/morph_cda_wordnet_gazetteer.py"
