"""CompareModel: the state of a comparison, with no graphics.

It holds the two documents (the editors' own ``FlowDocument``s, so every editor edit is a model
edit), the scoring options, the newest score result, the mapping both ways, the pair badges and
the differences list; it rescoring off the GUI thread (debounced, latest request wins) and tells
whoever draws it through signals:

- ``pair_changed()``: a new pair was opened (views reset selection, fit, clear messages);
- ``result_changed(result, final)``: a new (anytime or final) result and its differences;
- ``texts_changed()``: counts or the edited state changed (headers, banner);
- ``pending(str)`` / ``failed(str)``: scoring under way / scoring raised;
- ``edited(role)``: an edit that can change the score.
"""
from __future__ import annotations

import os

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from gindex_studio.core.scoring.divergence import ScoreOptions, ScoreResult
from gindex_studio.core.flows.flow import Flow
from gindex_studio.core.flows.lenient import SyntaxIssue

from gindex_studio.ui.compare.overlay import styles_for
from gindex_studio.ui.compare.panel import Difference, differences
from gindex_studio.core.flows.reading import read_generated_text, read_pair
from gindex_studio.core.scoring.anytime import score_anytime
from gindex_studio.ui.latest_runner import LatestRunner

SIDES = ("reference", "generated")


def other_side(role: str) -> str:
    return "generated" if role == "reference" else "reference"


