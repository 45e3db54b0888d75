"""Undo commands. Each is small and calls only FlowDocument methods; the scene follows signals.

Composite edits (delete a selection, splice, add-and-wire, paste) are parent commands whose
children are these. Their texts (the History dock, Edit → Undo …) speak the library's words, as the
canvas and the inspector do: a type's label ("button", not ``ui_button``), an attribute's label
("To debug window", not ``tosidebar``), a node's shown label (its name, else its type's label),
never an id (``type_words``, ``attribute_words``, ``node_words``).
"""
from __future__ import annotations

import copy
from typing import Any

from PySide6.QtGui import QUndoCommand

from gindex_studio.core.flows.library import humanise
from gindex_studio.ui.model.document import MISSING, FlowDocument


def type_words(library, type_id: str) -> str:
    """A node type as the palette shows it: the library's label, else the type id."""
    nt = library.get(type_id) if library is not None and type_id else None
    return (getattr(nt, "label", "") or type_id) if nt is not None else (type_id or "node")


def node_words(doc: FlowDocument, node_id: str) -> str:
    """A node as the canvas shows it: its name, else its type's label."""
    return doc.label(node_id) if doc.has(node_id) else node_id


def attribute_words(doc: FlowDocument, node_id: str, key: str) -> str:
    """An attribute as the inspector labels it: the library's label, else the key made readable."""
    node = doc.node(node_id) if doc.has(node_id) else None
    nt = doc.library.get(node.type) if node is not None and doc.library is not None else None
    a = nt.attribute(key) if nt is not None else None
    return a.label if a is not None and a.label else humanise(key)


def edit_text(doc: FlowDocument, node_id: str, key: str, verb: str = "Edit") -> str:
    """"Edit To debug window of debug": the undo text of an edit of ``key`` of ``node_id``."""
    if key == "name" and verb == "Edit":
        return f"Rename {node_words(doc, node_id)}"
    linker = {"Add": "to", "Remove": "from"}.get(verb, "of")
    return f"{verb} {attribute_words(doc, node_id, key)} {linker} {node_words(doc, node_id)}"


class AddNode(QUndoCommand):
    def __init__(self, doc: FlowDocument, data: dict, index: int | None = None, text: str = "", parent=None):
        super().__init__(text or f"Add {type_words(doc.library, data.get('type', ''))}", parent)
        self.doc, self.data, self.index = doc, data, index

    def redo(self):
        self.doc.add_node(copy.deepcopy(self.data), self.index)

    def undo(self):
        self.doc.remove_node(self.data["id"])


class RemoveNode(QUndoCommand):
    def __init__(self, doc: FlowDocument, node_id: str, parent=None):
        super().__init__(f"Delete {node_words(doc, node_id)}", parent)
        self.doc, self.node_id = doc, node_id
        self.index: int | None = None
        self.data: dict | None = None

    def redo(self):
        self.index, self.data = self.doc.remove_node(self.node_id)

    def undo(self):
        self.doc.add_node(self.data, self.index)


class SetWires(QUndoCommand):
    """Replace the ``wires`` of one node (wiring, unwiring, splicing are all this)."""

    def __init__(self, doc: FlowDocument, node_id: str, wires: Any, text: str = "Wire", parent=None):
        super().__init__(text, parent)
        self.doc, self.node_id, self.new = doc, node_id, wires
        self.old = doc.wires_value(node_id)
        self.key_index = doc.key_index(node_id, "wires")

    def redo(self):
        self.doc.set_attribute(self.node_id, "wires", copy.deepcopy(self.new))

    def undo(self):
        self.doc.set_attribute(self.node_id, "wires", copy.deepcopy(self.old), self.key_index)


class SetAttribute(QUndoCommand):
    """Set, add or (with MISSING) remove one attribute; undo puts the old value back in place."""

    MERGE_ID = 1001

    def __init__(self, doc: FlowDocument, node_id: str, key: str, value: Any, text: str = "", parent=None):
        verb = "Remove" if value is MISSING else "Edit"
        super().__init__(text or edit_text(doc, node_id, key, verb), parent)
        self.doc, self.node_id, self.key, self.new = doc, node_id, key, value
        self.old = copy.deepcopy(doc.get_attribute(node_id, key))
        self.key_index = doc.key_index(node_id, key)

    def redo(self):
        self.doc.set_attribute(self.node_id, self.key, copy.deepcopy(self.new))

    def undo(self):
        self.doc.set_attribute(self.node_id, self.key, copy.deepcopy(self.old), self.key_index)

    def id(self):
        return self.MERGE_ID

    def mergeWith(self, other):  # typing in one field becomes one entry
        if not isinstance(other, SetAttribute) or (other.node_id, other.key) != (self.node_id, self.key):
            return False
        if self.new is MISSING or other.new is MISSING or self.old is MISSING:
            return False
        self.new = other.new
        return True


class MoveNodes(QUndoCommand):
    """Move nodes: ``moves`` is {id: (old, new)}, a position None meaning "no x/y in the file"."""

    def __init__(self, doc: FlowDocument, moves: dict, text: str = "Move", parent=None):
        if text == "Move":
            text = f"Move {node_words(doc, next(iter(moves)))}" if len(moves) == 1 else f"Move {len(moves)} nodes"
        super().__init__(text, parent)
        self.doc, self.moves = doc, moves

    def redo(self):
        for i, (_old, new) in self.moves.items():
            self.doc.set_position(i, new)

    def undo(self):
        for i, (old, _new) in self.moves.items():
            self.doc.set_position(i, old)


