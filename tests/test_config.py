from pathlib import Path

import pytest
import yaml

from cdaflow import config

ROOT = Path(__file__).resolve().parents[1]


def minimal(**extra):
    return {"scale": "demo", "datasets": {"d": {"path": "x"}}, **extra}


@pytest.mark.parametrize("name", ["config.yaml", "config/validation.yaml", "config/paper.yaml"])
def test_shipped_configs_are_valid(name):
    cfg = config.load(ROOT / name)
    assert cfg["scale"] in {"demo", "validation", "paper"}
    for treebank in cfg["treebanks"].values():
        assert treebank["dataset"] in cfg["datasets"]


def test_defaults_are_filled_in_nested_sections():
    cfg = config.validate(minimal())
    assert cfg["compute"] == {"gpu": 0, "threads": 2, "mem_mb": 4000}
    assert cfg["parsing"]["treebanks"] == "gold"
    assert cfg["datasets"]["d"]["sha256"] is None
    assert cfg["datasets"]["d"]["strip_components"] == 0
    gap_subjective = cfg["studies"]["gap_subjective"]
    assert gap_subjective["enabled"] is False and gap_subjective["max_contexts"] is None
    # Pant & Dadu (2022): detector lr 2e-5, length 50, weight decay 0.01; GLEU (0.8, 1.0); perplexity +100.
    assert (gap_subjective["detector"]["learning_rate"], gap_subjective["detector"]["max_length"]) == (2e-5, 50)
    assert gap_subjective["thresholds"] == {"gleu_min": 0.8, "gleu_max": 1.0, "max_perplexity_increase": 100}
    assert gap_subjective["transfer"]["vocab_size"] == 25000
    assert cfg["studies"]["regender"]["enabled"] is False
    assert cfg["studies"]["regender"]["split"] == {"dev": 1000, "test": 3000}  # the paper's sizes
    assert cfg["studies"]["regender"]["bpe"]["vocab_size"] == 32000
    assert cfg["studies"]["morph_cda"]["mrf"]["lr"] == 0.005 and cfg["studies"]["morph_cda"]["languages"] == {}


def test_validate_does_not_modify_its_input():
    raw = minimal()
    config.validate(raw)
    assert "compute" not in raw


def test_unknown_key_is_named_with_its_path():
    raw = minimal(parsing={"backend": "spacy"})
    with pytest.raises(config.ConfigError, match=r"parsing: unknown key 'backend' \(allowed: batch_size"):
        config.validate(raw, source="my.yaml")


def test_unknown_dataset_key_is_named():
    raw = minimal()
    raw["datasets"]["d"]["checksum"] = "abc"
    with pytest.raises(config.ConfigError, match=r"datasets\.d: unknown key 'checksum'"):
        config.validate(raw)


def test_bad_values_are_reported():
    raw = minimal(scale="huge")
    raw["datasets"]["d"]["sha256"] = "not-a-hash"
    with pytest.raises(config.ConfigError) as info:
        config.validate(raw)
    message = str(info.value)
    assert "scale: 'huge' is not one of" in message
    assert "datasets.d.sha256" in message


def test_reference_to_unknown_dataset():
    raw = minimal(treebanks={"t": {"lang": "es", "dataset": "nope", "splits": {"dev": "a.conllu"}}})
    with pytest.raises(config.ConfigError, match=r"treebanks\.t\.dataset: unknown dataset 'nope'"):
        config.validate(raw)


def test_dataset_needs_a_source_and_not_two():
    with pytest.raises(config.ConfigError, match="needs one of url, files or path"):
        config.validate({"scale": "demo", "datasets": {"d": {"description": "nothing"}}})
    both = {"url": "http://x/a", "files": {"b": {"url": "http://x/b"}}}
    with pytest.raises(config.ConfigError, match="either url or files"):
        config.validate({"scale": "demo", "datasets": {"d": both}})


def test_load_reports_missing_and_malformed_files(tmp_path):
    with pytest.raises(config.ConfigError, match="config file not found"):
        config.load(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("scale: [demo\n")
    with pytest.raises(config.ConfigError, match="not valid YAML"):
        config.load(bad)
    listy = tmp_path / "list.yaml"
    listy.write_text(yaml.safe_dump(["a"]))
    with pytest.raises(config.ConfigError, match="must be a mapping"):
        config.load(listy)


def test_enabled_gap_subjective_needs_its_data():
    raw = minimal()
    raw.setdefault("studies", {})["gap_subjective"] = {"enabled": True, "gap": {"path": "g"}}
    with pytest.raises(config.ConfigError, match="studies.gap_subjective.wnc: required"):
        config.validate(raw)
