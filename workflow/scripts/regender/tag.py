"""Tag segments with the corpus backend on the paper's tagset (rules regender_tag, regender_tag_testset)."""

import json
from pathlib import Path

from cdaflow.io.atomic import atomic_file
from cdaflow.pipeline.cluster import gpus_requested
from cdaflow.pipeline.runtime import rule_context
from cdaflow.regender.corpus import iter_lines, unique_lines
from cdaflow.regender.segments import tag_texts
from cdaflow.regender.tagset import TagMap
from cdaflow.regender.testsets import read_test_set
from cdaflow.text.options import parser_options
from cdaflow.text.parsing import get_parser

with rule_context(snakemake) as (smk, log):  # noqa: F821
    source = Path(smk.input.segments)
    backend = smk.params.backend
    options = parser_options(smk.params.parsing, backend, "es", gpu=gpus_requested(smk.resources), rule=smk.rule)
    parser = get_parser(backend, "es", **options)
    tagmap = TagMap.load(smk.input.tagset[0])  # tag_corrections.yaml beside it is read too
    gold = read_test_set(source) if smk.rule == "regender_tag_testset" else None
    if gold is not None:
        texts = [row.segment for row in gold]
    elif smk.params.dedupe:
        texts, dropped = unique_lines(source)
        log.info("%d duplicate segments dropped", dropped)
    else:
        texts = list(iter_lines(source))
    log.info("tagging %d segments of %s with %s", len(texts), source, parser.name)
    count = 0
    with atomic_file(smk.output[0], "w") as handle:
        for i, segment in enumerate(tag_texts(parser, texts, tagmap, batch_size=smk.params.parsing["batch_size"])):
            record = segment.to_json()
            if gold is not None:
                record |= {"id": gold[i].id, "label": gold[i].label, "variants": list(gold[i].variants)}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
            if count % 10000 == 0:
                log.info("%d segments tagged", count)
    if count != len(texts):
        raise RuntimeError(f"{source}: {len(texts)} segments in, {count} tagged")
    log.info("wrote %d tagged segments", count)
