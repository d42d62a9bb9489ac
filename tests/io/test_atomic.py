import pytest

from cdaflow.io.atomic import atomic_directory


def test_success_replaces_the_folder(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "old.txt").write_text("old")
    with atomic_directory(target) as tmp:
        (tmp / "new.txt").write_text("new")
        assert not (target / "new.txt").exists()  # nothing visible before the end
    assert sorted(p.name for p in target.iterdir()) == ["new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_failure_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as tmp:
            (tmp / "half.txt").write_text("half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_atomic_file_appears_only_when_complete(tmp_path):
    from cdaflow.io.atomic import atomic_file

    target = tmp_path / "t.tsv"
    with pytest.raises(ValueError):
        with atomic_file(target) as handle:
            handle.write("half")
            raise ValueError("boom")
    assert list(tmp_path.iterdir()) == []
    with atomic_file(target, "wb") as handle:
        handle.write(b"ok")
    assert target.read_bytes() == b"ok" and [p.name for p in tmp_path.iterdir()] == ["t.tsv"]
