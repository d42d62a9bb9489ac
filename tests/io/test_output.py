"""Where a command writes: never an input, atomic for regular files, straight into devices and FIFOs."""

import os
import stat
from pathlib import Path

import pytest

from cdaflow.io.output import OutputError, check_output_target, open_output


def test_the_same_file_by_any_name_is_refused(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("keep\n")
    os.link(source, tmp_path / "hard.txt")
    (tmp_path / "sym.txt").symlink_to(source)
    inputs = [("--input", source)]
    with pytest.raises(OutputError, match=r"--output .*in\.txt is the same file as --input .*in\.txt; write"):
        check_output_target(source, inputs)
    with pytest.raises(OutputError, match=r"\(a hard link to it\)"):
        check_output_target(tmp_path / "hard.txt", inputs)
    with pytest.raises(OutputError, match=r"\(a symbolic link to it\)"):
        check_output_target(tmp_path / "sym.txt", inputs)
    with pytest.raises(OutputError, match=r"is inside --model"):
        check_output_target(tmp_path / "new.txt", [("--model", tmp_path)])
    check_output_target(tmp_path / "new.txt", inputs)  # a new file is fine
    check_output_target(os.devnull, [("--input", Path(os.devnull))])  # a device harms no file
    check_output_target(None, inputs)
    assert source.read_text() == "keep\n"


def test_a_regular_file_is_replaced_whole_keeping_its_mode(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError):
        with open_output(target) as handle:
            handle.write("half")
            raise RuntimeError("boom")
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with open_output(target) as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_symlink_keeps_pointing_at_its_replaced_target(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with open_output(link) as handle:
        handle.write("new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_devices_are_written_into_and_write_errors_name_the_output(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a device was about to be replaced by a regular file")

    monkeypatch.setattr("cdaflow.io.output.atomic_file", refuse)
    with open_output(os.devnull) as handle:
        handle.write("gone\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    if os.path.exists("/dev/full"):
        with pytest.raises(OSError, match=r"^--output /dev/full: No space left on device"):
            with open_output("/dev/full") as handle:
                handle.write("x" * 100_000)


def test_a_folder_or_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a folder"):
        with open_output(tmp_path):
            pass
    with pytest.raises(FileNotFoundError, match="no such folder"):
        with open_output(tmp_path / "absent" / "out.txt"):
            pass
    assert list(tmp_path.iterdir()) == []
