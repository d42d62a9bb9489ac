"""The papers' numbers as data: resources/<study>/paper.yaml."""

import pytest

from cdaflow import paper


def test_every_study_has_a_valid_paper_file_with_sources():
    assert paper.studies() == sorted(paper.STUDIES)
    for study in paper.STUDIES:
        values = paper.load(study)
        assert values and all(entry["source"] for entry in values.values())


def test_value_by_name_and_errors_name_the_file(tmp_path):
    assert paper.value("sentence_bias", "original_average") == pytest.approx(1.254)
    with pytest.raises(paper.PaperError, match=r"sentence_bias/paper.yaml: no number named 'nothing'"):
        paper.value("sentence_bias", "nothing")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/paper.yaml").write_text("citation: x\nvalues:\n  t1: {value: {es: 1.0, fr: yes}, source: T1}\n")
    with pytest.raises(paper.PaperError, match=r"demo/paper.yaml: values.t1.value.fr: expected a number"):
        paper.load("demo", tmp_path)
    (tmp_path / "demo/paper.yaml").write_text("citation: x\nvalues:\n  t1: {value: {es: 1.0, fr: 2.5}, source: T1}\n")
    assert paper.value("demo", "t1", tmp_path) == {"es": 1.0, "fr": 2.5}


def test_read_yaml_mapping_names_the_file_in_the_callers_error(tmp_path):
    class Wrong(ValueError):
        pass

    good = tmp_path / "good.yaml"
    good.write_text("\ufeffclaims: [1, 2]\n", encoding="utf-8")
    assert paper.read_yaml_mapping(good, "claims", list, "a list `claims`", Wrong)["claims"] == [1, 2]
    with pytest.raises(Wrong, match=r"good\.yaml: expected a mapping of `values`"):
        paper.read_yaml_mapping(good, "values", dict, "a mapping of `values`", Wrong)
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [\n", encoding="utf-8")
    with pytest.raises(Wrong, match=r"broken\.yaml: cannot read: "):
        paper.read_yaml_mapping(broken, "a", list, "a list", Wrong)
