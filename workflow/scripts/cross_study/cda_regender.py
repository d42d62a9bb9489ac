"""Study A's CDA on Study B's test sets, next to B's systems (rule cross_study_cda_regender).

Jain et al. (2021, §6) found their re-implementation of Zmigrod et al. (2019) converted ~1% of the
segments correctly, ~9% with character adjectives added; this repeats it with our implementations.
"""

from pathlib import Path

import pandas as pd

from cdaflow.cross_study.cda_on_regender import (
    CharacterAdjectives,
    cda_on_regender_testset,
    parse_segments,
    read_lemmas,
)
from cdaflow.io.atomic import atomic_file
from cdaflow.io.tables import write_tsv_atomic
from cdaflow.morph_cda.model_folder import load_model
from cdaflow.pipeline.cluster import gpus_requested
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.testsets import read_test_set
from cdaflow.text.options import parser_options
from cdaflow.text.parsing import get_parser

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    device = rule_device(smk)
    generator, gazetteer = load_model(Path(smk.input.model), device=device, threads=smk.threads)
    if generator.lang != "es":
        raise ValueError(f"{smk.input.model}: Study B's test sets are Spanish, the model is for {generator.lang!r}")
    adjectives = CharacterAdjectives.from_lemmas(read_lemmas(smk.input.adjectives), generator.language)
    log.info("gazetteer: %d animate noun pairs; %d character adjective forms", len(gazetteer), len(adjectives))
    options = parser_options(p.parsing, p.backend, "es", gpu=gpus_requested(smk.resources), rule=smk.rule)
    parser = get_parser(p.backend, "es", **options)
    tables = []
    for k, name in enumerate(p.testsets):
        gold = read_test_set(smk.input.gold[k])
        others = {
            system: Path(smk.input.b_outputs[j * len(p.testsets) + k]).read_text(encoding="utf-8").splitlines()
            for j, system in enumerate(p.b_systems)
        }
        parsed = parse_segments(parser, [g.segment for g in gold], batch_size=p.parsing["batch_size"])
        table, outputs = cda_on_regender_testset(
            generator, gazetteer, parsed, gold, test_set=name, adjectives=adjectives, other_systems=others
        )
        for system in p.a_systems:
            with atomic_file(Path(p.out) / system / f"{name}.txt", "w") as handle:
                handle.writelines(line + "\n" for line in outputs[system])
        tables.append(table)
        log.info("%s: %d segments", name, len(gold))
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "scale", p.scale)
    write_tsv_atomic(table, Path(smk.output.table))
