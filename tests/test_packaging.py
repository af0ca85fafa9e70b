"""The package's front door and its two dependency lists."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import yaml

import workbench

ROOT = Path(__file__).resolve().parents[1]


def _pyproject_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = set(project["dependencies"])
    for extra, requirements in project["optional-dependencies"].items():
        if extra != "all":
            found.update(requirements)
    return {_normalise(r) for r in found}


def _conda_requirements() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_block = next(item["pip"] for item in env["dependencies"] if isinstance(item, dict))
    return {_normalise(r) for r in pip_block if not r.startswith("-e")}


def _normalise(requirement: str) -> str:
    return re.sub(r"\s+", "", requirement).lower()


def test_environment_yml_matches_pyproject() -> None:
    pyproject, conda = _pyproject_requirements(), _conda_requirements()
    assert pyproject - conda == set(), "in pyproject.toml but not environment.yml"
    assert conda - pyproject == set(), "in environment.yml but not pyproject.toml"


def test_all_extra_names_every_other_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"]) - {"all", "dev"}
    (line,) = project["optional-dependencies"]["all"]
    assert set(line.split("[")[1].rstrip("]").split(",")) == extras


def test_every_public_name_imports() -> None:
    for name in workbench.__all__:
        assert getattr(workbench, name) is not None, name


def test_public_subpackages_export_what_they_list() -> None:
    for module in (
        "workbench.engine",
        "workbench.evaluation",
        "workbench.baselines",
        "workbench.schema",
        "workbench.errors",
        "workbench.memory",
    ):
        loaded = importlib.import_module(module)
        for name in loaded.__all__:
            assert hasattr(loaded, name), f"{module}.{name}"


def test_validation_error_is_the_old_name_of_run_error_for_one_release() -> None:
    import pytest

    from workbench import errors
    from workbench.integrations import common

    for module in (workbench, errors, common):
        with pytest.warns(DeprecationWarning, match=r"ValidationError is now RunError"):
            assert module.ValidationError is errors.RunError
        assert "ValidationError" not in module.__all__
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        errors.Nope  # noqa: B018


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert workbench.__version__ == version("workbench")
