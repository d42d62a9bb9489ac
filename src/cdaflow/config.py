"""Workflow configuration: load, validate against the JSON Schema, fill defaults.

The Snakefile and the CLI share this module, so a config that the CLI accepts is one the
workflow accepts and vice versa.
"""

from __future__ import annotations

import copy
import csv
import difflib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from cdaflow.io.structured import read_mapping

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = PROJECT_ROOT / "workflow" / "schemas" / "config.schema.yaml"
DEFAULT_CONFIG = PROJECT_ROOT / "config.yaml"


class ConfigError(ValueError):
    """An invalid configuration; the message names the file and the offending key."""


def _with_defaults(validator_class: type) -> type:
    """Extend a validator so that `properties` fills in each missing key's `default`."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for key, subschema in properties.items():
                resolved = subschema
                if "$ref" in subschema and "default" not in subschema:
                    resolved = validator._resolver.lookup(subschema["$ref"]).contents
                if "default" in subschema:
                    instance.setdefault(key, copy.deepcopy(subschema["default"]))
                elif key not in instance and "default" in resolved:
                    instance[key] = copy.deepcopy(resolved["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


_Validator = _with_defaults(jsonschema.Draft202012Validator)


def load_schema(path: Path = SCHEMA_PATH) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _key_path(path: Any) -> str:
    return ".".join(str(part) for part in path) or "<top level>"


def _describe(error: jsonschema.ValidationError) -> str:
    where = _key_path(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if error.schema.get("additionalProperties") is False:
            hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
            return f"{where}: unknown key {', '.join(repr(k) for k in extra)}{hint}"
    if error.validator == "required":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"


def validate(config: Mapping[str, Any], *, source: str = "config") -> dict[str, Any]:
    """Return a validated copy of `config` with defaults filled in; raise ConfigError otherwise.

    Relative paths (e.g. annotation files) are checked from the current folder, as the workflow
    reads them: run from the project root.
    """
    instance = copy.deepcopy(dict(config))
    validator = _Validator(load_schema())
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = "\n  ".join(_describe(e) for e in errors)
        raise ConfigError(f"{source}: invalid configuration:\n  {lines}")
    _check_references(instance, source)
    return instance


def _dataset_references(node: Any, path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(key path, name) of every `dataset:` reference: treebanks, corpora, file and model refs."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "dataset" and isinstance(value, str):
                yield ".".join((*path, key)), value
            else:
                yield from _dataset_references(value, (*path, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _dataset_references(value, (*path, str(index)))


def annotated_splits(path: str | Path) -> list[tuple[str, str]]:
    """(treebank, split) pairs a Study A stand-off annotation file points into, sorted.

    The workflow reads them while it builds the DAG; ConfigError names the file when it cannot.
    """
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
            missing = {"treebank", "file_split"} - set(rows.fieldnames or ())
            if missing:
                raise ConfigError(
                    f"{path}: no column {', '.join(sorted(missing))} (an annotation file's header starts "
                    "treebank, file_split, sent_id)"
                )
            return sorted({(row["treebank"], row["file_split"]) for row in rows})
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such annotation file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8 ({exc.reason})") from None


def _check_treebank_split(config: dict[str, Any], value: str, key: str, source: str) -> None:
    treebank, _, split = value.partition("/")
    treebanks = config["treebanks"]
    if treebank not in treebanks:
        raise ConfigError(
            f"{source}: {key}: unknown treebank {treebank!r} in {value!r} "
            f"(defined: {', '.join(sorted(treebanks)) or 'none'})"
        )
    if split not in treebanks[treebank]["splits"]:
        raise ConfigError(
            f"{source}: {key}: treebank {treebank!r} has no {split!r} split in {value!r} "
            f"(treebanks.{treebank}.splits: {', '.join(treebanks[treebank]['splits'])})"
        )


def _check_morph_cda(config: dict[str, Any], source: str) -> None:
    """Study A's languages name treebank splits, corpora and an annotation file that must exist."""
    morph_cda = config["studies"]["morph_cda"]
    for lang, spec in morph_cda["languages"].items():
        prefix = f"studies.morph_cda.languages.{lang}"
        for field in ("train", "dev", "corpus_treebanks"):
            for index, value in enumerate(spec.get(field, [])):
                _check_treebank_split(config, value, f"{prefix}.{field}[{index}]", source)
        for index, name in enumerate(spec.get("corpora", [])):
            if name not in config["corpora"]:
                raise ConfigError(
                    f"{source}: {prefix}.corpora[{index}]: unknown corpus {name!r} "
                    f"(defined: {', '.join(sorted(config['corpora'])) or 'none'})"
                )
        if not morph_cda["enabled"]:
            continue  # the language and annotation files are read only when the study runs
        from cdaflow.text.language import LanguageError
        from cdaflow.text.language import load as load_language

        try:
            language = load_language(lang)  # resources/morph_cda/languages/<lang>.yaml, against its schema
        except LanguageError as exc:
            raise ConfigError(f"{source}: {prefix}: {exc}") from None
        if morph_cda["extrinsic"]["enabled"] and (spec.get("corpora") or spec.get("corpus_treebanks")):
            if not language.probes:
                raise ConfigError(
                    f"{source}: {prefix}.corpora: the extrinsic evaluation (§5.2) needs probe phrases, and "
                    f"{language.source} names none (probes:); write them (resources/morph_cda/probes/) or "
                    f"give the language no corpora"
                )
            if not Path(language.probes).is_file():
                raise ConfigError(f"{source}: {language.source}: probes: no such file {language.probes!r}")
        annotations = spec["annotations"]
        if not Path(annotations).is_file():
            raise ConfigError(f"{source}: {prefix}.annotations: no such file {annotations!r}")
        try:
            pairs = annotated_splits(annotations)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {prefix}.annotations: {exc}") from None
        for treebank, split in pairs:
            try:
                _check_treebank_split(config, f"{treebank}/{split}", f"{prefix}.annotations", source)
            except ConfigError as exc:
                raise ConfigError(f"{exc} (a row of {annotations})") from None


