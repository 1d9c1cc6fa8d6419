"""Imports flow one way: core <- analysis <- egraph_rules <- lowering <- app <- bench.

The bridge to PyPTO (`slotsat.bridge`) sits on core alone: it is the floor right above core,
and only the commands (app and above) may import it.

Every module of the `slotsat` package is parsed (never imported); each `import` and
`from ... import` statement, at any depth (function-level and `TYPE_CHECKING` imports
included: they are dependencies all the same), is an edge. The test fails on an edge from a
lower floor to a higher one and on any import cycle between modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]

FLOORS: tuple[tuple[str, Path], ...] = (
    ("slotsat.core", ROOT / "slotsat" / "core"),
    ("slotsat.bridge", ROOT / "slotsat" / "bridge"),
    ("slotsat.analysis", ROOT / "analysis"),
    ("slotsat.egraph_rules", ROOT / "egraph_rules"),
    ("slotsat.lowering", ROOT / "lowering"),
    ("slotsat.app", ROOT / "slotsat" / "app"),
    ("slotsat.bench", ROOT / "bench"),
)
"""Each floor's package and its folder in the checkout, lowest first."""


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {"slotsat": ROOT / "slotsat" / "__init__.py",
                             "slotsat.__main__": ROOT / "slotsat" / "__main__.py"}
    for package, folder in FLOORS:
        for path in sorted(folder.rglob("*.py")):
            if "corpus" in path.relative_to(folder).parts:
                continue  # generated kernel files, data rather than code
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            mods[".".join([package, *parts])] = path
    return mods


MODULES = _modules()


def _floor(module: str) -> int | None:
    for i, (package, _) in enumerate(FLOORS):
        if module == package or module.startswith(package + "."):
            return i
    return None


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _known(name: str) -> str | None:
    """The longest module of the package that `name` names (or lies in), or None."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _edges() -> list[tuple[str, str, int]]:
    edges: set[tuple[str, str, int]] = set()
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, path, node)
                # `from pkg import mod` imports the submodule when there is one.
                targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            for target in targets:
                known = _known(target)
                if known is not None and known != module:
                    edges.add((module, known, node.lineno))
    return sorted(edges)


EDGES = _edges()


def test_every_floor_has_modules() -> None:
    empty = [package for i, (package, _) in enumerate(FLOORS) if not any(_floor(m) == i for m in MODULES)]
    assert empty == []


def test_no_module_imports_from_a_higher_floor() -> None:
    upward = []
    for src, dst, line in EDGES:
        fs, fd = _floor(src), _floor(dst)
        if fs is not None and fd is not None and fd > fs:
            upward.append(f"{MODULES[src].relative_to(ROOT)}:{line}: {src} imports {dst}")
    assert upward == [], "upward imports:\n" + "\n".join(upward)


def test_only_the_commands_import_the_bridge() -> None:
    bridge, app = _floor("slotsat.bridge"), _floor("slotsat.app")
    assert bridge is not None
    assert app is not None
    users = [f"{MODULES[src].relative_to(ROOT)}:{line}: {src}" for src, dst, line in EDGES
             if _floor(dst) == bridge and _floor(src) not in (bridge, *range(app, len(FLOORS)))]
    assert users == []


def test_the_root_package_imports_nothing_but_its_version() -> None:
    assert [e for e in EDGES if e[0] == "slotsat"] == []


def test_there_is_no_import_cycle() -> None:
    graph = nx.DiGraph()
    graph.add_edges_from((src, dst) for src, dst, _ in EDGES)
    cycles = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"import cycles: {[sorted(c) for c in cycles]}"


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
    return names


@pytest.mark.parametrize("name", ["analysis", "egraph_rules", "lowering", "bench"])
def test_no_module_imports_a_folder_as_a_top_level_package(name: str) -> None:
    bad = [str(path.relative_to(ROOT)) for path in MODULES.values() if name in _top_level_names(path)]
    assert bad == []
