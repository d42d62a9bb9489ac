"""The error-rate counter of Table 3 on hand-made cases."""

import math

import pytest

from cdaflow.regender.errors import SYSTEMS, TOKENIZER, closest, error_rates, tokens, word_errors
from cdaflow.regender.reports import error_rate_tables
from cdaflow.regender.rewriter import SETUPS
from tests.conftest import run_rule_script


def test_tokens_are_words_without_punctuation():
    assert tokens("¿Estás lista?") == ["Estás", "lista"]
    assert tokens("Mándamelo, ¡ya!") == ["Mándamelo", "ya"]
    assert tokens("¡¿...?!") == []


@pytest.mark.parametrize(
    ("output", "reference", "errors"),
    [
        ("Estoy cansada.", "Estoy cansada.", 0),
        ("Estoy cansado.", "Estoy cansada.", 1),  # unchanged where a change was due
        ("esto es perfecta", "esto es perfecto", 1),  # the paper's Table 4(a)
        ("esta la hemos recibido", "este lo hemos recibido", 2),  # Table 4(b) 9: both words unchanged
        ("esta lo hemos recibido", "este lo hemos recibido", 1),
        ("unos momentos extraordinarias arios", "unos momentos extraordinarios", 2),  # Table 4(b) 6
        ("Hola", "Hola.", 0),  # a dropped period is not a word
        ("¡Hola!", "Hola.", 0),
        ("", "Sí, la tengo.", 3),
        ("a b c", "x y", 3),  # a block of 3 against 2 costs 3
    ],
)
def test_word_errors(output, reference, errors):
    assert word_errors(output, reference) == errors


def test_closest_variant_counts():
    assert closest("Lo veo.", ["La veo.", "Lo veo."]) == (0, "Lo veo.")
    with pytest.raises(ValueError):
        closest("x", [])


def test_rates_by_hand():
    outputs = ["Estoy cansado.", "Hola.", "No es caro."]
    references = [["Estoy cansada."], ["Hola."], ["No es cara."]]
    rates = error_rates(outputs, references)
    assert (rates["sentences"], rates["words"], rates["errors"]) == (3, 6, 2)  # 2 + 1 + 3 words, no periods
    assert rates["per_sentence"] == pytest.approx(200 / 3)
    assert rates["per_word"] == pytest.approx(200 / 6)
    assert rates["tokenizer"] == TOKENIZER
    empty = error_rates([], [])
    assert math.isnan(empty["per_sentence"]) and math.isnan(empty["per_word"])


def _records(*rows):
    return [{"id": f"x{i}", "label": label, "text": text, "variants": [variant]} for i, (label, text, variant) in
            enumerate(rows)]


def test_paper_layout_leaves_rules_out_of_silver_and_unstructured_sets():
    silver = _records(("G", "Estoy cansado.", "Estoy cansada."), ("N", "Lo sé.", "Lo sé."))
    gold = _records(("G", "Estoy listo.", "Estoy lista."), ("N", "Hola.", "Hola."))
    outputs_silver = {"nmt": ["Estoy cansado.", "Lo sé."], "rules": ["Estoy cansada.", "Lo sé."]}
    outputs_gold = {"nmt": ["Estoy lista.", "Hola."], "rules": ["Estoy listo.", "Hola."]}
    paper, measured = error_rate_tables(
        {"opensubs_test": (silver, outputs_silver), "structured": (gold, outputs_gold),
         "unstructured": (gold, outputs_gold)}, "demo",
        silver={"opensubs_test"}, rules_not_applicable={"unstructured"}, revised={"opensubs_test": 3},
    )
    rows = paper.set_index(["test_set", "type"])
    assert rows.at[("opensubs_test", "all"), "reference"] == "silver (rule output)"
    assert math.isnan(rows.at[("opensubs_test", "all"), "rules_per_sentence"])
    assert "silver" in rows.at[("opensubs_test", "all"), "note"]
    assert rows.at[("opensubs_test", "re-genderable"), "nmt_per_sentence"] == 100.0
    assert rows.at[("opensubs_test", "all"), "hand_revised"] == 3
    assert rows.at[("structured", "re-genderable"), "rules_per_sentence"] == 100.0
    assert rows.at[("structured", "all"), "reference"] == "hand-checked"
    assert math.isnan(rows.at[("unstructured", "re-genderable"), "rules_per_word"])
    assert "not applicable" in rows.at[("unstructured", "all"), "note"]
    assert set(paper["tokenizer"]) == {TOKENIZER}
    # Beside the layout, every figure is kept: the rules on the silver and the unstructured sets too.
    long = measured.set_index(["test_set", "type", "system"])
    assert long.at[("opensubs_test", "all", "rules"), "per_sentence"] == 0.0
    assert not long.at[("opensubs_test", "all", "rules"), "in_paper_layout"]
    assert long.at[("unstructured", "re-genderable", "rules"), "per_word"] == 50.0  # 1 of 2 words
    assert long.at[("structured", "all", "nmt"), "in_paper_layout"]
    assert len(measured) == 3 * 3 * 2


