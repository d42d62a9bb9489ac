"""The layout a newcomer relies on: one name per stage, from rule to script, log and benchmark.

A rule of study ``<study>`` (its file ``workflow/rules/<study>.smk``; shared rules in common.smk
and report.smk are study ``common``) is named ``<study>_<stage>`` (``<stage>`` for common rules); its
script is ``workflow/scripts/<study>/<stage>.py`` (a variant stage ``<stage>_<variant>`` may share
its stage's script), its log ``logs/<study>/<stage>[...]`` and its benchmark
``results/benchmarks/<study>/<stage>[...]``. Scripts stay thin; a rule that asks for a GPU is
benchmarked, so the scale notes measure it.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "workflow" / "rules"
STUDY_OF_FILE = {"common.smk": "common", "report.smk": "common", "helpers.smk": None}
MAX_SCRIPT_LINES = 60


def rule_blocks():
    """(study, rule name, its text) of every rule in the rule files."""
    for smk in sorted(RULES.glob("*.smk")):
        study = STUDY_OF_FILE.get(smk.name, smk.stem)
        if study is None:
            continue
        parts = re.split(r"^rule (\w+):\n", smk.read_text(encoding="utf-8"), flags=re.MULTILINE)
        for name, body in zip(parts[1::2], parts[2::2]):
            yield study, name, body


def directive(body: str, name: str) -> str | None:
    """The first quoted string after a directive (`script:`, `log:`, `benchmark:`)."""
    found = re.search(rf"^    {name}:\n\s+f?\"([^\"]+)\"", body, flags=re.MULTILINE)
    return found.group(1) if found else None


RULE_BLOCKS = list(rule_blocks())


def stage_of(study: str, name: str) -> str:
    return name if study == "common" else name.removeprefix(f"{study}_")


@pytest.mark.parametrize(("study", "name", "body"), RULE_BLOCKS, ids=[name for _, name, _ in RULE_BLOCKS])
def test_one_name_per_stage(study, name, body):
    stage = stage_of(study, name)
    if study != "common":
        assert name.startswith(f"{study}_"), f"rule {name} of {study}.smk: name it {study}_<stage>"
    script = directive(body, "script")
    if script:
        path = Path(script.removeprefix("../"))
        assert path.parent.as_posix() == f"scripts/{study}", f"rule {name}: script {script} belongs in scripts/{study}/"
        assert stage == path.stem or stage.startswith(path.stem + "_"), f"rule {name}: {script} is not {stage}.py"
    if not re.search(r"^    (script|shell|run):", body, flags=re.MULTILINE):
        return  # a rule that only gathers targets
    log = directive(body, "log")
    assert log, f"rule {name} has no log"
    assert re.match(rf"logs/{study}/{stage}(/|\.log$|\{{|_)", log) or log == f"logs/{study}/{stage}.log", (
        f"rule {name}: log {log} is not under logs/{study}/{stage}"
    )
    benchmark = directive(body, "benchmark")
    if benchmark:
        assert re.match(rf"results/benchmarks/{study}/{stage}(/|\.tsv$|\{{|_)", benchmark), (
            f"rule {name}: benchmark {benchmark} is not under results/benchmarks/{study}/{stage}"
        )


def test_rules_that_ask_for_a_gpu_are_benchmarked():
    unmeasured = [
        name for _, name, body in RULE_BLOCKS
        if ("job_resources(" in body or "gpu=" in body) and not directive(body, "benchmark")
    ]  # fmt: skip
    assert not unmeasured, f"give these GPU rules a benchmark: for the scale notes: {unmeasured}"


def test_scripts_stay_thin():
    long = {
        path.relative_to(ROOT).as_posix(): n
        for path in sorted((ROOT / "workflow" / "scripts").rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_SCRIPT_LINES
    }
    assert not long, f"move their logic into src/cdaflow (scripts read, call the package, write): {long}"


def test_every_script_is_used_by_a_rule():
    used = {
        Path(script.removeprefix("../")).as_posix()
        for _, _, body in RULE_BLOCKS
        if (script := directive(body, "script"))
    }
    scripts = {path.relative_to(ROOT / "workflow").as_posix() for path in (ROOT / "workflow" / "scripts").rglob("*.py")}
    assert scripts <= used, f"scripts no rule runs: {sorted(scripts - used)}"


# A file the catalogue gives to one of the paper's tables is named after it: tableN_<what> (tableAN_ for the
# appendix, tablesN_M_<what> for several). Not these: the long forms of a paper-layout file (their title says
# "(long form)") and the GAP-Subjective release, which keeps GAP's own file names.
def table_prefix(paper: str) -> str | None:
    """``table3_`` for "Table 3", ``tableA1_`` for "Appendix Table 1", ``tables6_7_11_`` for "Tables 6, 7, 11"."""
    if match := re.fullmatch(r"(Appendix )?Table (\d+)", paper):
        return f"table{'A' if match[1] else ''}{match[2]}_"
    if match := re.fullmatch(r"Tables ([\d, ]+)", paper):
        return "tables" + "_".join(re.findall(r"\d+", match[1])) + "_"
    return None  # a figure, or a section


def catalogue_files():
    import yaml

    return yaml.safe_load((ROOT / "workflow/report/catalogue.yaml").read_text(encoding="utf-8"))["files"]


@pytest.mark.parametrize("entry", catalogue_files(), ids=lambda entry: entry["path"])
def test_paper_tables_are_named_after_them(entry):
    prefix = table_prefix(entry.get("paper") or "")
    exempt = "(long form)" in entry["title"] or entry["path"].startswith("gap_subjective/GAP-Subjective/")
    if prefix is None or exempt or not entry["path"].endswith((".tsv", ".md")):
        return
    name = entry["path"].rsplit("/", 1)[-1]
    assert name.startswith(prefix), f"{entry['path']} ({entry['paper']}): name it {prefix}<what>"


def test_table_prefixes():
    assert table_prefix("Table 3") == "table3_" and table_prefix("Appendix Table 1") == "tableA1_"
    assert table_prefix("Tables 6, 7, 11") == "tables6_7_11_" and table_prefix("Fig. 4") is None
