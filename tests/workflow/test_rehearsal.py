"""The paper run rehearsed: config/paper.yaml with its downloads and the Hub served from 127.0.0.1.

The rehearsal (config/paper.yaml + config/rehearsal.yaml + the generated urls.yaml) plans the same rules
as the paper config and runs them all, downloads and Hub fetches included, to results/README.md.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.mock_servers import mock_server
from tests.workflow import rehearsal
from tests.workflow.test_snakemake import SHARED_DATA, project_copy, snakemake

ROOT = Path(__file__).resolve().parents[2]
PAPER = yaml.safe_load((ROOT / "config/paper.yaml").read_text(encoding="utf-8"))


def planned_rules(*configfiles: str, cwd: Path = ROOT) -> dict[str, int]:
    """``{rule: jobs}`` of the whole DAG that a dry run plans for the given config files."""
    result = snakemake("-n", "--forceall", "--quiet", "rules", "--configfile", *configfiles, cwd=cwd)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    table = result.stdout + result.stderr
    start = table.index("Job stats:")
    counts = {}
    for line in table[start:].splitlines()[3:]:
        match = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if not match or match[1] == "total":
            break
        counts[match[1]] = int(match[2])
    return counts


def fake_urls(tmp_path: Path) -> Path:
    """A urls.yaml like the rehearsal's, without building or serving anything (for dry runs)."""
    overlay = {"datasets": {}, "downloads": {"hub_endpoint": "http://127.0.0.1:9"},
               "parsing": {"stanza_resources_url": "http://127.0.0.1:9/stanza-resources"}}  # fmt: skip
    for name, entry in PAPER["datasets"].items():
        if entry.get("files"):
            urls = {file: {"url": f"http://127.0.0.1:9/{name}/{file}"} for file in entry["files"]}
            overlay["datasets"][name] = {"files": urls}
        else:
            overlay["datasets"][name] = {"url": f"http://127.0.0.1:9/{name}/{rehearsal.url_file_name(entry['url'])}"}
    path = tmp_path / "urls.yaml"
    path.write_text(yaml.safe_dump(overlay))
    return path


def test_rehearsal_plans_the_same_rules_as_the_paper_config(tmp_path):
    paper = planned_rules("config/paper.yaml")
    rehearsed = planned_rules("config/paper.yaml", "config/rehearsal.yaml", str(fake_urls(tmp_path)))
    assert set(rehearsed) == set(paper)
    # Only sizes shrink: one job per dataset and Hub model, as many shards as the overlay says.
    for rule in ("fetch_dataset", "fetch_model", "fetch_stanza_models", "treebank_split", "morph_cda_train_mrf",
                 "regender_translate", "gap_subjective_transfer"):  # fmt: skip
        assert rehearsed[rule] == paper[rule], rule


def test_rehearsal_overlay_changes_only_sizes():
    """config/rehearsal.yaml names no dataset, file, treebank split or model, and parses as the paper config
    does (stanza, its models fetched): the paper's stay."""
    overlay = yaml.safe_load((ROOT / "config/rehearsal.yaml").read_text(encoding="utf-8"))
    assert set(overlay) <= {"scale", "compute", "corpora", "studies"}
    assert PAPER["parsing"]["corpora"] == "stanza"
    assert all(set(entry) == {"shards"} for entry in overlay["corpora"].values())
    text = yaml.safe_dump(overlay)
    for key in ("dataset:", "file:", "path:", "url:", "hub:", "package:", "train:", "annotations:"):
        assert key not in text, key


def test_every_paper_dataset_and_hub_model_has_a_fixture():
    assert set(PAPER["datasets"]) == set(rehearsal.BUILDERS)
    assert set(rehearsal.hub_repos(PAPER)) == set(rehearsal.HUB_BUILDERS)
    assert set(rehearsal.stanza_langs(PAPER)) == set(rehearsal.STANZA_TREEBANKS) == {"es", "fr", "it", "he"}


def test_a_stanza_model_dir_without_the_models_stops_the_run_at_once(tmp_path):
    """Named by the config, a folder without stanza's models stops the run before any job, in one line."""
    overlay = tmp_path / "models.yaml"
    overlay.write_text(yaml.safe_dump({"parsing": {"stanza_model_dir": str(tmp_path)}}))
    result = snakemake("-n", "--quiet", "rules", "--configfile", "config/paper.yaml", str(overlay))
    assert result.returncode != 0
    [line] = [row for row in (result.stdout + result.stderr).splitlines() if row.startswith("parsing.stanza_model_dir")]
    for lang in ("es", "fr", "it", "he"):
        assert f"lacks stanza's models for {lang!r}: {tmp_path}: no resources.json" in line
    assert "fetch_stanza_models" in line


