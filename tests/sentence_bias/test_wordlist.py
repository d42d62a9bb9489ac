"""The gender word list L: pluraliser, source filtering, SSA names, save/load, real lists."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import torch

from cdaflow.sentence_bias.wordlist import (
    NEUTRAL_ENTRIES,
    GenderWordList,
    build_gender_word_list,
    capitalise,
    common_nouns,
    iter_ssa_records,
    noun_forms,
    pluralize,
    ssa_counts,
    ssa_names_by_rank,
    top_ssa_names,
)

torch.set_num_threads(1)


@pytest.mark.parametrize(
    ("word", "plural"),
    [
        ("woman", "women"),
        ("man", "men"),
        ("spokeswoman", "spokeswomen"),
        ("councilman", "councilmen"),
        ("human", "humans"),
        ("lady", "ladies"),
        ("granny", "grannies"),
        ("boy", "boys"),
        ("guy", "guys"),
        ("princess", "princesses"),
        ("witch", "witches"),
        ("duchess", "duchesses"),
        ("wife", "wives"),
        ("housewife", "housewives"),
        ("child", "children"),
        ("alumna", "alumnae"),
        ("hero", "heroes"),
        ("heroine", "heroines"),
        ("penis", "penises"),
        ("semen", "semens"),
        ("Duchess", "Duchesses"),
        ("king", "kings"),
        ("filly", "fillies"),
        ("baroness", "baronesses"),
        ("fraternity", "fraternities"),
        ("gal", "gals"),
        # no plural: plurals, pronouns, adjectives, abbreviations, very short words
        ("boys", None),
        ("women", None),
        ("ladies", None),
        ("brethren", None),
        ("he", None),
        ("herself", None),
        ("feminine", None),
        ("maternal", None),
        ("manly", None),
        ("fathered", None),
        ("motherhood", None),
        ("mrs.", None),
        ("ma'am", None),
        ("ma", None),
    ],
)
def test_pluralize(word: str, plural: str | None) -> None:
    assert pluralize(word) == plural


def test_forms_and_capitalise() -> None:
    assert noun_forms("Sister") == {"sister", "Sister", "sisters", "Sisters"}
    assert noun_forms("she") == {"she", "She"}
    assert capitalise("mcDonald") == "McDonald"


def test_common_nouns_filtering() -> None:
    entries = [
        "Boy",
        "boy",
        "prostate_cancer",
        "womenâ_€_™",
        "ma'am",
        "mrs.",
        "x-wife",
        "cousin",
        "Lannisters",
        "  girl ",
    ]
    assert common_nouns(entries) == ["boy", "girl", "lannisters", "ma'am", "mrs.", "x-wife"]
    assert common_nouns(entries, lowercase_only=True) == ["boy", "girl", "ma'am", "mrs.", "x-wife"]
    assert "cousin" in common_nouns(entries, exclude=())


@pytest.fixture
def ssa_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "names"
    folder.mkdir()
    (folder / "yob2000.txt").write_text("Mary,F,100\nAnna,F,50\nJohn,M,90\nMark,M,40\nJordan,F,10\nJordan,M,60\n")
    (folder / "yob2001.txt").write_text("Anna,F,70\nMary,F,10\nLuke,M,40\nJordan,M,5\n")
    (folder / "NationalReadMe.pdf").write_bytes(b"%PDF")
    return folder


def test_ssa_ranking_folder_zip_and_years(ssa_dir: Path, tmp_path: Path) -> None:
    assert ssa_names_by_rank(ssa_dir, "F") == ["Anna", "Mary", "Jordan"]  # 120, 110, 10
    assert ssa_names_by_rank(ssa_dir, "M") == ["John", "Jordan", "Luke", "Mark"]  # ties by name
    assert ssa_names_by_rank(ssa_dir, "M", top=2) == ["John", "Jordan"]
    assert ssa_names_by_rank(ssa_dir, "F", years=[2000]) == ["Mary", "Anna", "Jordan"]
    archive = tmp_path / "names.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in sorted(ssa_dir.iterdir()):
            zf.write(file, file.name)
    assert ssa_names_by_rank(archive, "F") == ["Anna", "Mary", "Jordan"]
    single = [ssa_dir / "yob2001.txt"]
    assert ssa_names_by_rank(single, "F") == ["Anna", "Mary"]
    assert ssa_counts(ssa_dir)[("Jordan", "M")] == 65
    assert top_ssa_names(ssa_dir, 1) == ["Anna", "John"]
    assert len(list(iter_ssa_records(ssa_dir))) == 10
    with pytest.raises(ValueError, match="'F' or 'M'"):
        ssa_names_by_rank(ssa_dir, "X")


def test_ssa_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no SSA"):
        ssa_names_by_rank(tmp_path, "F")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        ssa_names_by_rank(tmp_path / "nope.zip", "F")
    (tmp_path / "yob1999.txt").write_text("Mary,F,5\nBad line\n")
    with pytest.raises(ValueError, match=r"yob1999\.txt:2: expected 'name,F\|M,count'"):
        ssa_names_by_rank(tmp_path, "F")
    (tmp_path / "yob1999.txt").write_text("Mary,F,many\n")
    with pytest.raises(ValueError, match=r"yob1999\.txt:1: count 'many'"):
        ssa_names_by_rank(tmp_path, "F")


def test_build_counts_names_and_round_trip(ssa_dir: Path, tmp_path: Path) -> None:
    import json

    debiaswe = tmp_path / "full.json"
    debiaswe.write_text(json.dumps(["he", "He", "spokeswoman", "Baratheon", "twin_brother", "cousin", "boys"]))
    gn = tmp_path / "male_word_file.txt"
    gn.write_text("actor\nboys\nprince\n")
    gl = build_gender_word_list(debiaswe_full=debiaswe, gn_glove_files=[gn], names_sources=ssa_dir, names_top=2)
    counts = gl.counts()
    assert counts["debiaswe_nouns"] == 3  # he, spokeswoman, boys (Baratheon: capitalised only; cousin: neutral)
    assert counts["gn_glove_nouns"] == 3 and counts["common_nouns"] == 5
    # he: 2 forms; spokeswoman, actor, prince: 4 each; boys: 2
    assert counts["noun_forms"] == 2 + 4 * 3 + 2
    assert counts["names"] == 4 and counts["total"] == len(gl) == 16 + 4
    for word in ["He", "spokeswomen", "Spokeswomen", "Actors", "princes", "Mary", "Jordan"]:
        assert word in gl
    for word in ["HE", "cousin", "Baratheon", "mary", "Luke", "boyses"]:
        assert word not in gl
    path = tmp_path / "out" / "L.txt"
    gl.save(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines) and len(lines) == len(gl)
    loaded = GenderWordList.load(path)
    assert loaded.words == gl.words and loaded.counts() == {"loaded": len(gl), "total": len(gl)}
    assert list(gl)[:3] == sorted(gl.words)[:3]
    with pytest.raises(ValueError, match="one word per line"):
        GenderWordList(frozenset({"a b\n"})).save(tmp_path / "bad.txt")


@pytest.mark.shared_data
def test_real_lists(shared_data: Path) -> None:
    gl = build_gender_word_list(
        debiaswe_full=shared_data / "debiaswe" / "data" / "gender_specific_full.json",
        gn_glove_files=[shared_data / "gn_glove" / "wordlist" / f"{s}_word_file.txt" for s in ("male", "female")],
        names=["Mary", "John"],
    )
    counts = gl.counts()
    print(f"\ngender word list from the real lists: {counts}")
    # 476 lower-case single-word debiaswe entries, 32 of them in NEUTRAL_ENTRIES; GN-GloVe: 403 - 5.
    assert counts["debiaswe_nouns"] == 444
    assert counts["gn_glove_nouns"] == 398
    assert counts["common_nouns"] == 618
    assert 1500 < counts["noun_forms"] < 2000
    for word in ["she", "She", "he", "sister", "Father", "councilman", "councilmen", "heroine", "Heroines",
                 "princess", "princesses", "spokeswomen", "ladies", "Mary"]:  # fmt: skip
        assert word in gl, word
    for word in ["cousin", "teenager", "blonde", "pink", "nurse", "broad", "human", "the", "mary"]:
        assert word not in gl, word
    assert not {w.lower() for w in gl.words} & NEUTRAL_ENTRIES
