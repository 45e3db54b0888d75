"""The questions the studio asks, in one place (tests replace this object with a scripted one)."""
from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QMessageBox

FILTER = "Flow files (*.json *.txt);;Flatland programs (*.fbp *.lisp);;All files (*)"


class Dialogs:
    def __init__(self, parent):
        self.parent = parent

    def error(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self.parent)
        box.setTextInteractionFlags(box.textInteractionFlags())
        box.open()  # never blocks the event loop

    def ask_save(self, name: str) -> str:
        """'save', 'discard' or 'cancel'."""
        r = QMessageBox.question(
            self.parent, "Unsaved changes", f"Save the changes to {name}?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save,
        )
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(r, "cancel")

    def ask_changed_on_disk(self, path: str) -> str:
        return ask_changed_on_disk(self.parent, path)

    def ask_open_recovered(self, text: str) -> bool:
        """A damaged flow file: open what can be recovered (as a new, unsaved document)?"""
        box = QMessageBox(QMessageBox.Warning, "Damaged flow file", text, QMessageBox.NoButton, self.parent)
        yes = box.addButton("Open Recovered Copy", QMessageBox.AcceptRole)
        box.addButton(QMessageBox.Cancel)
        box.setDefaultButton(yes)
        box.exec()
        return box.clickedButton() is yes

    def ask_restore(self, names: list[str]) -> bool:
        text = "The studio did not close normally. Restore the unsaved work?\n\n" + "\n".join(names)
        return QMessageBox.question(self.parent, "Restore unsaved work", text) == QMessageBox.Yes

    def open_files(self, folder: str = "") -> list[str]:
        files, _ = QFileDialog.getOpenFileNames(self.parent, "Open flows", folder, FILTER)
        return files

    def save_file(self, suggestion: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, "Save flow", suggestion, FILTER)
        return path or None


def ask_changed_on_disk(parent, path: str) -> str:
    """Another program changed (or removed) ``path`` since the studio read it: 'reload',
    'overwrite', 'save_as' or 'cancel' (the editor's and the compare window's question)."""
    box = QMessageBox(QMessageBox.Warning, "File changed on disk",
                      f"{path}\n\nwas changed by another program since you opened it. "
                      "Saving now would replace those changes with yours.", QMessageBox.NoButton, parent)
    buttons = {
        box.addButton("Reload from disk", QMessageBox.DestructiveRole): "reload",
        box.addButton("Overwrite", QMessageBox.AcceptRole): "overwrite",
        box.addButton("Save As…", QMessageBox.ActionRole): "save_as",
        box.addButton(QMessageBox.Cancel): "cancel",
    }
    box.exec()
    return buttons.get(box.clickedButton(), "cancel")
