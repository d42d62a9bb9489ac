"""The conda environments of the rules, generated from the lock and checked against the code.

The venv of ``make setup`` and the cluster's ``--sdm conda`` environments must run the same versions.
One source of truth: ``requirements/*.txt`` (the lock). Each ``envs/<name>.yaml`` is generated here:

- its packages are the distributions that its rules import, found by walking the imports of each rule's
  script and, transitively, of every ``cdaflow`` module it reaches (imports inside functions included),
  plus what its rules load by name (``envs/packages.yaml``: spaCy pipelines, model packages);
- its pins are those packages and everything they require (their installed metadata, the venv being
  the lock), each at the lock's version;
- packages installed with ``--no-deps`` by ``make setup`` (their metadata pins an older torch or spaCy)
  go to ``envs/<name>.post-deploy.sh``, which Snakemake runs inside the new environment.

``python -m cdaflow.pipeline.environments write`` (``make envs``) rewrites the files; ``check`` exits non-zero
when a committed file differs from what the code and the lock give (a new import without its package,
a changed pin). ``tests/pipeline/test_environments.py`` runs the check.

Which torch build the envs install is a setting, ``envs/torch-cuda.txt``: ``pypi`` (the default: PyPI's
wheel of the locked release, on Linux its CUDA build) or a CUDA version PyTorch builds that release
for (``12.6``: ``torch==<release>+cu126`` from ``https://download.pytorch.org/whl/cu126``).
``write --cuda 12.6`` (``make envs TORCH_CUDA=12.6``) records it there and writes the envs; every
later ``write`` and ``check`` read it.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata as metadata
import re
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "cdaflow"
PYTHON = "3.11"
LOCK_FILES = ("requirements/torch.txt", "requirements/venv.txt")
NO_DEPS_FILE = "requirements/no-deps.txt"
EXTRAS_FILE = "envs/packages.yaml"
CUDA_FILE = "envs/torch-cuda.txt"
PYTORCH_INDEX = "https://download.pytorch.org/whl"
# Imports that are never a distribution of their own: the project, and the names Snakemake's
# script preamble defines.
NOT_DISTRIBUTIONS = {PACKAGE, "snakemake"}


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them (``PyYAML`` = ``pyyaml``, ``es_core`` = ``es-core``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path: Path) -> dict[str, tuple[str, str]]:
    """``{normalized name: (name as written, version)}`` of a requirements file of ``name==version`` lines."""
    pins = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)", line)
        if not match:
            raise ValueError(f"{path}: line {number}: expected 'name==version', got {line!r}")
        pins[normalize(match[1])] = (match[1], match[2])
    return pins


@dataclass(frozen=True)
class Lock:
    """The exact versions of ``make setup``: ``pins`` installed with their dependencies, ``no_deps`` without."""

    pins: dict[str, tuple[str, str]]
    no_deps: dict[str, tuple[str, str]]

    @classmethod
    def read(cls, root: Path = ROOT) -> Lock:
        pins: dict[str, tuple[str, str]] = {}
        for name in LOCK_FILES:
            pins.update(read_pins(root / name))
        return cls(pins, read_pins(root / NO_DEPS_FILE))

    def version(self, dist: str) -> str | None:
        key = normalize(dist)
        entry = self.pins.get(key) or self.no_deps.get(key)
        return entry[1] if entry else None

    def spec(self, dist: str) -> str:
        key = normalize(dist)
        name, version = self.pins.get(key) or self.no_deps[key]
        # torch's local version (+cpu) names the CPU wheel of this machine; the env takes the same
        # release from PyPI, whose Linux wheel is the CUDA build.
        return f"{name}=={version.split('+', 1)[0]}"


# --- torch's CUDA builds -------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaBuild:
    """One CUDA build of a torch release: what a GPU node needs to run it."""

    cuda: str  # the CUDA version it is built with (torch.version.cuda)
    driver: int  # the oldest NVIDIA driver branch it runs on (CUDA minor version compatibility)
    gpus: str  # the GPU generations (compute capabilities) it has kernels for

    @property
    def tag(self) -> str:
        """PyTorch's name of the build: ``cu126``."""
        return "cu" + self.cuda.replace(".", "")


