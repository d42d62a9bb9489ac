"""Scale notes (cdaflow.pipeline.scale_notes): benchmark files, item counts and the linear extrapolation."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from cdaflow.pipeline.scale_notes import (
    estimate_paper_scale,
    match_benchmark,
    measured_items,
    paper_items,
    read_benchmark,
    read_benchmarks,
    rule_benchmarks,
    rules_with_gpu,
    scale_by_rule,
)

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path, *rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_read_benchmark_averages_repeats_and_keeps_the_peak(tmp_path):
    path = _bench(
        tmp_path / "b.tsv",
        (10.0, "0:00:10", 100.5, 1, 1, 1, 0, 0, 50, 8.0),
        (20.0, "0:00:20", 300.0, 1, 1, 1, 0, 0, 50, 12.0),
    )
    assert read_benchmark(path) == {"wall_s": 15.0, "cpu_s": 10.0, "peak_rss_mb": 300.0, "runs": 2}


def test_read_benchmark_unmeasured_cells_and_errors(tmp_path):
    dashes = _bench(tmp_path / "dash.tsv", (3.0, "0:00:03", "-", "-", "-", "-", "-", "-", "-", "-"))
    result = read_benchmark(dashes)
    assert result["wall_s"] == 3.0 and math.isnan(result["cpu_s"]) and math.isnan(result["peak_rss_mb"])
    bad = _bench(tmp_path / "bad.tsv", (3.0, "0:00:03", "lots", 1, 1, 1, 0, 0, 0, 1.0))
    with pytest.raises(ValueError, match=r"bad\.tsv:2: field max_rss: 'lots'"):
        read_benchmark(bad)
    other = tmp_path / "other.tsv"
    other.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.tsv:1: not a Snakemake benchmark"):
        read_benchmark(other)
    empty = tmp_path / "empty.tsv"
    empty.write_text(HEADER, encoding="utf-8")
    with pytest.raises(ValueError, match="without measurements"):
        read_benchmark(empty)


def test_match_benchmark_reads_wildcards_from_the_rule_pattern():
    patterns = {
        "morph_cda_train_mrf": "results/benchmarks/morph_cda/train_mrf/{lang}_{param}.tsv",
        "treebank_split": "results/benchmarks/common/treebank_split/{treebank}/{split}.tsv",
    }
    assert match_benchmark("results/benchmarks/morph_cda/train_mrf/es_lin.tsv", patterns) == (
        "morph_cda_train_mrf",
        {"lang": "es", "param": "lin"},
    )
    assert match_benchmark("results/benchmarks/common/treebank_split/es_gsd/dev.tsv", patterns) == (
        "treebank_split",
        {"treebank": "es_gsd", "split": "dev"},
    )
    assert match_benchmark("results/benchmarks/common/treebank_split/es_gsd/x/dev.tsv", patterns) is None


def test_read_benchmarks_names_rules_from_patterns_or_paths(tmp_path):
    root = tmp_path / "results" / "benchmarks"
    _bench(root / "morph_cda" / "train_mrf" / "es_lin.tsv", (4.0, "0:00:04", 50.0, 1, 1, 1, 0, 0, 0, 3.0))
    _bench(root / "sentence_bias" / "score_snli.tsv", (2.0, "0:00:02", 70.0, 1, 1, 1, 0, 0, 0, 1.5))
    _bench(root / "regender" / "tag" / "shard1.tsv", (1.0, "0:00:01", 20.0, 1, 1, 1, 0, 0, 0, 0.5))
    table = read_benchmarks(
        root, {"morph_cda_train_mrf": "results/benchmarks/morph_cda/train_mrf/{lang}_{param}.tsv"}, project=tmp_path
    ).set_index("rule")
    assert table.loc["morph_cda_train_mrf", "wildcards"] == "lang=es,param=lin"
    assert table.loc["morph_cda_train_mrf", "path"] == "results/benchmarks/morph_cda/train_mrf/es_lin.tsv"
    # No pattern: <study>_<stage> from the folders, the rest of the path as wildcards.
    assert table.loc["sentence_bias_score_snli", ["study", "wildcards", "peak_rss_mb"]].tolist() == [
        "sentence_bias", "", 70.0,
    ]  # fmt: skip
    assert table.loc["regender_tag", "wildcards"] == "shard1"
    assert table["modified"].str.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").all()


def test_measured_items_reads_the_run_outputs(tmp_path):
    results = tmp_path / "results"
    (results / "common").mkdir(parents=True)
    (results / "common" / "parsing_summary.tsv").write_text(
        "scale\tkind\tsource\tpart\tbackend\tsentences\n"
        "demo\ttreebank\tes_demo\ttrain\tgold\t10\ndemo\ttreebank\tes_demo\tdev\tgold\t5\n"
        "demo\tcorpus\tdemo_es\tshard0\tspacy\t7\ndemo\tcorpus\tdemo_es\tshard1\tspacy\t8\n",
        encoding="utf-8",
    )
    for lang, n in (("es", 30), ("fr", 12)):
        (results / "morph_cda" / lang / "prepare").mkdir(parents=True)
        (results / "morph_cda" / lang / "prepare" / "summary.tsv").write_text(
            f"scale\tlang\tpart\tsentences\ndemo\t{lang}\ttrain\t{n}\ndemo\t{lang}\tdev\t3\n", encoding="utf-8"
        )
    (results / "regender" / "es" / "candidates").mkdir(parents=True)
    (results / "regender" / "es" / "candidates" / "counts.tsv").write_text("lines\tkept\n480\t475\n", encoding="utf-8")
    (results / "regender" / "es" / "tableA1_parallel_stats.tsv").write_text(
        "scale\tset\ttype\tsegments\ndemo\ttrain\tall\t247\ndemo\ttrain\tneutral\t35\ndemo\tdev\tall\t21\n",
        encoding="utf-8",
    )
    (results / "sentence_bias" / "snli").mkdir(parents=True)
    (results / "sentence_bias" / "snli" / "snli_1.0_train.jsonl").write_text("{}\n{}\n{}\n", encoding="utf-8")
    (results / "sentence_bias" / "snli" / "snli_1.0_dev.jsonl").write_text("{}\n", encoding="utf-8")
    (results / "gap_subjective" / "sentences").mkdir(parents=True)
    (results / "gap_subjective" / "wnc_stats.tsv").write_text("source\tpairs\nx\t400\n", encoding="utf-8")
    sentences = results / "gap_subjective" / "sentences"
    (sentences / "gap-test.tsv").write_text("ID\tText\nt-1\ta\nt-2\tb\n", encoding="utf-8")
    # The split's sentences beside it are not examples.
    (sentences / "test.tsv").write_text("id\tindex\nt-1\t0\nt-1\t1\nt-2\t0\n", encoding="utf-8")
    assert measured_items(results) == {
        "treebank_sentences": 15.0,
        "corpus_sentences": 15.0,
        "morph_train_sentences": 42.0,
        "regender_candidates": 480.0,
        "regender_train_pairs": 247.0,
        "snli_pairs": 4.0,
        "wnc_pairs": 400.0,
        "gap_examples": 2.0,
    }
    assert measured_items(tmp_path / "nothing") == {}


def _measured(rows):
    return pd.DataFrame(rows, columns=["study", "rule", "wildcards", "wall_s", "cpu_s", "peak_rss_mb"])


def test_scale_by_rule_and_estimate_hand_computed():
    measured = _measured(
        [
            # 2 files of one CPU rule: 20 + 16 CPU s for 10 pairs; x100 at 1,000 pairs -> 1 CPU hour.
            ("sentence_bias", "sb_score_snli", "", 30.0, 20.0, 1.0),
            ("sentence_bias", "sb_score_snli", "", 30.0, 16.0, 1.0),
            # A GPU rule: 72 s x 100 = 2 CPU hours, / speed-up 4 = 0.5 GPU hours.
            ("sentence_bias", "sb_train_infersent", "model=original", 80.0, 72.0, 1.0),
            # Not growing with the data: unscaled (factor 1); cpu_time 0 -> wall seconds.
            ("sentence_bias", "sb_vectors", "", 36.0, 0.0, 1.0),
            # No item count measured: cannot be scaled.
            ("gap_subjective", "gap_subjective_detector", "", 10.0, 10.0, 1.0),
        ]
    )
    items = {"snli_pairs": 10}
    paper = {"snli_pairs": 1000, "wnc_pairs": 180_000}
    # Declared items (resources/jobs.yaml); gap_subjective_detector falls back to its study's (gap_examples).
    rule_items = {"sb_score_snli": "snli_pairs", "sb_train_infersent": "snli_pairs", "sb_vectors": "-"}
    per_rule = scale_by_rule(
        measured, items, paper, {"sb_train_infersent"}, rule_items=rule_items, gpu_speedup=4
    ).set_index("rule")
    assert per_rule.loc["sb_score_snli", ["measured_cpu_s", "factor", "cpu_hours", "gpu_hours"]].tolist() == [
        36.0, 100.0, 1.0, 0.0,
    ]  # fmt: skip
    assert per_rule.loc["sb_train_infersent", ["cpu_hours", "gpu_hours", "gpu_rules_cpu_hours"]].tolist() == [
        0.0,
        0.5,
        2.0,
    ]
    assert per_rule.loc["sb_vectors", ["items", "factor", "cpu_hours"]].tolist() == ["-", 1.0, 0.01]
    assert math.isnan(per_rule.loc["gap_subjective_detector", "factor"])
    per_study = estimate_paper_scale(per_rule.reset_index(), gpu_speedup=4).set_index("study")
    assert per_study.loc["sentence_bias", ["rules", "cpu_hours", "gpu_hours", "gpu_rules_cpu_hours"]].tolist() == [
        3, pytest.approx(1.01), 0.5, 2.0,
    ]  # fmt: skip
    unscaled = per_study.loc["gap_subjective", ["cpu_hours", "unscaled_rules"]].tolist()
    assert unscaled == [0.0, "gap_subjective_detector"]
    with pytest.raises(ValueError, match="gpu_speedup"):
        scale_by_rule(measured, items, paper, gpu_speedup=0)
    # A measured speed-up (resources/jobs_gpu.tsv) replaces the assumed one for its rule.
    measured_too = scale_by_rule(measured, items, paper, {"sb_train_infersent"}, rule_items=rule_items,
                                 gpu_speedup=4, measured_speedups={"sb_train_infersent": 40})  # fmt: skip
    measured_too = measured_too.set_index("rule")
    row = measured_too.loc["sb_train_infersent"]
    assert [row["gpu_speedup"], row["gpu_speedup_measured"], row["gpu_hours"]] == [40, True, pytest.approx(0.05)]
    with pytest.raises(ValueError, match="sb_train_infersent"):
        scale_by_rule(measured, items, paper, gpu_speedup=4, measured_speedups={"sb_train_infersent": 0})


def test_every_paper_item_count_has_a_source():
    counts, sources = paper_items()
    assert set(counts) == set(sources) and all(sources.values())
    assert counts["snli_pairs"] == 570_152 and counts["gap_examples"] == 4_454
    assert counts["treebank_sentences"] == 54_459 and counts["morph_train_sentences"] == 46_999


def test_rule_facts_from_the_workflow_rules():
    """Benchmark patterns and GPU rules, read off Snakemake's rule objects."""

    class Params(dict):
        def __getattr__(self, name):
            return self[name]

    def rule(name, benchmark=None, resources=None, **params):
        return SimpleNamespace(name=name, benchmark=benchmark, resources=resources, params=Params(params))

    rules = [
        rule("sentence_bias_train_infersent", "results/benchmarks/sentence_bias/train_infersent/{model}.tsv",
             {"gpu": 0, "mem_mb": 1000}),
        rule("sentence_bias_snli", resources={"mem_mb": 1000}),
        rule("regender_train", resources={"gres": "tmpdisk:10,gpu:a100:1"}),  # compute.slurm's gres form
        rule("regender_rules", resources={"gres": "tmpdisk:10"}),
        rule("cross_study_scale_notes"),
    ]  # fmt: skip
    assert rule_benchmarks(rules) == {
        "sentence_bias_train_infersent": "results/benchmarks/sentence_bias/train_infersent/{model}.tsv"
    }
    assert rules_with_gpu(rules) == ["regender_train", "sentence_bias_train_infersent"]  # even at 0
