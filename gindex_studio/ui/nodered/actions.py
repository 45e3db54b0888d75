"""Deploy & run in the main window: the Run menu and toolbar action, the Debug dock, runtime
problems and nrlint's findings in the Problems dock (on their nodes; Run → Lint lints without
running), an Install button there for a missing node type's npm module, and the runtime stopped
when the window closes. The Node-RED used is the one in Preferences, else the private one.

:class:`RunController` keeps a :class:`RuntimeWorker` on a QThread; the GUI thread never waits for
Node-RED."""
from __future__ import annotations

import re

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget

from gindex_studio.core.flows.flow import Problem
from gindex_studio.core.nodered.deploy import node_dicts
from gindex_studio.ui.nodered.debug_panel import FIRST_LINES, DebugPanel
from gindex_studio.ui.features import Placement, WindowFeature
from gindex_studio.ui.nodered.controller import RuntimeController
from gindex_studio.ui.nodered.worker import StopOnClose


class RunController(QObject, RuntimeController):
    """Connects a main window to a runtime worker (see the module's docstring)."""

    _deploy = Signal(list)
    _lint = Signal(list, list)
    _install = Signal(list)
    _fire = Signal(str)
    _send = Signal(str, str, str)
    _stop = Signal()

    def __init__(self, window, factory=None, panel: DebugPanel | None = None):
        super().__init__(window)
        self.window = window
        self.panel = panel if panel is not None else DebugPanel()
        self.doc = None  # the document last deployed
        self._own_worker(factory, "nodered-runtime")
        self._deploy.connect(self.worker.deploy)
        self._lint.connect(self.worker.lint)
        self._install.connect(self.worker.install)
        self.worker.linted.connect(self._linted)
        self.worker.installed.connect(self._installed)
        self.run_problems: list[Problem] = []
        self.lint_problems: list[Problem] = []
        self._fire.connect(self.worker.fire)
        self._send.connect(self.worker.request)
        self.worker.deployed.connect(self._problems)
        self.worker.debug.connect(self.panel.add_debug)
        self.worker.response.connect(self.panel.add_response)
        self.panel.deploy.connect(self.deploy)
        self.panel.fire.connect(self._fire)
        self.panel.send.connect(self._send)
        self.panel.jump.connect(self._jump)
        self.started = False  # a deploy came back: the runtime is up (the progress line says "deploying")
        self.sized = False  # the Debug dock got its first height

    def _target(self):
        """The current editor's document and its nodes; None without an editor."""
        ed = self.window.editor
        if ed is None:
            return None
        if ed.doc is not self.doc:
            self.run_problems, self.lint_problems = [], []
        self.doc = ed.doc
        return ed, node_dicts(ed.doc.flow)

    def lint(self) -> None:
        """nrlint's rules chosen in Preferences on the current flow, into Problems (off the GUI thread)."""
        from gindex_studio.ui.preferences import preferred_lint_rules

        target = self._target()
        if target is None:
            return
        self._start()
        self._lint.emit(target[1], sorted(preferred_lint_rules()))

    def install_module(self, module: str) -> None:
        """Ask first (:attr:`install_box`, naming the module), then install ``module`` into the private
        runtime (then it is started again and the flow redeployed). A name that is not a plain npm
        package name (a path, URL, git spec…: the flow is a model's) is refused without asking."""
        from PySide6.QtWidgets import QMessageBox

        from gindex_studio.core.nodered.modules import name_problem

        why = name_problem(module)
        if why:
            self._failed(f"{str(module)[:200]!r} is not installed: {why}")
            return
        box = self.install_box = QMessageBox(QMessageBox.Question, "Install a node module",
                                             f"Install the npm module {module} into the studio's private Node-RED?",
                                             QMessageBox.Cancel, self.window)
        box.setObjectName("install-confirm")
        box.setTextFormat(Qt.PlainText)
        box.setInformativeText("It is downloaded from the npm registry, without running its install scripts, "
                               "and loaded by the private Node-RED inside its sandbox; the flow then runs again.")
        yes = box.addButton(f"Install {module}", QMessageBox.AcceptRole)
        yes.setObjectName("install-confirm-yes")
        box.setDefaultButton(QMessageBox.Cancel)
        box.finished.connect(lambda _r: self._install_confirmed(module) if box.clickedButton() is yes else None)
        box.open()

    def _install_confirmed(self, module: str) -> None:
        self.window.statusBar().showMessage(f"Node-RED: installing {module}…", 10000)
        self._start()
        self._install.emit([module])

    def _installed(self, modules: list) -> None:
        self.window.statusBar().showMessage(f"Node-RED: installed {', '.join(modules)}", 8000)

    def _linted(self, found: list) -> None:
        self.lint_problems = [Problem("lint", f"{p.rule}: {p.message}", p.node_id, p.nodes if len(p.nodes) > 1 else ())
                              for p in found]
        self._publish()
        n = len(found)
        self.window.statusBar().showMessage("nrlint: " + (f"{n} finding(s), see Problems" if n else "no findings"),
                                            8000)

    def _publish(self) -> None:
        if self.doc is not None and hasattr(self.doc, "set_runtime_problems"):
            self.doc.set_runtime_problems(self.run_problems + self.lint_problems)

    def deploy(self) -> None:
        from gindex_studio.ui.preferences import preferred_lint_rules, preferred_remote, preferred_trust

        target = self._target()
        if target is None:
            return
        ed, nodes = target
        self.worker.trusted = preferred_trust()
        remote = preferred_remote()
        if remote != self.worker.remote:
            self.worker.remote = remote  # read by the worker when it next makes its runtime
            if self.running:
                self._stop.emit()
        self.panel.labels = {i: ed.doc.label(i) for i in ed.doc.node_ids()}
        self.panel.set_inputs(
            [(n["id"], ed.doc.label(n["id"])) for n in nodes if n["type"] == "inject"],
            [(str(n.get("method") or "get").upper().replace("ALL", "GET"), re.sub(r":\w+", "1", "/" + n["url"].lstrip("/")))
             for n in nodes if n["type"] == "http in" and isinstance(n.get("url"), str)])
        self.show_dock()
        self.panel.start_progress("Node-RED: deploying…" if self.started else
                                  "Node-RED: starting (the first start takes a few seconds), then deploying…")
        self._start()
        rules = preferred_lint_rules()
        if rules:
            self._lint.emit(nodes, sorted(rules))
        self._deploy.emit(nodes)

    def show_dock(self) -> None:
        """Show and raise the Debug dock; the first time, tall enough for ``FIRST_LINES`` lines of
        messages (else it would open as tall as the Problems dock it shares its place with)."""
        dock = self.window.docks["debug"]
        dock.show()
        dock.raise_()
        self.size_dock()

    def size_dock(self) -> None:
        """Once: make the shown Debug dock tall enough for ``FIRST_LINES`` lines of messages below
        its controls (measured once laid out: a tab bar below it takes room too)."""
        if not self.sized:
            self.sized = True
            QTimer.singleShot(0, self._grow_dock)

    def _grow_dock(self, asked: int = 0, tries: int = 4) -> None:
        """Ask the window for the height the message list lacks; look again once laid out and ask
        for more while it still lacks some (the dock's tab bar is not counted by ``resizeDocks``)."""
        dock, lst = self.window.docks["debug"], self.panel.list
        if not dock.isVisible():  # hidden again at once: size it when it is next shown
            self.sized = asked > 0
            return
        short = FIRST_LINES * lst.fontMetrics().lineSpacing() + 4 - lst.viewport().height()
        if short > 0 and tries:
            asked = max(asked, dock.height()) + short
            self.window.resizeDocks([dock], [asked], Qt.Vertical)
            QTimer.singleShot(0, lambda: self._grow_dock(asked, tries - 1))

    def _problems(self, problems: list) -> None:
        self.started = True
        self.panel.end_progress()
        self.run_problems = [Problem(p.kind, p.message, p.node_id) for p in problems]
        self._publish()
        n = len(problems)
        self.window.statusBar().showMessage("Node-RED: " + (f"{n} problem(s), see Problems" if n else
                                                             "deployed, no problems"), 8000)

    def _again(self) -> None:
        self.deploy()

    def _progress(self, text: str) -> None:
        super()._progress(text)
        if self.panel.progress_text() and text not in ("deployed", "probes done"):
            first = "" if self.started else " (the first start takes a few seconds)"
            self.panel.start_progress(("" if "Node-RED" in text else "Node-RED: ") + f"{text}…{first}")

    def _no_sandbox(self, why: str) -> None:
        self.panel.end_progress()
        super()._no_sandbox(why)

    def _failed(self, message: str) -> None:
        self.panel.end_progress()
        self.panel.add_message(None, message, error=True)
        self.window.statusBar().showMessage(f"Node-RED: {message}", 10000)

    def _jump(self, node_id: str) -> None:
        ed = self.window.editor
        if ed is not None and ed.doc is self.doc:
            ed.focus_node(node_id)