class SetTaskField(QUndoCommand):
    """Edit a task's ``title``, ``text`` (prompt) or ``name`` (domain); typing merges into one entry."""

    MERGE_ID = 1002
    WHAT = {"title": "title", "text": "prompt", "name": "domain"}

    def __init__(self, doc: FlowDocument, key: str, text: str, parent=None):
        super().__init__(f"Edit {self.WHAT.get(key, key)}", parent)
        self.doc, self.key, self.old, self.new = doc, key, doc.task_field(key), text

    def redo(self):
        self.doc.set_task_field(self.key, self.new)

    def undo(self):
        self.doc.set_task_field(self.key, self.old)

    def id(self):
        return self.MERGE_ID

    def mergeWith(self, other):
        if not isinstance(other, SetTaskField) or other.key != self.key:
            return False
        self.new = other.new
        return True


def SetPrompt(doc: FlowDocument, text: str) -> SetTaskField:
    return SetTaskField(doc, "text", text)


class SetContainer(QUndoCommand):
    """Turn a bare array into a task or back (the file's shape); undo restores the old shape."""

    def __init__(self, doc: FlowDocument, container, text: str, parent=None):
        super().__init__(text, parent)
        self.doc, self.new = doc, container
        self.old = copy.deepcopy(doc.flow.container)

    def redo(self):
        self.doc.set_container(copy.deepcopy(self.new))

    def undo(self):
        self.doc.set_container(copy.deepcopy(self.old))


# ----- composite edits --------------------------------------------------------------------------


class Macro(QUndoCommand):
    """Several commands as one undo entry (children kept in Python, run in order, undone in reverse)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.parts: list[QUndoCommand] = []

    def add(self, command: QUndoCommand) -> Macro:
        self.parts.append(command)
        return command

    def redo(self):
        for c in self.parts:
            c.redo()

    def undo(self):
        for c in reversed(self.parts):
            c.undo()


def remove_nodes(doc: FlowDocument, ids: list[str], wires: list[tuple[str, int, str]] = ()) -> Macro:
    """Delete nodes (and every wire into them) and single wires, as one undo entry."""
    ids = [i for i in dict.fromkeys(ids) if doc.has(i)]
    parts = []
    if len(ids) == 1:
        parts.append(node_words(doc, ids[0]))
    elif ids:
        parts.append(f"{len(ids)} nodes")
    if wires:
        parts.append(f"{len(wires)} wire{'s' if len(wires) != 1 else ''}")
    cmd = Macro("Delete " + " and ".join(parts))
    gone = set(ids)
    cut: dict[str, list] = {}
    for src, port, dst in wires:
        if src in gone or not doc.has(src):
            continue
        cut.setdefault(src, []).append((port, dst))
    for n_id in doc.node_ids():
        if n_id in gone:
            continue
        ports = doc.node(n_id).ports
        drop = cut.get(n_id, [])
        new = [[t for t in p if t not in gone and (k, t) not in drop] for k, p in enumerate(ports)]
        if new != ports:
            cmd.add(SetWires(doc, n_id, new, "Unwire"))
    for i in ids:
        cmd.add(RemoveNode(doc, i))
    return cmd


def add_node_wired(doc: FlowDocument, data: dict, wire_from: tuple[str, int] | None = None,
                   wire_to: str | None = None, text: str = "") -> Macro:
    """Add a node, optionally wired from (src, port) and/or to a target, as one entry."""
    cmd = Macro(text or f"Add {type_words(doc.library, data.get('type', ''))}")
    cmd.add(AddNode(doc, data))
    if wire_from is not None:
        src, port = wire_from
        cmd.add(SetWires(doc, src, doc.wires_with(src, port, data["id"]), "Wire"))
    if wire_to is not None:
        data.setdefault("wires", [[]])
        data["wires"] = [[wire_to]] + [list(p) for p in data["wires"][1:]]
    return cmd


def splice(doc: FlowDocument, node_id: str, wire: tuple[str, int, str], move: dict | None) -> Macro:
    """Put ``node_id`` into ``wire``: src→node on the wire's port, node→dst on output 0."""
    src, port, dst = wire
    cmd = Macro(f"Splice {node_words(doc, node_id)}")
    if move:
        cmd.add(MoveNodes(doc, move, "Move"))
    ports = doc.wires_without(src, port, dst)
    while len(ports) <= port:
        ports.append([])
    ports[port].append(node_id)
    cmd.add(SetWires(doc, src, ports, "Wire"))
    cmd.add(SetWires(doc, node_id, doc.wires_with(node_id, 0, dst), "Wire"))
    return cmd


def add_nodes(doc: FlowDocument, nodes: list[dict], text: str) -> Macro:
    """Paste or drop several nodes as one entry."""
    cmd = Macro(text)
    for data in nodes:
        cmd.add(AddNode(doc, data))
    return cmd


def add_config(doc: FlowDocument, data: dict, user: tuple[str, str] | None = None) -> Macro:
    """Add a config node and, with ``user`` = (node id, attribute key), point that attribute at it."""
    cmd = Macro(f"Create {type_words(doc.library, data.get('type', '')) if data.get('type') else 'config node'}")
    cmd.add(AddNode(doc, data))
    if user is not None:
        cmd.add(SetAttribute(doc, user[0], user[1], data["id"]))
    return cmd
