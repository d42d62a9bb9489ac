from __future__ import annotations

from pathlib import Path

import pytest

from cdaflow.gap_subjective.wnc import WncError, read_wnc, split_pairs


def full_line(i: int, biased: str, neutral: str, fields: int = 7) -> str:
    values = [str(i), biased.lower(), neutral.lower(), biased, neutral, "NN", "nsubj"]
    return "\t".join(values[:fields]) + "\n"


def test_full_layout_reads_raw_columns(tmp_path: Path) -> None:
    path = tmp_path / "biased.full"
    path.write_text(
        full_line(1, "The brilliant Ann won.", "Ann won.")
        + full_line(2, "Same.", "Same.")
        + full_line(3, "The brilliant Ann won.", "Ann won."),
        encoding="utf-8",
    )
    pairs = read_wnc(path, "full")
    # the unchanged pair and the duplicate are dropped
    assert [(p.id, p.subjective, p.objective) for p in pairs] == [("1", "The brilliant Ann won.", "Ann won.")]


def test_full_layout_errors_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "biased.full"
    path.write_text(full_line(1, "a b", "a") + full_line(2, "x", "y", fields=6), encoding="utf-8")
    with pytest.raises(WncError, match=r"biased\.full: line 2: 6 fields, expected 7"):
        read_wnc(path, "full")
    path.write_text("1\ta\tb\t \tb\tNN\tnsubj\n", encoding="utf-8")
    with pytest.raises(WncError, match="line 1: field src_raw: empty"):
        read_wnc(path, "full")


def test_prepost_layout_and_alignment(tmp_path: Path) -> None:
    (tmp_path / "pre.train").write_text("the notorious band split .\nhe claimed it .\n", encoding="utf-8")
    (tmp_path / "post.train").write_text("the band split .\nhe said it .\n", encoding="utf-8")
    pairs = read_wnc(tmp_path, "prepost")
    assert [(p.id, p.objective) for p in pairs] == [("train-1", "the band split ."), ("train-2", "he said it .")]
    (tmp_path / "post.train").write_text("the band split .\n", encoding="utf-8")
    with pytest.raises(WncError, match="2 and 1 lines"):
        read_wnc(tmp_path, "prepost")
    with pytest.raises(WncError, match="unknown WNC layout"):
        read_wnc(tmp_path, "csv")


def test_shared_sample_and_split(shared_data: Path) -> None:
    pairs = read_wnc(shared_data / "wnc-sample" / "baselines" / "test_data", "prepost")
    assert 1000 < len(pairs) <= 1100
    train, valid = split_pairs(pairs, 100, seed=3)
    assert len(valid) == 100 and len(train) == len(pairs) - 100
    assert not {p.id for p in train} & {p.id for p in valid}
    assert split_pairs(pairs, 100, seed=3) == (train, valid)
    with pytest.raises(ValueError, match="validation size"):
        split_pairs(pairs, len(pairs), seed=3)
