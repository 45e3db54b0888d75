"""The package's layers (docs/layout.md): imports point down, never up and never in a circle.

Imports are read from the source (every ``import`` and ``from … import``, inside functions too),
so an import hidden in a function to dodge a cycle still counts.
"""
import ast
from pathlib import Path

import networkx as nx

import gindex_studio

PACKAGE = Path(gindex_studio.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The names this module imports: modules, and ``from X import Y`` as X.Y (Y may be a module)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
    return out


def import_graph() -> nx.DiGraph:
    """Module → module it imports, over gindex_studio's own modules."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    g = nx.DiGraph()
    g.add_nodes_from(files)
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for target in _imported(tree, name, path.name == "__init__.py"):
            if target in files and target != name and not name.startswith(target + "."):
                g.add_edge(name, target)  # a package's own __init__ is not an import of note
    return g


GRAPH = import_graph()


def test_the_graph_sees_function_level_imports():
    # cli/__init__ imports its dispatch module inside main(): the graph must hold that edge
    assert GRAPH.has_edge("gindex_studio.cli", "gindex_studio.cli.dispatch")
    assert len(GRAPH) > 100 and GRAPH.number_of_edges() > 300


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(GRAPH))
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c + [c[0]]) for c in cycles[:20])


def _imports_of(prefix: str) -> set[tuple[str, str]]:
    return {(a, b) for a, b in GRAPH.edges if a == prefix or a.startswith(prefix + ".")}


def test_the_core_imports_neither_ui_nor_cli_nor_qt():
    bad = {(a, b) for a, b in _imports_of("gindex_studio.core") if b.startswith(("gindex_studio.ui", "gindex_studio.cli"))}
    assert not bad
    for path in (PACKAGE / "core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _imported(tree, _module_name(path), path.name == "__init__.py")
        assert not {n for n in names if n.split(".")[0] in ("PySide6", "pyqtgraph", "qtawesome")}, path


def test_the_command_line_opens_windows_only_through_ui_entry_points():
    # the CLI may import ui to open a window, but nothing in ui imports the CLI
    assert not {(a, b) for a, b in _imports_of("gindex_studio.ui") if b.startswith("gindex_studio.cli")}