class RunFeature(WindowFeature):
    """The main window's Run menu (Deploy & run on F5, also on the main toolbar; Lint), the Debug
    dock, Problems' Install button, and the runtime stopped when the window closes. ``factory``
    makes the runtime (default: the one in Preferences)."""

    name = "run"

    def __init__(self, factory=None):
        self.factory = factory
        self.panel = DebugPanel()
        self.controller: RunController | None = None

    def actions(self):
        return {"run.deploy": lambda: self.controller.deploy(), "run.lint": lambda: self.controller.lint()}

    def docks(self):
        return [("debug", "Debug", self.panel, Qt.BottomDockWidgetArea)]

    def menus(self):
        return [Placement("Run", ["run.deploy", "run.lint", "panels.debug"])]

    def toolbar(self):
        return ["run.deploy"]

    def attach(self, window) -> None:
        super().attach(window)
        ctl = self.controller = RunController(window, self.factory, self.panel)
        dock = window.docks["debug"]
        if "problems" in window.docks:
            window.tabifyDockWidget(window.docks["problems"], dock)
            window.docks["problems"].raise_()
        # it stays where it is: dragging its title bar (aiming for its edge, to resize it) does not
        # tear it off the window; the edge above it resizes it
        dock.setFeatures(QDockWidget.DockWidgetClosable)
        dock.visibilityChanged.connect(lambda shown: shown and ctl.size_dock())  # Run → Debug too
        # Run → Debug brings the dock to the front of the Problems tab it shares (else only its tab shows)
        dock.toggleViewAction().triggered.connect(lambda on: on and dock.raise_())
        dock.hide()  # shown by the first Deploy & run (or Run → Debug): until then the window's minimum size stays as it was
        problems = getattr(window, "problems", None)
        if problems is not None and hasattr(problems, "install_requested"):
            problems.install_requested.connect(ctl.install_module)
        StopOnClose(window, ctl)
