"""The offline fluency LM: SentencePiece + LSTM LM on the WNC text (rule gap_subjective_fluency_lm)."""


from cdaflow.gap_subjective.fluency import LSTMScorerSettings, train_lstm_scorer
from cdaflow.io.checkpoints import rule_store
from cdaflow.io.tables import read_tsv
from cdaflow.pipeline.device import rule_device
from cdaflow.pipeline.runtime import rule_context

with rule_context(snakemake) as (smk, log):  # noqa: F821
    p = smk.params
    device = rule_device(smk)
    pairs = read_tsv(smk.input.pairs, text_columns=("id", "objective", "subjective"))
    # Both sides: the LM judges the fluency of objective originals and subjective transfers alike.
    texts = pairs["objective"].tolist() + pairs["subjective"].tolist()
    settings = LSTMScorerSettings.from_config({"bpe_vocab": p.settings["bpe_vocab"], "lm": p.settings["lm"]})
    # a retry after a kill goes on from the last checkpoint
    train_lstm_scorer(texts, smk.output[0], settings, seed=p.seed, device=device, checkpoints=rule_store(smk))
    log.info("LSTM fluency LM on %d sentences (%s)", len(texts), device)