# The Linux x86_64 CUDA builds of each torch release the lock may pin, PyPI's first: PyTorch's RELEASE.md
# (Release Compatibility Matrix: 2.13 builds CUDA 12.6 and 13.0, PyPI's wheel is 13.0; CUDA Support
# Matrix: the architectures) and download.pytorch.org/whl/cu<XY> (torch==<release>+cu<XY>). Drivers:
# NVIDIA's minor version compatibility table (CUDA 12.x >= 525, CUDA 13.x >= 580). After `make lock`
# moves torch to another release, add its builds here.
TORCH_CUDA_BUILDS: dict[str, tuple[CudaBuild, ...]] = {
    "2.13": (
        CudaBuild("13.0", 580, "Turing to Blackwell, compute capability 7.5 to 12.0 (T4, A100, L40S, H100, "
                               "B200); no Pascal or Volta (P100, V100)"),
        CudaBuild("12.6", 525, "Maxwell to Hopper, compute capability 5.0 to 9.0 (P100, V100, T4, A100, L40S, "
                               "H100); no Blackwell"),
    ),
}  # fmt: skip


def read_torch_cuda(root: Path = ROOT) -> str:
    """The torch build of the envs, from ``envs/torch-cuda.txt``: ``pypi`` (also when the file is absent)
    or a CUDA version (``12.6``)."""
    path = root / CUDA_FILE
    if not path.exists():
        return "pypi"
    values = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    values = [value for value in values if value and not value.startswith("#")]
    if len(values) != 1:
        raise ValueError(f"{path}: expected one line, pypi or a CUDA version such as 12.6; got {values or 'none'}")
    return values[0]


def write_torch_cuda(choice: str, root: Path = ROOT) -> Path:
    """Record the torch build of the envs in ``envs/torch-cuda.txt`` (checked first: see :func:`torch_build`)."""
    lock = Lock.read(root)
    torch_build(lock, choice)
    version = lock.version("torch").split("+")[0]
    builds = TORCH_CUDA_BUILDS[".".join(version.split(".")[:2])]
    text = (f"The torch build of the conda envs (README, Clusters and conda); `make envs TORCH_CUDA=<build>` "
            f"records it here and rewrites envs/*.yaml. pypi: PyPI's wheel of torch {version}, on Linux its CUDA "
            f"{builds[0].cuda} build (NVIDIA driver >= {builds[0].driver}).")  # fmt: skip
    for build in builds:
        text += (f" {build.cuda}: PyTorch's CUDA {build.cuda} build from {PYTORCH_INDEX}/{build.tag} (driver "
                 f">= {build.driver}; {build.gpus}).")  # fmt: skip
    lines = textwrap.wrap(text, width=100, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)
    path = root / CUDA_FILE
    path.write_text("\n".join([*lines, choice, ""]), encoding="utf-8")
    return path


def torch_build(lock: Lock, choice: str) -> tuple[CudaBuild, str | None]:
    """The CUDA build that ``choice`` (``pypi`` or a CUDA version) gives the locked torch release, and
    the package index it comes from (None: PyPI)."""
    version = lock.version("torch")
    if version is None:
        raise LookupError(f"torch is not pinned in {', '.join(LOCK_FILES)}")
    release = ".".join(version.split("+")[0].split(".")[:2])
    builds = TORCH_CUDA_BUILDS.get(release)
    if not builds:
        raise LookupError(f"torch {version}: its CUDA builds are not in TORCH_CUDA_BUILDS "
                          "(cdaflow/pipeline/environments.py); add them from PyTorch's RELEASE.md")  # fmt: skip
    if choice == "pypi":
        return builds[0], None
    for build in builds:
        if build.cuda == choice:
            return build, f"{PYTORCH_INDEX}/{build.tag}"
    known = ", ".join(["pypi"] + [build.cuda for build in builds])
    raise ValueError(f"{CUDA_FILE}: torch {release} has no CUDA {choice!r} build; choose one of {known}")


# --- imports of the code -------------------------------------------------------------------------


