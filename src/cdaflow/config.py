"""Workflow configuration: load, validate against the JSON Schema, fill defaults.

The Snakefile and the CLI share this module, so a config that the CLI accepts is one the
workflow accepts and vice versa.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

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
    """Return a validated copy of `config` with defaults filled in; raise ConfigError otherwise."""
    instance = copy.deepcopy(dict(config))
    validator = _Validator(load_schema())
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = "\n  ".join(_describe(e) for e in errors)
        raise ConfigError(f"{source}: invalid configuration:\n  {lines}")
    _check_references(instance, source)
    return instance


def _check_references(config: dict[str, Any], source: str) -> None:
    """Cross-field checks the schema cannot express: datasets named by treebanks and corpora exist."""
    datasets = config["datasets"]
    for section in ("treebanks", "corpora"):
        for name, entry in config.get(section, {}).items():
            if entry["dataset"] not in datasets:
                raise ConfigError(
                    f"{source}: {section}.{name}.dataset: unknown dataset {entry['dataset']!r} "
                    f"(defined: {', '.join(sorted(datasets))})"
                )
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


def load(path: str | Path = DEFAULT_CONFIG) -> dict[str, Any]:
    """Read a YAML config file and validate it."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as handle:
            raw = yaml.safe_load(handle) or {}
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    return validate(raw, source=str(path))