class CompareModel(QObject):
    pair_changed = Signal()
    result_changed = Signal(object, bool)  # ScoreResult, final
    texts_changed = Signal()
    pending = Signal(str)
    failed = Signal(str)
    edited = Signal(str)

    DEBOUNCE_MS = 15

    def __init__(self, docs: dict, stacks: dict, parent=None):
        super().__init__(parent)
        self.docs = docs  # role -> FlowDocument
        self.stacks = stacks  # role -> QUndoStack (the generated side is "edited" unless clean)
        self.options = ScoreOptions()
        self.result: ScoreResult | None = None
        self.diffs: list[Difference] = []
        self.badges: dict = {}  # reference id -> Badge
        self.syntax: SyntaxIssue | None = None
        self.model_text: str | None = None
        self.names = {r: "" for r in SIDES}
        self.phi: dict[str, str] = {}
        self.inv: dict[str, str] = {}
        self.edited_since_open = False
        self.edit_count = 0
        self.results_shown = 0
        self._loading = False
        self.runner = LatestRunner(self)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(self.DEBOUNCE_MS)
        self.timer.timeout.connect(self.score_now)
        for role, doc in docs.items():
            for sig in (doc.node_added, doc.node_removed, doc.node_changed, doc.wires_changed):
                sig.connect(lambda *_a, r=role: self._on_edit(r))
            doc.flow_reset.connect(lambda r=role: self._on_edit(r))
        stacks["generated"].cleanChanged.connect(self._on_clean_changed)
        self.runner.partial.connect(lambda r: self._take(r, final=False))
        self.runner.done.connect(lambda r: self._take(r, final=True))
        self.runner.failed.connect(self.failed)

    # ----- opening ----------------------------------------------------------------------------
    def set_pair(self, reference: Flow, generated: Flow, syntax: SyntaxIssue | None = None, text: str | None = None,
                 ref_name: str = "", gen_name: str = "", ref_path: str | None = None, gen_path: str | None = None) -> None:
        """Put a new pair in the documents (undo history starts afresh) and score it."""
        self._loading = True
        try:
            for role, flow, path in (("reference", reference, ref_path), ("generated", generated, gen_path)):
                doc = self.docs[role]
                doc.replace_flow(flow)
                doc.path = path
                self.stacks[role].clear()
        finally:
            self._loading = False
        self.syntax, self.model_text = syntax, text
        self.names = {"reference": ref_name, "generated": gen_name}
        self.result = None
        self.phi, self.inv, self.badges = {}, {}, {}
        self.diffs = []
        self.edited_since_open = False
        self.pair_changed.emit()
        self.texts_changed.emit()
        self.score_now()

    def load_files(self, reference_path: str, generated_path: str) -> None:
        """The reference read strictly, the generated file leniently (raw model output).
        Raises FlowError naming the file that could not be read."""
        pair = read_pair(reference_path, generated_path)
        self.set_pair(pair.reference, pair.generated.flow, pair.generated.syntax, pair.text,
                      os.path.basename(reference_path), os.path.basename(generated_path), ref_path=reference_path)

    def set_generated_text_pair(self, reference: Flow, text: str, ref_name: str = "",
                                gen_name: str = "pasted model output", ref_path: str | None = None) -> None:
        read = read_generated_text(text)
        self.set_pair(reference, read.flow, read.syntax, text, ref_name, gen_name, ref_path=ref_path)

    # ----- edits and scoring ------------------------------------------------------------------
    def generated_edited(self) -> bool:
        """True when the generated program differs from what was read (its undo stack not clean)."""
        stack = self.stacks["generated"]
        return shiboken6.isValid(stack) and not stack.isClean()

    def current_syntax(self) -> SyntaxIssue | None:
        """The syntax error counts while the canvas shows what was read from the text."""
        return None if self.generated_edited() else self.syntax

    def _on_clean_changed(self, _clean: bool) -> None:
        self.texts_changed.emit()

    def _on_edit(self, role: str) -> None:
        if self._loading or not shiboken6.isValid(self):
            return
        self.edited_since_open = True
        self.edit_count += 1
        self.runner.cancel()  # the search under way is for a program that no longer exists
        self.edited.emit(role)
        self.texts_changed.emit()
        self.timer.start()

    def set_options(self, options: ScoreOptions) -> None:
        if options == self.options:
            return
        self.options = options
        self.score_now(warm=False)

    def score_now(self, warm: bool = True) -> None:
        self.timer.stop()
        ref, gen = self.docs["reference"].flow.copy(), self.docs["generated"].flow.copy()
        w = []
        if warm and self.result is not None and self.result.profile == self.options.profile.name:
            w = [(p.reference, p.generated) for p in self.result.mapping]
        self.pending.emit("scoring…")
        self.runner.submit(score_anytime(ref, gen, self.options, self.current_syntax(), w))

    def wait_idle(self, ms: int = 10_000) -> None:
        """For scripts and tests: flush the debounce and wait for the worker (results arrive
        through the event loop)."""
        if self.timer.isActive():
            self.score_now()
        self.runner.wait(ms)

    def _take(self, r: ScoreResult, final: bool) -> None:
        self.result = r
        self.phi = {p.reference: p.generated for p in r.mapping}
        self.inv = {p.generated: p.reference for p in r.mapping}
        self.badges = styles_for(r, self.docs["reference"].node_ids())
        numbers = {k: b.number for k, b in self.badges.items()}
        self.diffs = differences(r, lambda i: self.node_label("reference", i),
                                 lambda i: self.node_label("generated", i), numbers)
        if final:
            self.results_shown += 1
        self.result_changed.emit(r, final)

    # ----- questions --------------------------------------------------------------------------
    def partner(self, role: str, node_id: str) -> str | None:
        return (self.phi if role == "reference" else self.inv).get(node_id)

    def node_label(self, role: str, node_id: str) -> str:
        doc = self.docs[role]
        if not doc.has(node_id):
            return node_id
        label, t = doc.label(node_id), doc.node(node_id).type
        return f"{label!r} ({t})" if doc.node(node_id).name else t

    def side_detail(self, role: str) -> str:
        """The header's counts: the nodes drawn now (a workspace tab is not one; config nodes are
        counted apart), and for broken model text what was recovered (until the program is edited)."""
        doc = self.docs[role]
        n, configs = len(doc.drawn_ids()), len(doc.config_ids())
        text = f"{n} node{'s' if n != 1 else ''}" + (f" and {configs} config node{'s' if configs != 1 else ''}"
                                                      if configs else "")
        if role == "generated" and self.syntax is not None:
            if self.generated_edited():
                text += f", edited (the model text broke at line {self.syntax.line})"
            else:
                text += f", read from broken model text ({self.syntax.recovered_nodes} recovered)"
        return text
