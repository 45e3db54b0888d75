"""FlowEditor: one reusable editing widget (document + undo stack + scene + view).

The main window holds one per open file; the compare view can put two side by side. Everything
a menu action does to a flow is a method here, and every change is an undo command.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QCursor, QGuiApplication, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QLabel,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
    QHBoxLayout,
)

from gindex_studio.core.flows.flow import Flow

from gindex_studio.ui.actions import menu_entry
from gindex_studio.ui.canvas.minimap import Minimap
from gindex_studio.ui.canvas.scene import FlowScene
from gindex_studio.ui.canvas.view import FlowView
from gindex_studio.ui.library_access import port_counts
from gindex_studio.ui.model import commands as cmd
from gindex_studio.core.editing.clipboard import export_nodes, parse_paste, remap_nodes
from gindex_studio.ui.model.document import FlowDocument
from gindex_studio.core.editing.layout import align, distribute, layered_layout


#: the navigator's size bounds (pixels): it takes a third of the canvas between them
MINIMAP_MIN, MINIMAP_MAX = (72, 48), (200, 130)
#: scene pixels between a node and the one added to its right from the keyboard
NEXT_GAP = 60
#: the canvas never shrinks below this: docks give way first
CANVAS_MIN = (300, 160)


class FlowEditor(QWidget):
    """Canvas editor for one flow. ``node_selected(str)`` mirrors the scene's signal."""

    node_selected = Signal(str)
    quick_add_requested = Signal(QPointF, str, object)  # pos, text, wire_from (src, port) or None
    message = Signal(str)  # status-bar text (e.g. what a paste recovered)
    title_changed = Signal()

    def __init__(self, flow: Flow | None = None, path: str | None = None, library: Any = None, parent=None):
        super().__init__(parent)
        self.doc = FlowDocument(flow, path, library, self)
        self.undo_stack = QUndoStack(self)
        self.scene = FlowScene(self.doc, self)
        self.view = FlowView(self.scene, self.push)
        self.forced_dirty = False  # restored from autosave: dirty until saved
        self.autosave_id: str | None = None
        self.disk_stamp = None  # core.files.FileStamp of the file as last read or saved (the app sets it)
        self.suggested_name = "untitled.json"  # Save As's proposal for an untitled flow
        self.suggested_folder: str | None = None  # where Save As starts for it (None: the last used folder)
        self.recovered_from: str | None = None  # the damaged file this document was recovered from

        self.tabs = QTabBar()
        self.tabs.setDocumentMode(True)
        self.tabs.setExpanding(False)
        self.tabs.currentChanged.connect(self._on_tab)

        from gindex_studio.ui.panels.task_header import TaskHeader

        self.prompt_box = TaskHeader(self)
        self.prompt = self.prompt_box.prompt

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        self.banner = QLabel()
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.hide()
        lay.addWidget(self.banner)
        lay.addWidget(self.prompt_box)
        self.config_button = QToolButton()
        self.config_button.setPopupMode(QToolButton.InstantPopup)
        self.config_button.setToolTip("Configuration nodes (not drawn on the canvas): choose one to edit it")
        from PySide6.QtWidgets import QMenu

        self.config_menu = QMenu(self.config_button)
        self.config_button.setMenu(self.config_menu)
        self.config_menu.aboutToShow.connect(self._fill_config_menu)
        self.tab_row = QWidget()
        tr = QHBoxLayout(self.tab_row)
        tr.setContentsMargins(0, 0, 4, 0)
        tr.addWidget(self.tabs, 1)
        tr.addWidget(self.config_button)
        lay.addWidget(self.tab_row)
        from gindex_studio.ui.panels.find_bar import FindBar

        self.find_bar = FindBar(self)
        lay.addWidget(self.find_bar)
        lay.addWidget(self.view, 1)
        self.minimap = Minimap(self.view, self.view)
        self.view.setMinimumSize(*CANVAS_MIN)

        self.scene.node_selected.connect(self.node_selected)
        self.view.quick_add_requested.connect(self.open_quick_add_next)
        self.view.wire_dropped.connect(lambda s, port, p: self.open_quick_add(p, "", (s, port)))
        self.quick_add_popup = None
        self.view.type_dropped.connect(lambda t, p: self.add_node(t, p))
        self.doc.workspaces_changed.connect(self._sync_tabs)
        self.doc.node_added.connect(self._sync_config_button)
        self.doc.node_removed.connect(self._sync_config_button)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self._sync_tabs()

    def show_banner(self, text: str) -> None:
        """A notice above the canvas (e.g. "recovered from a damaged file"), in the theme's warning colours."""
        from gindex_studio.ui.theme import banner_colors

        fg, bg = banner_colors()
        self.banner.setStyleSheet(f"QLabel#banner {{ color: {fg}; background: {bg}; padding: 6px; }}")
        self.banner.setText(text)
        self.banner.show()

    # ----- state ------------------------------------------------------------------------------
    @property
    def path(self) -> str | None:
        return self.doc.path

    def is_dirty(self) -> bool:
        return self.forced_dirty or not self.undo_stack.isClean()

    def title(self) -> str:
        import os

        if self.path:
            name = os.path.basename(self.path)
        else:
            name = "untitled" if self.suggested_name == "untitled.json" else f"{self.suggested_name} (copy)"
        return name + (" •" if self.is_dirty() else "")

    def mark_saved(self, path: str) -> None:
        self.doc.path = path
        self.forced_dirty = False
        self.undo_stack.setClean()
        self.title_changed.emit()

    def _on_clean_changed(self, _clean: bool) -> None:
        self.title_changed.emit()

    def push(self, command: QUndoCommand) -> None:
        self.undo_stack.push(command)

    def resizeEvent(self, e):
        super().resizeEvent(e)
        self._place_minimap()

    def _place_minimap(self) -> None:
        """At most a third of the canvas each way (so a shrunken window keeps both the navigator
        and the flow beside it reachable), in a corner free of nodes (``Minimap.place``)."""
        vp = self.view.viewport()
        w = int(max(MINIMAP_MIN[0], min(MINIMAP_MAX[0], vp.width() / 3)))
        h = int(max(MINIMAP_MIN[1], min(MINIMAP_MAX[1], vp.height() / 3)))
        if (w, h) != (self.minimap.width(), self.minimap.height()):
            self.minimap.setFixedSize(w, h)
            self.minimap.refresh()
        self.minimap.place()

    def showEvent(self, e):
        super().showEvent(e)
        self._place_minimap()
        self.minimap.refresh()

    # ----- task -----------------------------------------------------------------------------
    def make_task(self, on: bool = True) -> None:
        """Turn this flow into a benchmark task (dataset shape) or back into a bare array."""
        from gindex_studio.core.editing.task import as_array, as_task

        if on == self.doc.has_prompt:
            return
        if on:
            self.push(cmd.SetContainer(self.doc, as_task(self.doc.flow), "Make a task"))
        else:
            self.push(cmd.SetContainer(self.doc, as_array(), "Make a plain flow"))

    # ----- workspaces -------------------------------------------------------------------------
    def _sync_tabs(self) -> None:
        spaces = self.doc.workspaces()
        current = self.scene.workspace
        self.tabs.blockSignals(True)
        while self.tabs.count():
            self.tabs.removeTab(0)
        for z, label in spaces:
            k = self.tabs.addTab(label)
            self.tabs.setTabData(k, z)
        ids = [z for z, _ in spaces]
        if current in ids:
            idx = ids.index(current)
        else:  # start on the first workspace that has nodes
            used = {self.doc.workspace_of(i) for i in self.doc.drawn_ids()}
            idx = next((k for k, z in enumerate(ids) if z in used), 0)
        self.tabs.setCurrentIndex(idx)
        self.tabs.blockSignals(False)
        self.tabs.setVisible(len(spaces) > 1)
        self._sync_config_button()
        self.scene.set_workspace(ids[idx] if len(spaces) > 1 else None)

    def _sync_config_button(self, _node_id: str = "") -> None:
        configs = self.doc.config_ids()
        self.config_button.setText(f"Config nodes ({len(configs)})")
        self.config_button.setVisible(bool(configs))
        in_row = self.config_button.parentWidget() is self.tab_row  # (compare puts it in its header)
        self.tab_row.setVisible(self.tabs.count() > 1 or (in_row and bool(configs)))

    def _on_tab(self, k: int) -> None:
        if k >= 0:
            self.scene.set_workspace(self.tabs.tabData(k))
            self.view.sync_hint()
            self.minimap.refresh()
            QTimer.singleShot(0, self.view.fit)

    def _fill_config_menu(self) -> None:
        self.config_menu.clear()
        for i in self.doc.config_ids():
            n = self.doc.node(i)
            menu_entry(self.config_menu, f"{self.doc.label(i)}  ({n.type})", lambda i=i: self.node_selected.emit(i))

    def current_workspace(self) -> str:
        ws = self.scene.workspace
        if ws is None:
            spaces = self.doc.workspaces()
            return spaces[0][0] if spaces else ""
        return ws

    def show_workspace(self, z: str) -> None:
        for k in range(self.tabs.count()):
            if self.tabs.tabData(k) == z:
                self.tabs.setCurrentIndex(k)

    # ----- adding -----------------------------------------------------------------------------
    def new_node_data(self, type_id: str, pos: QPointF) -> dict:
        lib = self.doc.library
        nt = lib.get(type_id)
        data: dict[str, Any] = {"id": self.doc.fresh_id(), "type": type_id}
        z = self.current_workspace()
        if z:
            data["z"] = z
        defaults = nt.defaults() if nt is not None else {}
        if "name" not in defaults:
            data["name"] = ""
        data.update(defaults)
        x, y = pos.x(), pos.y()
        if self.scene.snap_to_grid:
            from gindex_studio.ui.canvas.geometry import snap

            x, y = snap(x), snap(y)
        data["x"], data["y"] = round(x), round(y)
        from gindex_studio.core.flows.flow import Node

        outs = port_counts(lib, Node(data))[1] if nt is not None else 1
        data["wires"] = [[] for _ in range(outs)]
        return data

    def free_position(self, pos: QPointF, type_id: str) -> QPointF:
        """``pos``, or the first place below it where a new node of ``type_id`` overlaps no
        drawn node of this workspace (so adds in a row never land on top of each other)."""
        from gindex_studio.ui.canvas import geometry as g

        nt = self.doc.library.get(type_id)
        w, h = g.node_size((getattr(nt, "label", "") or type_id) if nt else type_id, max(getattr(nt, "outputs", 1) or 1, 1))
        x, y = pos.x(), pos.y()
        if self.scene.snap_to_grid:
            x, y = g.snap(x), g.snap(y)
        return QPointF(x, y + self.clear_offset([QRectF(x - w / 2, y - h / 2, w, h)]))

    def clear_offset(self, rects: list[QRectF], on_top: bool = False) -> float:
        """How far down (in steps of three grid cells) ``rects`` (scene) must move together so that
        none comes within 10 pixels of a drawn node of this workspace (``on_top``: so that none
        covers half or more of one, as a copy pasted over its original would)."""
        from gindex_studio.ui.canvas import geometry as g

        boxes = [item.mapRectToScene(item.body()) for item in self.scene.nodes.values() if item.isVisible()]

        def hits(r: QRectF, b: QRectF) -> bool:
            if not on_top:
                return r.adjusted(-10, -10, 10, 10).intersects(b)
            i = r.intersected(b)
            return i.width() * i.height() >= 0.5 * min(r.width() * r.height(), b.width() * b.height())

        dy = 0.0
        for _ in range(500):
            if not any(hits(r.translated(0, dy), b) for r in rects for b in boxes):
                break
            dy += 3 * g.GRID
        return dy

    def new_config_data(self, type_id: str) -> dict:
        """A config node of ``type_id`` with its defaults (no place, no wires: it is not drawn)."""
        nt = self.doc.library.get(type_id)
        data: dict[str, Any] = {"id": self.doc.fresh_id(), "type": type_id}
        defaults = nt.defaults() if nt is not None else {}
        if "name" not in defaults:
            data["name"] = ""
        data.update(defaults)
        return data

    def add_config_node(self, type_id: str, user: tuple[str, str] | None = None) -> str:
        """Create a config node (optionally referenced by ``user`` = (node id, key)); the
        inspector shows it unless it was created for a node's field."""
        data = self.new_config_data(type_id)
        self.push(cmd.add_config(self.doc, data, user))
        remember_recent(type_id)
        if user is None:
            self.node_selected.emit(data["id"])
        return data["id"]

    def add_node(self, type_id: str, pos: QPointF, wire_from: tuple[str, int] | None = None) -> str:
        from gindex_studio.ui.library_access import is_config_type

        if is_config_type(self.doc.library, type_id):
            return self.add_config_node(type_id)
        data = self.new_node_data(type_id, self.free_position(pos, type_id))
        self.push(cmd.add_node_wired(self.doc, data, wire_from))
        self.scene.select_nodes([data["id"]])
        remember_recent(type_id)
        return data["id"]

    def wire_source(self) -> tuple[str, int] | None:
        """Where a node added from the keyboard is wired from: the one selected drawn node's first
        output with no wire (else its first output); None without exactly one such node."""
        ids = self.scene.selected_node_ids()
        item = self.scene.nodes.get(ids[0]) if len(ids) == 1 else None
        if item is None or not item.isVisible() or not item.output_ports:
            return None
        ports = self.doc.node(ids[0]).ports
        free = next((k for k in range(len(item.output_ports)) if k >= len(ports) or not ports[k]), 0)
        return ids[0], free

    def right_of(self, source: tuple[str, int], type_id: str = "") -> QPointF:
        """The centre of a new node of ``type_id`` placed to the right of ``source``'s node, level
        with its output port (Node-RED's spacing: a node's width apart)."""
        from gindex_studio.ui.canvas import geometry as g

        item = self.scene.nodes[source[0]]
        nt = self.doc.library.get(type_id) if type_id else None
        w = g.node_size((getattr(nt, "label", "") or type_id) if nt else type_id, 1)[0] if type_id else g.MIN_W
        body = item.scene_body()
        return QPointF(body.right() + NEXT_GAP + w / 2, item.output_pos(source[1]).y())

    def add_next(self, type_id: str) -> str:
        """Add ``type_id`` as from the keyboard (the palette's Enter): wired from ``wire_source``
        and placed to its right when a node is selected and the new type takes an input, else at
        the view's centre; a config type makes a config node. The new node is selected and shown."""
        from gindex_studio.ui.library_access import is_config_type

        if is_config_type(self.doc.library, type_id):
            return self.add_config_node(type_id)
        source = self.wire_source() if self._takes_input(type_id) else None
        if source is None:
            c = self.view.visible_scene_rect().center()
            return self.add_node(type_id, QPointF(c.x(), c.y()))
        nid = self.add_node(type_id, self.right_of(source, type_id), source)
        self.view.ensureVisible(self.scene.nodes[nid], 40, 40)
        return nid

    def _takes_input(self, type_id: str) -> bool:
        nt = self.doc.library.get(type_id)
        return nt is None or bool(getattr(nt, "inputs", 1))

    def open_quick_add_next(self, pos: QPointF, text: str = ""):
        """Quick-add from the keyboard (typing on the canvas, Ctrl+Space): with one node selected
        the popup lists types with an input and the chosen one is wired from it and placed to its
        right (``add_next``); else it opens at ``pos`` and adds there."""
        source = self.wire_source()
        if source is None:
            return self.open_quick_add(pos, text, None)
        return self.open_quick_add(self.right_of(source), text, source, placed=True)

    def open_quick_add(self, pos: QPointF, text: str = "", wire_from: tuple[str, int] | None = None,
                       placed: bool = False):
        """The quick-add popup at ``pos`` (scene); choosing a type adds it there (wired)."""
        from gindex_studio.ui.panels.quick_add import QuickAdd

        if self.quick_add_popup is not None:
            self.quick_add_popup.close()
        popup = QuickAdd(self.doc.library, recent_types(), need_input=wire_from is not None, parent=self)
        if wire_from is not None and not placed:
            pos = QPointF(pos.x() + 70, pos.y())

        def chosen(type_id: str) -> None:
            at = self.right_of(wire_from, type_id) if placed else pos
            nid = self.add_node(type_id, at, wire_from)
            if placed and nid in self.scene.nodes:  # a chain typed on the canvas stays in view, as the
                self.view.ensureVisible(self.scene.nodes[nid], 40, 40)  # palette's Enter; a node put at the pointer stays there
            self.view.setFocus()

        popup.chosen.connect(chosen)
        self.quick_add_popup = popup
        self.quick_add_requested.emit(pos, text, wire_from)
        vp = self.view.mapFromScene(pos)
        popup.popup(self.view.viewport().mapToGlobal(vp), text)
        return popup

    # ----- selection and deletion -------------------------------------------------------------
    def select_all(self) -> None:
        self.scene.select_nodes(self.scene.visible_ids())

    def delete_selection(self) -> None:
        ids, wires = self.scene.selected_node_ids(), self.scene.selected_wires()
        if ids or wires:
            self.push(cmd.remove_nodes(self.doc, ids, wires))

    def focus_node(self, node_id: str) -> None:
        if not self.doc.has(node_id):
            return
        if self.doc.is_drawn(node_id):
            self.show_workspace(self.doc.workspace_of(node_id))
            self.scene.select_nodes([node_id])
            self.view.center_on_node(node_id)
        else:
            self.node_selected.emit(node_id)

    def open_find(self) -> None:
        """Show the find bar with the focus in it (Ctrl+F)."""
        self.find_bar.open_bar()

    def find_step(self, direction: int) -> str | None:
        """The next / previous match of the find bar's text (F3 / Shift+F3)."""
        if not self.find_bar.edit.text().strip():
            self.open_find()
            return None
        return self.find_bar.step(direction)

    # ----- clipboard --------------------------------------------------------------------------
    def copy_text(self) -> str:
        ids = self.scene.selected_node_ids()
        return export_nodes([self.doc.node(i).data for i in ids], self.doc.position) if ids else ""

    def copy(self) -> bool:
        text = self.copy_text()
        if text:
            QGuiApplication.clipboard().setText(text)
            self.message.emit(f"Copied {nodes_words(len(self.scene.selected_node_ids()))}")
        return bool(text)

    def cut(self) -> None:
        if self.copy():
            self.delete_selection()

    def paste(self, text: str | None = None) -> list[str]:
        if text is None:
            text = QGuiApplication.clipboard().text()
        if not text.strip():
            self.message.emit("The clipboard holds no text")
            return []
        pasted = parse_paste(text)
        if not pasted.nodes:
            self.message.emit(f"Nothing to paste: {pasted.error}")
            return []
        nodes = remap_nodes(
            pasted.nodes, set(self.doc.node_ids()), self.current_workspace(),
            {z for z, _ in self.doc.workspaces()}, at=self._paste_point(),
        )
        self._clear_of_nodes(nodes)
        self.push(cmd.add_nodes(self.doc, nodes, f"Paste {nodes_words(len(nodes))}"))
        ids = [n["id"] for n in nodes]
        self.scene.select_nodes(ids)
        if pasted.syntax is not None:
            s = pasted.syntax
            self.message.emit(f"Pasted what could be read: {s.message} (line {s.line}, column {s.column})")
        else:
            self.message.emit(f"Pasted {nodes_words(len(nodes))}")
        self.last_paste_syntax = pasted.syntax
        return ids

    last_paste_syntax = None

    def _clear_of_nodes(self, nodes: list[dict]) -> None:
        """Move pasted ``nodes`` (placed at the pointer) down together until none of them covers
        a node already drawn there (a copy pasted where its original is lands just below it;
        beside a node, it stays at the pointer)."""
        from gindex_studio.ui.canvas import geometry as g

        rects = []
        for n in nodes:
            if isinstance(n.get("x"), (int, float)) and isinstance(n.get("y"), (int, float)):
                nt = self.doc.library.get(n.get("type", ""))
                label = n.get("name") or (getattr(nt, "label", "") if nt else "") or str(n.get("type", ""))
                w, h = g.node_size(str(label), max(len(n.get("wires") or []), 1))
                rects.append(QRectF(n["x"] - w / 2, n["y"] - h / 2, w, h))
        dy = round(self.clear_offset(rects, on_top=True)) if rects else 0
        for n in nodes:
            if dy and isinstance(n.get("y"), (int, float)):
                n["y"] = n["y"] + dy

    def _paste_point(self) -> tuple[float, float]:
        """At the pointer when it is over the canvas (as Node-RED pastes), else the view's centre."""
        vp = self.view.viewport()
        at = vp.mapFromGlobal(QCursor.pos())
        if vp.rect().contains(at):
            p = self.view.mapToScene(at)
            return p.x(), p.y()
        c = self.view.visible_scene_rect().center()
        return c.x() + 40, c.y() + 40

    # ----- arranging --------------------------------------------------------------------------
    def _boxes(self, ids) -> dict:
        out = {}
        for i in ids:
            item = self.scene.nodes[i]
            out[i] = (item.pos().x(), item.pos().y(), item.w, item.h)
        return out

    def _move_to(self, targets: dict, text: str) -> None:
        moves = {}
        for i, (x, y) in targets.items():
            cur = self.doc.position(i)
            if abs(cur[0] - x) > 0.5 or abs(cur[1] - y) > 0.5 or not self.doc.has_position(i):
                moves[i] = (self.doc.stored_position(i), (x, y))
        if moves:
            self.push(cmd.MoveNodes(self.doc, moves, text))

    def align_selection(self, mode: str) -> None:
        ids = self.scene.selected_node_ids()
        if len(ids) >= 2:
            self._move_to(align(self._boxes(ids), mode), f"Align {mode}")

    def distribute_selection(self, axis: str) -> None:
        ids = self.scene.selected_node_ids()
        if len(ids) >= 3:
            self._move_to(distribute(self._boxes(ids), axis), "Distribute " + ("horizontally" if axis == "h" else "vertically"))

    def auto_layout(self) -> None:
        """Layered layout of the selection (or the whole workspace), as one undo entry."""
        ids = self.scene.selected_node_ids()
        if len(ids) < 2:
            ids = self.scene.visible_ids()
        if not ids:
            return
        idset = set(ids)
        edges = [(s, d) for (s, _p, d) in self.scene.wires if s in idset and d in idset]
        boxes = self._boxes(ids)
        sizes = {i: (b[2], b[3] + 18) for i, b in boxes.items()}  # room for status lines
        left = min(b[0] - b[2] / 2 for b in boxes.values())
        top = min(b[1] - b[3] / 2 for b in boxes.values())
        pos = layered_layout(ids, edges, sizes, origin=(0.0, 0.0))
        # keep the layout where the nodes were; node centres from the layout's left/top corner
        min_left = min(pos[i][0] - sizes[i][0] / 2 for i in ids)
        min_top = min(pos[i][1] - sizes[i][1] / 2 for i in ids)
        targets = {i: (round(x - min_left + left), round(y - min_top + top)) for i, (x, y) in pos.items()}
        self._move_to(targets, "Auto-layout")
        self.view.fit()


def nodes_words(n: int) -> str:
    """"1 node", "3 nodes"."""
    return f"{n} node{'' if n == 1 else 's'}"


# ----- recent node types (shared by every editor) -------------------------------------------------
_RECENT: list[str] = []


def remember_recent(type_id: str) -> None:
    if type_id in _RECENT:
        _RECENT.remove(type_id)
    _RECENT.insert(0, type_id)
    del _RECENT[12:]


def recent_types() -> list[str]:
    return list(_RECENT)