def test_the_fetch_rule_fetches_stanzas_models_and_pins_them(tmp_path):
    """rule fetch_stanza_models, run by Snakemake with the paper config: the index and the models the parse
    rules read, from the configured URL, into resources/models/stanza/<lang>, pinned in the lock file."""
    from tests.text.test_stanza_models import _fake_models

    copy = project_copy(tmp_path)
    models = _fake_models(tmp_path / "models", "he")
    with mock_server() as server:
        url = rehearsal.serve_stanza(server, models, tmp_path / "served")
        (copy / "urls.yaml").write_text(yaml.safe_dump({"parsing": {"stanza_resources_url": url}}))
        result = snakemake("resources/models/stanza/he", "--cores", "1", "--configfile", "config/paper.yaml",
                           "urls.yaml", cwd=copy)  # fmt: skip
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    fetched = copy / "resources/models/stanza/he"
    assert (fetched / "he/depparse/gsd_nocharlm.pt").read_bytes() == b"he depparse model"
    with open(copy / "results/downloads.tsv", encoding="utf-8") as handle:
        pinned = {row["file"] for row in csv.DictReader(handle, delimiter="\t") if row["dataset"] == "stanza:he"}
    assert pinned == {"resources.json", *(f"he/{p}/{next(iter(k))}.pt" for p, k in models["he"].items())}


@pytest.mark.slow
@pytest.mark.shared_data
def test_rehearsal_runs_the_paper_dag_end_to_end(tmp_path):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent: the fixtures are cut from its real samples")
    built = rehearsal.build(tmp_path / "fixtures")
    copy = project_copy(tmp_path)
    with mock_server() as server:
        overlay = rehearsal.serve_and_configure(server, built)
        (copy / "urls.yaml").write_text(yaml.safe_dump(overlay, sort_keys=False), encoding="utf-8")
        configs = ["--configfile", "config/paper.yaml", "config/rehearsal.yaml", "urls.yaml"]
        # SSA names: the run stops at once and says what to save where; saved by hand, it goes on.
        stopped = snakemake("resources/data/ssa_names", "--cores", "1", *configs, cwd=copy)
        assert stopped.returncode != 0
        assert "allows no scripted download" in stopped.stdout + stopped.stderr
        assert not any("ssa.gov" in request for request in server.requests)
        rehearsal.save_by_hand(copy, built)
        result = snakemake("all", "datasets", "--cores", "2", *configs, cwd=copy)
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
        requests = server.requests
    # Every dataset came through its URL (or the hand-saved file) and was checked against its sha256.
    with open(copy / "results/downloads.tsv", encoding="utf-8") as handle:
        lock = list(csv.DictReader(handle, delimiter="\t"))
    assert {row["dataset"] for row in lock} >= set(PAPER["datasets"])
    expected = {name: spec["sha256"] for name, spec in overlay["datasets"].items() if "sha256" in spec}
    for row in lock:
        if row["dataset"] in expected:
            assert row["sha256"] == expected[row["dataset"]], row
    # The Hub models were fetched once each, on this host, and pinned.
    assert {row["dataset"] for row in lock if row["dataset"].startswith("hub:")} == {
        f"hub:{repo}" for repo in rehearsal.HUB_BUILDERS
    }
    assert any("/api/models/roberta-base/" in request for request in requests)
    # Stanza's index and every language's models were fetched once, pinned, and parsed the corpora.
    stanza = {row["dataset"]: row for row in lock if row["dataset"].startswith("stanza:")}
    assert set(stanza) == {f"stanza:{lang}" for lang in rehearsal.STANZA_TREEBANKS}
    assert sum("/resources_" in request for request in requests) == len(rehearsal.STANZA_TREEBANKS)
    for corpus in PAPER["corpora"]:
        for shard in sorted((copy / "results/common/corpora" / corpus).glob("shard*.conllu")):
            log = (copy / "logs/common/corpus_shard" / corpus / f"{shard.stem}.log").read_text(encoding="utf-8")
            assert " with stanza" in log, log
            text = shard.read_text(encoding="utf-8")
            assert "# sent_id = " in text and "# text = " in text
            # Multiword tokens (Spanish "del", Hebrew clitics...): stanza's mwt expander, which spaCy has none of.
            assert re.search(r"^\d+-\d+\t", text, re.MULTILINE), shard
    readme = (copy / "results/README.md").read_text(encoding="utf-8")
    assert "Scale of this run: **rehearsal**" in readme
    for table in ("table3_intrinsic.tsv", "table3_error_rates.tsv", "table8_benchmark.tsv", "seat.tsv", "senteval.tsv"):
        assert table in readme, table
    senteval = {row["task"]: row["status"] for row in csv.DictReader(
        open(copy / "results/sentence_bias/senteval.tsv", encoding="utf-8"), delimiter="\t")}  # fmt: skip
    ok = {task for task, status in senteval.items() if status == "ok"}
    assert ok >= {"MRPC", "SICKEntailment", "SICKRelatedness", "STS14", "STSBenchmark"}  # paper-only tasks
    again = snakemake("-n", "all", "--cores", "2", *configs, cwd=copy)
    assert "Nothing to be done" in again.stdout + again.stderr


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