def module_file(module: str, src: Path) -> Path | None:
    """The source file of a ``cdaflow`` module (or package ``__init__``), None if there is none."""
    base = src.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imported_modules(path: Path, module: str | None = None) -> set[str]:
    """Every module a file imports, at any depth (functions included, ``if TYPE_CHECKING:`` blocks not).

    ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a submodule). Relative imports are
    resolved against ``module``, the file's own dotted name.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = (module or "").split(".")
    if module and path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    skipped = {id(n) for block in ast.walk(tree) if _type_checking_block(block) for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names if alias.name != "*")
    return {name for name in found if name}


def import_closure(script: Path, src: Path) -> tuple[set[str], set[str]]:
    """The ``cdaflow`` modules a script reaches, and the top-level third-party names they all import."""
    reached: set[str] = set()
    external: set[str] = set()
    pending = [(script, None)]
    while pending:
        path, module = pending.pop()
        for name in imported_modules(path, module):
            top = name.split(".")[0]
            if top != PACKAGE:
                if top not in sys.stdlib_module_names and top != "__future__":
                    external.add(top)
                continue
            parts = name.split(".")
            for depth in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__ and a/b/__init__
                parent = ".".join(parts[:depth])
                if parent in reached:
                    continue
                parent_file = module_file(parent, src)
                if parent_file is not None:
                    reached.add(parent)
                    pending.append((parent_file, parent))
    return reached, external


def import_distributions(names: Iterable[str]) -> dict[str, str]:
    """``{import name: distribution}`` for third-party top-level names, from the installed metadata."""
    owners = metadata.packages_distributions()
    found, unknown = {}, []
    for name in sorted(set(names) - NOT_DISTRIBUTIONS):
        dists = owners.get(name)
        if not dists:
            unknown.append(name)
            continue
        found[name] = normalize(sorted(dists)[0])
    if unknown:
        raise LookupError(f"no installed distribution provides the imported module(s) {', '.join(unknown)}")
    return found


def requirement_closure(dists: Iterable[str], lock: Lock) -> set[str]:
    """The distributions and, recursively, what their installed metadata requires (extras and markers
    that do not apply here left out). A ``--no-deps`` package's requirements are followed only where
    the lock has them: the rest are what its metadata asks for but it runs without (see no-deps.txt)."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    environment = {**default_environment(), "extra": ""}
    closure: set[str] = set()
    pending = [normalize(d) for d in dists]
    while pending:
        dist = pending.pop()
        if dist in closure:
            continue
        closure.add(dist)
        for line in metadata.requires(dist) or []:
            requirement = Requirement(line)
            if requirement.marker is not None and not requirement.marker.evaluate(environment):
                continue
            name = normalize(requirement.name)
            if dist in lock.no_deps and lock.version(name) is None:
                continue
            pending.append(name)
    return closure


# --- rules and their environments ----------------------------------------------------------------


@dataclass
class RuleScript:
    rule: str
    env: str  # the env file's stem: envs/<env>.yaml
    script: Path


def snakemake_rules(root: Path = ROOT) -> list[Any]:
    """The workflow's rules as Snakemake itself parses them (the demo config; rules are the same for all)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=ConfigSettings(),
            storage_settings=StorageSettings(),
            snakefile=root / "Snakefile",
            workdir=root,
        )._workflow
        return list(workflow.rules)


def workflow_rules(root: Path = ROOT) -> list[RuleScript]:
    """Every rule with a ``script:`` and its ``conda:`` env."""
    rules = []
    for rule in snakemake_rules(root):
        if rule.script is None:
            continue
        rule_dir = Path(rule.snakefile).parent
        if rule.conda_env is None:
            raise ValueError(f"rule {rule.name} runs {rule.script} but names no conda env")
        env = (rule_dir / str(rule.conda_env)).resolve()
        rules.append(RuleScript(rule.name, env.stem, (rule_dir / str(rule.script)).resolve()))
    return rules


@dataclass
class Environment:
    name: str
    rules: list[str] = field(default_factory=list)
    imported: dict[str, set[str]] = field(default_factory=dict)  # distribution -> import names
    by_name: list[str] = field(default_factory=list)  # loaded by name (envs/packages.yaml)


def environments(root: Path = ROOT, rules: list[RuleScript] | None = None) -> dict[str, Environment]:
    """Each env's rules, the distributions they import (with the import names) and those loaded by name."""
    rules = workflow_rules(root) if rules is None else rules
    extras = yaml.safe_load((root / EXTRAS_FILE).read_text(encoding="utf-8")) or {}
    envs: dict[str, Environment] = {}
    for rule in rules:
        env = envs.setdefault(rule.env, Environment(rule.env))
        env.rules.append(rule.rule)
        _, external = import_closure(rule.script, root / "src")
        for name, dist in import_distributions(external).items():
            env.imported.setdefault(dist, set()).add(name)
    for name, packages in extras.items():
        if name not in envs:
            raise ValueError(f"{root / EXTRAS_FILE}: env {name!r} is used by no rule")
        envs[name].by_name = [normalize(p) for p in packages or []]
    return envs


