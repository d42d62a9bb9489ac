"""The workflow as users run it: lint, dry runs of every config, the demo and validation runs."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.timeouts import workflow_timeout

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
# What a user's clone holds; everything else (venv, results, caches) is not copied.
PROJECT_ITEMS = ["Snakefile", "config.yaml", "config", "workflow", "envs", "profiles", "resources", "src"]


def snakemake(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # No fixed limit: a loaded machine is slow, not hung (tests/timeouts.py, CDAFLOW_TEST_TIMEOUT).
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=workflow_timeout(),
    )


def project_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    copy.mkdir()
    for item in PROJECT_ITEMS:
        source = ROOT / item
        if source.is_dir():
            shutil.copytree(source, copy / item, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / item)
    for acquired in ("resources/data", "resources/downloads"):
        shutil.rmtree(copy / acquired, ignore_errors=True)
    return copy


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_lint_is_clean():
    result = snakemake("--lint")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "configfile",
    [None, pytest.param("config/validation.yaml", marks=pytest.mark.shared_data), "config/paper.yaml"],
)
def test_dry_run_plans_dag(configfile):
    if configfile == "config/validation.yaml" and not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent: the validation config reads its samples")
    args = ["-n", "--forceall", "--quiet", "rules"] + (["--configfile", configfile] if configfile else [])
    result = snakemake(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "treebank_split" in result.stdout + result.stderr


def test_paper_dry_run_plans_every_dataset():
    result = snakemake(
        "-n",
        "--configfile",
        "config/paper.yaml",
        "--printshellcmds",
        "datasets",
    )
    assert result.returncode == 0, result.stderr
    planned = result.stdout + result.stderr
    for name in ("ud_2_2", "snli_1_0", "glove_840b", "gap", "ssa_names"):
        assert f"resources/data/{name}" in planned


def test_unknown_config_key_is_rejected_by_name(tmp_path):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["datasets"]["demo_text"]["checksum"] = "x"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--configfile", str(bad))
    assert result.returncode != 0
    assert "datasets.demo_text: unknown key 'checksum'" in result.stdout + result.stderr


@pytest.mark.slow
def test_demo_end_to_end(tmp_path):
    copy = project_copy(tmp_path)
    result = snakemake("--cores", "2", cwd=copy)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = read_tsv(copy / "results/common/parsing_summary.tsv")
    parts = {(row["source"], row["part"]) for row in summary}
    assert {("es_demo", "train"), ("fr_demo", "test"), ("demo_es", "shard0"), ("demo_fr", "shard1")} <= parts
    assert all(row["scale"] == "demo" for row in summary)
    assert all(int(row["sentences"]) > 0 and int(row["words_with_Gender"]) > 0 for row in summary)
    lock = read_tsv(copy / "results/downloads.tsv")
    assert {row["dataset"] for row in lock} == {"demo_text", "demo_ud"}
    assert all(len(row["sha256"]) == 64 for row in lock)
    assert (copy / "logs/common/parsing_summary.log").stat().st_size > 0
    for lang in ("es", "fr"):
        table = {row["model"]: row for row in read_tsv(copy / f"results/morph_cda/{lang}/table3_intrinsic.tsv")}
        assert set(table) == {"BASE", "LIN", "NN", "SWAP"}
        assert float(table["LIN"]["tag_f1"]) > float(table["SWAP"]["tag_f1"]) == 0
        assert (copy / f"results/morph_cda/{lang}/models/lin/cda.json").exists()
        assert "**" in (copy / f"results/morph_cda/{lang}/examples.md").read_text()
        stats = read_tsv(copy / f"results/morph_cda/{lang}/augment/stats.tsv")[0]
        lines = {name: len((copy / f"results/morph_cda/{lang}/augment/{name}.txt").read_text().splitlines())
                 for name in ("original", "swap", "mrf")}
        # Every copy is one more line of the swap and MRF corpora.
        assert lines["swap"] == lines["mrf"] == lines["original"] + int(stats["copies"]) > lines["original"]
    stereotyping_rows = read_tsv(copy / "results/morph_cda/extrinsic/stereotyping.tsv")
    extrinsic = {(row["lang"], row["corpus"]): row for row in stereotyping_rows}
    assert set(extrinsic) == {(lang, corpus) for lang in ("es", "fr") for corpus in ("original", "swap", "mrf")}
    assert all(float(row["stereotyping"]) > 0 for row in extrinsic.values())
    table8 = read_tsv(copy / "results/morph_cda/extrinsic/table8_probes.tsv")
    assert len(table8) == 16
    sb = copy / "results/sentence_bias"
    models = read_tsv(sb / "models.tsv")
    assert [m["model"] for m in models] == [
        "original", "sub97", "sub95", "sub93", "sub90", "aug97", "aug95", "aug93", "aug90", "hard_debias",
    ]
    corpora = {row["corpus"]: row for row in read_tsv(sb / "table5_corpora.tsv")}
    assert int(corpora["sub90"]["pairs"]) < int(corpora["sub97"]["pairs"]) < int(corpora["aug97"]["pairs"])
    seat = read_tsv(sb / "seat.tsv")
    assert {row["test"] for row in seat} == {"C6", "C7", "C8"} and all(row["effect_size"] for row in seat)
    senteval = read_tsv(sb / "senteval.tsv")
    assert {row["status"] for row in senteval if row["task"] == "MRPC"} == {"missing"}
    assert all(float(row["score"]) > 0 for row in senteval if row["status"] == "ok")
    table3 = read_tsv(sb / "table3_top_sentences.tsv")
    assert [row["direction"] for row in table3] == ["female"] * 5 + ["male"] * 5
    assert (sb / "senteval_data/SST/binary").is_symlink()  # assembled from the configured parts
    table13 = read_tsv(sb / "transformer/table13_examples.tsv")
    assert len(table13) == 7 and all(float(row["f_bias"]) >= 0 >= float(row["m_bias"]) for row in table13)
    reg = copy / "results/regender/es"
    stats = {(row["set"], row["type"]): row for row in read_tsv(reg / "tableA1_parallel_stats.tsv")}
    assert int(stats[("train", "re-genderable")]["segments"]) > 0 and int(stats[("train", "neutral")]["segments"]) > 0
    classifier = {row["test_set"]: row for row in read_tsv(reg / "table2_classifier.tsv")}
    assert set(classifier) == {"opensubs_dev", "opensubs_test", "structured", "unstructured"}
    errors = {(row["test_set"], row["type"]): row for row in read_tsv(reg / "table3_error_rates.tsv")}
    # The paper's rules made no error on neutral structured segments; allow one tagger slip here.
    assert float(errors[("structured", "neutral")]["rules_per_sentence"]) <= 2.0
    assert all(errors[("structured", "all")][f"{system}_per_word"] for system in ("nmt", "nmt_t", "nmt_at"))
    # Model folders hold no wall time and name their final place, so identical reruns give identical folders.
    model = reg / "rewriter/nmt/model"
    assert "time-elapsed" not in (model / "metrics").read_text() and not (model / "training_state").exists()
    assert "output: results/regender/es/rewriter/nmt/model\n" in (model / "args.yaml").read_text()
    check_gap_subjective(copy, copy / "resources/demo/gap_subjective/gap", max_contexts=None)
    check_cross_study(copy)
    check_results_readme_and_report(copy)
    check_human_evaluation_loop(copy, tmp_path)
    check_subjectivize_cli(copy)
    # Nothing to do on a second run: outputs are complete and up to date.
    again = snakemake("-n", "--cores", "2", cwd=copy)
    assert again.returncode == 0
    assert "Nothing to be done" in again.stdout + again.stderr


def check_gap_subjective(copy: Path, gap_folder: Path, max_contexts: int | None) -> None:
    """Study C's release and tables: GAP's ids, labels and columns kept; counts add up."""
    from cdaflow.gap_subjective.gap import read_gap

    gs = copy / "results/gap_subjective"
    changed = 0
    for split in ("development", "validation", "test"):
        original = read_gap(gap_folder / f"gap-{split}.tsv")[:max_contexts]
        released = read_gap(gs / f"GAP-Subjective/gap-{split}.tsv")  # validates every offset
        assert [(e.id, e.label, e.pronoun, e.a, e.b) for e in released] == [
            (e.id, e.label, e.pronoun, e.a, e.b) for e in original
        ]
        changed += sum(a.text != b.text for a, b in zip(released, original))
    table2 = {row["split"]: row for row in read_tsv(gs / "table2_thresholding.tsv")}
    overall = table2["overall"]
    splits = ("development", "validation", "test")
    assert int(overall["total_sentences"]) == sum(int(table2[s]["total_sentences"]) for s in splits)
    assert int(overall["final"]) <= min(int(overall[c]) for c in ("within_gleu", "within_perplexity", "objective"))
    table4 = {row["split"]: row for row in read_tsv(gs / "table4_converted.tsv")}
    released_changed = sum(
        round(float(table4[s]["released_changed_pct"]) * int(table4[s]["contexts"]) / 100) for s in table4
    )
    assert released_changed == changed
    assert {row["split"] for row in read_tsv(gs / "table7_offsets.tsv")} == {"development", "validation", "test"}
    detector = read_tsv(gs / "table_detector.tsv")[0]
    assert 0 <= float(detector["accuracy"]) <= 1 and detector["paper_f1"] == "0.685"
    transfer = read_tsv(gs / "table_transfer.tsv")[0]
    assert float(transfer["valid_perplexity"]) > 1 and 0 < float(transfer["valid_accuracy"]) <= 100
    benchmark = {row["dataset"]: row for row in read_tsv(gs / "table8_benchmark.tsv")}
    assert set(benchmark) == {"GAP", "GAP-Subjective"}
    for row in benchmark.values():
        assert all(0 <= float(row[key]) <= 1 for key in ("overall_f1", "precision", "recall"))
        masculine, feminine = float(row["masculine_f1"]), float(row["feminine_f1"])
        if masculine > 0:
            assert abs(float(row["bias"]) - feminine / masculine) < 1e-3


def check_cross_study(copy: Path) -> None:
    """Study A's CDA beside Study B's systems; Study D's score on swapped SNLI and GAP-Subjective; scale notes."""
    cs = copy / "results/cross_study"
    rows = read_tsv(cs / "cda_regender.tsv")
    systems = {row["system"] for row in rows}
    assert systems == {"cda", "cda_adjectives", "rules", "nmt", "nmt_t", "nmt_at"}
    assert {row["test_set"] for row in rows} == {"opensubs_test", "structured", "unstructured"}
    assert all(0 <= float(row["correct_pct"]) <= 100 for row in rows if int(row["segments"]) > 0)
    assert read_tsv(cs / "bias_swap.tsv") and read_tsv(cs / "gap_subjective_bias.tsv")
    measured = {row["rule"] for row in read_tsv(cs / "scale_measured.tsv")}
    assert {
        "gap_subjective_detector", "gap_subjective_transfer_train", "regender_train", "sentence_bias_train_infersent",
    } <= measured  # fmt: skip
    estimate = {row["study"]: row for row in read_tsv(cs / "scale_estimate.tsv")}
    assert {"morph_cda", "regender", "gap_subjective", "sentence_bias"} <= set(estimate)
    # GPU rules count in gpu_rules_cpu_hours (and gpu_hours), the others in cpu_hours.
    assert all(float(row["cpu_hours"]) + float(row["gpu_rules_cpu_hours"]) > 0 for row in estimate.values())


