"""Hand-made Spanish trees shared by the Study A tests."""

import pytest

from cdaflow.io.conllu import parse_conllu_string

# "El ingeniero alemán es muy experto." (the paper's Fig. 2) and "Vi a la niña del pueblo."
SPANISH = """# sent_id = fig2
# text = El ingeniero alemán es muy experto.
1\tEl\tel\tDET\t_\tDefinite=Def|Gender=Masc|Number=Sing|PronType=Art\t2\tdet\t_\t_
2\tingeniero\tingeniero\tNOUN\t_\tGender=Masc|Number=Sing\t6\tnsubj\t_\t_
3\talemán\talemán\tADJ\t_\tGender=Masc|Number=Sing\t2\tamod\t_\t_
4\tes\tser\tAUX\t_\tMood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin\t6\tcop\t_\t_
5\tmuy\tmuy\tADV\t_\t_\t6\tadvmod\t_\t_
6\texperto\texperto\tADJ\t_\tGender=Masc|Number=Sing\t0\troot\t_\tSpaceAfter=No
7\t.\t.\tPUNCT\t_\t_\t6\tpunct\t_\t_

# sent_id = del
# text = Vi a la niña del pueblo.
1\tVi\tver\tVERB\t_\tMood=Ind|Number=Sing|Person=1|Tense=Past|VerbForm=Fin\t0\troot\t_\t_
2\ta\ta\tADP\t_\t_\t4\tcase\t_\t_
3\tla\tel\tDET\t_\tDefinite=Def|Gender=Fem|Number=Sing|PronType=Art\t4\tdet\t_\t_
4\tniña\tniño\tNOUN\t_\tGender=Fem|Number=Sing\t1\tobj\t_\t_
5-6\tdel\t_\t_\t_\t_\t_\t_\t_\t_
5\tde\tde\tADP\t_\t_\t7\tcase\t_\t_
6\tel\tel\tDET\t_\tDefinite=Def|Gender=Masc|Number=Sing|PronType=Art\t7\tdet\t_\t_
7\tpueblo\tpueblo\tNOUN\t_\tGender=Masc|Number=Sing\t4\tnmod\t_\tSpaceAfter=No
8\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_

"""


@pytest.fixture
def spanish():
    return parse_conllu_string(SPANISH)
