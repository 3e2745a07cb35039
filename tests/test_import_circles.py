"""No import circles among interp's modules and the built-in plugins' modules.

The graph is read from the sources with ``ast``: an edge for every ``import`` a module makes,
at its top or inside a function (a deferred import closes a circle just as well, only later),
except those under ``if TYPE_CHECKING:`` (never run).  ``from interp import x`` (an attribute of
the package) is an edge to the package's ``__init__``, which imports most modules.  The graph must have no strongly connected component of more than one
module; a circle is named with the imports that close it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
#: (folder on sys.path, package folder) of the core and of each built-in plugin
PACKAGES = [(ROOT / "framework", ROOT / "framework" / "interp")] + [
    (ROOT / "plugins", folder) for folder in sorted((ROOT / "plugins").iterdir()) if (folder / "__init__.py").exists()]


def module_files() -> dict[str, Path]:
    found = {}
    for path_root, package in PACKAGES:
        for file in package.rglob("*.py"):
            parts = list(file.relative_to(path_root).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    return skipped


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, files: dict) -> list[str]:
    """The modules an import statement loads: each module named, or for ``from M import x``
    the module ``M.x`` when x is one, else ``M`` itself (x is an attribute of M, of its
    ``__init__`` when M is a package)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {module of ours it imports: the line of the first such import}."""
    files = module_files()
    graph: dict[str, dict[str, int]] = {}
    for module, file in files.items():
        tree = ast.parse(file.read_text(encoding="utf-8"))
        skipped = _type_checking_only(tree)
        edges: dict[str, int] = {}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in skipped:
                continue
            for target in _targets(module, file.name == "__init__.py", node, files):
                while target and target not in files:  # a.b.c of which only a.b is ours
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _described(component: frozenset[str], graph: dict[str, dict[str, int]]) -> str:
    return "; ".join(f"{a} imports {b} (line {graph[a][b]})" for a in sorted(component)
                     for b in sorted(graph[a]) if b in component)


def test_there_is_no_import_circle():
    graph = import_graph()
    found = circles(graph)
    assert not found, "import circles: " + " | ".join(_described(c, graph) for c in found)


@pytest.mark.parametrize("sources, circle", [
    ({"a": "from . import b", "b": "def f():\n    from .a import x"}, {"pkg.a", "pkg.b"}),
    ({"a": "import pkg.b", "b": "import pkg.c", "c": "from .a import x"}, {"pkg.a", "pkg.b", "pkg.c"}),
    ({"a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B", "b": "from .a import x"}, None),
    ({"a": "from .b import y", "b": "import numpy"}, None),
])
def test_the_check_finds_a_circle_through_deferred_imports_only_where_there_is_one(tmp_path, monkeypatch, sources,
                                                                                     circle):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, code in sources.items():
        (package / f"{name}.py").write_text(code + "\n")
    monkeypatch.setitem(globals(), "PACKAGES", [(tmp_path, package)])
    found = circles(import_graph())
    assert found == ([frozenset(circle)] if circle else [])