def check_results_readme_and_report(copy: Path) -> None:
    """results/README.md lists every study's tables at the demo scale; the HTML report has them all."""
    readme = (copy / "results/README.md").read_text(encoding="utf-8")
    assert "Scale of this run: **demo**" in readme
    for study in ("Study A", "Study B", "Study C", "Study D"):
        assert study in readme
    assert "table2_thresholding.tsv" in readme and "table8_benchmark.tsv" in readme
    assert "stale" not in readme.lower()
    result = snakemake("--report", "results/report.html", cwd=copy)
    assert result.returncode == 0, result.stderr[-3000:]
    html = (copy / "results/report.html").read_text(encoding="utf-8")
    for category in ("Study A: morphological CDA", "Study B: re-gendering", "Study C: GAP-Subjective",
                     "Study D: sentence bias"):
        assert category in html, category


def check_human_evaluation_loop(copy: Path, tmp_path: Path) -> None:
    """Two judges fill the blinded sheet (ratings made up by this test), and Table 6 averages them."""
    sheet_path = copy / "results/gap_subjective/human_eval/sheet.tsv"
    lines = sheet_path.read_text(encoding="utf-8").splitlines()
    body = [line for line in lines if not line.startswith("#")]
    header, rows = body[0].split("\t"), [line.split("\t") for line in body[1:]]
    assert header == ["item", "sentence", "fluency", "subjectivity"] and all(r[2] == r[3] == "" for r in rows)
    filled = []
    for judge, (fluency, subjectivity) in {"judge1": ("5", "1"), "judge2": ("3", "3")}.items():
        path = tmp_path / f"{judge}.tsv"
        filled_rows = ["\t".join([r[0], r[1], fluency, subjectivity]) for r in rows]
        path.write_text("\n".join(["\t".join(header), *filled_rows]) + "\n")
        filled.append(str(path))
    config = yaml.safe_load((copy / "config.yaml").read_text())
    config["studies"]["gap_subjective"]["human_eval"]["ratings"] = filled
    (copy / "human.yaml").write_text(yaml.safe_dump(config, sort_keys=False))  # key order is part of params
    target = "results/gap_subjective/table6_human_eval.tsv"
    result = snakemake(target, "--cores", "1", "--configfile", "human.yaml", cwd=copy)
    assert result.returncode == 0, result.stderr[-3000:]
    table = {row["group"]: row for row in read_tsv(copy / target)}
    assert set(table) == {"original", "transferred"}
    assert sum(int(row["ratings"]) for row in table.values()) == 2 * len(rows)
    # How many transfers a tiny model keeps depends on the CPU's floating-point paths: the sheet may
    # be empty (Table 6 then says so) or not (then every mean is the judges' average).
    for row in table.values():
        if int(row["ratings"]):
            assert float(row["fluency"]) == 4.0 and float(row["subjectivity"]) == 2.0 and not row["note"]
        else:
            assert row["fluency"] == row["subjectivity"] == "" and "no ratings" in row["note"]


