"""Study D: the bias score of sentence encoders (Dolci et al. 2023)."""
