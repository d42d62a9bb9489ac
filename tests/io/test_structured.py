"""JSON and YAML mappings read with errors that name the file."""

import pytest

from cdaflow.io.structured import read_mapping


def test_reads_json_by_suffix_and_yaml_otherwise(tmp_path):
    (tmp_path / "a.json").write_text('{"x": 1}', encoding="utf-8")
    (tmp_path / "a.yaml").write_text("\ufeffx: [1, 2]\n", encoding="utf-8")
    (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
    assert read_mapping(tmp_path / "a.json") == {"x": 1}
    assert read_mapping(tmp_path / "a.yaml") == {"x": [1, 2]}
    assert read_mapping(tmp_path / "empty.yaml") == {}
    # "x: 1" is YAML, not JSON: the format named wins over the suffix.
    with pytest.raises(ValueError, match=r"a\.yaml: not valid JSON"):
        read_mapping(tmp_path / "a.yaml", fmt="json")


class Wrong(Exception):
    pass


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("list.json", b"[1, 2]", r"list\.json: expected a JSON object, found list"),
        ("bad.json", b"{not json", r"bad\.json: not valid JSON: "),
        ("bad.yaml", b"a: [1\n", r"(?s)bad\.yaml: not valid YAML: .* in \".*bad\.yaml\", line 1"),
        ("text.yaml", b"just words\n", r"text\.yaml: the top level must be a mapping, found str"),
        ("latin1.yaml", "a: caf\u00e9\n".encode("latin-1"), r"latin1\.yaml: not valid UTF-8 .* at byte 6\); save"),
    ],
)
def test_errors_name_the_file_in_the_callers_error(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(Wrong, match=message):
        read_mapping(tmp_path / name, Wrong)


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(Wrong, match=r"gone\.yaml: config file not found"):
        read_mapping(tmp_path / "gone.yaml", Wrong, missing="config file not found")
    with pytest.raises(ValueError, match="fmt must be"):
        read_mapping(tmp_path / "a.toml", fmt="toml")
