"""mypy skips only third-party modules that no module of ours imports.

A module on the ``follow_imports = "skip"`` list is ``Any`` to mypy: an import of one
from ``workbench`` would be checked against nothing, so the list and our imports must
not meet (docs/contributing.md).
"""

from __future__ import annotations

import ast
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def skipped_patterns() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return [
        pattern
        for override in config.get("overrides", [])
        if override.get("follow_imports") == "skip"
        for pattern in override["module"]
    ]


def skips(pattern: str, module: str) -> bool:
    """mypy's reading of a pattern: ``a.b.*`` is ``a.b`` and everything under it."""
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return fnmatch(module, pattern)


def imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_a_pattern_covers_its_package_and_what_is_under_it() -> None:
    assert skips("agents.run_internal.*", "agents.run_internal")
    assert skips("agents.run_internal.*", "agents.run_internal.run_loop")
    assert not skips("agents.run_internal.*", "agents.run")
    assert not skips("dask.*", "dask_ml")
    assert imported_modules("from agents import Agent\nimport dask.array\nfrom . import x\n") == {
        "agents",
        "agents.Agent",
        "dask.array",
    }


def test_no_module_of_ours_imports_what_mypy_skips() -> None:
    patterns = skipped_patterns()
    assert "agents.run_internal.*" in patterns  # the list is read, not empty
    roots = {pattern.split(".")[0] for pattern in patterns}
    sources = {
        path: path.read_text(encoding="utf-8") for path in (ROOT / "workbench").rglob("*.py")
    }
    met = {
        f"{path.relative_to(ROOT)}: {module}"
        for path, source in sorted(sources.items())
        if any(root in source for root in roots)  # the files that can import one
        for module in imported_modules(source)
        if any(skips(pattern, module) for pattern in patterns)
    }
    assert not met, "mypy would read these imports as Any; take them off the skip list"
