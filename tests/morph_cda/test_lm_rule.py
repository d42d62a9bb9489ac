"""The rule script of morph_cda_lm (workflow/scripts/morph_cda/lm.py) trains the shared LM from the compact corpus."""

import json
import random
from types import SimpleNamespace

import sentencepiece as spm

from cdaflow.text.language_model import LSTMLanguageModel, sentence_perplexity
from tests.conftest import run_rule_script
from tests.text.test_language_model_corpus import as_lists, sentences


def test_the_rule_script_trains_from_the_compact_corpus(tmp_path):
    """workflow/scripts/morph_cda/lm.py end to end: the dev perplexity it reports is the saved model's on the
    dev sentences encoded as lists (the split drawn as the script draws it)."""

    class Params(SimpleNamespace):
        def items(self):
            return vars(self).items()

    lines = sentences(200, 4)
    (tmp_path / "corpus.txt").write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    settings = {"dev_fraction": 0.1, "bpe_vocab": 60,
                "lm": {"embedding": 8, "hidden": 8, "layers": 1, "epochs": 2, "batch_size": 16}}  # fmt: skip
    out = tmp_path / "lm"
    smk = SimpleNamespace(
        rule="morph_cda_lm", threads=1, log=[str(tmp_path / "lm.log")], config={}, resources=Params(gpu=0),
        input=[str(tmp_path / "corpus.txt")], output=[str(out)], wildcards=Params(lang="es", corpus="original"),
        params=Params(settings=settings, seed=3, checkpoints=str(tmp_path / "checkpoints")),
    )
    run_rule_script("morph_cda/lm.py", smk)
    metrics = json.loads((out / "metrics.json").read_text())
    assert (metrics["train_sentences"], metrics["dev_sentences"]) == (180, 20)
    order = list(range(200))
    random.Random(3).shuffle(order)
    bpe = spm.SentencePieceProcessor(model_file=str(out / "bpe.model"))
    dev = as_lists(bpe, [lines[i] for i in order[:20]])
    assert metrics["dev_perplexity"] == sentence_perplexity(LSTMLanguageModel.load(out), dev)
    assert len((out / "history.tsv").read_text().splitlines()) == 3
