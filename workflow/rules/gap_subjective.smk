# Study C (Pant & Dadu 2022): GAP-Subjective.
# Logic: src/cdaflow/gap_subjective/; targets: STUDY_TARGETS["gap_subjective"] in helpers.smk. The study's rules
# arrive with its issue.
