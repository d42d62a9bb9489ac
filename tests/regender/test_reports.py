"""Study B's tables: the scale in front, Table 2 rows per test set, Table 3 and its examples; the paper's numbers."""

import pytest

from cdaflow import paper
from cdaflow.regender.corpus import ParallelPair
from cdaflow.regender.reports import classifier_table, corpus_table, error_rate_tables, examples_markdown


def _sets():
    records = [
        {"id": "1", "label": "G", "text": "Estoy cansado.", "variants": ["Estoy cansada."]},
        {"id": "2", "label": "N", "text": "Es | raro.", "variants": ["Es | raro."]},
        {"id": "3", "label": "G", "text": "Lo veo.", "variants": ["La veo."]},
    ]
    outputs = {
        "nmt": ["Estoy cansada.", "Es | rara.", "Lo veo."],  # 2 wrong
        "rules": ["Estoy cansada.", "Es | raro.", "La veo."],  # none wrong
    }
    return {"opensubs_test": (records, outputs), "structured": (records, outputs)}


def test_corpus_table_counts_source_words_per_split_and_type():
    splits = {"train": [ParallelPair("Estoy cansado.", "Estoy cansada.", "G", True),
                        ParallelPair("Hola a todos.", "Hola a todos.", "N", False)], "dev": []}
    table = corpus_table(splits, "demo")
    assert list(table.columns) == ["scale", "set", "type", "segments", "running_words"]
    rows = {(r.set, r.type): (r.segments, r.running_words) for r in table.itertuples()}
    assert rows[("train", "all")] == (2, 5) and rows[("train", "neutral")] == (1, 3)
    assert rows[("dev", "re-genderable")] == (0, 0) and set(table["scale"]) == {"demo"}


def test_classifier_table_has_one_row_per_test_set():
    table = classifier_table([("opensubs_dev", ["G", "N"], ["G", "G"]), ("structured", ["N"], ["N"])], "demo")
    assert list(table["test_set"]) == ["opensubs_dev", "structured"]
    assert list(table.columns[:4]) == ["scale", "test_set", "n", "accuracy"]
    assert table.loc[0, "accuracy"] == 50 and table.loc[0, "N_recall"] == 0 and table.loc[1, "accuracy"] == 100


def test_error_rate_tables_lead_with_the_scale_and_leave_silver_rules_out():
    paper_layout, measured = error_rate_tables(_sets(), "demo", silver=["opensubs_test"])
    assert paper_layout.columns[0] == measured.columns[0] == "scale"
    row = paper_layout.set_index(["test_set", "type"]).loc[("structured", "all")]
    assert row["nmt_per_sentence"] == pytest.approx(200 / 3) and row["rules_per_sentence"] == 0
    silver_rules = measured[(measured.test_set == "opensubs_test") & (measured.system == "rules")]
    assert not silver_rules["in_paper_layout"].any()


def test_examples_list_wrong_outputs_with_escaped_cells():
    text = examples_markdown(_sets(), silver=["opensubs_test"], limit=1)
    assert text.startswith("# Study B: first errors per system and test set\n")
    assert "## opensubs_test (silver: the references are the rules' own output), nmt: 2 of 3 segments wrong" in text
    assert "## structured (hand-checked), rules: 0 of 3 segments wrong" in text
    assert "| N | Es \\| raro. | Es \\| raro. | Es \\| rara. |" in text
    assert "Lo veo. | La veo. | Lo veo." not in text  # the second wrong segment is past the limit


def test_paper_file_holds_the_tables_the_claims_quote():
    table2 = paper.value("regender", "table2_classifier")
    table3 = paper.value("regender", "table3_error_rates")
    assert paper.value("regender", "industry_recall_n") == table2["structured"]["N_recall"]
    assert paper.value("regender", "opensubs_accuracy") == table2["opensubs_test"]["accuracy"]
    unstructured_g, structured_n = table3["unstructured"]["re-genderable"], table3["structured"]["neutral"]
    assert paper.value("regender", "unstructured_g_nmt_at") == unstructured_g["nmt_at"]["per_sentence"]
    assert paper.value("regender", "structured_neutral_rules") == structured_n["rules"]["per_sentence"]
    assert "rules" not in table3["unstructured"]["all"]  # "not applicable" in the paper
    appendix = paper.value("regender", "appendix_table1")
    assert appendix["train"]["all"]["segments"] == paper.value("regender", "table1_segments")["train"]
    assert appendix["train"]["neutral"]["segments"] + appendix["train"]["re-genderable"]["segments"] == 2193657
