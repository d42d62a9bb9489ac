"""Study C: GAP-Subjective, subjectivity style transfer on GAP (Pant & Dadu 2022)."""
