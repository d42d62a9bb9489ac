"""Study A: morphological counterfactual data augmentation (Zmigrod et al. 2019)."""
