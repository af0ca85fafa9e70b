"""The package's layers, read from the import statements of every module (lazy ones too).

Lowest first; a module may import its own layer and the layers below, never above:

    0  errors, _version, _checks, _names, _jsonio
    1  schema, redaction, bridge, engine, _stamps
    2  agents, transcript, baselines
    3  integrations, _trust                the adapters: unaware of committee and front ends
    4  memory                              lessons an arm keeps and recalls between decisions
    5  committee                           arms that ask several questions per decision
    6  evaluation
    7  recordings
    8  report
    9  services, testing                   the service core; the shipped test doubles
   10  cli, widgets, notebooks, mcp        the front ends (and ``python -m workbench``)

Imports under ``if TYPE_CHECKING:`` are not counted: they never run (the errors
name the ``Results`` an error keeps that way). Three more rules: nothing inside the
package imports the top package ``workbench``
(import from the module that defines the name), no module imports itself around a
circle of other modules, however long, lazy imports included (move the helper both
need to the lower module, or to a module of its own), and a front end imports, besides the
services and the other front ends, only the words every layer speaks (errors, schema,
agents, redaction, bridge) and the report; anything else only where ``NO_SERVICE``
says no service exists for what it does. The checker runs on a source tree, so each
rule is also shown failing on a deliberately bad module written into a copy of the tree.
"""

from __future__ import annotations

import ast
import functools
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_version", "_checks", "_names", "_jsonio"),
    ("schema", "redaction", "bridge", "engine", "_stamps"),
    ("agents", "transcript", "baselines"),
    ("integrations", "_trust"),
    ("memory",),
    ("committee",),
    ("evaluation",),
    ("recordings",),
    ("report",),
    ("services", "testing"),
    ("cli", "widgets", "notebooks", "mcp", "__main__"),
)
FRONT_ENDS = frozenset(LAYERS[-1])
# What a front end may import without the service core: the words every layer speaks
# (errors, the decision schema, the Agent protocol, redaction, the bridge), and the
# presentation (report), besides the services themselves.
FRONT_END_MAY_USE = frozenset({"errors", "_version", "_checks", "schema", "agents", "redaction"})
FRONT_END_MAY_USE |= {"bridge"}
FRONT_END_MAY_USE |= {"report", "services"}
# (front-end module, module it imports) -> why no service stands between them.
NO_SERVICE: dict[tuple[str, str], str] = {
    ("cli.audit", "evaluation.contamination"): "the contamination audit has no service",
    ("cli.audit", "evaluation.textleaks"): "the text leak report is part of the audit",
    ("cli.recordings", "recordings"): (
        "recording spends model money and replaying into a folder rewrites files: the "
        "service core (and so the MCP server) keeps recordings read-only"
    ),
    ("cli._arms", "integrations.callable"): (
        "a plain function given to `workbench record` is recorded as the callable arm it is; "
        "recording is outside the service core (see cli.recordings)"
    ),
    ("cli.recordings", "recordings.migrate"): (
        "accepting new result columns rewrites a recording's expected results, which the "
        "service core never does"
    ),
    ("widgets._session", "evaluation"): "the panel runs aevaluate on the kernel's loop; "
    "the evaluation service is synchronous",
    ("widgets.panel", "evaluation"): "the panel builds the World it shows before running it",
    ("widgets.panel", "recordings"): "the panel replays a recording into its own folder",
    ("notebooks.parameters", "evaluation"): "the notebooks evaluate the agents they are "
    "given in process, per seed; the services take arm names",
    ("notebooks.parameters", "evaluation.compare"): "as above, for the comparison notebook",
}
# Import circles not yet broken (sorted modules -> the move that breaks it): none is
# left, so any circle fails the test.
CYCLES_TO_BREAK: dict[tuple[str, ...], str] = {}
UNITS = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}


@dataclass(frozen=True)
class Import:
    source: str  # dotted, without the "workbench." prefix ("" for the top package)
    target: str  # likewise; "" is the top package itself
    where: str


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(root: Path) -> list[Import]:
    found = []
    for path in sorted(root.rglob("*.py")):
        source = _module_name(path, root)
        where = f"workbench/{path.relative_to(root)}"
        package = _package_of(path, root)
        for line, names in _imported_names(path.read_text(encoding="utf-8"), package):
            for target in _targets(names, root):
                found.append(Import(source, target, f"{where}:{line}"))
    return found