LANGUAGES_PATH = PROJECT_ROOT / "resources" / "languages.tsv"
DATA_DIR = Path("resources/data")  # where the workflow acquires datasets, from the project root


def known_languages(path: Path = LANGUAGES_PATH) -> dict[str, str]:
    """Language code -> name, from resources/languages.tsv."""
    with open(path, encoding="utf-8") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        next(rows, None)  # header
        return {row[0]: row[1] for row in rows if len(row) >= 2}


def _check_languages(config: dict[str, Any], source: str) -> None:
    """Every language code names a language; a corpus parsed by spaCy needs a pipeline for it."""
    from cdaflow.text.spacy_parser import spacy_pipeline

    known = known_languages()
    named = [(f"treebanks.{name}.lang", entry["lang"]) for name, entry in config["treebanks"].items()]
    named += [(f"corpora.{name}.lang", entry["lang"]) for name, entry in config["corpora"].items()]
    named += [(f"studies.morph_cda.languages.{lang}", lang) for lang in config["studies"]["morph_cda"]["languages"]]
    for key, code in named:
        if code not in known:
            close = difflib.get_close_matches(code, known, n=3)
            hint = f"; did you mean {', '.join(f'{c} ({known[c]})' for c in close)}?" if close else ""
            raise ConfigError(
                f"{source}: {key}: unknown language code {code!r} (ISO 639, resources/languages.tsv){hint}"
            )
    parsed = [("corpora", config["parsing"]["corpora"])] + [("treebanks", config["parsing"]["treebanks"])]
    for section, backend in parsed:
        if backend != "spacy":
            continue
        for name, entry in config[section].items():
            if spacy_pipeline(entry["lang"]) is None:  # the language file names it, for cdaflow cda too
                raise ConfigError(
                    f"{source}: {section}.{name}.lang: no spaCy pipeline for {entry['lang']!r} (parsing.{section}: "
                    f"spacy); name one in resources/morph_cda/languages/{entry['lang']}.yaml (parser: {{spacy: ...}})"
                )


