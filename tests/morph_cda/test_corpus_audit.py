"""The corpus audit benchmark: its gold files are well-formed, and it samples, looks up and scores right.

The model's share right is the benchmark's to report (benchmarks/corpus_audit.py), not a test's:
here `cdaflow cda` is replaced by a stub.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("corpus_audit", ROOT / "benchmarks" / "corpus_audit.py")
audit = importlib.util.module_from_spec(spec)
sys.modules.setdefault("corpus_audit", audit)  # its dataclasses look their module up
spec.loader.exec_module(audit)


def _gold(tmp_path, rows, header=None):
    path = tmp_path / "gold.tsv"
    lines = ["\t".join(header or audit.COLUMNS)] + ["\t".join(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", ["es", "fr", "it", "he"])
def test_gold_files_are_judged_by_the_readme_rules(lang):
    path = audit.GOLD_DIR / f"{lang}.tsv"
    gold = audit.read_gold(path)  # raises on a bad row
    assert len(gold) >= 100
    assert all(original != counterfactual for original, counterfactual in gold)
    assert all(j.note for j in gold.values() if j.judgment == "wrong")  # each wrong row says why
    readme = (audit.GOLD_DIR / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in audit.ERROR_CLASSES)


def test_read_texts_keeps_sentence_ids_and_text(tmp_path):
    path = tmp_path / "x.conllu"
    path.write_text(
        "# sent_id = a-1\n# text = El niño duerme.\n1\tEl\t_\t_\t_\t_\t0\t_\t_\t_\n\n"
        "# newdoc\n# text = Sin id.\n1\tSin\t_\t_\t_\t_\t0\t_\t_\t_\n\n",
        encoding="utf-8",
    )
    lines = audit.read_texts(path, "T/x.conllu")
    assert [(line.source, line.sent_id, line.text) for line in lines] == [
        ("T/x.conllu", "a-1", "El niño duerme."),
        ("T/x.conllu", "2", "Sin id."),
    ]


def test_shuffled_depends_on_the_seed_only():
    lines = [audit.Line("f", str(i), f"frase {i}") for i in range(50)]
    once = audit.shuffled(lines, 7)
    assert once == audit.shuffled(list(reversed(lines)), 7)  # not on the files' order
    assert sorted(once, key=lambda line: int(line.sent_id)) == lines
    assert once != audit.shuffled(lines, 8)


def test_sample_takes_the_first_changed_lines_in_order():
    records = [
        {"original": "a", "counterfactual": None},
        {"original": "b", "counterfactual": "b"},  # identical: not a change
        {"original": "c", "counterfactual": "C"},
        {"original": "d", "counterfactual": ""},
        {"original": "e", "counterfactual": "E"},
        {"original": "f", "counterfactual": "F"},
    ]
    assert audit.sample_changed(records, 2) == [("c", "C"), ("e", "E")]
    assert audit.sample_changed(records, 10) == [("c", "C"), ("e", "E"), ("f", "F")]


def test_score_never_counts_an_unjudged_pair_right(tmp_path):
    gold = audit.read_gold(_gold(tmp_path, [
        ["El niño", "La niña", "right", "", ""],
        ["Il pleut", "Elle pleut", "wrong", "pronoun_not_person", "impersonal"],
        ["Un hombre", "Una mujer", "right", "", ""],
    ]))
    pairs = [("El niño", "La niña"), ("Il pleut", "Elle pleut"), ("El niño", "El niña"), ("Un hombre", "Una mujer")]
    result = audit.score(pairs, gold)
    assert (result.sampled, result.right, result.wrong, result.judged) == (4, 2, 1, 3)
    assert result.unjudged == [("El niño", "El niña")]  # same original, another counterfactual
    assert result.share_right == pytest.approx(2 / 3)
    assert result.share_right_of_sample == pytest.approx(2 / 4)
    assert result.classes == {"pronoun_not_person": 1}
    assert audit.score([], gold).share_right == 0.0


@pytest.mark.parametrize("row, message", [
    (["a", "b", "maybe", "", ""], "judgment"),
    (["a", "b", "wrong", "typo", "x"], "error class"),
    (["a", "b", "right", "elision", ""], "no error class"),
    (["a", "b", "right", ""], "fields"),
])
def test_a_bad_gold_row_stops_with_its_line(tmp_path, row, message):
    with pytest.raises(ValueError, match=rf"line 2: .*{message}"):
        audit.read_gold(_gold(tmp_path, [row]))


def test_a_bad_header_or_a_contradiction_stops(tmp_path):
    with pytest.raises(ValueError, match="line 1"):
        audit.read_gold(_gold(tmp_path, [], header=["original", "counterfactual"]))
    with pytest.raises(ValueError, match="line 3: .*both right and wrong"):
        audit.read_gold(_gold(tmp_path, [["a", "b", "right", "", ""], ["a", "b", "wrong", "other", "x"]]))
    assert audit.read_gold(tmp_path / "absent.tsv") == {}


def test_pending_rows_read_back_once_judged(tmp_path):
    path = tmp_path / "pending.tsv"
    pairs = [('Dijo "el niño"', 'Dijo "la niña"'), ("l'homme", "la femme")]
    audit.write_pending(path, pairs)
    rows = path.read_text(encoding="utf-8").splitlines()
    assert rows[0].split("\t") == audit.COLUMNS and len(rows) == 3
    judged = [row.replace("\t\t\t", "\tright\t\t") for row in rows[1:]]
    path.write_text("\n".join([rows[0], *judged]) + "\n", encoding="utf-8")
    assert set(audit.read_gold(path)) == set(pairs)
    with pytest.raises(ValueError, match="tab"):
        audit.write_pending(path, [("a\tb", "c")])


def test_main_reports_the_share_and_writes_the_unjudged(tmp_path, monkeypatch, capsys):
    data = tmp_path / "ud"
    for name in audit.SOURCES["es"]:
        (data / name).parent.mkdir(parents=True, exist_ok=True)
        (data / name).write_text(
            "".join(f"# sent_id = {name}-{i}\n# text = frase {name[-9:]} {i}\n1\tx\t_\t_\t_\t_\t0\t_\t_\t_\n\n"
                    for i in range(5)),
            encoding="utf-8",
        )
    model = tmp_path / "model"
    model.mkdir()
    seen = {}

    def fake_cda(lang, model_path, texts, extra):
        seen["texts"] = texts
        return [{"original": t, "counterfactual": t.upper() if i % 2 else None, "intervened": []}
                for i, t in enumerate(texts)]

    monkeypatch.setattr(audit, "run_cda", fake_cda)
    # the changed lines are the odd positions of the shuffled pool of 20
    order = [line.text for line in audit.shuffled(
        [line for name in audit.SOURCES["es"] for line in audit.read_texts(data / name, name)], 5)]
    first, second = order[1], order[3]
    gold = _gold(tmp_path, [[first, first.upper(), "right", "", ""],
                            [second, second.upper(), "wrong", "elision", "x"]])
    pending = tmp_path / "pending.tsv"
    argv = ["--lang", "es", "--model", str(model), "--data", str(data), "--gold", str(gold), "--seed", "5",
            "--sample", "3", "--pool", "20", "--pending", str(pending), "--check"]
    assert audit.main(argv) == 1  # one sampled pair unjudged
    assert seen["texts"] == order
    out = capsys.readouterr().out
    assert "sampled 3; judged 2" in out and "right: 1/2 judged = 50.0 %" in out and "unjudged 1" in out
    assert "wrong, elision" in out and "check: FAILED" in out
    with pytest.raises(ValueError, match="judgment ''"):  # left empty: to judge before it counts
        audit.read_gold(pending)
    assert pending.read_text(encoding="utf-8").splitlines()[1].split("\t")[:2] == [order[5], order[5].upper()]
    assert audit.main(["--lang", "es", "--model", str(tmp_path / "absent"), "--data", str(data)]) == 0
    assert "skipped" in capsys.readouterr().out


def test_run_cda_checks_the_records_match_the_lines(monkeypatch, tmp_path):
    def fake_run(command, check):
        target = Path(command[command.index("--output") + 1])
        target.write_text(json.dumps({"line": 1, "original": "otra", "counterfactual": None}) + "\n",
                          encoding="utf-8")

    monkeypatch.setattr(audit.subprocess, "run", fake_run)
    with pytest.raises(RuntimeError, match="not the line"):
        audit.run_cda("es", tmp_path, ["una"], [])
    with pytest.raises(RuntimeError, match="1 records for 2 lines"):
        audit.run_cda("es", tmp_path, ["una", "dos"], [])
