"""The Run System dialog (File → Run System…): which system answers the tasks (a baseline, a local
command or an OpenAI-compatible endpoint), the curriculum and task folders, the experiment file
to write, attempts and concurrency. Prefilled from the last run (``preferences.remembered_run``),
else from the bundled demo study.

Each field is checked when OK is pressed; a bad one gets its message right under it and the
dialog stays open with everything typed kept. The endpoint's API key is never asked for: the
dialog takes the NAME of the environment variable that holds it, and checks only that the
variable is set (its value is never read into a widget, stored or shown).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.systems.session import RunConfig
from gindex_studio.paths import DEMO_DIR
from gindex_studio.ui.panels.browse_row import browse_row
from gindex_studio.ui.panels.small_widgets import wrapped_label
from gindex_studio.ui.preferences import remember_run, remembered_run
from gindex_studio.ui.theme import error_color

#: the system kinds, in the order offered: (key, what the list shows)
KINDS = (
    ("nearest", "nearest — baseline: the closest curriculum program"),
    ("empty", "empty — baseline: the empty program"),
    ("command", "a local command (prompt on stdin, answer on stdout)"),
    ("openai", "an OpenAI-compatible endpoint"),
)
#: the fields shown only for one kind
ONLY_FOR = {"base_url": "openai", "model": "openai", "api_key_env": "openai", "command": "command"}
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: the fields that name files or folders (``~`` is the user's home in each)
PATHS = ("curriculum", "tasks", "output")


def default_output(kind: str) -> str:
    """Where a run of the demo study by ``kind`` is written unless the user says otherwise."""
    docs = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation) or str(Path.home())
    return str(Path(docs) / "gindex-studio" / "runs" / f"demo-{kind}.json")


class RunSystemDialog(QDialog):
    """``config()`` after Accept: the run as a ``RunConfig``. ``settings``: where the fields are
    remembered (None: nothing is remembered)."""

    def __init__(self, parent=None, settings: QSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle("Run System")
        self.setObjectName("run-system")
        self.settings = settings
        self.ask_path = self._ask_path  # replaced in tests
        self.edits: dict[str, QLineEdit] = {}
        self.errors: dict[str, QLabel] = {}
        lay = QVBoxLayout(self)
        lay.addWidget(wrapped_label("Ask a system for every task's flow program and watch its answers scored as "
                                    "they arrive. The answers are logged beside the experiment file as they come: "
                                    "a run cancelled or interrupted resumes without asking again what was answered."))
        self.form = form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        self.kind = QComboBox()
        self.kind.setObjectName("system")
        for key, text in KINDS:
            self.kind.addItem(text, key)
        form.addRow("System", self._field("system", self.kind))
        self._line(form, "base_url", "Base URL", "http://127.0.0.1:8000/v1 (…/v1 of vLLM, llama.cpp, Ollama, …)")
        self._line(form, "model", "Model", "the model's name as the endpoint knows it")
        self._line(form, "api_key_env", "API key variable",
                   "the NAME of the environment variable holding the key, e.g. OPENAI_API_KEY (empty: no key)")
        self._line(form, "command", "Command", "program and arguments, e.g. python3 my_model.py (run without a shell)")
        self._line(form, "curriculum", "Curriculum folder", "one subfolder of .json programs per domain", "dir")
        self._line(form, "tasks", "Tasks folder", "reference task files (id = file name)", "dir")
        self._line(form, "output", "Experiment file", "the experiment to write; its log goes beside it", "save")
        self.attempts = QSpinBox()
        self.attempts.setObjectName("attempts")
        self.attempts.setRange(1, 1000)
        self.attempts.setToolTip("attempts per task (pass@k in Analysis)")
        self.concurrency = QSpinBox()
        self.concurrency.setObjectName("concurrency")
        self.concurrency.setRange(1, 256)
        self.concurrency.setToolTip("requests at once")
        numbers = QWidget()
        row = QHBoxLayout(numbers)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.attempts)
        row.addWidget(QLabel("requests at once"))
        row.addWidget(self.concurrency)
        row.addStretch(1)
        form.addRow("Attempts per task", numbers)
        lay.addLayout(form)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.button(QDialogButtonBox.Ok).setText("Run")
        self.buttons.accepted.connect(self.try_accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._fill(remembered_run(settings) if settings is not None else {})
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._shown_for(self.kind.currentData())
        self.setMinimumWidth(min(760, max(560, self.sizeHint().width())))

    # ----- building -----------------------------------------------------------------------------
    def _field(self, key: str, widget: QWidget) -> QWidget:
        """``widget`` over its (hidden until needed) error line."""
        box = QWidget()
        col = QVBoxLayout(box)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(1)
        col.addWidget(widget)
        err = QLabel("")
        err.setObjectName(f"error-{key}")
        err.setWordWrap(True)
        err.setStyleSheet(f"color: {error_color()}")
        err.hide()
        col.addWidget(err)
        self.errors[key] = err
        return box

    def _line(self, form: QFormLayout, key: str, label: str, hint: str, browse: str | None = None) -> None:
        edit = QLineEdit()
        edit.setObjectName(key)
        edit.setPlaceholderText(hint)
        edit.setToolTip(hint)
        self.edits[key] = edit
        inner = browse_row(edit, key, lambda: self._browse(key, browse, label)) if browse else edit
        form.addRow(label, self._field(key, inner))

    def _fill(self, last: dict) -> None:
        study = DEMO_DIR / "study"
        k = self.kind.findData(last.get("system", "nearest"))
        self.kind.setCurrentIndex(max(0, k))
        kind = self.kind.currentData()
        defaults = {"curriculum": str(study / "curriculum"), "tasks": str(study / "tasks"),
                    "output": default_output(kind), "base_url": "http://127.0.0.1:8000/v1", "api_key_env": ""}
        for key, edit in self.edits.items():
            edit.setText(str(last.get(key, defaults.get(key, ""))))
        self.attempts.setValue(last.get("attempts", 1))
        self.concurrency.setValue(last.get("concurrency", 4))

    def _kind_changed(self, _index: int) -> None:
        kind = self.kind.currentData()
        out = self.edits["output"]
        if any(out.text() == default_output(k) for k, _t in KINDS):  # still a default: follow the kind
            out.setText(default_output(kind))
        self._shown_for(kind)

    def _shown_for(self, kind: str) -> None:
        for key, only in ONLY_FOR.items():
            self.form.setRowVisible(self.errors[key].parentWidget(), kind == only)
        self.adjustSize()

    def _browse(self, key: str, kind: str, title: str) -> None:
        path = self.ask_path(kind, title, self.edits[key].text())
        if path:
            self.edits[key].setText(path)

    def _ask_path(self, kind: str, title: str, start: str) -> str | None:
        if kind == "dir":
            return QFileDialog.getExistingDirectory(self, title, start) or None
        return QFileDialog.getSaveFileName(self, title, start, "Experiments (*.json)")[0] or None

    # ----- checking -----------------------------------------------------------------------------
    def problems(self) -> dict[str, str]:
        """Field → what is wrong with it (only the fields the chosen system uses)."""
        kind = self.kind.currentData()
        text = {k: e.text().strip() for k, e in self.edits.items()}
        for key in PATHS:
            text[key] = os.path.expanduser(text[key])
        bad: dict[str, str] = {}
        if kind == "openai":
            if not re.match(r"https?://[^/\s]+", text["base_url"]):
                bad["base_url"] = "an http:// or https:// address, e.g. http://127.0.0.1:8000/v1"
            if not text["model"]:
                bad["model"] = "the model's name is needed"
            var = text["api_key_env"]
            if var and not _VAR.match(var):
                bad["api_key_env"] = ("the NAME of an environment variable (letters, digits and _), "
                                      "not the key itself")
            elif var and not os.environ.get(var):  # (not echoed: a key pasted here may look like a name)
                bad["api_key_env"] = "no such variable in the studio's environment (set it before starting the studio)"
        if kind == "command":
            try:
                argv = shlex.split(text["command"])
            except ValueError as e:
                argv, bad["command"] = [], f"cannot split it into arguments: {e}"
            if not argv and "command" not in bad:
                bad["command"] = "the program to run is needed"
            elif argv and not (shutil.which(argv[0]) or os.path.isfile(argv[0])):
                bad["command"] = f"no program {argv[0]!r} (not a file, not on the PATH)"
        for key, what in (("curriculum", "curriculum"), ("tasks", "tasks")):
            if not text[key]:
                bad[key] = f"the {what} folder is needed"
            elif not Path(text[key]).is_dir():
                bad[key] = f"no such folder: {text[key]}"
        out = text["output"]
        if not out:
            bad["output"] = "the experiment file to write is needed"
        elif Path(out).is_dir():
            bad["output"] = "a folder: give the experiment's file name, e.g. run.json"
        elif not out.endswith(".json"):
            bad["output"] = "an experiment file ends in .json"
        return bad

    def try_accept(self) -> bool:
        """OK: accept when every field checks, else show each problem under its field."""
        bad = self.problems()
        for key, err in self.errors.items():
            err.setText(bad.get(key, ""))
            err.setVisible(key in bad)
        self.adjustSize()  # room for the messages shown (or none)
        if bad:
            first = next(k for k in self.edits if k in bad) if any(k in self.edits for k in bad) else None
            if first:
                self.edits[first].setFocus()
            return False
        if self.settings is not None:  # the chosen system's fields only: another's were never checked
            kind = self.kind.currentData()
            remember_run(self.settings, {k: v for k, v in self.fields().items() if ONLY_FOR.get(k, kind) == kind})
        self.accept()
        return True

    def fields(self) -> dict:
        return {"system": self.kind.currentData(), **{k: e.text().strip() for k, e in self.edits.items()},
                "attempts": self.attempts.value(), "concurrency": self.concurrency.value()}

    def config(self) -> RunConfig:
        f = self.fields()
        path = {k: Path(f[k]).expanduser() for k in PATHS}
        return RunConfig(f["system"], path["curriculum"], [path["tasks"]], path["output"],
                         attempts=f["attempts"], concurrency=f["concurrency"], base_url=f["base_url"],
                         model=f["model"], api_key_env=f["api_key_env"], command=f["command"])


def ask_run(parent, on_accept) -> RunSystemDialog:
    """Open the dialog (window-modal, not blocking) over ``parent``, remembering the fields in the
    studio's settings; ``on_accept(config)`` when the user presses Run and every field checks."""
    from gindex_studio.ui.preferences import studio_settings

    dialog = RunSystemDialog(parent, studio_settings())
    dialog.setAttribute(Qt.WA_DeleteOnClose, True)
    dialog.accepted.connect(lambda: on_accept(dialog.config()))
    dialog.open()
    return dialog
