"""The package's floors (docs/architecture.md): every import goes down a floor, never up, and no
study imports another. Read from the source with `ast`, function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cdaflow"
STUDIES = ("morph_cda", "regender", "gap_subjective", "sentence_bias")
# Floor of each part of the package (a subpackage or a root module): a part imports only from its
# own part or a lower floor. Parts on one floor are side by side and never import each other.
FLOORS = {
    "settings": 0, "paper": 0, "io": 0,   # foundation: settings checks, the papers' numbers, file formats
    "device": 1, "data": 1,               # torch devices; dataset acquisition
    "text": 2,                            # parsing, languages, tokens, the shared language model
    **{study: 3 for study in STUDIES},    # the four studies, side by side
    "cross_study": 4,                     # one study's tool on another's data
    "api": 5,                             # the tools from Python
    "config": 6, "pipeline": 6,           # the workflow's config and support code
    "commands": 7,                        # the command line
    "cli": 8,
}  # fmt: skip
DOCUMENT = ROOT / "docs" / "architecture.md"


def part_of(module: str) -> str:
    """``cdaflow.text.parsing`` -> ``text``; ``cdaflow`` -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every ``cdaflow`` import in a file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "cdaflow":  # from cdaflow import paper
                found += [(node.lineno, f"cdaflow.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name == "cdaflow" or name.startswith("cdaflow.")]


def upward_imports(package: Path, floors: dict[str, int]) -> list[str]:
    wrong = []
    for path in sorted(package.rglob("*.py")):
        source = part_of(module_name(path, package))
        if source == "":  # the package's __init__: names the API lazily, imports nothing at load
            continue
        for line, target in imports(path):
            target_part = part_of(target)
            if target_part in ("", source, "__version__"):
                continue
            if target_part not in floors or source not in floors:
                wrong.append(f"{path.relative_to(package.parent)}:{line}: {target}: no floor for "
                             f"{target_part if target_part not in floors else source!r}")
            elif floors[target_part] >= floors[source]:
                wrong.append(f"{path.relative_to(package.parent)}:{line}: {source} (floor {floors[source]}) "
                             f"imports {target} (floor {floors[target_part]})")
    return wrong


def test_every_part_of_the_package_has_a_floor():
    parts = {path.stem for path in PACKAGE.glob("*.py")} | {
        path.parent.name for path in PACKAGE.glob("*/__init__.py")
    }
    assert parts - {"__init__"} == set(FLOORS)


def test_imports_go_down_and_studies_stand_side_by_side():
    assert upward_imports(PACKAGE, FLOORS) == []


def test_an_upward_import_is_found(tmp_path):
    """The check itself: a study importing another, and a library module importing the workflow's code."""
    package = tmp_path / "cdaflow"
    for name, text in {
        "__init__.py": "",
        "regender/__init__.py": "",
        "regender/rules.py": "def f():\n    from cdaflow.morph_cda import cda\n",
        "morph_cda/__init__.py": "",
        "text/__init__.py": "from cdaflow.pipeline.device import rule_device\n",
        "pipeline/__init__.py": "from cdaflow.text import parsing\n",
    }.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    floors = {"morph_cda": 3, "regender": 3, "text": 2, "pipeline": 6}
    assert upward_imports(package, floors) == [
        "cdaflow/regender/rules.py:2: regender (floor 3) imports cdaflow.morph_cda (floor 3)",
        "cdaflow/text/__init__.py:1: text (floor 2) imports cdaflow.pipeline.device (floor 6)",
    ]


def test_the_file_counts_in_the_architecture_document_are_true():
    """docs/architecture.md's floors table: every part on its floor, with its module count."""
    rows = {}
    for line in DOCUMENT.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`") and cells[0].isdigit():
            rows[cells[1].strip("`")] = (int(cells[0]), int(cells[2]))
    for part, floor in FLOORS.items():
        path = PACKAGE / part
        count = len(list(path.rglob("*.py"))) if path.is_dir() else 1
        assert rows.get(part) == (floor, count), f"`{part}` should be on floor {floor}, {count} modules"
