"""SEAT (sent-bias re-implementation): hand-computed cases, permutation-test properties, real test files."""

from __future__ import annotations

import itertools
import json
import math
import zlib

import numpy as np
import pytest

from cdaflow.sentence_bias.seat import (
    PAPER_TESTS,
    SEAT_FILES,
    PValue,
    SeatFormatError,
    SeatTest,
    association,
    effect_size,
    load_seat_tests,
    n_partitions,
    p_value,
    read_seat,
    run_seat,
)

# Hand-made 2-d case.  A = {(2,0)}, B = {(0,5)}: s(w) = cos(w,A) - cos(w,B) = (w1 - w2) / |w|.
A_HAND = [[2.0, 0.0]]
B_HAND = [[0.0, 5.0]]
X_HAND = [[1.0, 0.0], [3.0, 4.0], [12.0, 5.0]]  # s = 1, (3-4)/5 = -0.2, (12-5)/13 = 7/13
Y_HAND = [[0.0, 1.0], [4.0, 3.0], [5.0, 12.0]]  # s = -1, 0.2, -7/13
S_X = [1.0, -0.2, 7 / 13]
S_Y = [-1.0, 0.2, -7 / 13]


def _reference_p(s_x, s_y):
    """sent-bias's exact loop (itertools.combinations, '>' plus '==' counted), for cross-checking."""
    s = list(s_x) + list(s_y)
    observed = sum(s_x)
    hits = total = 0
    for combo in itertools.combinations(range(len(s)), len(s_x)):
        si = sum(s[i] for i in combo)
        hits += si > observed or math.isclose(si, observed, rel_tol=1e-12, abs_tol=1e-12)
        total += 1
    return hits / total


def test_association_by_hand():
    np.testing.assert_allclose(association(X_HAND, A_HAND, B_HAND), S_X, atol=1e-12)
    np.testing.assert_allclose(association(Y_HAND, A_HAND, B_HAND), S_Y, atol=1e-12)
    # means over several attribute vectors: A = {(1,0), (0,1)}, B = {(1,1)} -> s((1,0)) = (1 + 0)/2 - 1/sqrt2
    s = association([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0]])
    assert s[0] == pytest.approx(0.5 - 1 / math.sqrt(2))


def test_effect_size_by_hand():
    # numerator: mean(S_X) - mean(S_Y) = 2 * (0.8 + 7/13) / 3; denominator: sample std (ddof=1) of all six
    numerator = 2 * (0.8 + 7 / 13) / 3
    values = S_X + S_Y  # mean 0
    std = math.sqrt(sum(v * v for v in values) / (len(values) - 1))
    assert effect_size(X_HAND, Y_HAND, A_HAND, B_HAND) == pytest.approx(numerator / std, rel=1e-12)
    assert effect_size(X_HAND, Y_HAND, A_HAND, B_HAND) == pytest.approx(1.2234000160, rel=1e-9)


def test_exact_p_by_hand():
    # C(6,3) = 20 partitions.  Observed sum_X = 1 - 0.2 + 7/13 = 1.338...; the triples of
    # {±1, ±0.2, ±7/13} with sum >= that are {1, 0.2, 7/13} and the observed one -> p = 2/20.
    result = p_value(X_HAND, Y_HAND, A_HAND, B_HAND)
    assert result == PValue(pytest.approx(0.1), "exact")
    assert result.p == pytest.approx(_reference_p(S_X, S_Y))
    p, method = result  # unpacks as (p, method)
    assert method == "exact" and p == pytest.approx(2 / 20)


def test_exact_p_matches_sent_bias_loop_on_random_case():
    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    A, B = rng.standard_normal((5, 6)), rng.standard_normal((3, 6))
    s_x, s_y = association(X, A, B), association(Y, A, B)
    result = p_value(X, Y, A, B)
    assert result.method == "exact" and n_partitions(4) == 70
    assert result.p == pytest.approx(_reference_p(s_x, s_y))