def check_subjectivize_cli(copy: Path) -> None:
    sentences = copy / "sentences.txt"
    sentences.write_text("The bridge was completed in 1932.\nShe joined the orchestra as a violinist.\n")
    result = subprocess.run(
        [sys.executable, "-m", "cdaflow.cli", "subjectivize", "--model", "results/gap_subjective/subjectivizer",
         "--input", str(sentences)],
        cwd=copy, capture_output=True, text=True, timeout=workflow_timeout(),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["original"] for r in records] == sentences.read_text().splitlines()
    assert all(r["verdict"] in {"kept", "discarded"} and 0 <= r["gleu"] <= 1 for r in records)


@pytest.mark.slow
@pytest.mark.shared_data
def test_validation_config_on_shared_data(tmp_path):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (it exists only beside the project's checkout)")
    copy = project_copy(tmp_path)
    # The copy is not beside shared/: point every ../shared/data path at the real folder.
    text = (ROOT / "config/validation.yaml").read_text().replace("../shared/data", str(SHARED_DATA))
    (copy / "config/validation.yaml").write_text(text)
    # About 15 min on 2 cores.
    result = snakemake("--cores", "2", "--configfile", "config/validation.yaml", cwd=copy)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = {(r["source"], r["part"]): r for r in read_tsv(copy / "results/common/parsing_summary.tsv")}
    # Sentence counts of the real UD 2.2 files (shared/data README).
    assert summary[("es_gsd", "dev")]["sentences"] == "1400"
    assert summary[("es_gsd", "test")]["sentences"] == "426"
    assert summary[("he_htb", "dev")]["sentences"] == "484"
    assert int(summary[("fr_gsd", "test")]["multiword_tokens"]) > 0
    shards = int(summary[("ud_text_es", "shard0")]["sentences"]) + int(
        summary[("ud_text_es", "shard1")]["sentences"]
    )
    assert shards >= 426  # spaCy may split a UD sentence in two, never merge lines
    sb = copy / "results/sentence_bias"
    seat = {row["test"]: row for row in read_tsv(sb / "tables6_7_11_seat.tsv")}
    assert set(seat) == {"C1", "C2", "C6", "C6b", "C7", "C7b", "C8", "C8b", "average |d| (C6, C6b, C7, C7b, C8, C8b)"}
    assert all(seat["C6"][model] for model in ("original", "sub95", "aug95", "hard_debias"))
    senteval = {row["task"]: row for row in read_tsv(sb / "senteval.tsv") if row["model"] == "original"}
    assert {task: row["status"] for task, row in senteval.items()} == {"CR": "ok", "TREC": "ok"}
    extrinsic = read_tsv(copy / "results/morph_cda/extrinsic/stereotyping.tsv")
    assert {row["lang"] for row in extrinsic} == {"es", "fr", "he", "it"} and len(extrinsic) == 12
    table4 = {row["lang"]: row for row in read_tsv(copy / "results/morph_cda/extrinsic/table4_corpora.tsv")}
    assert int(table4["es"]["sentences"]) >= 426 and 0 < float(table4["es"]["animate_percent"]) < 100
    snli = {row["model"]: row for row in read_tsv(sb / "models.tsv")}
    assert float(snli["original"]["test_accuracy"]) > 0.36  # 3 classes: above chance on real SNLI pairs
    check_gap_subjective(copy, SHARED_DATA / "gap-coreference", max_contexts=30)
    wnc = read_tsv(copy / "results/gap_subjective/wnc_stats.tsv")[0]
    assert int(wnc["pairs"]) == 200  # wnc_max_pairs of the sample's 1,100


def test_gpu_resources_follow_config_and_backend(tmp_path):
    config = yaml.safe_load((ROOT / "config/paper.yaml").read_text())
    config["corpora"]["subs_es"] = {"lang": "es", "dataset": "opensubtitles_es", "file": "es.txt.gz", "shards": 2}
    path = tmp_path / "gpu.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--forceall", "--configfile", str(path))
    assert result.returncode == 0, result.stderr
    jobs = result.stdout.split("\n\n")
    stanza_jobs = [job for job in jobs if "rule corpus_shard:" in job]
    gold_jobs = [job for job in jobs if "rule treebank_split:" in job]
    wiki_shards = sum(c["shards"] for name, c in config["corpora"].items() if name.startswith("wiki_"))
    assert len(stanza_jobs) == 2 + wiki_shards and all("gpu=1" in job for job in stanza_jobs)
    # Study A §5.2: 12 language models (4 languages x original, swap, MRF), each on a GPU.
    lms = [job for job in jobs if "rule morph_cda_lm:" in job]
    assert len(lms) == 12 and all("gpu=1" in job for job in lms)
    assert gold_jobs and all("gpu=0" in job for job in gold_jobs)
    # Study B at paper scale: stanza tags every shard on a GPU, Sockeye trains there too.
    tagging = [job for job in jobs if "rule regender_tag:" in job]
    training = [job for job in jobs if "rule regender_train:" in job]
    assert len(tagging) == config["studies"]["regender"]["shards"] and all("gpu=1" in job for job in tagging)
    assert len(training) == 2 and all("gpu=1" in job for job in training)
    # ... and the test sets are tagged and rewritten there (3 set-ups x 3 test sets).
    tagging_tests = [job for job in jobs if "rule regender_tag_testset:" in job]
    translating = [job for job in jobs if "rule regender_translate:" in job]
    assert len(tagging_tests) == 3 and all("gpu=1" in job for job in tagging_tests)
    assert len(translating) == 9 and all("gpu=1" in job for job in translating)
    # Study C: the detector, the transfer model and the feature extractor run on GPUs.
    for stage, count in (("detector", 1), ("transfer_train", 1), ("transfer", 3), ("subjectivity", 3),
                         ("threshold", 3), ("benchmark_features", 3), ("benchmark", 1)):  # fmt: skip
        rule = f"gap_subjective_{stage}"
        planned = [job for job in jobs if f"rule {rule}:" in job]
        assert len(planned) == count and all("gpu=1" in job for job in planned), rule


