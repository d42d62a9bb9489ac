"""results/README.md generator: catalogue validation, rendering, and the catalogue's coverage of
every report() output and final target of the workflow."""

from __future__ import annotations

import json
import logging
import math
import re
import runpy
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from cdaflow import config as cdaflow_config
from cdaflow.pipeline.reporting import (
    Catalogue,
    CatalogueEntry,
    CatalogueError,
    comparison_table,
    format_value,
    load_catalogue,
    render_readme,
)

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "workflow" / "report" / "catalogue.yaml"
RULES = ROOT / "workflow" / "rules"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


# -- Catalogue validation --------------------------------------------------------------------

VALID_ENTRY = """\
  - path: s/table.tsv
    study: s
    title: A table
    paper: Table 2
"""


def catalogue_with(tmp_path: Path, entries: str) -> Path:
    """A catalogue whose `files` start at line 4 (the first entry's `- path:` line)."""
    return write(tmp_path / "catalogue.yaml", "studies:\n  s: Study S\nfiles:\n" + entries)


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (VALID_ENTRY + "    colour: red\n", "line 8, files[0] (s/table.tsv), field 'colour': unknown field"),
        (
            VALID_ENTRY.replace("    paper: Table 2\n", ""),
            "line 4, files[0] (s/table.tsv): missing required field 'paper'",
        ),
        (
            VALID_ENTRY.replace("Table 2", "Tab. 2"),
            "line 7, files[0] (s/table.tsv), field 'paper': 'Tab. 2' is not a table",
        ),
        (
            VALID_ENTRY.replace("study: s", "study: t"),
            "line 5, files[0] (s/table.tsv), field 'study': unknown study 't'",
        ),
        (VALID_ENTRY.replace("path: s/", "path: results/s/"), "field 'path': is relative to results/"),
        (VALID_ENTRY.replace("path: s/", "path: ../s/"), "field 'path': must stay inside results/"),
        (VALID_ENTRY.replace("table.tsv", "{lang/table.tsv"), "field 'path': has a brace that is not a wildcard"),
        (
            VALID_ENTRY.replace("table.tsv", "fig.png"),
            "files[0] (s/fig.png), field 'caption': a figure needs a caption",
        ),
        (VALID_ENTRY + "    caption: words\n", "line 8, files[0] (s/table.tsv), field 'caption': only figures"),
        (
            VALID_ENTRY + "    keys: [split]\n    pairs: {final: final_paper}\n",
            "line 9, files[0] (s/table.tsv), field 'pairs': 'final' pairs with 'final_paper'",
        ),
        (VALID_ENTRY + "    pairs: {final: paper_final}\n", "field 'keys': keys and pairs go together"),
        (
            VALID_ENTRY + "    keys: [final]\n    pairs: {final: paper_final}\n",
            "field 'keys': 'final' is both a key and a paired column",
        ),
        (
            VALID_ENTRY.replace("table.tsv", "notes.md") + "    keys: []\n    pairs: {a: paper_a}\n",
            "field 'pairs': keys and pairs apply to TSV tables only",
        ),
        (VALID_ENTRY + VALID_ENTRY, "line 8, files[1] (s/table.tsv), field 'path': listed twice (first at line 4)"),
        ("  - just a string\n", "line 4, files[0]: an entry must be a mapping"),
    ],
)
def test_catalogue_errors_name_file_line_entry_and_field(tmp_path, entries, expected):
    path = catalogue_with(tmp_path, entries)
    with pytest.raises(CatalogueError) as error:
        load_catalogue(path)
    assert str(error.value).startswith(str(path)), error.value
    assert expected in str(error.value)


def test_catalogue_top_level_errors(tmp_path):
    bad_yaml = write(tmp_path / "a.yaml", "studies: [unclosed\n")
    with pytest.raises(CatalogueError, match=r"a\.yaml: not valid YAML"):
        load_catalogue(bad_yaml)
    extra = write(tmp_path / "b.yaml", "studies: {s: S}\nfiles: []\nfigures: []\n")
    with pytest.raises(CatalogueError, match=r"b\.yaml, line 3: unknown top-level key 'figures'"):
        load_catalogue(extra)
    empty = write(tmp_path / "c.yaml", "studies: {s: S}\nfiles: []\n")
    with pytest.raises(CatalogueError, match=r"c\.yaml, line 2, field 'files': must be a non-empty list"):
        load_catalogue(empty)
    with pytest.raises(CatalogueError, match="catalogue not found"):
        load_catalogue(tmp_path / "missing.yaml")


