"""The runtime's work off the GUI thread: a :class:`RuntimeWorker` lives in its own QThread and
owns the Node-RED runtime and deploy session; the GUI talks to it through queued signals only."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, Signal, Slot

from gindex_studio.core.nodered.deploy import Session, error_text
from gindex_studio.core.nodered.install import InstallError
from gindex_studio.core.nodered.probe import Probe, observe
from gindex_studio.core.nodered.runtime import NodeRedError, Runtime, connect
from gindex_studio.core.nodered.sandbox import SandboxUnavailable
from gindex_studio.ui.nodered.consent import UNTRUSTED


class RuntimeWorker(QObject):
    """Slots run on the worker's thread; results come back as signals.

    ``factory(progress)`` makes the runtime (default: the private one, installed on first use)."""

    progress = Signal(str)
    deployed = Signal(list)  # RunProblem list (after a deploy, and again after each input)
    debug = Signal(dict)  # {"node": file id, "value": decoded value, "topic", "error": bool}
    response = Signal(dict)  # {"probe": name, "status", "body", "note"}
    failed = Signal(str)
    stopped = Signal()
    probed = Signal(object)  # a core.nodered.behaviour.Behaviour
    installed = Signal(list)  # npm modules installed into the private runtime (then restarted)
    linted = Signal(list)  # core.nodered.lint.LintProblem list of the flow last linted
    no_sandbox = Signal(str)  # no sandbox can be made here (its one line); nothing was run

    def __init__(self, factory: Callable[..., Runtime] | None = None):
        super().__init__()
        self.factory = factory or (lambda progress: connect(self.remote[0], self.remote[1], progress=progress,
                                                            sandboxed=self.sandboxed))
        #: (URL, token) of the user's Node-RED (Preferences), or (None, None): the private runtime;
        #: ``trusted``: Preferences allow the models' flows there; ``sandboxed``: False once the
        #: user agreed to run without the sandbox. Set on the GUI thread before a request; a change
        #: takes effect with the next runtime.
        self.remote: tuple[str | None, str | None] = (None, None)
        self.trusted = False
        self.sandboxed = True
        self.runtime: Runtime | None = None
        self.session: Session | None = None
        self.nodes: list[dict] = []

    def _ensure(self) -> Session:
        if self.remote[0] and not self.trusted:
            raise NodeRedError(UNTRUSTED)
        if self.session is None or self.session.comms.closed:
            if self.runtime is not None:
                self.runtime.stop()
            self.runtime = self.factory(lambda f, text: self.progress.emit(text))
            self.session = Session(self.runtime)
            self.session.comms.listeners.append(self._on_event)
        return self.session

    def _on_event(self, ev) -> None:  # the comms reader thread
        s = self.session
        if s is None or ev.kind != "debug":
            return
        fid = s.file_id(ev.node_id)
        if fid is None:
            return
        value = error_text(ev.value) if ev.level is not None else ev.value
        self.debug.emit({"node": fid, "value": value, "topic": ev.data.get("topic"),
                         "error": ev.level is not None})

    @Slot(list)
    def deploy(self, nodes: list) -> None:
        try:
            s = self._ensure()
            self.nodes = nodes
            self.progress.emit("deploying")
            self.deployed.emit(s.deploy(nodes).problems)
            self.progress.emit("deployed")
        except SandboxUnavailable as e:
            self.no_sandbox.emit(str(e))
        except (InstallError, NodeRedError) as e:
            self.failed.emit(str(e))

    @Slot(str)
    def fire(self, inject_id: str) -> None:
        self._input(Probe(f"inject {inject_id}", inject=inject_id))

    @Slot(str, str, str)
    def request(self, method: str, path: str, body: str) -> None:
        self._input(Probe(f"{method} {path}", method=method, path=path, body=body or None))

    def _input(self, probe: Probe) -> None:
        s = self.session
        if s is None or s.prepared is None:
            self.failed.emit("deploy the flow first (Run → Deploy & run)")
            return
        try:
            obs = observe(s, probe, self.nodes)
            if probe.path is not None:
                self.response.emit({"probe": probe.name, "status": obs.status, "body": obs.body, "note": obs.note})
            problems = s.problems()
            self.deployed.emit(list(s.prepared.problems) + problems if s.prepared else problems)
        except NodeRedError as e:
            self.failed.emit(str(e))

    @Slot(list, list)
    def lint(self, nodes: list, rules: list) -> None:
        """nrlint's rules (names) on the flow (cached per flow content: a repeat costs nothing)."""
        from gindex_studio.core.nodered.lint import LintError, lint

        try:
            self.linted.emit(lint(nodes, rules))
        except LintError as e:
            self.failed.emit(str(e))

    @Slot(list, list)
    def probe(self, reference: list, generated: list) -> None:
        """Both programs on the reference's probes (its written ones, else the default ones)."""
        from gindex_studio.core.nodered.behaviour import behaviour

        try:
            s = self._ensure()
            self.progress.emit("running probes")
            self.probed.emit(behaviour(s, reference, generated))
            self.progress.emit("probes done")
        except SandboxUnavailable as e:
            self.no_sandbox.emit(str(e))
        except (InstallError, NodeRedError, ValueError) as e:
            self.failed.emit(str(e))

    @Slot(list)
    def install(self, modules: list) -> None:
        """Install npm modules into the private runtime's extra nodes and start it again so that it
        loads them (a deployed flow is deployed again)."""
        from gindex_studio.core.nodered.modules import ModuleError, install_modules

        if self.remote[0]:
            self.failed.emit(f"node modules are installed into the studio's private Node-RED, not into the one at "
                             f"{self.remote[0]} (Preferences): install them there with its palette manager")
            return
        try:
            install_modules(modules, lambda f, text: self.progress.emit(text))
            if self.runtime is not None and self.runtime.private:
                if self.session is not None:
                    self.session.close()
                self.session = None
                self.runtime.stop()
                self.runtime = None
            self.installed.emit(list(modules))
            if self.nodes:
                self.deploy(self.nodes)
        except (ModuleError, InstallError, NodeRedError) as e:
            self.failed.emit(str(e))

    @Slot()
    def stop(self) -> None:
        """Close the session and stop the runtime (the private one ends; a user's keeps running)."""
        if self.session is not None:
            self.session.close()
            self.session = None
        if self.runtime is not None:
            self.runtime.stop()
            self.runtime = None
        self.stopped.emit()


class StopsRuntime:
    """For a controller keeping a :class:`RuntimeWorker` on ``thread`` (``running`` once started,
    its ``_stop`` signal connected to the worker's ``stop``)."""

    def shutdown(self, wait_ms: int = 15000) -> None:
        """Stop the runtime and the worker thread (blocking up to ``wait_ms``; at close only)."""
        if not self.running:
            return
        self.running = False
        self._stop.emit()
        self.thread.quit()
        self.thread.wait(wait_ms)


class StopOnClose(QObject):
    """Calls ``controller.shutdown()`` once ``window`` has really closed: a Close the window
    accepts is followed by its Hide (closeEvent may refuse, e.g. for unsaved changes: then no
    Hide follows). Installed on the window as an event filter, owned by it."""

    def __init__(self, window, controller):
        super().__init__(window)
        self.window, self.controller = window, controller
        self.closing = False
        window.installEventFilter(self)

    def eventFilter(self, obj, e):
        if obj is self.window:
            if e.type() == QEvent.Close:
                self.closing = True
            elif e.type() == QEvent.Show:
                self.closing = False
            elif e.type() == QEvent.Hide and self.closing:
                self.controller.shutdown()
        return False
