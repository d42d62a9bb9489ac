"""Study C's tables carry the paper's figures from resources/gap_subjective/paper.yaml."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pandas as pd
import pytest

from cdaflow import paper
from cdaflow.gap_subjective import reports
from cdaflow.gap_subjective.transfer import TransferSettings

ROOT = Path(__file__).resolve().parents[2]


def verdicts(kept: list[bool]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "original": [f"Sentence {i}." for i in range(len(kept))],
            "transferred": [f"Sadly, sentence {i}." for i in range(len(kept))],
            "gleu": [0.85] * len(kept),
            "ppl_original": [40.0] * len(kept),
            "ppl_transferred": [52.5] * len(kept),
            "within_gleu": [True] * len(kept),
            "within_perplexity": [True] * len(kept),
            "objective": [True] * len(kept),
            "kept": kept,
        }
    )


def records(replaced: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "replaced": replaced,
            "changed": [r > 0 for r in replaced],
            "pronoun_found": True,
            "a_found": True,
            "b_found": True,
            "all_found": True,
        }
    )


def test_tables_quote_the_papers_figures() -> None:
    t2 = reports.table2({"development": verdicts([True, False]), "test": verdicts([True])}).set_index("split")
    assert t2.loc["development", ["paper_total", "paper_final"]].tolist() == [5995, 1736]
    assert t2.loc["overall", "paper_final_pct"] == pytest.approx(29.30, abs=0.005)
    assert t2.loc["overall", "final_pct"] == pytest.approx(200 / 3)
    assert reports.table4({"test": records([1, 0])}).iloc[0]["paper_converted_pct"] == 63.85
    t7 = reports.table7({"validation": records([1])}).iloc[0]
    assert (t7["paper_pronoun"], t7["paper_a"], t7["paper_b"], t7["paper_all"]) == (99.34, 99.78, 99.56, 98.68)
    detector = reports.detector_table(
        {"hub": "roberta-base"}, "cpu", 9, 1, {"accuracy": 0.7, "precision": 0.6, "recall": 0.5, "f1": 0.55}, "demo"
    ).iloc[0]
    assert detector["model"] == "hub=roberta-base"
    assert [detector[f"paper_{k}"] for k in reports.DETECTOR_METRICS] == [0.7001, 0.720, 0.653, 0.685]
    transfer = reports.transfer_table(8, 2, TransferSettings(), {"perplexity": 9.5, "accuracy": 40.0}, "demo").iloc[0]
    assert (transfer["paper_valid_perplexity"], transfer["paper_valid_accuracy"]) == (3.10, 84.52)
    card = {"overall_f1": 0.5, "bias": 0.9}
    t8 = reports.table8([("gap", "test", card), ("gap_subjective", "test", card)], "demo").set_index("dataset")
    assert t8.loc["GAP", ["paper_O", "paper_P", "paper_R", "paper_M", "paper_F", "paper_B"]].tolist() == [
        0.796, 0.778, 0.815, 0.802, 0.790, 0.984,
    ]  # fmt: skip
    assert t8.loc["GAP-Subjective", "paper_B"] == 1.007
    assert t8["bias_definition"].unique().tolist() == ["F/M (official GAP scorer)"]


def test_tables_read_the_paper_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gap_subjective").mkdir()
    text = (ROOT / "resources/gap_subjective/paper.yaml").read_text(encoding="utf-8")
    (tmp_path / "gap_subjective/paper.yaml").write_text(text.replace("test: 63.85", "test: 12.5"), encoding="utf-8")
    monkeypatch.setattr(paper, "RESOURCES", tmp_path)
    assert reports.table4({"test": records([1])}).iloc[0]["paper_converted_pct"] == 12.5
    shutil.rmtree(tmp_path / "gap_subjective")
    with pytest.raises(paper.PaperError, match="gap_subjective/paper.yaml: cannot read"):
        reports.table4({"test": records([1])})


def test_table3_draws_kept_transfers_with_the_seed() -> None:
    frames = {"test": verdicts([True, False, True, True])}
    text = reports.table3_markdown(frames, seed=3, scale="demo", examples=2)
    lines = text.splitlines()
    assert lines[0] == "# Table 3: kept transfers (2 drawn at random of 3; scale: demo)"
    assert lines[2].startswith("| split | original (objective) |") and len(lines) == 6
    assert lines[4].endswith("| 0.850 | +12.5 |") and "Sentence 1." not in text
    assert text == reports.table3_markdown(frames, seed=3, scale="demo", examples=2)


def number_literals(path: Path) -> set[float]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    }


def leaves(value) -> list[float]:
    return [x for inner in value.values() for x in leaves(inner)] if isinstance(value, dict) else [value]


def test_no_paper_number_in_study_code() -> None:
    printed = {x for entry in paper.load("gap_subjective").values() if "value" in entry for x in leaves(entry["value"])}
    code = [
        *(ROOT / "src/cdaflow/gap_subjective").glob("*.py"),
        *(ROOT / "workflow/scripts/gap_subjective").glob("*.py"),
    ]
    found = {path.relative_to(ROOT).as_posix(): sorted(number_literals(path) & printed) for path in code}
    assert not {name: numbers for name, numbers in found.items() if numbers}