def test_optional_wordnet_gazetteer_rule(tmp_path):
    from tests.morph_cda.test_wordnet import DATA_NOUN, OMW

    copy = project_copy(tmp_path)
    (tmp_path / "data.noun").write_text(DATA_NOUN)
    (tmp_path / "wn-data-spa.tab").write_text(OMW)
    config = yaml.safe_load((copy / "config.yaml").read_text())
    config["studies"]["morph_cda"]["pwn_data_noun"] = {"path": str(tmp_path / "data.noun")}
    config["studies"]["morph_cda"]["languages"]["es"]["wordnet"] = {"path": str(tmp_path / "wn-data-spa.tab")}
    (copy / "wordnet.yaml").write_text(yaml.safe_dump(config))
    target = "results/morph_cda/es/wordnet_candidates.tsv"
    planned = snakemake("-n", "--configfile", "wordnet.yaml", cwd=copy)
    assert planned.returncode == 0 and "morph_cda_wordnet_gazetteer" in planned.stdout
    result = snakemake(target, "--cores", "1", "--configfile", "wordnet.yaml", cwd=copy)  # --configfile takes many
    assert result.returncode == 0, result.stderr[-3000:]
    rows = read_tsv(copy / target)
    assert [(r["masculine"], r["feminine"]) for r in rows][:2] == [("ingeniero", "ingeniera"), ("niño", "niña")]


def scripts_with_future_import(folder: Path) -> list[str]:
    """Rule scripts (every .py under `folder`, subfolders included) that import from __future__."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py") if "from __future__" in p.read_text())


def test_rule_scripts_have_no_future_import():
    # Snakemake prepends its own preamble to a rule's script: a `from __future__` import there is a
    # SyntaxError at run time that no unit test (runpy) would see.
    scripts = ROOT / "workflow/scripts"
    assert len(list(scripts.rglob("*.py"))) > 50  # the scripts live in one folder per study
    assert scripts_with_future_import(scripts) == []


def test_the_future_import_check_finds_a_script_in_a_study_folder(tmp_path):
    (tmp_path / "morph_cda").mkdir()
    (tmp_path / "morph_cda/evaluate.py").write_text("from __future__ import annotations\n")
    (tmp_path / "top.py").write_text("import os\n")
    assert scripts_with_future_import(tmp_path) == ["morph_cda/evaluate.py"]
