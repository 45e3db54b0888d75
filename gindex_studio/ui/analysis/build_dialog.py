"""The "New Experiment from Outputs" dialog: an experiment built from a curriculum folder, reference
task files and a JSONL file of model outputs (``core.experiment_build``, the same as
``gindex-studio experiment new``).

Bad input is shown in the dialog, which stays open with everything typed kept; nothing is written
until the experiment reads back cleanly. ``built`` carries the written path.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
)

from gindex_studio.core.benchmark.experiment import ExperimentError
from gindex_studio.core.benchmark.experiment_build import BuildSpec, build_experiment, parse_samples
from gindex_studio.ui.panels.browse_row import browse_row
from gindex_studio.ui.panels.small_widgets import wrapped_label

#: field → (label, placeholder, browse kind: "dir" | "open" | "save" | None)
FIELDS = {
    "curriculum": ("Curriculum folder", "one subfolder of .json programs per domain", "dir"),
    "tasks": ("Reference tasks", "a folder of reference .json files (task id = file name)", "dir"),
    "outputs": ("Model outputs (JSONL)", '{"task_id": …, "output": …} or {"task_id": …, "outputs": […]} per line', "open"),
    "compute": ("Training compute", "total compute, e.g. 74.75 (petaFLOP·s)", None),
    "samples": ("Samples per domain", "N for every domain, or a=80, b=40 (empty: its number of programs)", None),
    "system": ("System", "the system's name (its label in the Analysis window)", None),
    "name": ("Experiment name", "optional", None),
    "output": ("Write to", "the experiment file to write", "save"),
}


class BuildExperimentDialog(QDialog):
    built = Signal(str)  # the experiment file written

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New Experiment from Outputs")
        self.setMinimumWidth(640)
        self.ask_path = self._ask_path  # replaced in tests
        self.edits: dict[str, QLineEdit] = {}
        lay = QVBoxLayout(self)
        lay.addWidget(wrapped_label("Build an experiment from the files an eval harness writes: the curriculum, the "
                                    "reference tasks and one JSONL line per model output (several lines or an "
                                    "\"outputs\" list for a task give it several attempts)."))
        form = QFormLayout()
        for key, (label, hint, browse) in FIELDS.items():
            edit = QLineEdit()
            edit.setObjectName(key)
            edit.setPlaceholderText(hint)
            self.edits[key] = edit
            form.addRow(label, browse_row(edit, key, lambda k=key, kind=browse: self._browse(k, kind)) if browse else edit)
        lay.addLayout(form)
        self.error = QLabel("")
        self.error.setObjectName("error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020")
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.build_button = self.buttons.addButton("Build", QDialogButtonBox.AcceptRole)
        self.buttons.accepted.connect(self.build)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.path: str | None = None

    def _browse(self, key: str, kind: str) -> None:
        path = self.ask_path(kind, FIELDS[key][0])
        if path:
            self.edits[key].setText(path)

    def _ask_path(self, kind: str, title: str) -> str | None:
        if kind == "dir":
            return QFileDialog.getExistingDirectory(self, title) or None
        if kind == "open":
            return QFileDialog.getOpenFileName(self, title, "", "JSON lines (*.jsonl *.json);;All files (*)")[0] or None
        return QFileDialog.getSaveFileName(self, title, "experiment.json", "Experiments (*.json)")[0] or None

    def spec(self) -> tuple[BuildSpec, Path]:
        """The build request from the fields. Raises ValueError naming the field."""
        text = {k: e.text().strip() for k, e in self.edits.items()}
        for key in ("curriculum", "tasks", "outputs", "compute", "output"):
            if not text[key]:
                raise ValueError(f"{FIELDS[key][0]}: required")
        try:
            compute = float(text["compute"])
        except ValueError:
            raise ValueError(f"Training compute: not a number: {text['compute']!r}") from None
        try:
            default, per = parse_samples(text["samples"].split(","))
        except ValueError as e:
            raise ValueError(f"Samples per domain: {e}") from None
        spec = BuildSpec(Path(text["curriculum"]), [Path(text["tasks"])], Path(text["outputs"]), compute,
                         name=text["name"], system=text["system"], samples=per or None, default_samples=default)
        return spec, Path(text["output"])

    def build(self) -> str | None:
        """Build and write the experiment; on bad input show why and stay open."""
        try:
            spec, out = self.spec()
            exp = build_experiment(spec, out)
        except (ValueError, ExperimentError) as e:
            self.error.setText(str(e))
            return None
        self.error.setText("")
        self.path = str(out)
        attempts = sum(len(t.attempts) for t in exp.tasks)
        self.setToolTip(f"{len(exp.tasks)} tasks, {attempts} attempts")
        self.built.emit(self.path)
        self.accept()
        return self.path