def _dataset_folder(config: dict[str, Any], name: str) -> Path | None:
    """Where a dataset's files can be looked at before the workflow runs: its local folder, or the
    copy already acquired; None when neither is there (a download still to come, an archive)."""
    entry = config["datasets"].get(name, {})
    local = entry.get("path")
    if local and Path(local).expanduser().is_dir() and not entry.get("extract"):
        return Path(local).expanduser()
    if (DATA_DIR / name).is_dir() and _acquired_as_configured(name, entry):
        return DATA_DIR / name
    return None


def _acquired_as_configured(name: str, entry: Mapping[str, Any]) -> bool:
    """Whether resources/data/<name> came from the source the config names now (else the workflow
    fetches it again, and the old copy says nothing about the files to come)."""
    from cdaflow.data.datasets import DatasetError, configured_origins
    from cdaflow.data.lockfile import LockFile

    lockfile = Path("results/downloads.tsv")
    if not lockfile.is_file():
        return False
    try:
        pinned = {pin.url for pin in LockFile(lockfile).for_dataset(name)}
        return bool(pinned) and pinned == set(configured_origins(name, entry))
    except (DatasetError, OSError, ValueError):
        return False


def _check_data_files(config: dict[str, Any], source: str) -> None:
    """Treebank split files and corpus files exist in their dataset, where that can be seen now."""
    wanted = [
        (f"treebanks.{name}.splits.{split}", entry["dataset"], file)
        for name, entry in config["treebanks"].items()
        for split, file in entry["splits"].items()
    ] + [(f"corpora.{name}.file", entry["dataset"], entry["file"]) for name, entry in config["corpora"].items()]
    for key, dataset, file in wanted:
        folder = _dataset_folder(config, dataset)
        if folder is None or (folder / file).exists():
            continue
        parent = (folder / file).parent
        names = [path.name for path in parent.iterdir()] if parent.is_dir() else []
        near = [str(Path(file).parent / n) for n in difflib.get_close_matches(Path(file).name, names, n=2)]
        hint = f"; close names there: {', '.join(near)}" if near else ""
        raise ConfigError(f"{source}: {key}: no file {file!r} in dataset {dataset!r} ({folder}){hint}")


def _check_references(config: dict[str, Any], source: str) -> None:
    """Cross-field checks the schema cannot express: every name one entry gives for another exists."""
    datasets = config["datasets"]
    for key, name in _dataset_references({k: v for k, v in config.items() if k != "datasets"}, ()):
        if name not in datasets:
            raise ConfigError(f"{source}: {key}: unknown dataset {name!r} (defined: {', '.join(sorted(datasets))})")
    for name, entry in datasets.items():
        if not (entry.get("url") or entry.get("files") or entry.get("path")):
            raise ConfigError(f"{source}: datasets.{name}: needs one of url, files or path")
        if entry.get("url") and entry.get("files"):
            raise ConfigError(f"{source}: datasets.{name}: give either url or files, not both")
    gap_subjective = config["studies"]["gap_subjective"]
    if gap_subjective["enabled"]:
        for key in ("wnc", "gap"):
            if not gap_subjective.get(key):
                raise ConfigError(f"{source}: studies.gap_subjective.{key}: required when the study is enabled")
    _check_morph_cda(config, source)
    _check_languages(config, source)
    _check_data_files(config, source)


def load(path: str | Path = DEFAULT_CONFIG) -> dict[str, Any]:
    """Read a YAML config file and validate it."""
    path = Path(path)
    raw = read_mapping(path, ConfigError, fmt="yaml", missing="config file not found")
    return validate(raw, source=str(path))

