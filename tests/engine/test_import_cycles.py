"""Issue 27 point 7: no import cycle in the ``niugui`` package.

Every module is read with ``ast`` and every import is collected: module-level, inside functions
(lazy), under ``if TYPE_CHECKING``, absolute and relative. ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, otherwise to ``pkg``. Importing ``a.b.c`` also runs the
``__init__`` of ``a.b`` and ``a``: those are edges too, except for the packages the importer itself
sits in (they are already running). Any cycle in the resulting graph fails the test, named module
by module.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "niugui"


def module_names(package: Path) -> dict[str, Path]:
    """Dotted name → file for every ``.py`` under ``package`` (``pkg/__init__.py`` is ``pkg``)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` (at ``path``) imports anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    found.add(f"{source}.{alias.name}")
                elif source in modules:
                    found.add(source)
    inside = {name.rsplit(".", n)[0] for n in range(name.count(".") + 1)}
    for module in list(found):
        parts = module.split(".")
        found.update(p for p in (".".join(parts[:n]) for n in range(1, len(parts))) if p not in inside)
    found.discard(name)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    modules = module_names(package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path ``[a, b, …, a]``, or None when the graph has none.

    >>> find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    ['a', 'b', 'c', 'a']
    >>> find_cycle({"a": {"b"}, "b": set()}) is None
    True
    """
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        path.append(name)
        for following in sorted(graph[name]):
            cycle = visit(following)
            if cycle:
                return cycle
        done.add(path.pop())
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def test_the_walk_sees_lazy_relative_and_type_checking_imports(tmp_path: Path) -> None:
    """The walker itself: a cycle made only of a function-level relative import and a
    TYPE_CHECKING import is found, so the test below cannot pass by missing imports."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from .sub import b\n    return b\n")
    (package / "c.py").write_text("from pkg.sub.b import x\n")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\n"
    )
    graph = import_graph(package)
    assert graph["pkg.a"] == {"pkg.sub.b", "pkg.sub"}
    assert graph["pkg.sub.b"] == {"pkg.a"}
    assert graph["pkg.c"] == {"pkg.sub.b", "pkg.sub"}  # importing pkg.sub.b runs pkg/sub/__init__
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.a"]


def test_niugui_has_no_import_cycle() -> None:
    """Issue 27 point 7: the package's modules form a DAG, lazy imports included."""
    graph = import_graph(PACKAGE)
    assert "niugui.game" in graph and "niugui.server.tables.state" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])
