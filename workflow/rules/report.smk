# What a reader opens first: results/README.md, every catalogued table and figure with the paper's
# number beside ours and the scale that produced it (`snakemake --report` gives the HTML report).
# Catalogue: workflow/report/catalogue.yaml; logic: src/cdaflow/pipeline/reporting.py. The claims ledger
# (results/claims.tsv, first section of the README): resources/claims.yaml with the papers' numbers in
# resources/<study>/paper.yaml, src/cdaflow/pipeline/claims.py; a claim that does not hold says why: by how much, the
# paper's figures, and the run's inputs (item counts read from its outputs) against the paper's counts in
# resources/cross_study/paper.yaml, so a scale effect reads apart from a defect. Both cite the run's signature
# (results/signature.json: config hash, commit, package versions, devices; src/cdaflow/pipeline/signature.py).
from cdaflow.pipeline.signature import config_hash


rule claims:
    """results/claims.tsv: every headline claim of the four papers, with the verdict computed from this run's tables."""
    input:
        claims="resources/claims.yaml",
        papers=[f"resources/{study}/paper.yaml" for study in STUDY_TARGETS],
        counts="resources/cross_study/paper.yaml",  # the paper's inputs, for the reasons
        targets=all_targets(),
    output:
        ledger=study_report("results/claims.tsv", "common", "claims", category="claims"),
        signature="results/signature.json",
    log:
        "logs/common/claims.log",
    params:
        scale=config["scale"],
        config_sha256=config_hash(config),
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/common/claims.py"


rule results_readme:
    """results/README.md: the claims ledger first, then every catalogued table and figure, ours beside the paper's."""
    input:
        catalogue="workflow/report/catalogue.yaml",
        claims="results/claims.tsv",
        signature="results/signature.json",
        targets=all_targets(),
    output:
        readme="results/README.md",
    log:
        "logs/common/results_readme.log",
    params:
        scale=config["scale"],
        config_name=", ".join(os.path.relpath(f) for f in workflow.configfiles) or "config.yaml",
        disabled_studies=[study for study in STUDY_TARGETS if not enabled(study)],
    conda:
        f"{ENVS}/base.yaml"
    script:
        "../scripts/common/results_readme.py"


# Gathering tables is seconds of work: no cluster job for it.
localrules:
    claims,
    results_readme,
