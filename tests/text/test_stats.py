import conllu

from cdaflow.text.stats import conllu_stats

SENTENCE = """# text = Vi a la niña del pueblo.
1\tVi\tver\tVERB\t_\tPerson=1|Number=Sing\t0\troot\t_\t_
2\ta\ta\tADP\t_\t_\t4\tcase\t_\t_
3\tla\tel\tDET\t_\tGender=Fem|Number=Sing\t4\tdet\t_\t_
4\tniña\tniño\tNOUN\t_\tGender=Fem|Number=Sing\t1\tobj\t_\t_
5-6\tdel\t_\t_\t_\t_\t_\t_\t_\t_
5\tde\tde\tADP\t_\t_\t7\tcase\t_\t_
6\tel\tel\tDET\t_\tGender=Masc|Number=Sing\t7\tdet\t_\t_
7\tpueblo\tpueblo\tNOUN\t_\tGender=Masc|Number=Sing\t4\tnmod\t_\tSpaceAfter=No
8\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

"""


def test_counts_words_multiword_tokens_and_features():
    stats = conllu_stats(conllu.parse(SENTENCE) * 2)
    assert stats == {
        "sentences": 2,
        "words": 16,
        "multiword_tokens": 2,
        "words_with_Gender": 8,
        "words_with_Number": 10,
        "words_with_Person": 2,
    }
