"""Animacy gazetteer candidates from WordNet person synsets (rule morph_cda_wordnet_gazetteer)."""

from pathlib import Path

import pandas as pd

from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.wordnet import gender_pairs, load_suffixes, person_synsets, read_omw_lemmas, read_pwn_hypernyms
from cdaflow.pipeline.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    lang = smk.wildcards.lang
    persons = person_synsets(read_pwn_hypernyms(input_path(smk.input.pwn, smk.params.pwn_member)))
    lemmas = read_omw_lemmas(input_path(smk.input.omw, smk.params.omw_member))
    pairs = gender_pairs(lemmas, persons, load_suffixes(lang))
    table = pd.DataFrame(
        [{"masculine": m, "feminine": f, "english": "", "synsets": " ".join(s)} for m, f, s in pairs],
        columns=["masculine", "feminine", "english", "synsets"],
    )
    write_tsv_atomic(table, Path(smk.output[0]))
    log.info("%s: %d person synsets, %d candidate pairs (check them by hand)", lang, len(persons), len(pairs))
