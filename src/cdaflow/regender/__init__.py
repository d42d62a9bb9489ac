"""Study B (Jain et al. 2021): Spanish conversational re-gendering."""