def _package_of(path: Path, root: Path) -> str:
    """The dotted package a module's relative imports start from."""
    module = ".".join(filter(None, ("workbench", _module_name(path, root))))
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


@functools.cache
def _imported_names(text: str, package: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(line, dotted names) of every import in a module's text, nested ones included;
    ``from workbench.p import a`` gives ``workbench.p:a`` (a submodule or a name in p),
    and a relative import is read from ``package`` (``from . import a`` in workbench.p
    gives ``workbench.p:a`` too)."""
    found = []
    tree = ast.parse(text)
    type_only = {id(n) for block in _type_checking_blocks(tree) for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.append((node.lineno, tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, package)
            found.append((node.lineno, tuple(f"{module}:{a.name}" for a in node.names)))
    return tuple(found)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` names, its dots resolved against ``package``."""
    if node.level == 0:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _type_checking_blocks(tree: ast.AST) -> list[ast.stmt]:
    """The bodies of ``if TYPE_CHECKING:``: read by the type checker, never run."""
    return [
        stmt
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for stmt in node.body
    ]


def _targets(names: tuple[str, ...], root: Path) -> list[str]:
    """The modules named: ``workbench.p:x`` is the submodule p.x if there is one, else p."""
    targets = []
    for name in names:
        module, _, member = name.partition(":")
        if module.split(".")[0] != "workbench":
            continue
        module = module.partition(".")[2]
        submodule = f"{module}.{member}".strip(".") if member else ""
        targets.append(submodule if submodule and _is_module(root, submodule) else module)
    return sorted(set(targets))


def _is_module(root: Path, name: str) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _unit(module: str) -> str:
    return module.split(".")[0]


def violations(root: Path) -> list[str]:
    """Every import under ``root`` (a ``workbench`` source tree) that breaks a rule."""
    broken = []
    for link in _imports(root):
        if link.source == "":  # the top package is the front door: it imports everything
            continue
        problem = _problem(link)
        if problem:
            broken.append(f"{link.where}: {link.source} -> {link.target or 'workbench'}: {problem}")
    return broken


def cycles(root: Path) -> list[list[str]]:
    """Each set of modules under ``root`` that import one another around a circle."""
    graph: dict[str, set[str]] = {}
    for link in _imports(root):
        if link.source != link.target:
            graph.setdefault(link.source, set()).add(link.target)
    reach = {module: _reachable(graph, module) for module in graph}
    circles = {
        frozenset(other for other in reach[module] if module in reach.get(other, ()))
        for module in graph
        if module in reach[module]
    }
    return sorted(sorted(circle) for circle in circles)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in graph.get(todo.pop(), ()):
            if module not in seen:
                seen.add(module)
                todo.append(module)
    return seen


def _problem(link: Import) -> str | None:
    if link.target == "":
        return "imports the top package; import the name from the module that defines it"
    source, target = _unit(link.source), _unit(link.target)
    if source == target:
        return None
    if source not in UNITS or target not in UNITS:
        return f"{source if source not in UNITS else target} is in no layer; add it to LAYERS"
    if UNITS[target] > UNITS[source]:
        return f"layer {UNITS[source]} ({source}) imports layer {UNITS[target]} ({target}) above it"
    if source in FRONT_ENDS and _past_the_services(link, target):
        return (
            "a front end goes past the service core: call the service, or say in "
            "NO_SERVICE why none exists"
        )
    return None


def _past_the_services(link: Import, target: str) -> bool:
    allowed = target in FRONT_ENDS or target in FRONT_END_MAY_USE
    return not allowed and (link.source, link.target) not in NO_SERVICE


@pytest.mark.slow
def test_the_package_keeps_its_layers() -> None:
    assert violations(PACKAGE) == []


def test_no_module_imports_itself_around_a_circle() -> None:
    assert [circle for circle in cycles(PACKAGE) if tuple(circle) not in CYCLES_TO_BREAK] == []


def test_every_cycle_left_to_break_is_still_there() -> None:
    found = {tuple(circle) for circle in cycles(PACKAGE)}
    assert set(CYCLES_TO_BREAK) <= found, "drop the CYCLES_TO_BREAK entries that are gone"


def test_every_module_is_in_a_layer() -> None:
    units = {_unit(_module_name(path, PACKAGE)) for path in PACKAGE.rglob("*.py")}
    assert units - {""} <= set(UNITS)


def test_every_exception_is_still_needed() -> None:
    used = {(link.source, link.target) for link in _imports(PACKAGE)}
    assert set(NO_SERVICE) <= used, "drop the NO_SERVICE entries no front end needs any more"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("tree") / "workbench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.yaml", "*.json"))
    return copy


