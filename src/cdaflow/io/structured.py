"""JSON and YAML files whose top level is a mapping, read with errors that name the file."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import yaml

__all__ = ["read_mapping"]


def read_mapping(
    path: str | os.PathLike[str],
    error: type[Exception] = ValueError,
    *,
    fmt: str | None = None,
    missing: str = "no such file",
) -> dict[str, Any]:
    """The mapping in a JSON or YAML file (`fmt`; by default JSON for ``*.json``, else YAML).

    An empty YAML file is ``{}``.
    A missing file, bytes that are not UTF-8 (a BOM is allowed), a syntax error or a top level
    that is not a mapping raise `error` with a message that starts with the path.
    """
    path = Path(path)
    if fmt not in (None, "json", "yaml"):
        raise ValueError(f"fmt must be 'json' or 'yaml', got {fmt!r}")
    is_json = fmt == "json" if fmt else path.suffix == ".json"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    try:
        data = json.loads(text) if is_json else (yaml.safe_load(_named(text, path)) or {})
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise error(f"{path}: not valid {'JSON' if is_json else 'YAML'}: {exc}") from None
    if not isinstance(data, dict):
        expected = "expected a JSON object" if is_json else "the top level must be a mapping"
        raise error(f"{path}: {expected}, found {type(data).__name__}")
    return data


def _named(text: str, path: Path) -> io.StringIO:
    # PyYAML names the stream in its error marks ("in <name>, line 3, column 5").
    stream = io.StringIO(text)
    stream.name = str(path)
    return stream
