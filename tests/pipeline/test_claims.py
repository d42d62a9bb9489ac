"""The claims ledger: verdicts computed from small hand-made result tables."""

import textwrap
from pathlib import Path

import pandas as pd
import pytest

from cdaflow.pipeline.claims import (
    HOLDS,
    NOT_COMPUTABLE,
    NOT_HOLDS,
    ClaimsError,
    ledger_table,
    load_claims,
    main,
    render_section,
)
from tests.conftest import run_rule_script

# The paper file of a study "demo", beside the claims file (as resources/<study>/paper.yaml).
PAPER = textwrap.dedent(
    """
    citation: "A demo paper"
    values:
      lin: {value: 82.29, source: "Table 3, LIN"}
      base: {value: 67.23, source: "Table 3, BASE"}
      f1: {value: 0.685, source: "§3.2.1"}
      words: {text: "not lower", source: "Fig. 4"}
    """
)
CLAIMS = textwrap.dedent(
    """
    claims:
      - id: X1
        study: demo
        claim: LIN above BASE
        paper: [demo.lin, demo.base]
        check:
          left: {table: a/intrinsic.tsv, where: {model: LIN}, column: tag_f1}
          op: ">"
          right: {table: a/intrinsic.tsv, where: {model: BASE}, column: tag_f1}
      - id: X2
        study: demo
        claim: NN within 1 point of LIN
        check:
          left: {table: a/intrinsic.tsv, where: {model: NN}, column: tag_f1}
          op: within
          right: {table: a/intrinsic.tsv, where: {model: LIN}, column: tag_f1}
          tolerance: 1.0
      - id: X3
        study: demo
        claim: F1 near the paper's
        paper: [demo.f1]
        check: {left: {table: c/detector.tsv, column: f1}, op: within, right: {paper: demo.f1}, tolerance: 0.05}
      - id: X4
        study: demo
        claim: bias closer to 1 on the new set
        check:
          left: {table: c/bench.tsv, where: {dataset: new}, column: bias}
          op: closer_to
          right: {table: c/bench.tsv, where: {dataset: old}, column: bias}
          target: 1
      - id: X5
        study: demo
        claim: mean over languages not lower
        paper: [demo.words]
        check:
          left: {table: a/extrinsic.tsv, where: {corpus: mrf, lang: [es, it]}, column: g, aggregate: mean}
          op: ">="
          right: {table: a/extrinsic.tsv, where: {corpus: original}, column: g, aggregate: mean}
          tolerance: 0.1
      - id: X6
        study: demo
        claim: a table this run does not make
        check: {left: {table: d/missing.tsv, column: x}, op: ">", right: 0}
        missing_table: "an optional stage"
      - id: X7
        study: demo
        claim: a model this run does not train
        check: {left: {table: a/intrinsic.tsv, where: {model: W2V}, column: tag_f1}, op: ">", right: 0}
        missing: "needs the GoogleNews vectors"
    """
)


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)


