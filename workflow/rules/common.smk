# Data acquisition and parsing, shared by every study (input functions: helpers.smk).
#
# Layout:  resources/data/<dataset>/            acquired (downloaded or local) and extracted data
#          resources/downloads/<dataset>/       download cache (archives as fetched)
#          resources/models/stanza/<lang>/      stanza's models of a language (index + model files)
#          results/downloads.tsv                lock file: url, size and sha256 of what was used
#          results/common/treebanks/<tb>/<split>.conllu     validated (and re-parsed) treebanks
#          results/common/corpora/<corpus>/shard<k>.conllu  parsed raw-text corpora, sharded
#          results/common/parsing_summary.tsv
wildcard_constraints:
    dataset="[A-Za-z0-9_.-]+",
    model="[A-Za-z0-9_.-]+",
    treebank="[A-Za-z0-9_.-]+",
    corpus="[A-Za-z0-9_.-]+",
    split="train|dev|test",
    gap_split="development|validation|test",
    shard=r"\d+",
    lang="[A-Za-z0-9_-]+",


from snakemake.logging import logger

from cdaflow.config import ConfigError
from cdaflow.data.datasets import local_fingerprint, manual_pending
from cdaflow.text import stanza_models

# Said at start-up, not only when the fetch job fails: what must be downloaded by hand.
for line in manual_pending(config["datasets"], DATA_DIR, DOWNLOAD_CACHE):
    logger.warning(line)

# Stanza's models: fetched by fetch_stanza_models unless parsing.stanza_model_dir names a folder, which must
# hold them now (else every parse job would wait for its GPU, then fail).
if stanza_problems := stanza_models.startup_problems(config):
    raise ConfigError("; ".join(stanza_problems))


rule fetch_dataset:
    """Acquire one dataset: download (retries, resume, sha256) or take its local path; extract."""
    input:
        lambda wc: [config["datasets"][wc.dataset]["path"]] if config["datasets"][wc.dataset]["path"] else [],
    output:
        directory(f"{DATA_DIR}/{{dataset}}"),
    log:
        "logs/common/fetch_dataset/{dataset}.log",
    params:
        entry=lambda wc: config["datasets"][wc.dataset],
        # A folder's mtime misses edits inside it: this stat-only digest of every file's name,
        # size and mtime changes with them, so the dataset and what uses it rerun (the pin is
        # then checked against the content, reading only files whose size or mtime moved).
        local_content=lambda wc: (
            local_fingerprint(config["datasets"][wc.dataset]["path"])
            if config["datasets"][wc.dataset]["path"]
            else ""
        ),
        cache=DOWNLOAD_CACHE,
        lockfile=LOCKFILE,
        downloads=config["downloads"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/common/fetch_dataset.py"


rule fetch_model:
    """Fetch one Hugging Face Hub model (a `{hub: ...}` model_ref) into resources/models/<org--name>."""
    output:
        directory(f"{MODELS_DIR}/{{model}}"),
    log:
        "logs/common/fetch_model/{model}.log",
    params:
        ref=lambda wc: HUB_MODELS[wc.model],
        endpoint=config["downloads"]["hub_endpoint"],
        downloads=config["downloads"],
        lockfile=LOCKFILE,
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/common/fetch_model.py"


rule fetch_stanza_models:
    """Fetch stanza's resources index and one language's models (as stanza.download does) into resources/models/stanza/<lang>."""
    output:
        directory(f"{stanza_models.FETCH_ROOT}/{{lang}}"),
    log:
        "logs/common/fetch_stanza_models/{lang}.log",
    params:
        resources_url=config["parsing"]["stanza_resources_url"],
        model_url=config["parsing"]["stanza_model_url"],
        downloads=config["downloads"],
        lockfile=LOCKFILE,
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/common/fetch_stanza_models.py"


rule datasets:
    """Acquire every dataset, Hub model and stanza model the config registers (`snakemake datasets`)."""
    input:
        [dataset_dir(name) for name in config["datasets"]],
        [f"{MODELS_DIR}/{name}" for name in HUB_MODELS],
        [stanza_models.parse_inputs(config, "stanza", lang) for lang in stanza_models.stanza_languages(config)],


# Downloads run on the host that runs Snakemake (submitting to a cluster): compute nodes often have
# no outbound network. So do the cheap steps that only gather results.
localrules:
    fetch_dataset,
    fetch_model,
    fetch_stanza_models,
    datasets,


rule treebank_split:
    """One treebank split, validated; re-parsed unless the treebank backend is `gold`."""
    input:
        lambda wc: dataset_dir(config["treebanks"][wc.treebank]["dataset"]),
        lambda wc: stanza_models.parse_inputs(config, config["parsing"]["treebanks"], config["treebanks"][wc.treebank]["lang"]),
    output:
        "results/common/treebanks/{treebank}/{split}.conllu",
    log:
        "logs/common/treebank_split/{treebank}/{split}.log",
    benchmark:
        "results/benchmarks/common/treebank_split/{treebank}/{split}.tsv"
    params:
        lang=lambda wc: config["treebanks"][wc.treebank]["lang"],
        file=lambda wc: config["treebanks"][wc.treebank]["splits"][wc.split],
        parsing=config["parsing"],
        backend=config["parsing"]["treebanks"],
    threads: 1 if config["parsing"]["treebanks"] == "gold" else THREADS
    resources:
        **job_resources("treebank_split", config["parsing"]["treebanks"]),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/common/treebank_split.py"


rule corpus_shard:
    """Parse one shard of a raw-text corpus (lines k, k+n, k+2n, ...) with the corpus backend."""
    input:
        lambda wc: dataset_dir(config["corpora"][wc.corpus]["dataset"]),
        lambda wc: stanza_models.parse_inputs(config, config["parsing"]["corpora"], config["corpora"][wc.corpus]["lang"]),
    output:
        "results/common/corpora/{corpus}/shard{shard}.conllu",
    log:
        "logs/common/corpus_shard/{corpus}/shard{shard}.log",
    benchmark:
        "results/benchmarks/common/corpus_shard/{corpus}/shard{shard}.tsv"
    params:
        corpus=lambda wc: config["corpora"][wc.corpus],
        parsing=config["parsing"],
        backend=config["parsing"]["corpora"],
    threads: THREADS
    resources:
        **job_resources("corpus_shard", config["parsing"]["corpora"]),
    conda:
        f"{ENVS}/torch.yaml"
    script:
        "../scripts/common/corpus_shard.py"


rule parsing_summary:
    """Sentence, word, multiword-token and feature counts of every parsed treebank and corpus."""
    input:
        treebanks=treebank_files(),
        corpora=corpus_files(),
    output:
        study_report("results/common/parsing_summary.tsv", "common", "parsing_summary"),
    log:
        "logs/common/parsing_summary.log",
    params:
        scale=config["scale"],
        parsing=config["parsing"],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/common/parsing_summary.py"
