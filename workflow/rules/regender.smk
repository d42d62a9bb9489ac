# Study B (Jain et al. 2021): Spanish conversational re-gendering.
# Logic: src/cdaflow/regender/; targets: STUDY_TARGETS["regender"] in helpers.smk. The study's rules
# arrive with its issue.
