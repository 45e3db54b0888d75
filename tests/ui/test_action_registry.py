"""One action registry, windows built from features (issue 33, item 4): every QAction is made by
``ui/actions.py``; no window gains attributes from outside its own class; the features' actions
are in the registry, so their shortcuts work and the Keyboard Shortcuts list shows them."""
from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

import gindex_studio
from gindex_studio.ui.actions import (ALL_SPECS, ANALYSIS_SPECS, COMPARE_SPECS, CURATION_SPECS, FEATURE_SPECS, SPECS,
                                     WORKSPACE_SPECS)

UI = Path(gindex_studio.__file__).parent / "ui"
REGISTRY = UI / "actions.py"


def actions_made(source: str) -> list[str]:
    """Where ``source`` makes a QAction itself: ``QAction(…)``, a menu's ``addAction("text", …)``
    (Qt makes the action) or an undo stack's ``createUndoAction`` / ``createRedoAction``."""
    found = []
    for n in ast.walk(ast.parse(source)):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        texty = bool(n.args) and isinstance(n.args[0], (ast.Constant, ast.JoinedStr)) and not (
            isinstance(n.args[0], ast.Constant) and not isinstance(n.args[0].value, str))
        if name == "QAction" or name in ("createUndoAction", "createRedoAction") or (name == "addAction" and texty):
            found.append(f"line {n.lineno}: {ast.unparse(n)[:80]}")
    return found


def window_attributes_set_outside(source: str) -> list[str]:
    """Assignments ``x.attr = …`` (and ``setattr(x, …)``) in ``source`` whose ``x`` is a window
    that is not ``self``: a name ending in ``window``/``win`` (``main_window``, ``window``, ``win``)."""
    def windowish(node) -> bool:
        return isinstance(node, ast.Name) and (node.id.endswith("window") or node.id.endswith("win"))

    found = []
    for n in ast.walk(ast.parse(source)):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for a in ast.walk(t):
                if isinstance(a, ast.Attribute) and isinstance(a.ctx, ast.Store) and windowish(a.value):
                    found.append(f"line {n.lineno}: {ast.unparse(a)}")
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and windowish(n.args[0]):
            found.append(f"line {n.lineno}: {ast.unparse(n)}")
    return found


def test_the_checks_find_what_they_look_for():
    assert actions_made("a = QAction('x', w)\nm.addAction(f'{p}', slot)\nm.addAction(a)\nm.addAction(None)\n"
                        "u.createUndoAction(w)") == [
        "line 1: QAction('x', w)", "line 2: m.addAction(f'{p}', slot)", "line 5: u.createUndoAction(w)"]
    assert window_attributes_set_outside("main_window.drawing = p\nself.x = 1\nsetattr(win, 'a', 1)\ned.path = 2") == [
        "line 1: main_window.drawing", "line 3: setattr(win, 'a', 1)"]


def test_every_qaction_is_made_by_the_registry():
    made = {str(p.relative_to(UI)): actions_made(p.read_text(encoding="utf-8"))
            for p in sorted(UI.rglob("*.py")) if p != REGISTRY}
    assert {p: f for p, f in made.items() if f} == {}
    assert actions_made(REGISTRY.read_text(encoding="utf-8"))  # the registry does make them


def test_no_module_sets_attributes_on_a_window():
    found = {str(p.relative_to(UI)): window_attributes_set_outside(p.read_text(encoding="utf-8"))
             for p in sorted(UI.rglob("*.py"))}
    assert {p: f for p, f in found.items() if f} == {}


def test_every_spec_has_one_id_and_no_window_gives_two_actions_one_key():
    ids = [s.id for s in SPECS + COMPARE_SPECS + FEATURE_SPECS + CURATION_SPECS + ANALYSIS_SPECS + WORKSPACE_SPECS]
    assert len(ids) == len(set(ids)) == len(ALL_SPECS)


def own_attributes(cls) -> set[str]:
    """The names the classes of ``cls``'s MRO that are ours assign as ``self.<name>``."""
    names = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith("gindex_studio."):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) \
                    and n.value.id == "self":
                names.add(n.attr)
    return names


def foreign_attributes(win) -> set[str]:
    """``win``'s instance attributes its classes do not assign (PySide's bound signals, which
    share the names of class attributes, aside)."""
    names = {n for n in vars(win) if not n.startswith("__") and not hasattr(type(win), n)}
    return names - own_attributes(type(win))


def test_a_window_has_only_the_attributes_its_class_sets(window, qtbot, tmp_path, library):
    from gindex_studio.ui.analysis.window import AnalysisWindow
    from gindex_studio.ui.compare.window import CompareWindow

    assert foreign_attributes(window) == set()
    cwin = CompareWindow(library, settings=QSettings(str(tmp_path / "c.ini"), QSettings.IniFormat))
    qtbot.addWidget(cwin)
    assert foreign_attributes(cwin) == set()
    awin = AnalysisWindow(library, settings=QSettings(str(tmp_path / "a.ini"), QSettings.IniFormat))
    qtbot.addWidget(awin)
    assert foreign_attributes(awin) == set()
    window.patched_in = True  # what an installer used to do: found
    assert foreign_attributes(window) == {"patched_in"}


def test_the_curation_window_has_only_its_own_attributes(qtbot, tmp_path):
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    from .curation_support import open_window

    win = open_window(qtbot, load_workspace(DEMO_DIR / "experiment.json"), tmp_path, wait=False)
    assert foreign_attributes(win) == set()
    assert {a.objectName() for a in QMainWindow.actions(win)} == ({s.id for s in CURATION_SPECS + WORKSPACE_SPECS}
                                                                  | {"edit.undo", "edit.redo", "file.quit"})


def menu_actions(win) -> list:
    out = []

    def walk(menu: QMenu):
        for a in menu.actions():
            if a.menu() is not None:
                walk(a.menu())
            elif not a.isSeparator():
                out.append(a)

    for top in win.menuBar().actions():
        walk(top.menu())
    return out


def test_the_main_windows_menus_and_toolbar_hold_only_registry_actions(window):
    registry = set(window.actions.all())
    dock_toggles = {d.toggleViewAction() for d in window.docks.values()}
    for a in menu_actions(window):
        assert a in registry or a in dock_toggles, a.text()
    for a in window.findChild(QToolBar, "toolbar-main").actions():
        assert a.isSeparator() or a in registry
    # the features' actions are the registry's, by id, in the menus a user opens
    for feature in window.features.values():
        for aid in feature.actions():
            assert window.actions[aid] in menu_actions(window), aid
    assert [a.text() for a in window.menuBar().actions()][-4:] == ["F&latland", "&Run", "&Window", "&Help"]


def test_a_features_shortcut_works_and_the_shortcuts_list_shows_it(window, qtbot, monkeypatch):
    from gindex_studio.ui.compare import window as cw

    asked = []
    monkeypatch.setattr(cw.CompareDialogs, "ask_pair", lambda self, reference="": asked.append(reference))
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitActive(window):
        window.activateWindow()
    QTest.keyClick(window, Qt.Key_D, Qt.ControlModifier | Qt.ShiftModifier)  # File → Compare…
    assert asked == [""]
    dialog = window.show_shortcuts()
    qtbot.addWidget(dialog)
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    assert rows["Compare…"] == "Ctrl+Shift+D"
    assert rows["Deploy & run"] == "F5" and rows["Lint"] == "Shift+F5"
    assert rows["Undo"] == "Ctrl+Z"
