"""The public surface is what ``__all__`` lists: ``workbench.__all__`` and each public
subpackage's. Every listed name imports, and the API reference (docs/api.md, rendered by
mkdocstrings) documents every name of ``workbench.__all__`` and nothing that is not listed
somewhere."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import workbench

ROOT = Path(__file__).resolve().parents[1]
API_PAGE = ROOT / "docs" / "api.md"
PUBLIC_PACKAGES = sorted(
    f"workbench.{path.parent.name}"
    for path in (ROOT / "workbench").glob("*/__init__.py")
    if not path.parent.name.startswith("_")
)


def _documented() -> list[str]:
    return re.findall(r"^::: ([\w.]+)", API_PAGE.read_text(encoding="utf-8"), re.MULTILINE)


def _resolve(dotted: str) -> tuple[ModuleType, Any]:
    """The deepest module on the dotted path, and the object the whole path names."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        target: Any = module
        for part in parts[cut:]:
            target = getattr(target, part)
        return module, target
    raise ImportError(dotted)


def _listed_objects() -> dict[int, str]:
    listed = {}
    for package in ["workbench", *PUBLIC_PACKAGES]:
        module = importlib.import_module(package)
        for name in module.__all__:
            listed.setdefault(id(getattr(module, name)), f"{package}.{name}")
    return listed


@pytest.mark.parametrize("package", ["workbench", *PUBLIC_PACKAGES])
def test_each_public_package_lists_its_names_and_they_import(package: str) -> None:
    module = importlib.import_module(package)
    assert isinstance(module.__all__, list | tuple), f"{package} has no __all__"
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ lists names it does not have: {missing}"


def test_the_api_reference_documents_only_listed_names() -> None:
    listed = _listed_objects()
    unlisted = []
    for dotted in _documented():
        module, target = _resolve(dotted)
        name = dotted.rsplit(".", 1)[1]
        if target is module or name in getattr(module, "__all__", ()):
            continue  # a whole module, or a name its own module lists
        if id(target) not in listed:
            unlisted.append(dotted)
    assert not unlisted, f"docs/api.md documents names no __all__ lists: {unlisted}"


def test_every_top_level_name_is_in_the_api_reference() -> None:
    documented = {id(_resolve(dotted)[1]) for dotted in _documented()}
    undocumented = [
        name
        for name in workbench.__all__
        if id(getattr(workbench, name)) not in documented
        and getattr(getattr(workbench, name), "__module__", None) != "workbench.errors"
        and name != "__version__"
    ]
    assert not undocumented, f"add these to docs/api.md: {undocumented}"