def render(env: Environment, lock: Lock, torch_cuda: str = "pypi") -> tuple[str, str | None]:
    """The text of ``envs/<name>.yaml`` and of its post-deploy script (None when nothing needs --no-deps).

    ``torch_cuda`` (see :func:`read_torch_cuda`) picks the torch build of an env that installs torch."""
    wanted = set(env.imported) | set(env.by_name)
    missing = sorted(d for d in wanted if lock.version(d) is None)
    if missing:
        raise LookupError(f"env {env.name}: {', '.join(missing)} not pinned in {', '.join(LOCK_FILES)}")
    closure = requirement_closure(wanted, lock)
    unpinned = sorted(d for d in closure if lock.version(d) is None)
    if unpinned:
        raise LookupError(f"env {env.name}: requirements {', '.join(unpinned)} are not in the lock")
    with_deps = sorted((d for d in closure if d not in lock.no_deps), key=lambda d: lock.spec(d).lower())
    no_deps = sorted(d for d in closure if d in lock.no_deps)
    def comment(text: str) -> list[str]:
        return textwrap.wrap(text, width=100, initial_indent="# ", subsequent_indent="#   ", break_on_hyphens=False)

    lines = ["# Generated by `make envs` (python -m cdaflow.pipeline.environments write): do not edit by hand."]
    lines += comment(f"Rules: {', '.join(sorted(env.rules))}.")
    lines += comment(f"They import: {', '.join(sorted(env.imported)) or 'no third-party package'}.")
    if env.by_name:
        lines += comment(f"Loaded by name (envs/packages.yaml): {', '.join(sorted(env.by_name))}.")
    lines += ["# Pins: those and everything they require, at the versions of requirements/*.txt (the venv of",
              "# `make setup`)."]  # fmt: skip
    specs = {d: lock.spec(d) for d in with_deps}
    index = None
    if "torch" in specs:
        build, index = torch_build(lock, torch_cuda)
        needs = f"CUDA {build.cuda}: NVIDIA driver >= {build.driver}; {build.gpus}"
        if index:
            # A local version (+cu126) exists only on PyTorch's index: pip cannot take PyPI's wheel instead.
            specs["torch"] = f"{specs['torch']}+{build.tag}"
            lines += comment(f"torch: PyTorch's CUDA {build.cuda} build from {index} ({CUDA_FILE}). {needs}.")
        else:
            lines += comment(f"torch: PyPI's wheel, on Linux its CUDA {build.cuda} build. {needs}. Another build: "
                             f"{CUDA_FILE} (README, Clusters and conda).")  # fmt: skip
    if no_deps:
        lines += comment(
            f"{env.name}.post-deploy.sh installs {', '.join(lock.spec(d) for d in no_deps)} with --no-deps "
            "(their metadata pins an older torch or spaCy), as `make setup` does."
        )
    lines += ["channels: [conda-forge, nodefaults]", "dependencies:", f"  - python={PYTHON}", "  - pip", "  - pip:"]
    if index:  # conda hands the pip list to `pip install -r`, where options lines are allowed
        lines.append(f"      - --extra-index-url {index}")
    lines += [f"      - {specs[d]}" for d in with_deps]
    deploy = None
    if no_deps:
        deploy = "\n".join(
            [
                "#!/usr/bin/env bash",
                "# Generated by `make envs`: Snakemake runs this inside the new env. These go in without their",
                "# dependencies, as `make setup` installs them: their metadata pins an older torch or spaCy.",
                "set -euo pipefail",
                "python -m pip install --no-deps " + " ".join(lock.spec(d) for d in no_deps),
                "",
            ]
        )
    return "\n".join(lines) + "\n", deploy


def site_of(dists: Iterable[str], folder: Path) -> Path:
    """A site-packages folder holding only the given installed distributions (symbolic links to their
    top-level files): what an env with those packages sees, without downloading anything."""
    folder.mkdir(parents=True, exist_ok=True)
    for dist in dists:
        for entry in {f.parts[0] for f in metadata.distribution(dist).files or []}:
            if entry in ("..", "__pycache__") or (folder / entry).exists():
                continue
            source = Path(metadata.distribution(dist).locate_file(entry))
            if source.exists():
                (folder / entry).symlink_to(source)
    return folder


def env_modules(env: Environment, rules: list[RuleScript], root: Path = ROOT) -> list[str]:
    """Every module the env's rules import: the ``cdaflow`` modules they reach and the third-party
    modules those import, inside functions too (dotted names as written)."""
    modules: set[str] = set()
    for rule in rules:
        if rule.env != env.name:
            continue
        reached, _ = import_closure(rule.script, root / "src")
        modules |= reached
        for module in reached:
            names = imported_modules(module_file(module, root / "src"), module)
            # snakemake comes with the script preamble (the driver's sys.path), as in a real run
            modules |= {n for n in names if n.split(".")[0] not in sys.stdlib_module_names | NOT_DISTRIBUTIONS}
    return sorted(modules)


