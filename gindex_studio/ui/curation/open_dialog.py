"""File → Curate…: what to curate, as the issue lists it: a folder of programs (one sub-folder
per domain), an experiment, or a curriculum folder plus test task files.

``CurateDialog`` asks; ``accepted`` then ``choice()`` gives ``(path, tasks)`` for
``load_workspace``. The file pickers go through ``chooser`` (tests replace it)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QListWidget,
    QPushButton, QRadioButton, QVBoxLayout, QWidget,
)

MODES = ("folder", "experiment", "tasks")
_TEXTS = {
    "folder": "A folder of programs (one sub-folder per domain; all of them curriculum)",
    "experiment": "An experiment (its curriculum, and its tasks' references as test programs)",
    "tasks": "A curriculum folder plus test task files",
}


class CurateChooser:
    """The file pickers of the dialog (tests replace it with scripted answers)."""

    def __init__(self, parent):
        self.parent = parent

    def folder(self, title: str) -> str | None:
        return QFileDialog.getExistingDirectory(self.parent, title) or None

    def experiment(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, "Experiment", "", "Experiments (*.json)")
        return path or None

    def task_files(self) -> list[str]:
        paths, _ = QFileDialog.getOpenFileNames(self.parent, "Test task files", "", "Programs (*.json)")
        return list(paths)


class CurateDialog(QDialog):
    """Pick the mode, the path (typed or browsed) and, for the third mode, the task files or
    folders. OK stays disabled until the choice is complete; a path that does not exist is
    refused with one line under the fields."""

    def __init__(self, parent=None, experiment: str | None = None):
        """``experiment``: an open experiment's path, proposed (its mode chosen, its path typed)."""
        super().__init__(parent)
        self.setWindowTitle("Curate")
        self.chooser = CurateChooser(self)
        self.radios: dict[str, QRadioButton] = {}
        group = QButtonGroup(self)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("What do you want to curate?"))
        for mode in MODES:
            r = QRadioButton(_TEXTS[mode])
            r.setObjectName(f"curate.{mode}")
            group.addButton(r)
            lay.addWidget(r)
            self.radios[mode] = r
        self.radios["folder"].setChecked(True)
        self.path_label = QLabel()
        self.path = QLineEdit()
        self.path.setObjectName("curate.path")
        self.browse = QPushButton("Browse…")
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(self.browse)
        lay.addWidget(self.path_label)
        lay.addLayout(row)
        self.tasks_box = QWidget()
        tl = QVBoxLayout(self.tasks_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(QLabel("Test task files (or folders of them):"))
        self.tasks = QListWidget()
        self.tasks.setSelectionMode(QListWidget.ExtendedSelection)
        self.add_files = QPushButton("Add Files…")
        self.add_folder = QPushButton("Add Folder…")
        self.remove = QPushButton("Remove")
        buttons = QHBoxLayout()
        for b in (self.add_files, self.add_folder, self.remove):
            buttons.addWidget(b)
        buttons.addStretch(1)
        tl.addWidget(self.tasks, 1)
        tl.addLayout(buttons)
        lay.addWidget(self.tasks_box, 1)
        self.error = QLabel()
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        self.box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.box.button(QDialogButtonBox.Ok).setText("Curate")
        lay.addWidget(self.box)

        group.buttonToggled.connect(lambda *_: self._update())
        self.path.textChanged.connect(lambda *_: self._update())
        self.browse.clicked.connect(self._browse)
        self.add_files.clicked.connect(lambda: self._add(self.chooser.task_files()))
        self.add_folder.clicked.connect(lambda: self._add([self.chooser.folder("Folder of test programs")]))
        self.remove.clicked.connect(self._remove)
        self.box.accepted.connect(self._accept)
        self.box.rejected.connect(self.reject)
        self.resize(620, 420)
        if experiment:
            self.radios["experiment"].setChecked(True)
            self.path.setText(experiment)
        self._update()

    def mode(self) -> str:
        return next(m for m, r in self.radios.items() if r.isChecked())

    def task_paths(self) -> list[str]:
        return [self.tasks.item(k).text() for k in range(self.tasks.count())]

    def choice(self) -> tuple[str, list[str]]:
        """(path, task files) for ``load_workspace``."""
        return self.path.text().strip(), self.task_paths() if self.mode() == "tasks" else []

    def _update(self) -> None:
        mode = self.mode()
        self.path_label.setText("Experiment file:" if mode == "experiment" else
                                "Curriculum folder:" if mode == "tasks" else "Folder of programs:")
        self.tasks_box.setEnabled(mode == "tasks")
        self.remove.setEnabled(bool(self.tasks.count()))
        complete = bool(self.path.text().strip()) and (mode != "tasks" or self.tasks.count() > 0)
        self.box.button(QDialogButtonBox.Ok).setEnabled(complete)
        self.error.clear()

    def _browse(self) -> None:
        if self.mode() == "experiment":
            path = self.chooser.experiment()
        else:
            path = self.chooser.folder("Curriculum folder" if self.mode() == "tasks" else "Folder of programs")
        if path:
            self.path.setText(path)

    def _add(self, paths) -> None:
        have = set(self.task_paths())
        for p in paths:
            if p and p not in have:
                self.tasks.addItem(p)
                have.add(p)
        self._update()

    def _remove(self) -> None:
        for item in self.tasks.selectedItems():
            self.tasks.takeItem(self.tasks.row(item))
        self._update()

    def _accept(self) -> None:
        path, tasks = self.choice()
        mode = self.mode()
        p = Path(path)
        if mode == "experiment" and not p.is_file():
            self.error.setText(f"{path}: no such experiment file")
        elif mode != "experiment" and not p.is_dir():
            self.error.setText(f"{path}: no such folder")
        elif missing := [t for t in tasks if not Path(t).exists()]:
            self.error.setText(f"{missing[0]}: no such file or folder")
        else:
            self.accept()


__all__ = ["CurateDialog", "CurateChooser", "MODES"]
