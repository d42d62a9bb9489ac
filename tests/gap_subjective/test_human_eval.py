from __future__ import annotations

from pathlib import Path

import pytest

from cdaflow.gap_subjective.human_eval import RatingError, rating_sheet, read_filled_sheet
from cdaflow.gap_subjective.reports import table6


def make_sheet(per_group: int = 3, seed: int = 1):
    originals = [f"Original sentence {i}." for i in range(10)]
    transferred = [f"Transferred sentence {i}." for i in range(10)]
    return rating_sheet(originals, transferred, [f"s{i}" for i in range(10)], per_group=per_group, seed=seed)


def test_sheet_is_blinded_balanced_and_never_shows_both_versions() -> None:
    sheet, key = make_sheet()
    assert list(sheet.columns) == ["item", "sentence", "fluency", "subjectivity"]
    assert len(sheet) == 6 and key["group"].value_counts().to_dict() == {"transferred": 3, "original": 3}
    assert key["source"].nunique() == 6
    again, _ = make_sheet()
    assert again.equals(sheet)
    other, _ = make_sheet(seed=2)
    assert not other["sentence"].equals(sheet["sentence"])
    with pytest.raises(ValueError, match="needs 22"):
        make_sheet(per_group=11)


def write_filled(path: Path, sheet, fluency, subjectivity) -> Path:
    filled = sheet.assign(fluency=fluency, subjectivity=subjectivity)
    path.write_text("# judge notes\n" + filled.to_csv(sep="\t", index=False), encoding="utf-8")
    return path


def test_table6_averages_per_group(tmp_path: Path) -> None:
    sheet, key = make_sheet()
    transferred = (key["group"] == "transferred").tolist()
    # judge 1: 5 fluency for originals, 4 for transfers; subjectivity 1 and 3
    j1 = write_filled(
        tmp_path / "j1.tsv", sheet, [4 if t else 5 for t in transferred], [3 if t else 1 for t in transferred]
    )
    # judge 2: 4 / 3 fluency, 2 / 5 subjectivity
    j2 = write_filled(
        tmp_path / "j2.tsv", sheet, [3 if t else 4 for t in transferred], [5 if t else 2 for t in transferred]
    )
    table = table6([read_filled_sheet(j1), read_filled_sheet(j2)], key).set_index("group")
    assert table.loc["original", "fluency"] == 4.5 and table.loc["transferred", "fluency"] == 3.5
    assert table.loc["original", "subjectivity"] == 1.5 and table.loc["transferred", "subjectivity"] == 4.0
    assert table.loc["original", "ratings"] == 6 and table.loc["original", "judges"] == 2


def test_bad_ratings_name_file_line_and_field(tmp_path: Path) -> None:
    sheet, _ = make_sheet()
    path = write_filled(tmp_path / "bad.tsv", sheet, [5, 5, 6, 5, 5, 5], [1] * 6)
    with pytest.raises(RatingError, match=r"bad\.tsv: line 5: field fluency: '6' is not a whole number 1-5"):
        read_filled_sheet(path)


def test_empty_sheet_gives_a_table_that_says_nothing_was_rated(tmp_path: Path) -> None:
    sheet, key = make_sheet(per_group=0)
    assert sheet.empty and key.empty
    path = write_filled(tmp_path / "judge.tsv", sheet, [], [])
    ratings = read_filled_sheet(path)
    assert list(ratings.columns) == ["item", "fluency", "subjectivity", "judge"] and ratings.empty
    table = table6([ratings], key).set_index("group")
    assert list(table.index) == ["original", "transferred"]
    assert table["ratings"].tolist() == [0, 0] and table["fluency"].isna().all()
    assert all("no ratings" in note for note in table["note"])