ISOLATED_IMPORTS = """
import importlib, json, sys
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name and "." in name:  # `from a import b`: b may be a name in a, not a module
            try:
                importlib.import_module(name.rsplit(".", 1)[0])
                continue
            except ImportError:
                pass
        failed[name] = f"{type(error).__name__}: {error}"
    except ImportError as error:
        failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps(failed))
"""


def isolated_import_failures(env: Environment, rules: list[RuleScript], lock: Lock, folder: Path,
                             root: Path = ROOT) -> dict[str, str]:
    """Import every module of the env's rules in a Python that sees only the stdlib, the project's src/
    and the env's pinned distributions; ``{module: error}`` of those that need a package the env lacks.

    A module that is itself absent (``from a import b`` where b is a name) is no failure; one whose own
    imports find a package missing is."""
    import json
    import subprocess

    closure = requirement_closure(set(env.imported) | set(env.by_name), lock)
    site = site_of(sorted(closure), folder)
    code = f"import sys; sys.path[1:1] = [{str(root / 'src')!r}, {str(site)!r}]\n" + ISOLATED_IMPORTS
    result = subprocess.run(
        [sys.executable, "-S", "-c", code, json.dumps(env_modules(env, rules, root))],
        capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(folder)}, check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"env {env.name}: the isolated import check failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def expected_files(
    root: Path = ROOT, envs: dict[str, Environment] | None = None, torch_cuda: str | None = None
) -> dict[Path, str]:
    """Every generated file under envs/ and its text, with torch's build ``torch_cuda`` (by default the
    one recorded in ``envs/torch-cuda.txt``)."""
    envs = environments(root) if envs is None else envs
    lock = Lock.read(root)
    torch_cuda = read_torch_cuda(root) if torch_cuda is None else torch_cuda
    files = {}
    for name, env in sorted(envs.items()):
        text, deploy = render(env, lock, torch_cuda)
        files[root / "envs" / f"{name}.yaml"] = text
        if deploy:
            files[root / "envs" / f"{name}.post-deploy.sh"] = deploy
    return files


def write_files(root: Path = ROOT, envs: dict[str, Environment] | None = None, cuda: str | None = None) -> list[Path]:
    """Write every generated file (``make envs``); with ``cuda``, first record that torch build in
    ``envs/torch-cuda.txt``. Nothing is written when a file cannot be generated."""
    expected = expected_files(root, envs, cuda)
    written = []
    if cuda is not None:
        written.append(write_torch_cuda(cuda, root))
    for path, text in expected.items():
        path.write_text(text, encoding="utf-8")
        if path.suffix == ".sh":
            path.chmod(0o755)
        written.append(path)
    return written


def stale_files(root: Path = ROOT, envs: dict[str, Environment] | None = None) -> list[str]:
    """The generated files that are missing, differ, or are left over; empty when all are current."""
    expected = expected_files(root, envs)
    problems = []
    for path, text in expected.items():
        if not path.exists():
            problems.append(f"{path.relative_to(root)}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{path.relative_to(root)}: differs from what the code and the lock give")
    for path in sorted((root / "envs").glob("*.post-deploy.sh")) + sorted((root / "envs").glob("*.yaml")):
        if path not in expected and path.name != Path(EXTRAS_FILE).name:
            problems.append(f"{path.relative_to(root)}: used by no rule")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cdaflow.pipeline.environments", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("action", choices=["write", "check", "show"])
    parser.add_argument("--cuda", metavar="BUILD", help=f"write: the torch build, recorded in {CUDA_FILE} "
                        "(pypi, or a CUDA version: 12.6); without it, the recorded one")  # fmt: skip
    args = parser.parse_args(argv)
    if args.cuda and args.action != "write":
        parser.error("--cuda goes with write")
    if args.action == "show":
        for name, env in sorted(environments().items()):
            print(f"{name}: rules {', '.join(sorted(env.rules))}")
            for dist, names in sorted(env.imported.items()):
                print(f"    {dist} (import {', '.join(sorted(names))})")
        return 0
    try:
        return _write_or_check(args)
    except (LookupError, ValueError) as error:  # a bad torch-cuda.txt, a package missing from the lock
        print(f"python -m cdaflow.pipeline.environments {args.action}: {error}", file=sys.stderr)
        return 2


def _write_or_check(args: argparse.Namespace) -> int:
    if args.action == "check":
        problems = stale_files()
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run `make envs` and commit the result", file=sys.stderr)
        return 1 if problems else 0
    for path in write_files(ROOT, cuda=args.cuda):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