def test_workflow_script_applies_hand_revisions_before_scoring(tmp_path, monkeypatch):
    import json
    from types import SimpleNamespace

    import pandas as pd

    records = {
        "opensubs_test": [("t000001", "G", "Lo sé.", "La sé."), ("t000002", "G", "Estoy cansado.", "Estoy cansada.")],
        "structured": [("s001", "G", "¿Está completo?", "¿Está completa?"), ("s040", "N", "Lo siento.", "Lo siento.")],
    }
    outputs = {  # every system says "Lo sé." unchanged: right only once the revision makes it neutral
        "opensubs_test": ["Lo sé.", "Estoy cansada."],
        "structured": ["¿Está completa?", "Lo siento."],
    }
    inputs = {"testsets": [], "nmt": [], "nmt_t": [], "nmt_at": [], "rules": []}
    for name, rows in records.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "label": lab, "text": t, "variants": [v]}) + "\n"
                                for i, lab, t, v in rows), encoding="utf-8")
        inputs["testsets"].append(str(path))
        for system in ("nmt", "nmt_t", "nmt_at", "rules"):
            out = tmp_path / system / f"{name}.txt"
            out.parent.mkdir(exist_ok=True)
            out.write_text("\n".join(outputs[name]) + "\n", encoding="utf-8")
            inputs[system].append(str(out))
    revisions = tmp_path / "revisions.tsv"
    revisions.write_text("test_set\tid\tvariant\tnote\nopensubs_test\tt000001\tLo sé.\tneuter lo\n", encoding="utf-8")

    def run(revision_file):
        smk = SimpleNamespace(
            input=SimpleNamespace(**inputs, revisions=revision_file),
            output=SimpleNamespace(table=str(tmp_path / "error_rates.tsv"), measured=str(tmp_path / "measured.tsv"),
                                   examples=str(tmp_path / "examples.md")),
            params=SimpleNamespace(testsets=list(records), silver=["opensubs_test"], rules_not_applicable=[],
                                   scale="demo"),
            log=[str(tmp_path / "errors.log")], rule="regender_errors", wildcards={}, threads=1, config={},
        )
        run_rule_script("regender/errors.py", smk)
        return pd.read_csv(tmp_path / "measured.tsv", sep="\t").set_index(["test_set", "type", "system"])

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    unrevised = run([])
    assert unrevised.at[("opensubs_test", "all", "nmt"), "errors"] == 1
    assert unrevised.at[("opensubs_test", "all", "nmt"), "hand_revised"] == 0
    revised = run(str(revisions))
    assert revised.at[("opensubs_test", "all", "nmt"), "errors"] == 0
    assert revised.at[("opensubs_test", "neutral", "nmt"), "sentences"] == 1  # the revision made it neutral
    assert revised.at[("opensubs_test", "all", "nmt"), "hand_revised"] == 1
    assert revised.at[("opensubs_test", "all", "nmt"), "reference"] == "silver (rule output)"
    examples = (tmp_path / "examples.md").read_text(encoding="utf-8")
    assert "## opensubs_test (silver: the references are the rules' own output), nmt" in examples


def test_outputs_need_one_line_per_segment(tmp_path):
    from cdaflow.regender.errors import read_outputs

    (tmp_path / "nmt.txt").write_text("Lo veo.\nHola.\n", encoding="utf-8")
    (tmp_path / "rules.txt").write_text("Lo veo.\n", encoding="utf-8")
    assert read_outputs({"nmt": tmp_path / "nmt.txt"}, 2) == {"nmt": ["Lo veo.", "Hola."]}
    with pytest.raises(ValueError, match=r"rules.txt: 1 lines for 2 segments"):
        read_outputs({"nmt": tmp_path / "nmt.txt", "rules": tmp_path / "rules.txt"}, 2)


def test_systems_are_the_rewriter_setups_then_the_rules():
    assert SYSTEMS == (*SETUPS, "rules") == ("nmt", "nmt_t", "nmt_at", "rules")
