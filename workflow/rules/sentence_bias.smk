# Study D (Dolci et al. 2023): bias score for sentence encoders.
# Logic: src/cdaflow/sentence_bias/; targets: STUDY_TARGETS["sentence_bias"] in helpers.smk. The study's rules
# arrive with its issue.