def test_swapping_targets_negates_d_and_complements_p():
    """Swap X/Y: d -> -d exactly.  Exact p: p(Y,X) = #{t_i <= t_obs}/N = 1 - p(X,Y) + T/N, where N = C(2n,n)
    and T = #{t_i == t_obs} (the partitions tied with the observed one, itself included; T = 1 here)."""
    d = effect_size(X_HAND, Y_HAND, A_HAND, B_HAND)
    assert effect_size(Y_HAND, X_HAND, A_HAND, B_HAND) == pytest.approx(-d, rel=1e-12)
    p_xy = p_value(X_HAND, Y_HAND, A_HAND, B_HAND).p
    p_yx = p_value(Y_HAND, X_HAND, A_HAND, B_HAND).p
    assert p_yx == pytest.approx(1 - p_xy + 1 / 20)
    assert p_yx == pytest.approx(19 / 20)

    rng = np.random.default_rng(11)
    X, Y, A, B = (rng.standard_normal((5, 4)) for _ in range(4))
    n_total = n_partitions(5)
    assert p_value(Y, X, A, B).p == pytest.approx(1 - p_value(X, Y, A, B).p + 1 / n_total)
    # swapping A/B negates every s(w): same as swapping the targets
    assert effect_size(X, Y, B, A) == pytest.approx(-effect_size(X, Y, A, B))
    assert p_value(X, Y, B, A).p == pytest.approx(p_value(Y, X, A, B).p)


def test_cosine_is_scale_invariant():
    rng = np.random.default_rng(5)
    X, Y, A, B = (rng.standard_normal((4, 3)) for _ in range(4))
    scale = rng.uniform(0.1, 10, size=(4, 1))
    assert effect_size(X * scale, Y, A * scale, B) == pytest.approx(effect_size(X, Y, A, B))
    assert p_value(X * scale, Y, A, B).p == pytest.approx(p_value(X, Y, A, B).p)


def test_sampled_p_close_to_exact():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((7, 8)) + 0.15
    Y = rng.standard_normal((7, 8))
    A = rng.standard_normal((6, 8)) + 0.15
    B = rng.standard_normal((6, 8))
    assert n_partitions(7) == 3432
    exact = p_value(X, Y, A, B, n_samples=10_000)
    sampled = p_value(X, Y, A, B, n_samples=3000, seed=0)
    assert exact.method == "exact" and sampled.method == "sampled"
    assert 0.02 < exact.p < 0.98  # a non-degenerate case
    # binomial s.e. <= sqrt(.25/3000) ~ 0.009; allow ~4 s.e.
    assert abs(sampled.p - exact.p) < 0.035
    # reproducible for a seed
    assert p_value(X, Y, A, B, n_samples=3000, seed=0) == sampled
    # sent-bias's normal approximation is in the same place
    parametric = p_value(X, Y, A, B, n_samples=20_000, parametric=True, seed=0)
    assert parametric.method == "parametric"
    assert abs(parametric.p - exact.p) < 0.06


def test_sampled_p_is_biased_by_one_observation():
    # perfectly separated targets: no random partition reaches the observed sum except by chance,
    # and sent-bias's hallucinated positive keeps p >= 1/n_samples.
    X = [[1.0, 0.01 * i] for i in range(1, 11)]
    Y = [[0.01 * i, 1.0] for i in range(1, 11)]
    result = p_value(X, Y, [[1.0, 0.0]], [[0.0, 1.0]], n_samples=500, seed=1)
    assert result.method == "sampled"
    assert 1 / 500 <= result.p <= 3 / 500
    # with the exact test the observed (maximal) partition alone: p = 1/C(20,10)
    exact = p_value(X, Y, [[1.0, 0.0]], [[0.0, 1.0]], n_samples=n_partitions(10))
    assert exact == PValue(pytest.approx(1 / n_partitions(10)), "exact")


def test_input_errors():
    with pytest.raises(ValueError, match=r"\|X\| == \|Y\|"):
        p_value(X_HAND, Y_HAND[:2], A_HAND, B_HAND)
    with pytest.raises(ValueError, match="zero"):
        effect_size([[0.0, 0.0]], Y_HAND, A_HAND, B_HAND)
    with pytest.raises(ValueError, match="dimension"):
        effect_size([[1.0, 0.0, 0.0]], Y_HAND, A_HAND, B_HAND)
    # all s equal -> d undefined
    assert math.isnan(effect_size([[1.0, 0.0]], [[2.0, 0.0]], A_HAND, B_HAND))


def _write_test(path, **overrides):
    data = {
        "targ1": {"category": "Male", "examples": ["he is here.", "he is here.", "the man is here."]},
        "targ2": {"category": "Female", "examples": ["she is here.", "the woman is here."]},
        "attr1": {"category": "Career", "examples": ["this is an office."]},
        "attr2": {"category": "Family", "examples": ["this is a home.", "this is a kid."]},
    }
    data.update(overrides)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_read_seat(tmp_path):
    test = read_seat(_write_test(tmp_path / "sent-weat6.jsonl"))
    assert test.name == "sent-weat6" and test.targ1_category == "Male" and test.attr2_category == "Family"
    assert test.targ1 == ("he is here.", "the man is here.")  # duplicate dropped, as sent-bias's dicts do
    assert len(test.targ2) == 2 and len(test.attr1) == 1 and len(test.attr2) == 2
    assert read_seat(tmp_path / "sent-weat6.jsonl", name="C6").name == "C6"


