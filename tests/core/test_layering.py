"""The package's import structure (issues 22 and 33): no import cycle among gindex_studio modules,
imports inside functions included; packages import only packages of lower layers (``LAYERS``, the
order docs/architecture.md draws); one package (``core.native``) imports the C extensions; the
generic modules never compare a profile's name. Read from the source (AST), nothing is imported."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "gindex_studio"

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=None)
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path, known) -> set[str]:
    """The gindex_studio modules ``name`` imports anywhere in its body (functions included): for
    ``from X import Y`` the module X.Y when Y is one, else X."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".")
                parent = parent if is_pkg else parent[:-1]
                parent = parent[:len(parent) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # import a.b.c of a module a.b (c a name in it)
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def import_graph() -> nx.DiGraph:
    """The module graph (a copy: callers may change it)."""
    return _graph().copy()


@functools.lru_cache(maxsize=None)
def _graph() -> nx.DiGraph:
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for name, path in mods.items():
        for t in _imports(name, path, mods):
            g.add_edge(name, t)
    return g


#: The layers, bottom first. A package imports its own modules and packages of lower layers only.
#: A package is ``core.X`` or ``ui.X`` (a folder, or a module directly in core/ or ui/), else the
#: top-level module (``api``, ``cli``, ``paths`` ...; ``gindex_studio`` itself is "package").
LAYERS = [
    {"paths", "core.support", "core.native"},          # used by everything, using nothing of ours
    {"core.flows"},                                     # Flow and Node, reading, checks, the library
    {"core.scoring", "core.editing"},                   # similarity, the common-subgraph search, Δ
    {"core.benchmark", "core.flatland", "core.nodered"},  # Ω, the g-index; Flatland; real Node-RED
    {"core.curation", "core.systems"},                  # curation: curricula and matrices; systems: runs of a model
    {"core.jobs"},                                      # worker-process calls: may use every core package
    {"api"},
    {"package"},                                        # gindex_studio/__init__: re-exports api
    {"desktop", "ui"},                                  # ui: every ui.X package (ordered among themselves below)
    {"cli"},                                            # opens windows, so above ui
    {"__main__"},
]


def package_of(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "package"
    if parts[0] in ("core", "ui") and len(parts) > 1:
        return ".".join(parts[:2])
    return parts[0]


def _layer(package: str) -> int:
    for k, layer in enumerate(LAYERS):
        if package in layer or package.split(".")[0] in layer:
            return k
    raise AssertionError(f"{package} is in no layer: add it to LAYERS (and to docs/architecture.md)")


def package_graph(g: nx.DiGraph | None = None) -> nx.DiGraph:
    """Packages and the imports between them (each edge keeps one example module pair)."""
    g = import_graph() if g is None else g
    p = nx.DiGraph()
    for a, b in g.edges():
        pa, pb = package_of(a), package_of(b)
        if pa != pb and not p.has_edge(pa, pb):
            p.add_edge(pa, pb, example=f"{a} → {b}")
    return p


def layer_violations(g: nx.DiGraph | None = None) -> list[str]:
    p = package_graph(g)
    out = []
    for a, b, data in p.edges(data=True):
        la, lb = _layer(a), _layer(b)
        if la < lb or (la == lb and a.split(".")[0] != "ui"):
            out.append(f"{a} (layer {la}) imports {b} (layer {lb}): {data['example']}")
    return sorted(out)


def test_every_package_is_in_a_layer():
    for package in package_graph().nodes:
        _layer(package)


def test_packages_import_only_lower_layers():
    assert layer_violations() == []


def test_no_package_cycle():
    """Among the packages (ui's included: ui.X may use ui.Y of another layer-free order, but never in a
    circle), imports inside functions counted."""
    p = package_graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(p) if len(c) > 1]
    assert cycles == []


def test_the_layer_rule_finds_an_upward_import():
    """Not blind: an import from flows up to scoring, or between two packages of one layer, is found."""
    g = import_graph()
    g.add_edge("gindex_studio.core.flows.reading", "gindex_studio.core.scoring.divergence")
    g.add_edge("gindex_studio.core.benchmark.gindex", "gindex_studio.core.flatland.profile")
    found = layer_violations(g)
    assert any(v.startswith("core.flows (layer 1) imports core.scoring") for v in found)
    assert any(v.startswith("core.benchmark (layer 3) imports core.flatland") for v in found)
    p = package_graph(g)
    p.add_edge("ui.canvas", "ui.compare")
    assert not nx.is_directed_acyclic_graph(p)


def test_the_graph_sees_function_level_imports():
    """The reader of imports is not blind: an import inside a function is an edge."""
    g = import_graph()
    # flows.reading imports flows.folders inside a function only
    assert g.has_edge("gindex_studio.core.flows.reading", "gindex_studio.core.flows.folders")
    assert g.has_edge("gindex_studio.core.scoring.matching", "gindex_studio.core.scoring.search_base")


def test_no_import_cycle_among_the_package_modules():
    """No cycle anywhere in the package, imports inside functions counted."""
    g = import_graph()
    tangled = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    cycles = [nx.find_cycle(g.subgraph(c)) for c in tangled]
    assert cycles == [], "import cycles: " + "; ".join(" → ".join(e[0] for e in c) for c in cycles)


def test_the_cycle_test_finds_a_cycle():
    g = import_graph()
    g.add_edge("gindex_studio.core.scoring.search_base", "gindex_studio.core.scoring.matching")
    assert not nx.is_directed_acyclic_graph(g.subgraph(n for n in g if n.startswith("gindex_studio.core")))


@pytest.mark.slow
def test_only_the_native_package_imports_the_extensions():
    for ext in ("gindex_studio.core.native._mcsplit", "gindex_studio.core.native._flatsearch"):
        known = set(_modules()) | {ext}
        importers = sorted(name for name, path in _modules().items() if ext in _imports(name, path, known))
        assert importers == ["gindex_studio.core.native"], ext
    # nor by name through importlib
    texts = {name: path.read_text(encoding="utf-8") for name, path in _modules().items()}
    assert [n for n, t in texts.items() if ("_mcsplit" in t or "_flatsearch" in t) and "import_module" in t] == []


def test_the_native_search_core_holds_no_python_object():
    """The plain C core (core.h and what it declares) includes no Python header and names no Python
    object: the bindings (*_module.c, bind.c) and the Python-value kernels (py_*.c) do."""
    native = PACKAGE / "core" / "native"
    core = ["core.h", "stop.c", "graph.c", "weight_rows.c", "mcsplit_search.c", "mcsplit_clique.c", "flatsearch.c"]
    for name in core:
        text = (native / name).read_text(encoding="utf-8")
        assert "Python.h" not in text and "#include \"bind.h\"" not in text and not re.search(r"\bPy[A-Z_]", text), name
    sources = {p.name for p in native.glob("*.c")}
    assert sources - set(core) == {"bind.c", "mcsplit_module.c", "flatsearch_module.c", "py_weights.c",
                                   "py_flow_graph.c", "py_signatures.c", "py_companion_delta.c"}
    # every method table (the argument parsing) is in a binding file
    assert sorted(p.name for p in native.glob("*.c") if "PyMethodDef" in p.read_text(encoding="utf-8")) == [
        "flatsearch_module.c", "mcsplit_module.c"]


def test_search_base_is_a_leaf():
    g = import_graph()
    assert list(g.successors("gindex_studio.core.scoring.search_base")) == []


# the files that may name a profile: the profiles' own
PROFILE_FILES = {"gindex_studio/core/scoring/builtin_profiles.py", "gindex_studio/core/flatland/profile.py"}
NAME_COMPARISON = re.compile(r"""profile\s*(==|!=)|(==|!=)\s*["'](paper|companion|flatland)["']|"""
                             r"""\bprofile\s+(not\s+)?in\s*[(\[{]""")


def test_no_profile_name_is_compared_outside_the_profiles_files():
    hits = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in PROFILE_FILES:
            continue
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAME_COMPARISON.search(line):
                hits.append(f"{rel}:{k}: {line.strip()}")
    # a comparison of two profiles' names, not with a literal: a result kept for warm start under the same options
    allowed = "if warm and self.result is not None and self.result.profile == self.options.profile.name:"
    assert [h for h in hits if not h.endswith(allowed)] == []


#: string literals equal to a built-in profile's name that name another thing: each is the value of
#: one named constant, (module file, constant) → what it names
OTHER_THINGS = {
    ("gindex_studio/core/flatland/__init__.py", "WORLD"): "Flatland's resources folder, node category and command",
    ("gindex_studio/core/benchmark/experiment.py", "COMPANION_KIND"): "the companion code's results files",
}


def builtin_profile_names() -> set[str]:
    """The ``name=`` of every ``Profile(...)`` built in the profiles' files (a literal, or a
    module-level constant of the file), read from the source."""
    names = set()
    for rel in PROFILE_FILES:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                  and isinstance(n.value, ast.Constant) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Profile":
                for kw in node.keywords:
                    if kw.arg == "name":
                        names.add(kw.value.value if isinstance(kw.value, ast.Constant) else consts[kw.value.id])
    return names


def profile_name_literals(sources: dict[str, str], names: set[str]) -> list[str]:
    """``file:line: literal`` for every string literal in ``sources`` ({file: text}) equal to one of
    ``names``, but in the profiles' files and as the value of a constant of ``OTHER_THINGS``."""
    hits = []
    for rel, text in sorted(sources.items()):
        if rel in PROFILE_FILES:
            continue
        tree = ast.parse(text)
        named = {id(n.value) for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name) and (rel, t.id) in OTHER_THINGS}
        hits += [f"{rel}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
                 if isinstance(n, ast.Constant) and n.value in names and id(n) not in named]
    return hits


def _package_sources() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def test_no_builtin_profile_is_named_outside_the_profiles_files():
    """Issue 33: the profile travels as an object; names are read at the edges (``profiles.get``)
    and the defaults are ``profiles.default()`` and ``profiles.companion_default()``."""
    names = builtin_profile_names()
    assert {"paper", "companion", "flatland"} <= names
    assert profile_name_literals(_package_sources(), names) == []


def test_the_profile_name_check_finds_a_name():
    """Not blind: a profile named in a call or in a constant not listed in ``OTHER_THINGS`` is
    found, and a listed constant's name in another module is not excused."""
    names = builtin_profile_names()
    sources = _package_sources()
    sources["gindex_studio/core/benchmark/gindex.py"] += '\nOPTS = ScoreOptions(profile="companion")\n'
    sources["gindex_studio/core/support/profiles.py"] += '\nDEFAULT = "paper"\n'
    sources["gindex_studio/cli/omega.py"] += '\nWORLD = "flatland"\n'
    found = profile_name_literals(sources, names)
    assert [h.split(":")[0] for h in found] == ["gindex_studio/cli/omega.py", "gindex_studio/core/benchmark/gindex.py",
                                                "gindex_studio/core/support/profiles.py"]
