# Input functions, paths and target lists of the workflow; the rules themselves live in
# common.smk and the study files.

DATA_DIR = "resources/data"
DOWNLOAD_CACHE = "resources/downloads"
LOCKFILE = "results/downloads.tsv"
ENVS = "../../envs"


def enabled(study):
    return config["studies"][study]["enabled"]


def dataset_dir(name):
    return f"{DATA_DIR}/{name}"


def gpus_for(backend=None):
    """GPUs for a GPU-capable job (config compute.gpu), none when its backend runs on CPU only."""
    if backend is not None and backend != "stanza":
        return 0
    return config["compute"]["gpu"]


def treebank_files():
    return [
        f"results/common/treebanks/{name}/{split}.conllu"
        for name, tb in config["treebanks"].items()
        for split in tb["splits"]
    ]


def corpus_shards(name):
    shards = config["corpora"][name]["shards"]
    return [f"results/common/corpora/{name}/shard{k}.conllu" for k in range(shards)]


def corpus_files():
    return [path for name in config["corpora"] for path in corpus_shards(name)]


# -- Study A (morph_cda) --------------------------------------------------------------
MORPH = config["studies"]["morph_cda"]


def morph_languages():
    return list(MORPH["languages"]) if enabled("morph_cda") else []


def split_file(name):
    """results path of a `treebank/split` name."""
    treebank, split = name.split("/")
    return f"results/common/treebanks/{treebank}/{split}.conllu"


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


# -- Study D (sentence_bias) ----------------------------------------------------------
SB = config["studies"]["sentence_bias"]
SB_OUT = "results/sentence_bias"


def file_ref_input(ref):
    """The input behind a `file_ref` (its local path, or its acquired dataset folder)."""
    if not ref or "package" in ref:
        return []
    return [ref["path"]] if "path" in ref else [dataset_dir(ref["dataset"])]


def file_ref_member(ref):
    """The part of a `file_ref` inside its dataset folder (None: the folder or path itself)."""
    return (ref or {}).get("file") if "dataset" in (ref or {}) else None


def sb_senteval_root():
    """The SentEval data folder: `senteval.root`, else the one assembled from `senteval.folders`."""
    senteval = SB["senteval"]
    if senteval.get("root"):
        return file_ref_input(senteval["root"])
    return [f"{SB_OUT}/senteval_data"] if senteval["folders"] else []


def sb_corpora():
    """Training corpora: the original SNLI, then SubNN and AugNN for each percentile."""
    percentiles = [int(p) if float(p).is_integer() else p for p in SB["percentiles"]]
    return ["original"] + [f"{kind}{p}" for kind in ("sub", "aug") for p in percentiles]


def sb_models():
    return sb_corpora() + (["hard_debias"] if SB["hard_debias"] else [])


def sentence_bias_targets():
    return [
        f"{SB_OUT}/{name}"
        for name in (
            "gender_direction.tsv",
            "gender_words_counts.tsv",
            "table2_example.tsv",
            "table3_top_sentences.tsv",
            "corpora.tsv",
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


# -- Study B (regender) ----------------------------------------------------------------
REG = config["studies"]["regender"]
REG_OUT = "results/regender/es"
# Test sets: the OpenSubtitles test split the rules made, then the hand-checked ones.
REG_TESTSETS = {"opensubs_test": f"{REG_OUT}/parallel/test.tsv", **REG["test_sets"]}


def regender_targets():
    return [f"{REG_OUT}/{name}" for name in ("parallel_stats.tsv", "classifier.tsv", "error_rates.tsv")]


# -- Study C (gap_subjective) ----------------------------------------------------------
GS = config["studies"]["gap_subjective"]
GS_OUT = "results/gap_subjective"
GAP_SPLITS = ("development", "validation", "test")
# Benchmark (§4.2, Table 8): the MLP trains on GAP development; it is scored on both tests.
GS_FEATURE_SETS = [("gap", "development"), ("gap", "test"), ("gap_subjective", "test")]


def model_ref_input(ref):
    """The input behind a `model_ref`: nothing for a package or Hub id, else its file or folder."""
    return [] if not ref or "package" in ref or "hub" in ref else file_ref_input(ref)


def gap_subjective_targets():
    targets = [
        f"{GS_OUT}/{name}"
        for name in (
            "wnc_stats.tsv",
            "table_detector.tsv",
            "table_transfer.tsv",
            "table2_thresholding.tsv",
            "table3_examples.md",
            "table4_converted.tsv",
            "table7_offsets.tsv",
            "benchmark.tsv",
            "human_eval/sheet.tsv",
            "subjectivizer/manifest.json",
        )
    ] + [f"{GS_OUT}/GAP-Subjective/gap-{split}.tsv" for split in GAP_SPLITS]
    if GS["human_eval"]["ratings"]:
        targets.append(f"{GS_OUT}/table6_human_eval.tsv")
    return targets


# -- Cross-study comparisons and scale notes (cross_study.smk) ------------------------------
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


# Final targets of each study, switched on by `studies.<name>.enabled`; each study's issue adds
# its tables and figures here.
STUDY_TARGETS = {
    "morph_cda": morph_cda_targets,
    "sentence_bias": sentence_bias_targets,
    "regender": regender_targets,
    "gap_subjective": gap_subjective_targets,
}


def all_targets():
    targets = ["results/common/parsing_summary.tsv"]
    for study, targets_of in STUDY_TARGETS.items():
        if enabled(study):
            targets += targets_of()
    # Comparisons across the enabled studies and the scale notes (cross_study.smk).
    return targets + cross_study_targets()