@pytest.fixture()
def setup(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(CLAIMS, encoding="utf-8")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/paper.yaml").write_text(PAPER, encoding="utf-8")
    results = tmp_path / "results"
    _write(results / "a/intrinsic.tsv", [
        {"scale": "demo", "model": "BASE", "tag_f1": 60.0},
        {"scale": "demo", "model": "LIN", "tag_f1": 70.0},
        {"scale": "demo", "model": "NN", "tag_f1": 71.5},
    ])
    _write(results / "c/detector.tsv", [{"f1": 0.70}])
    _write(results / "c/bench.tsv", [{"dataset": "new", "bias": 0.99}, {"dataset": "old", "bias": 1.02}])
    _write(results / "a/extrinsic.tsv", [
        {"lang": "es", "corpus": "original", "g": 2.0}, {"lang": "it", "corpus": "original", "g": 3.0},
        {"lang": "es", "corpus": "mrf", "g": 2.2}, {"lang": "it", "corpus": "mrf", "g": 2.7},
        {"lang": "he", "corpus": "mrf", "g": -50.0},  # not among the languages the claim averages
    ])
    return claims, results


def _verdicts(claims, results):
    table = ledger_table(results, load_claims(claims), scale="validation")
    return table.set_index("id")


def test_verdicts_from_small_tables(setup):
    table = _verdicts(*setup)
    assert table.at["X1", "verdict"] == HOLDS
    assert table.at["X1", "ours"] == "70 (LIN tag_f1) vs 60 (BASE tag_f1)"
    assert table.at["X1", "paper_value"] == "82.29 vs 67.23"
    assert table.at["X1", "paper_source"] == "Table 3, LIN; Table 3, BASE"
    assert table.at["X1", "scale"] == "demo"  # the tables' own scale column
    assert table.at["X2", "verdict"] == NOT_HOLDS  # 1.5 points apart
    assert table.at["X2", "reason"] == (
        "ours 71.5 (NN tag_f1) is 1.5 from 70 (LIN tag_f1), 0.5 beyond the tolerance 1; measured at demo scale "
        "(inputs not declared): a run this much smaller than the paper's need not reproduce its finding, "
        "likely a scale effect"
    )
    assert table.at["X3", "verdict"] == HOLDS  # 0.70 is within 0.05 of 0.685
    assert table.at["X3", "scale"] == "validation"  # no scale column: the run's
    assert table.at["X4", "verdict"] == HOLDS  # 0.01 from 1 against 0.02
    assert table.at["X5", "verdict"] == HOLDS  # mean 2.45 against 2.5, tolerance 0.1
    assert table.at["X5", "paper_value"] == "not lower"


def test_a_missing_table_is_not_computable_and_named(setup):
    table = _verdicts(*setup)
    assert table.at["X6", "verdict"] == NOT_COMPUTABLE
    assert table.at["X6", "reason"] == "results/d/missing.tsv is missing: an optional stage"
    assert table.at["X6", "ours"] == ""
    assert table.at["X7", "verdict"] == NOT_COMPUTABLE
    assert table.at["X7", "reason"] == "results/a/intrinsic.tsv has no row model=W2V: needs the GoogleNews vectors"


def test_verdict_follows_the_numbers(setup):
    claims, results = setup
    _write(results / "a/intrinsic.tsv", [
        {"model": "BASE", "tag_f1": 75.0}, {"model": "LIN", "tag_f1": 70.0}, {"model": "NN", "tag_f1": 70.5},
    ])
    table = _verdicts(claims, results)
    assert table.at["X1", "verdict"] == NOT_HOLDS and table.at["X2", "verdict"] == HOLDS
    _write(results / "a/intrinsic.tsv", [{"model": "BASE", "tag_f1": ""}, {"model": "LIN", "tag_f1": 70.0}])
    table = _verdicts(claims, results)
    assert table.at["X1", "verdict"] == NOT_COMPUTABLE and "tag_f1 is empty at model=BASE" in table.at["X1", "reason"]


def test_section_for_the_readme(setup):
    text = render_section(_verdicts(*setup).reset_index())
    assert text.startswith("## The papers' claims, checked")
    assert "4 holds, 1 does not hold, 2 not computable here" in text
    assert "| X6 | a table this run does not make |" in text and "results/d/missing.tsv is missing" in text


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("op: within", "op: about"), r"claim X2: field check.op: 'about' is not one of"),
        (("paper: [demo.f1]", "paper: [demo.f2]"), r"claim X3: field paper: unknown paper value 'demo.f2'"),
        (
            ("right: {paper: demo.f1}", "right: {paper: demo.words}"),
            r"claim X3: field check.right.paper: 'demo.words' has no numeric",
        ),
        (("id: X2", "id: X1"), r"claim X1: field id: repeated"),
        (("tolerance: 1.0", "tolerance: -1"), r"claim X2: field check.tolerance"),
        (("aggregate: mean", "aggregate: median"), r"claim X5: field check.left.aggregate"),
    ],
)
def test_malformed_claims_name_the_claim_and_field(tmp_path, edit, message):
    path = tmp_path / "claims.yaml"
    path.write_text(CLAIMS.replace(*edit, 1), encoding="utf-8")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/paper.yaml").write_text(PAPER, encoding="utf-8")
    with pytest.raises(ClaimsError, match=message):
        load_claims(path)


