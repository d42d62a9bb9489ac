"""Agent-noun gazetteer candidates: both forms known to the dictionaries, none already listed."""

from collections import Counter

from cdaflow.morph_cda.agent_nouns import agent_noun_candidates, noun_lemmas
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.text.language import load


class Known:
    def __init__(self, *words):
        self.words = set(words)

    def known(self, words):
        return {w for w in words if w in self.words}


def test_candidates_need_both_forms_and_an_agent_ending():
    lemmas = Counter({"navegador": 3, "actor": 2, "libro": 5, "escalador": 1, "cobrador": 1, "ingeniero": 4})
    checker = Known(
        "navegador", "navegadora", "actor", "actriz", "libro", "libra", "escalador", "escaladora", "cobrador"
    )
    listed = Gazetteer({"ingeniero": "ingeniera"}, {"ingeniera": "ingeniero"})
    found = agent_noun_candidates(lemmas, load("es"), checker, listed)
    # libro: no agent ending; cobradora: unknown; ingeniero: listed already
    assert found == [("navegador", "navegadora", 3), ("actor", "actriz", 2), ("escalador", "escaladora", 1)]


def test_noun_lemmas_of_a_treebank(tmp_path):
    path = tmp_path / "t.conllu"
    path.write_text(
        "# text = El organizador llegó.\n1\tEl\tel\tDET\t_\t_\t2\tdet\t_\t_\n"
        "2\torganizador\tOrganizador\tNOUN\t_\t_\t3\tnsubj\t_\t_\n3\tllegó\tllegar\tVERB\t_\t_\t0\troot\t_\t_\n\n",
        encoding="utf-8",
    )
    assert noun_lemmas([path]) == Counter({"organizador": 1})
