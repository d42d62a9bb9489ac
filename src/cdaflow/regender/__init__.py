"""Study B: Spanish conversational re-gendering (Jain et al. 2021)."""
