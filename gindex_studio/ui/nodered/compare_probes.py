"""Run → Run Probes in the compare window: both programs run in Node-RED on the same probes, off
the GUI thread; the outcome is shown beside Δ ("runs: yes · behaves like the reference on 3 of 4
probes"), each side's runtime problems land on its nodes, and an open experiment's task table
gets the task's "Behaves" cell. Behaviour is never folded into Δ, θ or the g-index."""
from __future__ import annotations

import html

from PySide6.QtCore import QObject, Signal

from gindex_studio.core.flows.flow import Problem
from gindex_studio.core.nodered.deploy import node_dicts
from gindex_studio.ui.features import Placement, WindowFeature
from gindex_studio.ui.nodered.controller import RuntimeController
from gindex_studio.ui.nodered.worker import StopOnClose


class ProbeController(QObject, RuntimeController):
    """Owns a runtime worker on its own QThread for one compare window."""

    _probe = Signal(list, list)
    _stop = Signal()
    finished = Signal(object)  # the Behaviour shown (tests wait on it)

    def __init__(self, window, factory=None):
        super().__init__(window)
        self.window = window
        self.view = window.view
        self._own_worker(factory, "nodered-probes")
        self._probe.connect(self.worker.probe)
        self.worker.probed.connect(self._show)
        self.busy = False
        self.behaviour = None
        self._task: int | None = None
        self.view.panel.probes_requested.connect(self.run)
        self.view.model.pair_changed.connect(self._forget)

    def run(self) -> None:
        """Run the probes on the two programs now on the canvases (as edited)."""
        if self.busy:
            return
        from gindex_studio.ui.preferences import preferred_remote, preferred_trust

        self.worker.remote = preferred_remote()
        self.worker.trusted = preferred_trust()
        docs = {r: e.doc for r, e in self.view.editors.items()}
        self.busy = True
        self._task = getattr(self.window, "current_task", None)
        panel = self.view.panel
        panel.probe_button.setEnabled(False)
        panel.behaviour_label.setText("running probes in Node-RED…")
        self._start()
        self._probe.emit(node_dicts(docs["reference"].flow), node_dicts(docs["generated"].flow))

    def _show(self, b) -> None:
        self.busy = False
        self.behaviour = b
        panel = self.view.panel
        panel.probe_button.setEnabled(True)
        text = b.summary() if b.probes else "runs: " + ("yes" if b.runs else "no") + " · nothing to probe"
        counts = [f"{side}: {len(found)} runtime problem{'s' if len(found) != 1 else ''}"
                  for side, found in (("reference", b.reference_problems), ("generated", b.generated_problems))
                  if found]
        _set_text(panel.behaviour_label, text + (" · " + ", ".join(counts) if counts else ""))
        panel.behaviour_label.setToolTip(_tooltip(b))
        for role, found in (("reference", b.reference_problems), ("generated", b.generated_problems)):
            self.view.editors[role].doc.set_runtime_problems([Problem(p.kind, p.message, p.node_id) for p in found])
        tasks = getattr(self.window, "tasks", None)
        if self._task is not None and tasks is not None:
            tasks.model.set_behaviour(self._task, b.cell(), b.agree / b.probes if b.probes else 0.0, text)
        self.finished.emit(b)

    def _again(self) -> None:
        self.busy = False
        self.run()

    def _failed(self, message: str) -> None:
        self.busy = False
        self.view.panel.probe_button.setEnabled(True)
        _set_text(self.view.panel.behaviour_label, f"probes not run: {message}")
        self.window.statusBar().showMessage(f"Node-RED: {message}", 10000)
        self.finished.emit(None)

    def _forget(self) -> None:
        """Another pair is shown: its behaviour is not known yet."""
        if not self.busy:
            self.behaviour = None
            self.view.panel.behaviour_label.setText("behaviour: not run")
            self.view.panel.behaviour_label.setToolTip("Run both programs in Node-RED on the same probes "
                                                       "(Run → Run Probes)")


def _set_text(label, text: str) -> None:
    """A wrapped label's text, with the height its lines need at its width (the score column's
    layout does not grow a wrapped label by itself)."""
    label.setText(text)
    label.setMinimumHeight(label.heightForWidth(max(label.width(), 200)))


def _tooltip(b) -> str:
    lines = []
    for o in b.outcomes:
        if o.agrees:
            lines.append(f"same — {o.probe.name}: {o.reference.summary()}")
        else:
            lines.append(f"DIFFERENT — {o.probe.name}: reference {o.reference.summary()} | generated "
                         f"{o.generated.summary()}")
    return "<br>".join(html.escape(x) for x in lines) or "no probe"


class ProbesFeature(WindowFeature):
    """Run → Run Probes (Ctrl+F5) and the Run probes button's controller in a compare window;
    the probes' runtime stops when the window closes."""

    name = "probes"

    def __init__(self, factory=None):
        self.factory = factory
        self.controller: ProbeController | None = None

    def actions(self):
        return {"run.probes": lambda: self.controller.run()}

    def menus(self):
        return [Placement("Run", ["run.probes"])]

    def attach(self, window) -> None:
        super().attach(window)
        self.controller = ProbeController(window, self.factory)
        StopOnClose(window, self.controller)
