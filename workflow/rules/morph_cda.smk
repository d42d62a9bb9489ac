# Study A (Zmigrod et al. 2019): morphological counterfactual data augmentation.
# Logic: src/cdaflow/morph_cda/; targets: STUDY_TARGETS["morph_cda"] in helpers.smk. The study's rules
# arrive with its issue.
