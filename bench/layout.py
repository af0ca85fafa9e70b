"""The package's layout in figures: modules, the private share, import cycles, and the
longest module and function. Run from the repository root:

    python bench/layout.py [TREE]

``TREE`` is a repository checkout (default: this one), so two trees can be compared.
A module is private when its name, or a package above it, starts with ``_``
(``__init__`` and ``__main__`` do not count). Cycles are counted with the layer test's
own reader (``tests/test_layers.py``: every import, lazy ones too).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def modules(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def is_private(path: Path, package: Path) -> bool:
    parts = path.relative_to(package).with_suffix("").parts
    return any(part.startswith("_") and part not in ("__init__", "__main__") for part in parts)


def longest_function(paths: list[Path], package: Path) -> tuple[int, str]:
    found = (0, "")
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                where = f"{path.relative_to(package.parent)}:{node.name}"
                found = max(found, (size, where))
    return found


def main(tree: Path) -> None:
    package = tree / "workbench"
    paths = modules(package)
    private = sum(is_private(p, package) for p in paths)
    lines = max((len(p.read_text(encoding="utf-8").splitlines()), p) for p in paths)
    sys.path.insert(0, str(HERE / "tests"))
    from test_layers import cycles

    size, function = longest_function(paths, package)
    print(f"modules          {len(paths)}")
    print(f"private          {private} ({100 * private / len(paths):.1f} %)")
    print(f"import cycles    {len(cycles(package))}")
    print(f"longest module   {lines[1].relative_to(package.parent)}, {lines[0]} lines")
    print(f"longest function {function}, {size} lines")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE)