def test_valid_catalogue_entry_fields_and_kinds(tmp_path):
    path = catalogue_with(
        tmp_path,
        VALID_ENTRY
        + "    keys: [split]\n    pairs: {final: paper_final, final_pct: paper_final_pct}\n"
        + "  - path: s/{lang}/fig.png\n    study: s\n    title: A figure\n    paper: Fig. 4\n    caption: Bars.\n",
    )
    catalogue = load_catalogue(path)
    table, figure = catalogue.entries
    assert table == CatalogueEntry(
        path="s/table.tsv",
        study="s",
        title="A table",
        paper="Table 2",
        keys=("split",),
        pairs=(("final", "paper_final"), ("final_pct", "paper_final_pct")),
    )
    assert (table.kind, figure.kind) == ("table", "figure")
    assert figure.wildcards == ("lang",)
    assert figure.match("s/es/fig.png") == {"lang": "es"}
    assert figure.match("s/es/x/fig.png") is None  # a wildcard spans one path part
    assert figure.match("s/.es.tmp/fig.png") is None  # an atomic writer's hidden folder
    assert catalogue.entry_for("s/fr/fig.png") is figure
    assert catalogue.entry_for("s/{lang}/fig.png") is figure
    assert catalogue.entry_for("s/other.tsv") is None


# -- Formatting ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.48749, "0.487"),
        (97.78, "97.8"),
        (-0.07734, "-0.0773"),
        (1234.5, "1230"),  # 3 significant digits, no exponent
        (18682, "18682"),  # counts in full
        (444.0, "444"),  # a count read back as float (its column had an empty cell)
        (1e-05, "1e-05"),
        (0.0001234, "0.000123"),
        (float("nan"), "—"),
        (None, "—"),
        ("", "—"),
        (True, "True"),
        ("paper_10_pairs", "paper_10_pairs"),
    ],
)
def test_format_value(value, expected):
    assert format_value(value) == expected


def test_comparison_table_pairs_columns_and_drops_rows_without_paper_numbers():
    table = pd.DataFrame(
        {
            "split": ["development", "test", "extra"],
            "final": [10, 12, 3],
            "paper_final": [1736, 1800, math.nan],
            "final_pct": [28.96, math.nan, 1.0],
            "paper_final_pct": [28.9, 30.1, math.nan],
        }
    )
    text = comparison_table(table, ("split",), (("final", "paper_final"), ("final_pct", "paper_final_pct")))
    assert text.splitlines() == [
        "| split | final | paper | final_pct | paper |",
        "|---|---|---|---|---|",
        "| development | 10 | 1736 | 29 | 28.9 |",
        "| test | 12 | 1800 | — | 30.1 |",
        "",
        "1 row(s) without a paper number left out.",
    ]
    assert comparison_table(table.iloc[2:], ("split",), (("final", "paper_final"),)) == (
        "The paper gives no numbers for these rows."
    )


# -- Rendering a synthetic results folder ----------------------------------------------------

SYNTHETIC_CATALOGUE = """
studies:
  gap_subjective: "Study C: GAP-Subjective"
  morph_cda: "Study A: morphological CDA"
  regender: "Study B: re-gendering"
files:
  - path: gap_subjective/table2_thresholding.tsv
    study: gap_subjective
    title: Sentences within each threshold
    paper: Table 2
    section: "§3.2.3"
    keys: [split]
    pairs: {final: paper_final, final_pct: paper_final_pct}
  - path: gap_subjective/table4_converted.tsv
    study: gap_subjective
    title: Converted contexts
    paper: Table 4
    keys: [split]
    pairs: {converted_pct: paper_converted_pct}
  - path: gap_subjective/table6_human_eval.tsv
    study: gap_subjective
    title: Human evaluation
    paper: Table 6
    condition: studies.gap_subjective.human_eval.ratings
  - path: gap_subjective/benchmark.tsv
    study: gap_subjective
    title: Benchmark
    paper: Table 8
  - path: gap_subjective/wnc_stats.tsv
    study: gap_subjective
    title: WNC pairs
    paper: null
  - path: morph_cda/{lang}/reinflection.tsv
    study: morph_cda
    title: Reinflection accuracy
    paper: Table 1
    keys: [lang]
    pairs: {heldout_accuracy: paper_accuracy}
  - path: morph_cda/extrinsic/fig4.png
    study: morph_cda
    title: Stereotyping
    paper: Fig. 4
    caption: >-
      Gender stereotyping (left)
      and grammaticality (right).
  - path: regender/es/classifier.tsv
    study: regender
    title: Classifier
    paper: Table 2
"""


