"""`cdaflow cda` with the lexicon check over real sentences of every language's UD sample.

300 sentences of each test split in ../shared/data/ud-treebanks-v2.2, through the CLI with Hunspell
on: every input line (or CoNLL-U sentence) must come out as one record. Raw text where the
language file's spaCy pipeline is installed (es, fr; it once the workflow has trained its parser),
else the treebank's CoNLL-U (he, it). The models are tiny (a BASE MRF, a reinflector trained for
one epoch on 30 of the sentences, the language's gazetteer): what is tested is that the check
never stops a run, not the counterfactuals.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import pytest

from cdaflow.cli import main
from cdaflow.io.conllu import read_conllu, words
from cdaflow.morph_cda.hunspell import Hunspell
from cdaflow.text import language as languages
from tests.conftest import PROJECT_ROOT, shared_data_dir

pytestmark = pytest.mark.shared_data

SENTENCES = 300
TEST_SPLITS = {
    "es": "UD_Spanish-AnCora/es_ancora-ud-test.conllu",
    "fr": "UD_French-GSD/fr_gsd-ud-test.conllu",
    "it": "UD_Italian-ISDT/it_isdt-ud-test.conllu",
    "he": "UD_Hebrew-HTB/he_htb-ud-test.conllu",
}


def _raw_text_parser(lang: str) -> bool:
    """Whether the language file's spaCy pipeline is here (a package, or a folder the workflow trained)."""
    pipeline = languages.load(lang).spacy
    if not pipeline:
        return False
    return Path(pipeline).is_dir() if "/" in pipeline else importlib.util.find_spec(pipeline) is not None


@pytest.fixture(scope="module")
def treebank_sentences():
    """The first 300 sentences of a language's test split (skips where the sample is absent)."""

    def read(lang: str) -> list:
        data = shared_data_dir()
        path = data / "ud-treebanks-v2.2" / TEST_SPLITS[lang] if data else None
        if path is None or not path.is_file():
            pytest.skip(f"the UD sample {TEST_SPLITS[lang]} is not in ../shared/data")
        with path.open(encoding="utf-8") as stream:
            return list(itertools.islice(read_conllu(stream), SENTENCES))

    return read


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A CDA model folder for a language, trained in a second on the first 30 sentences."""
    from cdaflow.morph_cda.model import AgreementMRF
    from cdaflow.morph_cda.model_folder import save_model
    from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
    from cdaflow.morph_cda.reinflection.transducer import TransducerConfig
    from cdaflow.morph_cda.tags import TagInventory, tag_from_feats

    def build(lang: str, sentences: list) -> Path:
        folder = tmp_path_factory.mktemp(f"cda_{lang}")
        small = TransducerConfig(char_dim=8, feat_dim=8, hidden=16, attn_hidden=16)
        reinflector = Reinflector.train(
            examples_from_sentences(sentences[:30]), epochs=1, batch_size=64, seed=0, threads=1, config=small
        )
        reinflector.save(folder / "reinflection")
        inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
        gazetteer = PROJECT_ROOT / languages.load(lang).gazetteer
        save_model(folder / "model", AgreementMRF(inventory, "base", lang), folder / "reinflection", gazetteer, 1.0)
        return folder / "model"

    return build


@pytest.mark.parametrize("lang", ["es", "fr", "it", "he"])
def test_every_line_comes_out_with_the_lexicon_check(lang, treebank_sentences, tiny_model, tmp_path, capsys):
    if languages.load(lang).lexicon == "hspell":  # he: hspell's analyses (text/hebrew.py HspellLexicon)
        from cdaflow.text.hspell import HspellLexicon

        checker = HspellLexicon.find()
    else:
        checker = Hunspell.find(languages.load(lang).hunspell)
    if checker is None:
        pytest.skip(f"hunspell or its dictionaries {languages.load(lang).hunspell} are not installed")
    sentences = treebank_sentences(lang)
    assert len(sentences) == SENTENCES
    model = tiny_model(lang, sentences)
    raw = _raw_text_parser(lang)
    if raw:
        lines = [" ".join(s.metadata["text"].split()) for s in sentences]
        source = tmp_path / "in.txt"
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        options = []
    else:
        source = tmp_path / "in.conllu"
        source.write_text("".join(s.serialize() for s in sentences), encoding="utf-8")
        options = ["--format", "conllu"]
    out = tmp_path / "out.jsonl"
    argv = ["cda", "--lang", lang, "--model", str(model), "--input", str(source), "--output", str(out), *options]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"lexicon check: {checker.describe()}" in err  # the check was on
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == SENTENCES
    if raw:
        assert [r["line"] for r in records] == list(range(1, SENTENCES + 1))
        assert [r["original"] for r in records] == lines
    else:
        assert [r["id"] for r in records] == [s.metadata["sent_id"] for s in sentences]
        assert all(r["original"] for r in records)
    assert any(r["counterfactual"] for r in records)  # the gazetteer found people: the check had work