BAD_IMPORTS = [
    ("engine/market.py", "from workbench.evaluation import evaluate", "layer 1 (engine) imports"),
    ("schema.py", "from workbench.evaluation.results import Results", "layer 1 (schema) imports"),
    ("engine/lazy.py", "def f():\n    from workbench.evaluation import evaluate", "above it"),
    ("transcript.py", "from workbench.integrations._replay import preset_of", "(transcript)"),
    ("integrations/bad.py", "from workbench.committee import Committee", "(committee) above"),
    ("memory/bad.py", "from workbench.committee.models import Reply", "(committee) above"),
    ("integrations/ui.py", "import workbench.widgets", "(widgets) above it"),
    ("services/bad.py", "from workbench.cli import main", "(cli) above it"),
    ("mcp/bad.py", "from workbench.engine.presets import preset", "past the service core"),
    ("widgets/bad.py", "from workbench.integrations import callable_agent", "past the service"),
    ("recordings/bad.py", "from workbench import __version__", "top package"),
    ("newpart.py", "from workbench.errors import ConfigError", "newpart is in no layer"),
    (
        "schema.py",
        "import typing\nif typing.TYPE_CHECKING:\n    pass\nfrom workbench.cli import main",
        "(cli)",
    ),
]


@pytest.mark.parametrize(("module", "line", "message"), BAD_IMPORTS)
@pytest.mark.slow
def test_a_bad_import_is_caught(tree: Path, module: str, line: str, message: str) -> None:
    path = tree / module
    original = path.read_text(encoding="utf-8") if path.exists() else None
    path.write_text((original or "") + "\n" + line + "\n", encoding="utf-8")
    try:
        found = violations(tree)
    finally:
        if original is None:
            path.unlink()
        else:
            path.write_text(original, encoding="utf-8")
    assert len(found) == 1 and message in found[0], found


LAZY = "def f() -> None:\n    import workbench.{}\n"
PLANTED_CYCLES = [
    # two modules importing each other, one of them lazily inside a function
    ({"engine/_a.py": "import workbench.engine._b", "engine/_b.py": LAZY.format("engine._a")}, 2),
    # three modules around a circle, each through a "from package import module" line
    (
        {
            "report/_a.py": "from workbench.report import _b",
            "report/_b.py": "from workbench.report._c import x",
            "report/_c.py": "x = 1\nfrom workbench.report import _a",
        },
        3,
    ),
    # relative imports inside one package: "from . import b" and "from ._a import x"
    ({"engine/_a.py": "x = 1\nfrom . import _b", "engine/_b.py": "from ._a import x"}, 2),
    # relative imports across packages: "from ..engine import b" and its reverse
    (
        {
            "report/_a.py": "from ..engine import _b",
            "engine/_b.py": "def f() -> None:\n    from ..report import _a",
        },
        2,
    ),
]


@pytest.mark.parametrize(("modules", "size"), PLANTED_CYCLES)
def test_a_planted_cycle_is_caught(tree: Path, modules: dict[str, str], size: int) -> None:
    before = cycles(tree)
    for module, text in modules.items():
        (tree / module).write_text(text + "\n", encoding="utf-8")
    try:
        found = [circle for circle in cycles(tree) if circle not in before]
    finally:
        for module in modules:
            (tree / module).unlink()
    assert [len(circle) for circle in found] == [size], found
