"""SentencePiece for the style transfer, numbers as user-defined symbols (rule gap_subjective_transfer_spm, §3.2.2)."""

import tempfile
from pathlib import Path

from cdaflow.gap_subjective.pieces import number_symbols, train_sentencepiece
from cdaflow.pipeline.runtime import input_path, rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    paths = [input_path(smk.input.texts, p.member)] if p.member else [Path(path) for path in smk.input.texts]
    texts = [line.strip() for path in paths for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    symbols = number_symbols(texts, max_symbols=max(p.max_number_symbols, 10))
    log.info("%d sentences from %s; %d number symbols", len(texts), ", ".join(map(str, paths)), len(symbols))
    model = Path(smk.output.model)
    model.parent.mkdir(parents=True, exist_ok=True)
    # Train in a scratch folder beside the outputs; a failure leaves neither file behind.
    with tempfile.TemporaryDirectory(dir=model.parent, prefix=".spm.") as scratch:
        trained = train_sentencepiece(
            texts, Path(scratch) / "spm", p.vocab_size, user_defined_symbols=symbols, threads=smk.threads
        )
        trained.with_suffix(".vocab").replace(smk.output.vocab)
        trained.replace(model)
    log.info("vocabulary: %d pieces", sum(1 for _ in open(smk.output.vocab, encoding="utf-8")))
