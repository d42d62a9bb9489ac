# What a reader opens first: results/README.md, every catalogued table and figure with the paper's
# number beside ours and the scale that produced it (`snakemake --report` gives the HTML report).
# Catalogue: workflow/report/catalogue.yaml; logic: src/cdaflow/reporting.py.


rule results_readme:
    """results/README.md: every catalogued table and figure, ours beside the paper's, and the scale that made it."""
    input:
        catalogue="workflow/report/catalogue.yaml",
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
        "../scripts/results_readme.py"
