# What every study uses: data paths, dataset and file references, GPU requests, the registry of
# final targets. Each study's own paths, input functions and targets open its rule file.
from cdaflow.pipeline.cluster import load_jobs, slurm_resources
from cdaflow.config import ConfigError
from cdaflow.data.hub import hub_folder_name, hub_refs

DATA_DIR = "resources/data"
DOWNLOAD_CACHE = "resources/downloads"
MODELS_DIR = "resources/models"  # Hub models fetched by fetch_model (common.smk)
LOCKFILE = "results/downloads.tsv"
ENVS = "../../envs"
HUB_MODELS = hub_refs(config)  # folder name -> {hub, revision}: what fetch_model may fetch


def enabled(study):
    return config["studies"][study]["enabled"]


def dataset_dir(name):
    return f"{DATA_DIR}/{name}"


def gpus_for(backend=None):
    """GPUs for a GPU-capable job (config compute.gpu), none when its backend runs on CPU only (a parser
    other than stanza, or "cpu": scikit-learn, SentencePiece, file conversions)."""
    if backend is not None and backend != "stanza":
        return 0
    return config["compute"]["gpu"]


# Threads and resources of a heavy job (training, inference, parsing): `threads: THREADS` and
# `resources: **job_resources("<rule>")`; its `benchmark:` file feeds the scale notes.
THREADS = config["compute"]["threads"]
# resources/jobs.yaml + jobs_measured.tsv: what sizes the heavy jobs at paper scale
JOBS = load_jobs() if config["scale"] == "paper" else None
# Where SLURM jobs go (config compute.slurm; absent: SLURM's defaults)
SLURM = config["compute"].get("slurm") or {}


def job_resources(name, backend=None):
    """GPUs (gpus_for), SLURM partition and account (config compute.slurm, cdaflow.pipeline.cluster.slurm_resources)
    and memory of a heavy job; at paper scale also its runtime, growing with each retry, and memory derived
    from its measured cost and the config's sizes (cdaflow.pipeline.cluster), else config compute.mem_mb."""
    gpu = gpus_for(backend)
    resources = {**slurm_resources(SLURM, name, gpu), "mem_mb": config["compute"]["mem_mb"]}
    if config["scale"] == "paper":
        if name not in JOBS.costs:
            raise ValueError(f"resources/jobs.yaml has no entry for {name}, so its cluster job cannot be sized")
        sized = JOBS.size(name, config, threads=THREADS, gpu=bool(gpu))
        resources.update(mem_mb=sized["mem_mb"], runtime=runtime_by_attempt(sized["runtime"]))
    return resources


def runtime_by_attempt(first):
    """A `runtime` resource of `first` minutes that grows with each retry (the profile's `retries`): a
    job killed at its wall time was underestimated, and the same limit would kill it again."""

    def runtime(wildcards, attempt):
        return JOBS.runtime_for_attempt(first, attempt)

    return runtime


def place_rules_without_job_resources():
    """Rules without job_resources (the light ones) never hold a GPU: they go where config
    compute.slurm's `cpu` block (or their `rules` entry) says, unless the profile or --set-resources
    already placed them. The Snakefile calls this once every rule is defined."""
    names = {each.name for each in workflow.rules}  # `rule` is a keyword in a Snakefile
    for name in SLURM.get("rules") or {}:
        if name not in names:
            raise ConfigError(f"config compute.slurm.rules.{name}: the workflow has no rule {name!r}")
    for each in workflow.rules:
        if "gpu" in each.resources or "gres" in each.resources:
            continue  # a heavy rule: job_resources placed it
        for key, value in slurm_resources(SLURM, each.name, 0).items():
            if key != "gpu":  # no GPU request at all, rather than an explicit 0
                each.resources.setdefault(key, value)


# `snakemake --report` groups each study's tables under one category.
REPORT_CATEGORIES = {
    "common": "Data",
    "claims": "Claims",
    "morph_cda": "Study A: morphological CDA",
    "regender": "Study B: re-gendering",
    "gap_subjective": "Study C: GAP-Subjective",
    "sentence_bias": "Study D: sentence bias",
    "cross_study": "Cross-study",
}


def study_report(path, study, stage, category=None, **kwargs):
    """A report() output of a study's stage, captioned by workflow/report/<study>/<stage>.rst."""
    category = REPORT_CATEGORIES[category or study]
    return report(path, caption=f"../report/{study}/{stage}.rst", category=category, **kwargs)


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


def split_file(name):
    """results path of a `treebank/split` name."""
    treebank, split = name.split("/")
    return f"results/common/treebanks/{treebank}/{split}.conllu"


def file_ref_input(ref):
    """The input behind a `file_ref` (its local path, or its acquired dataset folder)."""
    if not ref or "package" in ref:
        return []
    return [ref["path"]] if "path" in ref else [dataset_dir(ref["dataset"])]


def file_ref_member(ref):
    """The part of a `file_ref` inside its dataset folder (None: the folder or path itself)."""
    return (ref or {}).get("file") if "dataset" in (ref or {}) else None


def model_ref_input(ref):
    """The input behind a `model_ref`: nothing for a package, the fetched folder of a Hub model
    (rule fetch_model), else its file or folder."""
    if ref and "hub" in ref:
        return [f"{MODELS_DIR}/{hub_folder_name(ref['hub'])}"]
    return [] if not ref or "package" in ref else file_ref_input(ref)


# Final targets of each study: every study file registers the list of them here when it is
# included; `studies.<name>.enabled` switches it on.
STUDY_TARGETS = {}


def morph_language(lang):
    """Study A's language file resources/morph_cda/languages/<lang>.yaml, read and checked."""
    from cdaflow.text.language import load

    return load(lang)


def all_targets():
    targets = ["results/common/parsing_summary.tsv"]
    for study, study_targets in STUDY_TARGETS.items():
        if enabled(study):
            targets += study_targets
    # Comparisons across the enabled studies and the scale notes (cross_study.smk).
    return targets + CROSS_STUDY_TARGETS
