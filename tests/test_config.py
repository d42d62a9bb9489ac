import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cdaflow import config
from tests.timeouts import workflow_timeout

ROOT = Path(__file__).resolve().parents[1]


def minimal(**extra):
    return {"scale": "demo", "datasets": {"d": {"path": "x"}}, **extra}


@pytest.mark.parametrize("name", ["config.yaml", "config/validation.yaml", "config/paper.yaml"])
def test_shipped_configs_are_valid(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # relative paths (annotation files) are the project root's
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


def test_config_file_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_text(yaml.safe_dump(minimal()), encoding="utf-8-sig")
    assert config.load(path)["scale"] == "demo"


def test_config_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("scale: demo\n# café\ndatasets: {d: {path: x}}\n".encode("latin-1"))
    with pytest.raises(config.ConfigError, match=rf"^{path}: not valid UTF-8 .* save it as UTF-8"):
        config.load(path)


def study_a(tmp_path, **language):
    """A config with Study A enabled on one treebank `t` (train and dev splits) and one corpus."""
    annotations = tmp_path / "es.tsv"
    if not annotations.exists():
        annotations.write_text(
            "treebank\tfile_split\tsent_id\teval_split\tnoun\tchanges\tcomment\nt\tdev\ts1\tdev\t\t\t\n"
        )
    spec = {"train": ["t/train"], "dev": ["t/dev"], "annotations": str(annotations), "gazetteer": {"path": "g.tsv"}}
    spec.update(language)
    return minimal(
        treebanks={"t": {"lang": "es", "dataset": "d", "splits": {"train": "a.conllu", "dev": "b.conllu"}}},
        corpora={"c": {"lang": "es", "dataset": "d", "file": "c.txt"}},
        studies={"morph_cda": {"enabled": True, "languages": {"es": spec}}},
    )


def test_study_a_references_that_hold(tmp_path):
    cfg = config.validate(study_a(tmp_path, corpora=["c"], corpus_treebanks=["t/train"]))
    assert cfg["studies"]["morph_cda"]["languages"]["es"]["dev"] == ["t/dev"]
    assert config.annotated_splits(tmp_path / "es.tsv") == [("t", "dev")]


@pytest.mark.parametrize(
    "language, message",
    [
        (
            {"train": ["nope/train"]},
            r"studies\.morph_cda\.languages\.es\.train\[0\]: unknown treebank 'nope' in 'nope/train' \(defined: t\)",
        ),
        (
            {"dev": ["t/dev", "t/test"]},
            r"studies\.morph_cda\.languages\.es\.dev\[1\]: treebank 't' has no 'test' split",
        ),
        ({"corpus_treebanks": ["x/train"]}, r"languages\.es\.corpus_treebanks\[0\]: unknown treebank 'x'"),
        ({"corpora": ["c", "leipzig"]}, r"languages\.es\.corpora\[1\]: unknown corpus 'leipzig' \(defined: c\)"),
        ({"annotations": "absent/es.tsv"}, r"languages\.es\.annotations: no such file 'absent/es\.tsv'"),
        (
            {"gazetteer": {"dataset": "nope", "file": "g.tsv"}},
            r"languages\.es\.gazetteer\.dataset: unknown dataset 'nope'",
        ),
        ({"gazetteer": {"file": "g.tsv"}}, r"languages\.es\.gazetteer: 'dataset' is a dependency of 'file'"),
    ],
)
def test_study_a_references_are_checked_by_name(tmp_path, language, message):
    with pytest.raises(config.ConfigError, match=message):
        config.validate(study_a(tmp_path, **language), source="my.yaml")


def test_annotation_rows_must_name_defined_splits(tmp_path):
    raw = study_a(tmp_path)
    (tmp_path / "es.tsv").write_text("treebank\tfile_split\tsent_id\nt\tdev\ts1\nt\ttest\ts2\n")
    with pytest.raises(
        config.ConfigError, match=rf"languages\.es\.annotations: treebank 't' has no 'test' split .*a row of {tmp_path}"
    ):
        config.validate(raw)
    (tmp_path / "es.tsv").write_text("sentence\tnoun\n")
    with pytest.raises(config.ConfigError, match="no column file_split, treebank"):
        config.validate(raw)


def test_disabled_study_a_does_not_read_its_annotations(tmp_path):
    raw = study_a(tmp_path, annotations="absent.tsv")
    raw["studies"]["morph_cda"]["enabled"] = False
    config.validate(raw)
    raw["studies"]["morph_cda"]["languages"]["es"]["train"] = ["nope/train"]
    with pytest.raises(config.ConfigError, match="unknown treebank 'nope'"):
        config.validate(raw)  # names between config entries are checked all the same


def test_dataset_references_anywhere_are_checked():
    raw = minimal(studies={"sentence_bias": {"vectors": {"dataset": "glove", "file": "g.txt"}}})
    with pytest.raises(config.ConfigError, match=r"studies\.sentence_bias\.vectors\.dataset: unknown dataset 'glove'"):
        config.validate(raw)
    raw = minimal(studies={"gap_subjective": {"detector": {"model": {"dataset": "rb", "file": "m"}}}})
    with pytest.raises(config.ConfigError, match=r"gap_subjective\.detector\.model\.dataset: unknown dataset 'rb'"):
        config.validate(raw)


def test_snakemake_stops_on_a_bad_reference_before_building_the_dag(tmp_path):
    raw = yaml.safe_load((ROOT / "config.yaml").read_text(encoding="utf-8"))
    raw["studies"]["morph_cda"]["languages"]["es"]["dev"] = ["es_demo/dev", "es_ancora/dev"]
    raw["studies"]["morph_cda"]["languages"]["fr"]["annotations"] = "resources/absent.tsv"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=workflow_timeout(),
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "studies.morph_cda.languages.es.dev[1]: unknown treebank 'es_ancora'" in output
    assert "InputFunctionException" not in output


@pytest.mark.parametrize(
    "section, key, value, message",
    [
        ("gap_subjective", ("transfer", "onmt", "learning_rate"), -0.5,
         r"studies\.gap_subjective\.transfer\.onmt\.learning_rate: -0\.5 is less than or equal to the minimum of 0"),
        ("gap_subjective", ("transfer", "onmt", "hidden_sise"), 64, r"transfer\.onmt: unknown key 'hidden_sise'"),
        ("gap_subjective", ("fluency", "lm", "dropout"), 1.5, r"fluency\.lm\.dropout: 1\.5 is greater than or equal"),
        ("gap_subjective", ("benchmark", "mlp", "feature_set"), "sum",
         r"benchmark\.mlp\.feature_set: 'sum' is not one"),
        ("gap_subjective", ("thresholds", "gleu_min"), 3, r"thresholds\.gleu_min: 3 is greater than the maximum of 1"),
        ("morph_cda", ("mrf", "lr"), 0, r"morph_cda\.mrf\.lr: 0 is less than or equal to the minimum of 0"),
        ("morph_cda", ("reinflection", "lr"), -1, r"reinflection\.lr: -1 is less than or equal"),
        ("sentence_bias", ("training", "decay"), 1.5, r"training\.decay: 1\.5 is greater than the maximum of 1"),
    ],
)
def test_numbers_out_of_range_stop_at_start_up(section, key, value, message):
    """Every number a study reads has its range in the schema: a bad value stops the run before
    the DAG is built, naming its key, instead of a traceback in the middle of a rule."""
    settings: dict = {}
    node = settings
    for part in key[:-1]:
        node = node.setdefault(part, {})
    node[key[-1]] = value
    with pytest.raises(config.ConfigError, match=message):
        config.validate(minimal(studies={section: settings}))


def test_every_number_in_the_schema_has_a_range():
    """A new number without bounds would let a negative rate or size through to a rule."""
    unbounded = []

    def walk(node, path):
        if isinstance(node, dict):
            types = node.get("type")
            types = types if isinstance(types, list) else [types]
            if ("number" in types or "integer" in types) and not (
                {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "not"} & set(node)
            ):
                unbounded.append(path)
            for key, value in node.items():
                walk(value, f"{path}.{key}")

    walk(config.load_schema(), "")
    # the seed of an OpenNMT-py or LSTM run may be any integer
    assert [p for p in unbounded if not p.endswith(".seed")] == []


@pytest.mark.parametrize(
    "change, message",
    [
        ({"treebanks": {"t": {"lang": "esp"}}},
         r"treebanks\.t\.lang: unknown language code 'esp' .*did you mean es \(Spanish\)"),
        ({"corpora": {"c": {"lang": "xx"}}}, r"corpora\.c\.lang: unknown language code 'xx'"),
        ({"corpora": {"c": {"lang": "de"}}},
         r"corpora\.c\.lang: no spaCy pipeline for 'de' .*resources/morph_cda/languages/de\.yaml"),
        ({"treebanks": {"t": {"splits": {"train": "a.conllu", "dev": "b.conlu"}}}},
         r"treebanks\.t\.splits\.dev: no file 'b\.conlu' in dataset 'd' .*close names there: b\.conllu"),
        ({"corpora": {"c": {"file": "sub/c.txt"}}}, r"corpora\.c\.file: no file 'sub/c\.txt' in dataset 'd'"),
    ],
)
def test_languages_and_data_files_are_checked_at_start_up(tmp_path, monkeypatch, change, message):
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("a.conllu", "b.conllu", "c.txt"):
        (folder / name).write_text("x\n")
    raw = minimal(
        treebanks={"t": {"lang": "es", "dataset": "d", "splits": {"train": "a.conllu", "dev": "b.conllu"}}},
        corpora={"c": {"lang": "es", "dataset": "d", "file": "c.txt"}},
    )
    raw["datasets"]["d"]["path"] = str(folder)
    monkeypatch.chdir(tmp_path)
    assert config.validate(raw)["treebanks"]["t"]["lang"] == "es"  # as written, it holds
    for section, entries in change.items():
        for name, fields in entries.items():
            raw[section][name].update(fields)
    with pytest.raises(config.ConfigError, match=message):
        config.validate(raw, source="my.yaml")


def test_data_files_of_a_dataset_still_to_download_are_not_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    raw = minimal(treebanks={"t": {"lang": "es", "dataset": "d", "splits": {"train": "whatever.conllu"}}})
    raw["datasets"]["d"] = {"url": "https://example.org/d.tar.gz"}
    assert config.validate(raw)["treebanks"]["t"]["splits"] == {"train": "whatever.conllu"}
