# cdaflow: four studies of gender bias in NLP data, rebuilt from raw public data.
#   snakemake --cores 8                                   # embedded demo (config.yaml), offline
#   snakemake --cores 8 --configfile config/validation.yaml   # real samples in ../shared/data
#   snakemake --configfile config/paper.yaml --workflow-profile profiles/slurm --sdm conda   # full scale
import os
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

PROJECT = Path(workflow.basedir).resolve()
# Scripts import the cdaflow package from src/ in every environment (the venv has it installed;
# conda envs and cluster jobs do not): derived here, so there is nothing for a user to set.
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in [str(PROJECT / "src"), os.getenv("PYTHONPATH")] if p)
)
sys.path.insert(0, str(PROJECT / "src"))

from cdaflow import config as cdaflow_config  # noqa: E402

# config.yaml is the default; a --configfile on the command line replaces it instead of being
# merged into it (so the demo's entries never leak into a full-scale run).
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


config.update(cdaflow_config.validate(config, source="config"))


include: "workflow/rules/helpers.smk"
include: "workflow/rules/common.smk"
include: "workflow/rules/morph_cda.smk"
include: "workflow/rules/sentence_bias.smk"
include: "workflow/rules/regender.smk"
include: "workflow/rules/gap_subjective.smk"
include: "workflow/rules/cross_study.smk"
include: "workflow/rules/report.smk"


localrules:
    all,


rule all:
    input:
        all_targets(),
        "results/README.md",
    default_target: True


# Once every rule is defined: light rules get the CPU partition and account of config compute.slurm
# (heavy ones got theirs from job_resources).
place_rules_without_job_resources()
