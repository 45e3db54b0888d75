"""A test-only way to run the studio on a real X server and ask it where things are.

    python3 tests/ui/x11_driver.py SOCKET HOME

starts the real studio window (``MainWindow`` with its real dialogs, on whatever platform
``DISPLAY`` gives Qt: xcb) as the studio opens with nothing to show (no demo program, no editor),
with its settings and autosaves under HOME, and answers questions on a local socket at SOCKET: one
JSON request a line (``{"q": NAME, ...}``), one JSON answer a line. It only reads: it never sends
an input event, never edits the model, never moves the focus and never scrolls — every input comes
from outside (xdotool), so the test sees what a user's mouse and keyboard would get.

Questions (geometry is in global screen pixels, the X server's):

- ``state``: the window's X id, the active window and popup, the focused widget, the editor's
  node types, selection and file, the open modal dialog.
- ``widget`` (``path``): one widget, named by attribute names, ``[n]`` indices and ``#name`` (a
  shown child of that object name) from the window (``palette.search``,
  ``editor.quick_add_popup.edit``) or, after ``inspector.``, from the inspector's editor of an
  attribute (``inspector.rules.rows[1].op``, ``inspector.repeat.#day:Sat``). Its shown part
  (``rect``), whether it has the focus, its text, and where it lies in the inspector's scrolled
  page.
- ``scrollbar``: the inspector's vertical scroll bar: handle centre, travel, range.
- ``node`` (``type``): the centre of the body of the one node of that type, and whether the
  canvas shows it.
- ``items``: the rows of the open combo box list (text and shown rect).
- ``dialog``: the modal dialog's title and its file name field (text, focus, selected text).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def _rect(widget) -> list[int] | None:
    """The bounding rect (global) of the part of ``widget`` that is shown, or None."""
    if not widget.isVisible():
        return None
    region = widget.visibleRegion().boundingRect()
    if region.isEmpty():
        return None
    top_left = widget.mapToGlobal(region.topLeft())
    return [top_left.x(), top_left.y(), region.width(), region.height()]


def _walk(obj, path: str):
    """The object ``path`` names below ``obj`` (attribute names, ``[n]``, ``#objectName``)."""
    from PySide6.QtWidgets import QWidget

    for part in re.findall(r"#[^.\[]+|\[\d+\]|[^.\[#]+", path):
        if obj is None:
            return None
        if part.startswith("#"):
            shown = [w for w in obj.findChildren(QWidget, part[1:]) if w.isVisibleTo(obj)]
            obj = shown[0] if shown else None
        elif part.startswith("["):
            seq = obj
            k = int(part[1:-1])
            obj = seq[k] if k < len(seq) else None
        elif isinstance(obj, dict):
            obj = obj.get(part)
        else:
            obj = getattr(obj, part, None)
    return obj


class Driver:
    """Answers the questions above about ``win`` (a MainWindow)."""

    def __init__(self, win):
        self.win = win

    def answer(self, req: dict):
        handler = getattr(self, "q_" + str(req.get("q")), None)
        if handler is None:
            return {"error": f"no question {req.get('q')!r}"}
        return handler(req)

    def q_state(self, _req) -> dict:
        from PySide6.QtWidgets import QApplication

        win, ed = self.win, self.win.editor
        focus = QApplication.focusWidget()
        active = QApplication.activeWindow()
        popup = QApplication.activePopupWidget()
        modal = QApplication.activeModalWidget()
        return {
            "wid": int(win.winId()),
            "active": type(active).__name__ if active is not None else None,
            "popup": type(popup).__name__ if popup is not None else None,
            "modal": modal.windowTitle() if modal is not None else None,
            "focus": type(focus).__name__ if focus is not None else None,
            "focus_path": self._focus_path(focus),
            "types": sorted(ed.doc.node(i).type for i in ed.doc.node_ids()) if ed else None,
            "selected": [ed.doc.node(i).type for i in ed.scene.selected_node_ids()] if ed else None,
            "path": ed.path if ed else None,
            "dirty": ed.is_dirty() if ed else None,
        }

    def _focus_path(self, focus) -> str | None:
        """Which widget has the focus: ``palette.search``, ``canvas``, ``quick-add``, ``inspector.KEY``
        (in the editor of attribute KEY), else its class."""
        if focus is None:
            return None
        win, ed = self.win, self.win.editor
        if focus is win.palette.search:
            return "palette.search"
        if ed is not None and focus in (ed.view, ed.view.viewport()):
            return "canvas"
        if ed is not None and ed.quick_add_popup is not None and focus is ed.quick_add_popup.edit:
            return "quick-add"
        for key, w in win.inspector.editors.items():
            if focus is w or w.isAncestorOf(focus):
                return f"inspector.{key}"
        return type(focus).__name__

    def q_widget(self, req) -> dict | None:
        path = req["path"]
        if path.startswith("inspector."):
            w = _walk(self.win.inspector.editors, path[len("inspector."):])
        else:
            w = _walk(self.win, path)
        if w is None:
            return None
        from PySide6.QtCore import QPoint
        from PySide6.QtWidgets import QAbstractSpinBox, QCheckBox, QComboBox, QLineEdit

        out = {"rect": _rect(w), "visible": w.isVisible(), "focus": w.hasFocus(), "enabled": w.isEnabled()}
        line = w.lineEdit() if isinstance(w, QAbstractSpinBox) or isinstance(w, QComboBox) and w.isEditable() else w
        if isinstance(line, QLineEdit):
            out["text"] = line.text()
            out["text_left"] = line.mapToGlobal(QPoint(line.contentsRect().left() + 2, 0)).x()
            out["digit_w"] = line.fontMetrics().horizontalAdvance("0")
        if isinstance(w, QComboBox):
            out["text"] = w.currentText()
            out["open"] = w.view().isVisible()
        if isinstance(w, QCheckBox):
            out["checked"] = w.isChecked()
        scroll = self.win.inspector.scroll
        if scroll.widget() is not None and scroll.widget().isAncestorOf(w):
            vp = scroll.viewport()
            out["in_scroll"] = {"top": w.mapTo(vp, QPoint(0, 0)).y(), "height": w.height(), "vp_height": vp.height()}
        return out

    def q_scrollbar(self, _req) -> dict:
        from PySide6.QtWidgets import QStyle, QStyleOptionSlider

        bar = self.win.inspector.scroll.verticalScrollBar()
        opt = QStyleOptionSlider()
        bar.initStyleOption(opt)
        style = bar.style()
        handle = style.subControlRect(QStyle.CC_ScrollBar, opt, QStyle.SC_ScrollBarSlider, bar)
        groove = style.subControlRect(QStyle.CC_ScrollBar, opt, QStyle.SC_ScrollBarGroove, bar)
        c = bar.mapToGlobal(handle.center())
        return {"visible": bar.isVisible(), "handle": [c.x(), c.y()], "travel": groove.height() - handle.height(),
                "span": bar.maximum() - bar.minimum(), "value": bar.value()}

    def q_node(self, req) -> dict | None:
        ed = self.win.editor
        if ed is None:
            return None
        found = [i for i in ed.scene.nodes if ed.doc.node(i).type == req["type"]]
        if len(found) != 1:
            return None
        item = ed.scene.nodes[found[0]]
        pos = ed.view.mapFromScene(item.mapRectToScene(item.body()).center())
        g = ed.view.viewport().mapToGlobal(pos)
        return {"at": [g.x(), g.y()], "shown": ed.view.viewport().rect().contains(pos)}

    def q_items(self, _req) -> list | None:
        from PySide6.QtWidgets import QApplication, QComboBox

        popup = QApplication.activePopupWidget()
        combo = popup.parentWidget() if popup is not None else None
        if not isinstance(combo, QComboBox):
            return None
        view = combo.view()
        out = []
        for k in range(combo.count()):
            r = view.visualRect(view.model().index(k, 0)).intersected(view.viewport().rect())
            top_left = view.viewport().mapToGlobal(r.topLeft())
            out.append({"text": combo.itemText(k), "rect": None if r.isEmpty() else [top_left.x(), top_left.y(), r.width(), r.height()]})
        return out

    def q_dialog(self, _req) -> dict | None:
        from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit

        modal = QApplication.activeModalWidget()
        if modal is None:
            return None
        out = {"title": modal.windowTitle(), "class": type(modal).__name__, "active": modal.isActiveWindow()}
        if isinstance(modal, QFileDialog):
            name = modal.findChild(QLineEdit, "fileNameEdit")
            out["file_name"] = name.text() if name is not None else None
            out["file_name_focus"] = name is not None and name.hasFocus()
            out["selected"] = name.selectedText() if name is not None else None
        return out


def serve(socket_path: str, home: str) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtNetwork import QLocalServer

    from gindex_studio.ui.app import MainWindow
    from gindex_studio.ui.application import studio_application

    app = studio_application()
    settings = QSettings(str(Path(home) / "settings.ini"), QSettings.IniFormat)
    win = MainWindow(settings=settings, autosave_dir=str(Path(home) / "autosave"))
    win.show()
    driver = Driver(win)
    server = QLocalServer()
    clients = []

    def connected():
        conn = server.nextPendingConnection()
        clients.append(conn)
        buf = bytearray()

        def readable():
            buf.extend(bytes(conn.readAll()))
            while b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                buf[:] = rest
                try:
                    reply = driver.answer(json.loads(line))
                except Exception as e:  # a question the driver cannot answer is reported, not fatal
                    reply = {"error": f"{type(e).__name__}: {e}"}
                conn.write(json.dumps(reply).encode() + b"\n")
                conn.flush()

        conn.readyRead.connect(readable)

    server.newConnection.connect(connected)
    if not server.listen(socket_path):
        print(f"x11_driver: cannot listen on {socket_path}: {server.errorString()}", file=sys.stderr)
        return 2
    return app.exec()


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1], sys.argv[2]))