def test_read_seat_errors(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({"targ1": {"category": "a", "examples": ["x"]}}), encoding="utf-8")
    with pytest.raises(SeatFormatError, match=r"broken\.jsonl.*'targ2'"):
        read_seat(path)
    _write_test(path, attr1={"category": "Career"})
    with pytest.raises(SeatFormatError, match=r"broken\.jsonl.*'attr1'.*'examples'"):
        read_seat(path)
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(SeatFormatError, match="broken.jsonl"):
        read_seat(path)
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        read_seat(tmp_path / "nope.jsonl")


def test_run_seat_matches_direct_computation(tmp_path):
    test = read_seat(_write_test(tmp_path / "t.jsonl", targ2={"category": "F", "examples": ["she is.", "her."]}))
    table = {
        "he is here.": [1.0, 0.2],
        "the man is here.": [0.9, 0.5],
        "she is.": [0.1, 1.0],
        "her.": [0.3, 0.8],
        "this is an office.": [1.0, 0.0],
        "this is a home.": [0.0, 1.0],
        "this is a kid.": [0.2, 1.0],
    }
    calls = []

    def encode(sentences):
        calls.append(list(sentences))
        return np.array([table[s] for s in sentences])

    (row,) = run_seat(encode, [test], seed=0)
    assert len(calls) == 1 and sorted(calls[0]) == sorted(table)  # each distinct sentence encoded once
    X = [table[s] for s in test.targ1]
    Y = [table[s] for s in test.targ2]
    A = [table[s] for s in test.attr1]
    B = [table[s] for s in test.attr2]
    assert row["effect_size"] == pytest.approx(effect_size(X, Y, A, B))
    assert (row["p_value"], row["method"]) == tuple(p_value(X, Y, A, B))
    assert row["n_targ1"] == 2 and row["n_attr2"] == 2 and row["n_partitions"] == 6
    assert row["targ1"] == "Male" and row["attr1"] == "Career"


def _hashed_bow(sentences, dim=64):
    out = np.zeros((len(sentences), dim))
    for i, sentence in enumerate(sentences):
        for token in sentence.lower().replace(".", " ").split():
            out[i, zlib.crc32(token.encode()) % dim] += 1.0
    return out


@pytest.mark.shared_data
def test_real_sent_bias_files(shared_data):
    tests_dir = shared_data / "sent-bias" / "tests"
    if not tests_dir.is_dir():
        pytest.skip(f"{tests_dir} is absent")
    tests = load_seat_tests(tests_dir)
    assert [t.name for t in tests] == list(PAPER_TESTS)
    sizes = {t.name: (len(t.targ1), len(t.targ2), len(t.attr1), len(t.attr2)) for t in tests}
    assert sizes["C1"] == (350, 350, 215, 250)
    assert sizes["C6"] == (64, 64, 101, 112)
    assert sizes["C6b"] == (80, 80, 101, 112)
    assert sizes["C8b"] == (56, 56, 64, 64)
    by_name = {t.name: t for t in tests}
    assert (by_name["C6"].targ1_category, by_name["C6"].attr1_category) == ("MaleNames", "Career")
    assert (by_name["C7"].attr1_category, by_name["C7b"].attr1_category) == ("MaleTerms", "MaleNames")
    assert by_name["C6"].source.endswith(SEAT_FILES["C6"] + ".jsonl")
    assert "This is John." in by_name["C6"].targ1

    rows = run_seat(_hashed_bow, [by_name["C6"], by_name["C8b"]], n_samples=10_000)
    for row in rows:
        assert row["method"] == "sampled" and 1e-4 <= row["p_value"] <= 1.0
        assert np.isfinite(row["effect_size"]) and abs(row["effect_size"]) <= 2.0


def test_seat_test_is_hashable_and_exposes_sets():
    test = SeatTest("t", "a", ("x",), "b", ("y",), "c", ("z",), "d", ("w",))
    assert test.sets()["attr2"] == ("w",) and test.categories()["targ2"] == "b"
    assert hash(test) == hash(SeatTest("t", "a", ("x",), "b", ("y",), "c", ("z",), "d", ("w",)))