def test_malformed_paper_file_names_the_file_and_entry(setup, tmp_path):
    claims, _ = setup
    (tmp_path / "demo/paper.yaml").write_text(PAPER.replace('{value: 0.685, source: "§3.2.1"}', "{value: 0.685}"))
    with pytest.raises(ClaimsError, match=r"demo/paper.yaml: values.f1: needs `source`"):
        load_claims(claims)


def test_project_claims_file_is_valid_and_large_enough():
    ledger = load_claims(Path(__file__).parents[2] / "resources" / "claims.yaml")
    assert len(ledger.claims) >= 24
    assert {claim.study for claim in ledger.claims} == {"morph_cda", "regender", "gap_subjective", "sentence_bias"}
    # Every paper value says where in the paper it comes from.
    assert all(entry["source"] for entry in ledger.paper_values.values())
    # Every claim says what its numbers grow with, for the reason it gets when it does not hold.
    assert all(claim.inputs is not None for claim in ledger.claims)


def test_command_line_writes_the_ledger(setup, tmp_path, capsys):
    claims, results = setup
    out = tmp_path / "claims.tsv"
    assert main(["--results", str(results), "--claims", str(claims), "--output", str(out)]) == 0
    assert list(pd.read_csv(out, sep="\t")["verdict"])[:2] == [HOLDS, NOT_HOLDS]
    assert main(["--results", str(tmp_path / "nowhere"), "--claims", str(claims)]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_workflow_script_writes_claims_tsv_beside_the_tables(setup, tmp_path, monkeypatch):
    from types import SimpleNamespace

    claims, results = setup
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    smk = SimpleNamespace(
        input=SimpleNamespace(claims=str(claims), targets=[]),
        output=SimpleNamespace(ledger=str(results / "claims.tsv"), signature=str(results / "signature.json")),
        params=SimpleNamespace(scale="demo", config_sha256="0" * 64),
        log=[str(tmp_path / "logs" / "claims.log")],
        rule="claims",
        wildcards={},
        threads=1,
        config={},
    )
    run_rule_script("common/claims.py", smk)
    written = pd.read_csv(results / "claims.tsv", sep="\t", keep_default_na=False).set_index("id")
    assert written.at["X1", "verdict"] == HOLDS and written.at["X6", "verdict"] == NOT_COMPUTABLE
    # Every row cites the run's signature, written beside the ledger.
    assert written["signature"].str.startswith("cdaflow:0.1.0|scale:demo|config:000000000000|").all()
    assert (results / "signature.json").is_file()


def test_prefix_match_names_the_row_it_found(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(textwrap.dedent(
        """
        claims:
          - id: D1
            study: sentence_bias
            claim: Sub95 lowers the average
            check:
              left: {table: seat.tsv, where: {test: {prefix: "average |d|"}}, column: sub95}
              op: "<"
              right: {table: seat.tsv, where: {test: {prefix: "average |d|"}}, column: original}
        """
    ), encoding="utf-8")
    _write(tmp_path / "results/seat.tsv", [
        {"test": "C1", "original": 1.5, "sub95": 1.6},
        {"test": "average |d| (C6, C7)", "original": 1.2, "sub95": 1.0},
    ])
    row = ledger_table(tmp_path / "results", load_claims(claims)).iloc[0]
    assert row["verdict"] == HOLDS
    assert row["ours"] == "1 (average |d| (C6, C7) sub95) vs 1.2 (average |d| (C6, C7) original)"
    claims.write_text(claims.read_text().replace('{prefix: "average |d|"}', '{starts: "average"}', 1))
    with pytest.raises(ClaimsError, match=r"claim D1: field check.left.where.test: expected a value"):
        load_claims(claims)


def test_a_rate_over_no_items_is_not_computable(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(textwrap.dedent(
        """
        claims:
          - id: B8
            study: regender
            claim: recall on G above recall on N
            check:
              left: {table: classifier.tsv, where: {test_set: opensubs_test}, column: G_recall, nonzero: G_support}
              op: ">"
              right: {table: classifier.tsv, where: {test_set: opensubs_test}, column: N_recall, nonzero: N_support}
        """
    ), encoding="utf-8")
    rows = {"test_set": "opensubs_test", "G_recall": 95.0, "G_support": 20, "N_recall": 0.0, "N_support": 0}
    _write(tmp_path / "results/classifier.tsv", [rows])
    row = ledger_table(tmp_path / "results", load_claims(claims)).iloc[0]
    assert row["verdict"] == NOT_COMPUTABLE
    assert row["reason"] == (
        "results/classifier.tsv: N_support is 0 at test_set=opensubs_test (no such items), so N_recall cannot be judged"
    )
    _write(tmp_path / "results/classifier.tsv", [rows | {"N_recall": 50.0, "N_support": 4}])
    assert ledger_table(tmp_path / "results", load_claims(claims)).iloc[0]["verdict"] == HOLDS


# Item counts at paper scale (as resources/cross_study/paper.yaml) and claims that read them.
COUNTS = textwrap.dedent(
    """
    citation: "The datasets"
    values:
      wnc_pairs: {value: 180000, source: "WNC"}
      gap_examples: {value: 4, source: "GAP, shrunk for the test"}
      snli_pairs: {value: 570152, source: "SNLI"}
    """
)
SCALED = textwrap.dedent(
    """
    inputs:
      demo: [wnc_pairs]
    claims:
      - id: S1
        study: demo
        claim: LIN above BASE (holds)
        paper: [demo.lin, demo.base]
        check:
          left: {table: a/intrinsic.tsv, where: {model: LIN}, column: tag_f1}
          op: ">"
          right: {table: a/intrinsic.tsv, where: {model: BASE}, column: tag_f1}
      - id: S2
        study: demo
        claim: BASE above LIN (does not hold)
        paper: [demo.base, demo.lin]
        check:
          left: {table: a/intrinsic.tsv, where: {model: BASE}, column: tag_f1}
          op: ">"
          right: {table: a/intrinsic.tsv, where: {model: LIN}, column: tag_f1}
      - id: S3
        study: demo
        claim: F1 near the paper's
        paper: [demo.f1]
        check: {left: {table: c/detector.tsv, column: f1}, op: within, right: {paper: demo.f1}, tolerance: 0.05}
      - id: S4
        study: demo
        claim: bias closer to 1 on the new set
        check:
          left: {table: c/bench.tsv, where: {dataset: new}, column: bias}
          op: closer_to
          right: {table: c/bench.tsv, where: {dataset: old}, column: bias}
          target: 1
      - id: S5
        study: demo
        claim: the rules make no error
        check: {left: {table: c/detector.tsv, column: errors}, op: "<=", right: 0}
        inputs: []
      - id: S6
        study: demo
        claim: the benchmark's F1 at the paper's inputs
        check: {left: {table: c/bench.tsv, where: {dataset: new}, column: f1}, op: ">=", right: 0.8, tolerance: 0.1}
        inputs: [gap_examples]
      - id: S7
        study: demo
        claim: NN within 1 of LIN, with an input this run does not count
        check:
          left: {table: a/intrinsic.tsv, where: {model: NN}, column: tag_f1}
          op: within
          right: {table: a/intrinsic.tsv, where: {model: LIN}, column: tag_f1}
          tolerance: 1
        inputs: [wnc_pairs, snli_pairs]
    """
)


@pytest.fixture()
def scaled(tmp_path):
    claims = tmp_path / "claims.yaml"
    claims.write_text(SCALED, encoding="utf-8")
    for study, text in (("demo", PAPER), ("cross_study", COUNTS)):
        (tmp_path / study).mkdir()
        (tmp_path / study / "paper.yaml").write_text(text, encoding="utf-8")
    results = tmp_path / "results"
    _write(results / "a/intrinsic.tsv", [
        {"scale": "validation", "model": "BASE", "tag_f1": 60.0},
        {"scale": "validation", "model": "LIN", "tag_f1": 70.0},
        {"scale": "validation", "model": "NN", "tag_f1": 72.5},
    ])
    _write(results / "c/detector.tsv", [{"f1": 0.5, "errors": 2}])
    _write(results / "c/bench.tsv", [
        {"dataset": "new", "bias": 1.2, "f1": 0.6}, {"dataset": "old", "bias": 0.9, "f1": 0.7},
    ])
    # The run's own counts (cdaflow.pipeline.scale_notes.measured_items): 1,800 WNC pairs, 4 GAP examples.
    wnc = [{"split": "train", "pairs": 1600}, {"split": "dev", "pairs": 200}]
    _write(results / "gap_subjective/wnc_stats.tsv", wnc)
    _write(results / "gap_subjective/sentences/gap-test.tsv", [{"ID": f"test-{i}"} for i in range(4)])
    return claims, results


def test_every_claim_that_does_not_hold_says_why(scaled):
    claims, results = scaled
    table = ledger_table(results, load_claims(claims), scale="demo").set_index("id")
    assert list(table["verdict"]) == [HOLDS] + [NOT_HOLDS] * 6
    assert table.at["S1", "reason"] == ""  # a claim that holds needs no reason
    failing = table[table["verdict"] == NOT_HOLDS]
    for ident, row in failing.iterrows():
        ours = row["ours"].split(" ")[0]  # the measured value, as the ours column prints it
        assert row["reason"].startswith(f"ours {ours} "), ident
        assert f"measured at {row['scale']} scale" in row["reason"], ident
    # By how much it misses, the paper's figures, and the run's inputs against the paper's.
    assert table.at["S2", "reason"] == (
        "ours 60 (BASE tag_f1) is not above 70 (LIN tag_f1): 10 short; the paper: 67.23 vs 82.29; "
        "measured at validation scale on 1,800 of the paper's 180,000 wnc pairs (1 %): a run this much smaller "
        "than the paper's need not reproduce its finding, likely a scale effect"
    )
    assert table.at["S3", "reason"].startswith("ours 0.5 (f1) is 0.185 from 0.685, 0.135 beyond the tolerance 0.05; ")
    assert table.at["S3", "scale"] == "demo" and "measured at demo scale on 1,800 of" in table.at["S3", "reason"]
    assert table.at["S4", "reason"].startswith("ours 1.2 (new bias) is 0.2 from the target 1, 0.9 (old bias) 0.1; ")
    # Nothing it reads grows with the scale, or its inputs are the paper's: not a scale effect.
    assert table.at["S5", "reason"].startswith("ours 2 (errors) is 2 above 0; measured at demo scale; none of its")
    assert "not a scale effect" in table.at["S5", "reason"]
    assert "on 4 of the paper's 4 gap examples (100 %): at or near the paper's scale, so not a scale effect" in (
        table.at["S6", "reason"]
    )
    assert "0.2 below 0.8, 0.1 beyond the tolerance 0.1" in table.at["S6", "reason"]
    # An input the run's outputs do not count is named; the scale alone says a validation run is small.
    assert "(snli pairs: not counted in this run's outputs): a run this much smaller" in table.at["S7", "reason"]
    assert all("scale effect" in reason for reason in failing["reason"])


def test_the_readme_section_says_why_a_claim_does_not_hold(scaled):
    claims, results = scaled
    text = render_section(ledger_table(results, load_claims(claims)))
    assert "| S2 | BASE above LIN (does not hold) |" in text
    assert "does not hold: ours 60 (BASE tag_f1) is not above 70 (LIN tag_f1): 10 short;" in text
    assert "| **holds** |" in text


def test_inputs_must_be_counted_items(scaled):
    claims, _ = scaled
    claims.write_text(SCALED.replace("inputs: [gap_examples]", "inputs: [gap_rows]"), encoding="utf-8")
    with pytest.raises(ClaimsError, match=r"claim S6: field inputs: unknown item 'gap_rows'"):
        load_claims(claims)
    claims.write_text(SCALED.replace("demo: [wnc_pairs]", "demo: wnc_pairs"), encoding="utf-8")
    with pytest.raises(ClaimsError, match=r"field inputs.demo: expected a list of item keys"):
        load_claims(claims)
