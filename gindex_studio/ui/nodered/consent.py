"""The studio's questions before a model's flow runs outside the sandbox: once per session when
no sandbox can be made here (:func:`allow_unsandboxed`), and the refusal when Preferences name a
Node-RED whose "run the models' flows" choice is not ticked (:data:`UNTRUSTED`)."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

#: said when the user's Node-RED is chosen but not trusted with the models' flows
UNTRUSTED = ("the Node-RED in Preferences would run the model's flow unsandboxed, with its rights: tick "
             "\"Run the models' flows in this Node-RED\" there, or clear its URL to use the studio's sandbox")

_allowed = {"unsandboxed": False}


def allow_unsandboxed(parent, why: str) -> bool:
    """Ask (once per session: a yes is remembered) whether flows may run without the sandbox,
    with its dangers; ``why``: the sandbox's one line saying what is missing. True: run them."""
    if _allowed["unsandboxed"]:
        return True
    box = QMessageBox(QMessageBox.Warning, "No sandbox for flows",
                      "The studio cannot make its sandbox on this computer, so a model's flow would run "
                      "with your own rights: it could read and change your files, reach your network and "
                      "start programs.", QMessageBox.Yes | QMessageBox.No, parent)
    box.setObjectName("unsandboxed-warning")
    box.setInformativeText(f"{why}\n\nRun flows without the sandbox for the rest of this session?")
    box.button(QMessageBox.Yes).setText("Run without sandbox")
    box.button(QMessageBox.No).setText("Don't run")
    box.setDefaultButton(QMessageBox.No)
    if box.exec() == QMessageBox.Yes:
        _allowed["unsandboxed"] = True
    return _allowed["unsandboxed"]


def forget() -> None:
    """A new session's answer (tests)."""
    _allowed["unsandboxed"] = False