@pytest.fixture
def synthetic(tmp_path) -> tuple[Path, Catalogue]:
    catalogue = load_catalogue(write(tmp_path / "catalogue.yaml", SYNTHETIC_CATALOGUE))
    results = tmp_path / "results"
    write(
        results / "gap_subjective/table2_thresholding.tsv",
        """
        split\tfinal\tfinal_pct\tpaper_final\tpaper_final_pct\tscale
        development\t7\t35.5\t1736\t28.9\tdemo
        overall\t\t0.123456\t3913\t29.3\tdemo
        mine\t3\t12.5\t\t\tdemo
        """,
    )
    write(
        results / "gap_subjective/table4_converted.tsv",
        "split\tconverted_pct\tpaper_converted_pct\tscale\ntest\t50\t63.85\tvalidation\n",
    )
    write(results / "gap_subjective/wnc_stats.tsv", "source\tpairs\nwnc\t400\n")
    write(
        results / "morph_cda/fr/reinflection.tsv",
        "scale\tlang\theldout_accuracy\tpaper_accuracy\ndemo\tfr\t51.16\t93.17\n",
    )
    write(
        results / "morph_cda/es/reinflection.tsv",
        "scale\tlang\theldout_accuracy\tpaper_accuracy\ndemo\tes\t55.56\t97.78\n",
    )
    (results / "morph_cda/es/.reinflection.tsv.0a1b.tmp").write_text("partial", encoding="utf-8")
    (results / "morph_cda/extrinsic").mkdir(parents=True)
    (results / "morph_cda/extrinsic/fig4.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return results, catalogue


def test_render_lists_present_files_with_ours_beside_the_paper(synthetic):
    results, catalogue = synthetic
    text = render_readme(results, catalogue, scale="demo", config_name="config.yaml", disabled_studies=("regender",))
    lines = text.splitlines()
    assert lines[0] == "# Results"
    assert "- Scale of this run: **demo**" in lines
    assert "- Config: `config.yaml`" in lines
    assert "- Files listed: 6; catalogued entries not produced: 3" in lines

    table2 = text.index("### [`gap_subjective/table2_thresholding.tsv`](gap_subjective/table2_thresholding.tsv)")
    assert "Sentences within each threshold. Paper: Table 2 (§3.2.3). Scale: `demo` (its `scale` column)." in text
    block = text[table2:].split("\n\n### ")[0]
    assert (
        "\n".join(
            [
                "| split | final | paper | final_pct | paper |",
                "|---|---|---|---|---|",
                "| development | 7 | 1736 | 35.5 | 28.9 |",
                "| overall | — | 3913 | 0.123 | 29.3 |",
                "",
                "1 row(s) without a paper number left out.",
            ]
        )
        in block
    )

    assert "WNC pairs. Paper: no table or figure. Scale: not recorded in the file." in text
    # Wildcard matches: one block each, in path order, the temporary file ignored.
    es = text.index("Reinflection accuracy (lang = es). Paper: Table 1.")
    fr = text.index("Reinflection accuracy (lang = fr). Paper: Table 1.")
    assert es < fr
    assert "| es | 55.6 | 97.8 |" in text and "| fr | 51.2 | 93.2 |" in text
    assert ".tmp" not in text
    # Figures: linked, with their caption on one line.
    assert "### [`morph_cda/extrinsic/fig4.png`](morph_cda/extrinsic/fig4.png)" in text
    assert "*Gender stereotyping (left) and grammaticality (right).*" in text
    # Sections follow the catalogue's order of studies.
    assert text.index("## Study C: GAP-Subjective") < text.index("## Study A") < text.index("## Study B")


def test_render_lists_missing_files_under_not_produced(synthetic):
    results, catalogue = synthetic
    text = render_readme(results, catalogue, scale="demo", config_name="config.yaml", disabled_studies=("regender",))
    study_c = text[text.index("## Study C") : text.index("## Study A")]
    not_produced = study_c[study_c.index("### Not produced in this run") :]
    assert not_produced.strip().splitlines()[2:] == [
        "- `gap_subjective/table6_human_eval.tsv`: Human evaluation (Table 6). "
        "*optional: studies.gap_subjective.human_eval.ratings*",
        "- `gap_subjective/benchmark.tsv`: Benchmark (Table 8). *not found*",
    ]
    assert "## Study B: re-gendering (disabled in this config)" in text
    assert "- `regender/es/classifier.tsv`: Classifier (Table 2). *study disabled in this config*" in text
    assert "### Not produced" not in text[text.index("## Study A") : text.index("## Study B")]


def test_render_flags_stale_scale_loudly(synthetic, caplog):
    results, catalogue = synthetic
    with caplog.at_level(logging.WARNING, logger="cdaflow.pipeline.reporting"):
        text = render_readme(results, catalogue, scale="demo", config_name="config.yaml")
    problem = "its `scale` column says `validation`, but this run is `demo`: a stale file from another run"
    assert "> **WARNING: 1 problem(s) in files of this folder:**" in text
    assert f"> - `gap_subjective/table4_converted.tsv`: {problem}" in text
    assert f"Converted contexts. Paper: Table 4. **STALE: {problem}.**" in text
    assert "| test | 50 | 63.9 |" in text  # still shown beside the paper
    assert any("table4_converted.tsv" in record.message for record in caplog.records)

    # The same folder rendered as the validation run: now the demo files are the stale ones.
    text = render_readme(results, catalogue, scale="validation", config_name="config/validation.yaml")
    assert "> **WARNING: 3 problem(s) in files of this folder:**" in text
    assert "WARNING" not in render_readme(results.parent / "empty", catalogue, scale="demo", config_name="c")


def test_render_flags_mixed_scales_and_missing_columns(synthetic):
    results, catalogue = synthetic
    write(results / "regender/es/classifier.tsv", "scale\ttest_set\tn\ndemo\ta\t1\nvalidation\tb\t2\n")
    write(results / "gap_subjective/table4_converted.tsv", "split\tconverted_pct\tscale\ntest\t50\tdemo\n")
    text = render_readme(results, catalogue, scale="demo", config_name="config.yaml")
    assert "**STALE: its `scale` column says `demo`, `validation`, but this run is `demo`" in text
    assert "**Columns `paper_converted_pct` named by the catalogue are missing" in text
    assert "> **WARNING: 2 problem(s)" in text


def test_unreadable_table_names_the_file(synthetic):
    results, catalogue = synthetic
    write(results / "regender/es/classifier.tsv", "scale\tn\tacc\ndemo\t1\t0.5\ndemo\t2\t0.5\t9\t9\n")
    with pytest.raises(ValueError, match=r"regender/es/classifier\.tsv: cannot read as a TSV table.*line 3"):
        render_readme(results, catalogue, scale="demo", config_name="config.yaml")


@pytest.fixture
def restore_logging(monkeypatch):
    """rule_context reconfigures the root logger and OMP_NUM_THREADS: undo both afterwards."""
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    handlers, level = logging.root.handlers[:], logging.root.level
    yield
    for handler in logging.root.handlers:
        if handler not in handlers:
            handler.close()
    logging.root.handlers[:] = handlers
    logging.root.setLevel(level)


def test_results_readme_script_writes_the_readme(synthetic, tmp_path, restore_logging):
    results, _ = synthetic
    claims = write(
        results / "claims.tsv",
        "id\tstudy\tclaim\tpaper_value\tpaper_source\tours\ttest\tscale\tverdict\treason\ttables\tsignature\n"
        "A6\tmorph_cda\tSpanish reinflection above 93 %\t97.78\tTable 1\t\tours > reference\tdemo\t"
        "not computable here\tresults/x.tsv is missing\tx.tsv\tcdaflow:0.1.0|scale:demo\n",
    )
    from cdaflow.pipeline.signature import run_signature, signature_string

    signature = run_signature("demo", "1" * 64, project=tmp_path, logs=tmp_path / "logs")
    (results / "signature.json").write_text(json.dumps(signature), encoding="utf-8")
    smk = SimpleNamespace(
        input=SimpleNamespace(catalogue=str(tmp_path / "catalogue.yaml"), claims=str(claims),
                              signature=str(results / "signature.json")),
        output=SimpleNamespace(readme=str(results / "README.md")),
        params=SimpleNamespace(scale="demo", config_name="config.yaml", disabled_studies=[]),
        log=[str(tmp_path / "logs" / "results_readme.log")],
        rule="results_readme",
        wildcards={},
        threads=1,
        config={},
    )
    runpy.run_path(str(ROOT / "workflow" / "scripts" / "common" / "results_readme.py"), init_globals={"snakemake": smk})
    written = (results / "README.md").read_text(encoding="utf-8")
    assert written == render_readme(
        results,
        load_catalogue(tmp_path / "catalogue.yaml"),
        scale="demo",
        config_name="config.yaml",
        claims=pd.read_csv(claims, sep="\t", keep_default_na=False),
        signature=signature_string(signature),
    )
    assert "- Run signature (`signature.json`): `cdaflow:0.1.0|scale:demo|config:111111111111|" in written
    row = "| A6 | Spanish reinflection above 93 % | 97.78 |  | demo | not computable here: results/x.tsv is missing |"
    assert row in written
    assert not list(results.glob(".README.md.*"))  # the atomic writer's temporary file is gone
    assert "rule results_readme done" in (tmp_path / "logs" / "results_readme.log").read_text(encoding="utf-8")


# -- The project's catalogue covers the workflow ---------------------------------------------


def path_constants() -> dict[str, str]:
    """The path-prefix constants the rule files define (GS_OUT = "results/gap_subjective", ...)."""
    text = "\n".join(smk.read_text(encoding="utf-8") for smk in sorted(RULES.glob("*.smk")))
    return dict(re.findall(r'^([A-Z][A-Z0-9_]*) = "([^"]*)"$', text, flags=re.MULTILINE))


def rule_file_preludes(config: dict) -> dict:
    """helpers.smk, then the paths, input functions and targets that open each study's rule file
    (the Python before its first rule), run in the Snakefile's include order."""
    names = re.findall(r'^include: "workflow/rules/(\w+\.smk)"', (ROOT / "Snakefile").read_text(), re.MULTILINE)
    namespace: dict = {"config": config}
    for name in names:
        if name in ("common.smk", "report.smk"):  # shared rules only (and Snakemake directives)
            continue
        text = (RULES / name).read_text(encoding="utf-8")
        prelude = re.split(r"^rule ", text, maxsplit=1, flags=re.MULTILINE)[0]
        exec(compile(prelude, name, "exec"), namespace)
    return namespace


def report_outputs() -> list[tuple[str, str]]:
    """(rule file, path) of every report(...) output, f-string prefixes resolved."""
    constants = path_constants()
    found = []
    for smk in sorted(RULES.glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for is_fstring, raw in re.findall(r'\b(?:study_)?report\(\s*(f?)"([^"]+)"', text):
            path = raw
            if is_fstring:
                path = re.sub(r"(?<!\{)\{([A-Z][A-Z0-9_]*)\}(?!\})", lambda m: constants[m.group(1)], path)
                path = path.replace("{{", "{").replace("}}", "}")
            found.append((smk.name, path))
    return found


def test_report_outputs_are_found_in_the_rule_files():
    outputs = report_outputs()
    # Every report( call is seen (a pattern the regex misses would silently skip a table).
    # (helpers.smk defines study_report; the rule files call it.)
    calls = sum(
        smk.read_text(encoding="utf-8").count("report(") for smk in RULES.glob("*.smk") if smk.name != "helpers.smk"
    )
    assert len(outputs) == calls
    assert ("gap_subjective.smk", "results/gap_subjective/table2_thresholding.tsv") in outputs
    assert ("morph_cda.smk", "results/morph_cda/{lang}/table3_intrinsic.tsv") in outputs
    assert ("common.smk", "results/common/parsing_summary.tsv") in outputs


def test_every_report_output_is_catalogued():
    catalogue = load_catalogue(CATALOGUE)
    paths = {entry.path for entry in catalogue.entries}
    missing = [
        f"{smk}: {path}"
        for smk, path in report_outputs()
        if not path.startswith("results/") or path.removeprefix("results/") not in paths
    ]
    assert not missing, f"add these report() outputs to {CATALOGUE}: {missing}"


@pytest.mark.parametrize("configfile", ["config.yaml", "config/validation.yaml", "config/paper.yaml"])
def test_every_final_target_is_catalogued(configfile):
    """all_targets() of the rule files, every study and optional output switched on."""
    config = cdaflow_config.load(ROOT / configfile)
    for study in config["studies"].values():
        study["enabled"] = True
    morph = config["studies"]["morph_cda"]
    morph["pwn_data_noun"] = {"path": "data.noun"}
    for language in morph["languages"].values():
        language["wordnet"] = {"path": "wn.tab"}
    morph["extrinsic"]["enabled"] = True
    config["studies"]["sentence_bias"]["transformer"]["enabled"] = True
    config["studies"]["gap_subjective"]["human_eval"]["ratings"] = ["sheet.tsv"]
    targets = rule_file_preludes(config)["all_targets"]()
    assert "results/gap_subjective/table6_human_eval.tsv" in targets
    catalogue = load_catalogue(CATALOGUE)
    missing = [t for t in targets if catalogue.entry_for(t.removeprefix("results/")) is None]
    assert not missing, f"add these final targets to {CATALOGUE}: {missing}"


def test_project_catalogue_renders_an_empty_results_folder(tmp_path):
    catalogue = load_catalogue(CATALOGUE)
    studies = ["common", "morph_cda", "regender", "gap_subjective", "sentence_bias", "cross_study"]
    assert list(catalogue.studies) == studies
    text = render_readme(tmp_path, catalogue, scale="paper", config_name="config/paper.yaml")
    assert f"- Files listed: 0; catalogued entries not produced: {len(catalogue.entries)}" in text
    assert text.count("\n- `") == len(catalogue.entries)


def test_claims_ledger_is_the_first_section(synthetic, tmp_path):
    from cdaflow.pipeline.claims import ledger_table, load_claims

    results, catalogue = synthetic
    write(tmp_path / "morph_cda/paper.yaml", 'citation: x\nvalues:\n  es: {value: 97.78, source: "Table 1, Spanish"}\n')
    claims = write(
        tmp_path / "claims.yaml",
        """
        claims:
          - id: A6
            study: morph_cda
            claim: Spanish reinflection accuracy above 93 %
            paper: [morph_cda.es]
            check: {left: {table: morph_cda/es/reinflection.tsv, column: heldout_accuracy}, op: ">", right: 93}
          - id: A7
            study: morph_cda
            claim: Hebrew reinflection accuracy above 93 %
            check: {left: {table: morph_cda/he/reinflection.tsv, column: heldout_accuracy}, op: ">", right: 93}
        """,
    )
    ledger = ledger_table(results, load_claims(claims), scale="demo")
    text = render_readme(results, catalogue, scale="demo", config_name="config.yaml", claims=ledger)
    section = text.index("## The papers' claims, checked")
    assert section < text.index("## ", text.index("- Files listed")) + 1  # before every study's section
    headings = [f"## {heading}" for heading in catalogue.studies.values()]
    assert section < min(text.index(heading) for heading in headings if heading in text)
    row = "| A6 | Spanish reinflection accuracy above 93 % | 97.78 | 55.56 (heldout_accuracy) vs 93 | demo |"
    row += " does not hold: ours 55.56 (heldout_accuracy) is not above 93: 37.44 short; the paper: 97.78;"
    assert row in text  # a claim that does not hold says why, here as in claims.tsv
    assert "results/morph_cda/he/reinflection.tsv is missing" in text
    assert "## The papers' claims" not in render_readme(results, catalogue, scale="demo", config_name="config.yaml")
