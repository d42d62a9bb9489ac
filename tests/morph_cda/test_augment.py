"""Corpus-scale CDA: gender-combination expansion, the naive swap, corpus counts."""

import pytest

from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.augment import AugmentCounts, augment_corpus, flip_sets
from cdaflow.morph_cda.gazetteer import Gazetteer

from .test_cda import generator, reinflector  # noqa: F401  (fixtures)

TWO_NOUNS = """# sent_id = two
# text = El niño y la ingeniera.
1\tEl\tel\tDET\t_\tGender=Masc|Number=Sing|PronType=Art\t2\tdet\t_\t_
2\tniño\tniño\tNOUN\t_\tGender=Masc|Number=Sing\t0\troot\t_\t_
3\ty\ty\tCCONJ\t_\t_\t5\tcc\t_\t_
4\tla\tel\tDET\t_\tGender=Fem|Number=Sing|PronType=Art\t5\tdet\t_\t_
5\tingeniera\tingeniero\tNOUN\t_\tGender=Fem|Number=Sing\t2\tconj\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""


def test_flip_sets():
    assert flip_sets(0) == []
    assert flip_sets(1) == [(0,)]
    assert flip_sets(2) == [(0,), (1,), (0, 1)]
    assert flip_sets(3) == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
    assert flip_sets(3, max_copies=4) == [(0,), (1,), (2,), (0, 1)]
    assert len(flip_sets(10)) == 2**10 - 1
    with pytest.raises(ValueError):
        flip_sets(2, max_copies=0)


@pytest.fixture
def gazetteer():
    return Gazetteer(to_fem={"niño": "niña", "ingeniero": "ingeniera"},
                     to_masc={"niña": "niño", "ingeniera": "ingeniero"})


def test_swap_changes_only_the_nouns_and_mrf_the_agreement(spanish, generator, gazetteer):  # noqa: F811
    counts = AugmentCounts()
    out = list(augment_corpus(spanish, generator, gazetteer, counts=counts))
    (orig1, mrf1, swap1), (orig2, mrf2, swap2) = out
    assert orig1 == "El ingeniero alemán es muy experto."
    assert swap1 == ["El ingeniera alemán es muy experto."]  # naive: only the noun
    assert mrf1 == ["La ingeniera alemana es muy experta."]
    assert swap2 == ["Vi a la niño del pueblo."]
    assert mrf2 == ["Vi al niño del pueblo."]
    assert (counts.sentences, counts.animate_sentences, counts.copies) == (2, 2, 2)
    assert counts.animate_percent == 100.0


def test_one_copy_per_gender_combination(generator, gazetteer):  # noqa: F811
    sentences = parse_conllu_string(TWO_NOUNS)
    counts = AugmentCounts()
    ((original, mrf, swap),) = augment_corpus(sentences, generator, gazetteer, counts=counts)
    assert swap == ["El niña y la ingeniera.", "El niño y la ingeniero.", "El niña y la ingeniero."]
    assert mrf[0].startswith("La niña") and mrf[2].startswith("La niña y el ingeniero")
    assert counts.copies_by_nouns == {2: 1} and counts.animate_nouns == 2
    ((_, capped, _),) = augment_corpus(sentences, generator, gazetteer, max_copies=1)
    assert len(capped) == 1


def test_sentences_without_animate_nouns_pass_through(spanish, generator):  # noqa: F811
    counts = AugmentCounts()
    out = list(augment_corpus(spanish, generator, Gazetteer(), counts=counts))
    assert [(mrf, swap) for _, mrf, swap in out] == [([], []), ([], [])]
    assert counts.animate_percent == 0.0


def test_gazetteer_nouns_counted_by_masculine_lemma_and_corpora_written(tmp_path, gazetteer):
    from collections import Counter

    from cdaflow.morph_cda.augment import CORPORA, count_gazetteer_nouns, write_corpora

    counts: Counter = Counter()
    sentences = list(count_gazetteer_nouns(parse_conllu_string(TWO_NOUNS), gazetteer, counts))
    assert len(sentences) == 1 and counts == Counter({("niño", "Masc"): 1, ("ingeniero", "Fem"): 1})
    paths = {name: tmp_path / f"{name}.txt" for name in CORPORA}
    heard = []
    augmented = [("A.", ["B.", "C."], ["D."]), ("E.", [], [])]
    assert write_corpora(augmented, paths, progress=heard.append, every=2) == 2
    assert paths["original"].read_text() == "A.\nE.\n"
    assert paths["mrf"].read_text() == "A.\nB.\nC.\nE.\n"
    assert paths["swap"].read_text() == "A.\nD.\nE.\n"
    assert heard == [2]


def test_write_corpora_leaves_nothing_when_it_fails(tmp_path):
    from cdaflow.morph_cda.augment import CORPORA, write_corpora

    paths = {name: tmp_path / f"{name}.txt" for name in CORPORA}
    paths["swap"].write_text("before\n")

    def failing():
        yield ("A.", [], [])
        raise ValueError("sentence 2 has no # text")

    with pytest.raises(ValueError):
        write_corpora(failing(), paths)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["swap.txt"] and paths["swap"].read_text() == "before\n"
