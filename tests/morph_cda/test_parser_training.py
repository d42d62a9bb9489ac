"""The Italian raw-text parser: treebank sentences become spaCy Docs, and a tiny pipeline trains."""

from pathlib import Path

import pytest

from cdaflow.morph_cda.parser_training import train_pipeline, treebank_docs
from tests.morph_cda.conftest import SPANISH

ITALIAN = """# text = Il libro della ragazza.
1\tIl\til\tDET\t_\tGender=Masc|Number=Sing\t2\tdet\t_\t_
2\tlibro\tlibro\tNOUN\t_\tGender=Masc|Number=Sing\t0\troot\t_\t_
3-4\tdella\t_\t_\t_\t_\t_\t_\t_\t_
3\tdi\tdi\tADP\t_\t_\t5\tcase\t_\t_
4\tla\til\tDET\t_\tGender=Fem|Number=Sing\t5\tdet\t_\t_
5\tragazza\tragazza\tNOUN\t_\tGender=Fem|Number=Sing\t2\tnmod\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


def test_multiword_tokens_become_surface_tokens(tmp_path):
    path = tmp_path / "it.conllu"
    path.write_text(ITALIAN, encoding="utf-8")
    (doc,) = treebank_docs([path], "it")
    assert [t.text for t in doc] == ["Il", "libro", "della", "ragazza", "."]
    assert doc[1].pos_ == "NOUN" and str(doc[3].morph) == "Gender=Fem|Number=Sing"


def test_too_few_sentences_are_refused(tmp_path):
    path = tmp_path / "it.conllu"
    path.write_text(ITALIAN, encoding="utf-8")
    with pytest.raises(ValueError, match="too few to train a parser"):
        train_pipeline([path], "it", tmp_path / "out")


def test_a_tiny_pipeline_trains_and_parses(tmp_path):
    from cdaflow.text.spacy_parser import SpacyParser

    path = tmp_path / "es.conllu"
    path.write_text(SPANISH * 12, encoding="utf-8")
    scores = train_pipeline([path], "es", tmp_path / "parser", {"max_epochs": 1, "width": 16, "depth": 1}, seed=1)
    assert {"pos_acc", "dep_las"} <= scores.keys()
    (sentence,) = SpacyParser("es", model=str(tmp_path / "parser")).parse(["El ingeniero alemán es muy experto."])
    assert [w["form"] for w in sentence][:2] == ["El", "ingeniero"]
    assert Path(tmp_path / "parser" / "config.cfg").is_file()
