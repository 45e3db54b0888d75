"""Deploy & run in the main window: the Run menu and toolbar action, the Debug dock, runtime
problems in the Problems dock (on their nodes), and the runtime stopped when the window closes.

:class:`RunController` keeps a :class:`RuntimeWorker` on a QThread; the GUI thread never waits for
Node-RED."""
from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt, QThread, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QToolBar

from gindex_studio.core.flows.flow import Problem
from gindex_studio.core.nodered.deploy import node_dicts
from gindex_studio.ui.runtime.debug_panel import DebugPanel
from gindex_studio.ui.runtime.worker import RuntimeWorker


class RunController(QObject):
    """Connects a main window to a runtime worker (see the module's docstring)."""

    _deploy = Signal(list)
    _fire = Signal(str)
    _send = Signal(str, str, str)
    _stop = Signal()

    def __init__(self, window, factory=None):
        super().__init__(window)
        self.window = window
        self.panel = DebugPanel()
        self.doc = None  # the document last deployed
        self.thread = QThread()
        self.thread.setObjectName("nodered-runtime")
        self.worker = RuntimeWorker(factory)
        self.worker.moveToThread(self.thread)
        self._deploy.connect(self.worker.deploy)
        self._fire.connect(self.worker.fire)
        self._send.connect(self.worker.request)
        self._stop.connect(self.worker.stop)
        self.worker.deployed.connect(self._problems)
        self.worker.debug.connect(self.panel.add_debug)
        self.worker.response.connect(self.panel.add_response)
        self.worker.failed.connect(self._failed)
        self.worker.progress.connect(self._progress)
        self.panel.deploy.connect(self.deploy)
        self.panel.fire.connect(self._fire)
        self.panel.send.connect(self._send)
        self.panel.jump.connect(self._jump)
        self.running = False  # the thread starts on the first deploy

    def _start(self) -> None:
        if not self.running:
            self.running = True
            self.thread.start()

    def deploy(self) -> None:
        ed = self.window.editor
        if ed is None:
            return
        self.doc = ed.doc
        nodes = node_dicts(ed.doc.flow)
        self.panel.labels = {i: ed.doc.label(i) for i in ed.doc.node_ids()}
        self.panel.set_inputs(
            [(n["id"], ed.doc.label(n["id"])) for n in nodes if n["type"] == "inject"],
            [(str(n.get("method") or "get").upper().replace("ALL", "GET"), re.sub(r":\w+", "1", "/" + n["url"].lstrip("/")))
             for n in nodes if n["type"] == "http in" and isinstance(n.get("url"), str)])
        self.window.docks["debug"].show()
        self.window.docks["debug"].raise_()
        self._start()
        self._deploy.emit(nodes)

    def _problems(self, problems: list) -> None:
        if self.doc is not None and hasattr(self.doc, "set_runtime_problems"):
            self.doc.set_runtime_problems([Problem(p.kind, p.message, p.node_id) for p in problems])
        n = len(problems)
        self.window.statusBar().showMessage("Node-RED: " + (f"{n} problem(s), see Problems" if n else
                                                             "deployed, no problems"), 8000)

    def _progress(self, text: str) -> None:
        self.window.statusBar().showMessage(f"Node-RED: {text}", 5000)

    def _failed(self, message: str) -> None:
        self.panel.add_message(None, message, error=True)
        self.window.statusBar().showMessage(f"Node-RED: {message}", 10000)

    def _jump(self, node_id: str) -> None:
        ed = self.window.editor
        if ed is not None and ed.doc is self.doc:
            ed.focus_node(node_id)

    def shutdown(self, wait_ms: int = 15000) -> None:
        """Stop the runtime and the worker thread (blocking up to ``wait_ms``; at close only)."""
        if not self.running:
            return
        self.running = False
        self._stop.emit()
        self.thread.quit()
        self.thread.wait(wait_ms)


class _CloseWatch(QObject):
    """Shuts the runtime down when the window closes: a Close the window accepts is followed by
    its Hide (closeEvent may refuse, e.g. for unsaved changes: then no Hide follows)."""

    def __init__(self, window, controller):
        super().__init__(window)
        self.window, self.controller = window, controller
        self.closing = False

    def eventFilter(self, obj, e):
        if obj is self.window:
            if e.type() == QEvent.Close:
                self.closing = True
            elif e.type() == QEvent.Show:
                self.closing = False
            elif e.type() == QEvent.Hide and self.closing:
                self.controller.shutdown()
        return False


def install_actions(main_window, factory=None) -> RunController:
    """Add the Debug dock, Run → Deploy & run (F5, also on the main toolbar), and stop the runtime
    when the window closes."""
    ctl = RunController(main_window, factory)
    dock = QDockWidget("Debug", main_window)
    dock.setObjectName("dock-debug")
    dock.setWidget(ctl.panel)
    main_window.addDockWidget(Qt.BottomDockWidgetArea, dock)
    if "problems" in main_window.docks:
        main_window.tabifyDockWidget(main_window.docks["problems"], dock)
        main_window.docks["problems"].raise_()
    dock.hide()  # shown by the first Deploy & run (or Run → Debug): until then the window's minimum size stays as it was
    main_window.docks["debug"] = dock
    act = QAction("Deploy && run", main_window)
    act.setObjectName("run.deploy")
    act.setShortcut(QKeySequence("F5"))
    act.setToolTip("Deploy the flow in Node-RED and run it (F5); problems go to Problems, messages to Debug")
    act.triggered.connect(ctl.deploy)
    bar = main_window.menuBar()
    menu = bar.addMenu("&Run")
    menu.addAction(act)
    menu.addAction(dock.toggleViewAction())
    help_menu = getattr(main_window, "help_menu", None)
    if help_menu is not None:
        bar.insertMenu(help_menu.menuAction(), menu)
    tb = main_window.findChild(QToolBar, "toolbar-main")
    if tb is not None:
        tb.addSeparator()
        tb.addAction(act)
    main_window.run_controller = ctl
    main_window.run_action = act
    watch = _CloseWatch(main_window, ctl)
    main_window.installEventFilter(watch)
    main_window._run_close_watch = watch
    return ctl
