from pathlib import Path

import pytest

from cdaflow.io.atomic import atomic_directory, check_replaceable


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


def test_a_filesystem_root_is_never_replaced():
    with pytest.raises(ValueError, match="refusing to replace"):
        check_replaceable(Path("/"))  # checked alone: the test never hands "/" to a deleting function


@pytest.mark.parametrize("where", ["home", "cwd", "cwd_parent"])
def test_atomic_directory_refuses_to_replace_a_root_home_or_working_folder(tmp_path, monkeypatch, where):
    work = tmp_path / "project" / "run"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    destination = {"home": tmp_path / "home", "cwd": Path("."), "cwd_parent": Path("..")}[where]
    with pytest.raises(ValueError, match="refusing to replace"):
        with atomic_directory(destination):
            pass
    assert work.is_dir() and (tmp_path / "home").is_dir()
    assert [p.name for p in (tmp_path / "project").iterdir()] == ["run"]  # no temporary folder left


def test_atomic_directory_replaces_a_symlinked_output_and_leaves_no_old_copy(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "keep.txt").write_text("kept")
    target = tmp_path / "out"
    target.symlink_to(real)
    with atomic_directory(target) as tmp:
        (tmp / "new.txt").write_text("new")
    assert not target.is_symlink() and (target / "new.txt").read_text() == "new"
    assert (real / "keep.txt").read_text() == "kept"  # the link is replaced, not what it points to
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "real"]
