"""Inspector: edit the selected node's name and attributes, each with an editor fitting its kind.

Every change becomes one ``SetAttribute`` undo command (several, as one entry, where one control
writes several attributes). Lists are rows as in Node-RED's dialogs (a change's and a switch's
rules, an inject's properties, a request's headers: ``STRUCTURED``), and the core nodes' options
are the controls their dialogs show (``core.editing.node_forms``). Attributes the library does
not know are edited as JSON; attributes can be added and removed. The JSON editor refuses
invalid JSON and says why.
"""
from __future__ import annotations

import html
import json
from typing import Callable

from PySide6.QtCore import QRegularExpression, QSize, Qt
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gindex_studio.core.flows.flow import LAYOUT_KEYS, STRUCTURE_KEYS
from gindex_studio.core.editing import node_forms
from gindex_studio.core.flows.library import humanise

from gindex_studio.ui.library_access import node_type_color
from gindex_studio.ui.theme import error_color
from gindex_studio.ui.model.commands import Macro, SetAttribute, edit_text, remove_nodes
from gindex_studio.ui.model.document import MISSING
from gindex_studio.ui.panels.change_rules import ChangeRulesEditor
from gindex_studio.ui.panels.code_editor import CodeField
from gindex_studio.ui.panels.json_editor import JsonEditor
from gindex_studio.ui.panels.config_field import ConfigRefField, config_users
from gindex_studio.ui.panels.http_headers import HeadersEditor
from gindex_studio.ui.panels.inject_props import InjectPropsEditor
from gindex_studio.ui.panels.repeat_field import RepeatField, parse_repeat
from gindex_studio.ui.panels.row_list import RowListEditor
from gindex_studio.ui.panels.switch_rules import SwitchRulesEditor
from gindex_studio.ui.panels.trigger_then import TriggerThenField
from gindex_studio.ui.panels.typed_value import ALL_TYPES, TypedValueField, value_text

HIDDEN_KEYS = LAYOUT_KEYS | STRUCTURE_KEYS | {"name"}
#: the inject node's attributes shown together as one Repeat control
REPEAT_KEYS = ("repeat", "crontab")
#: what the debug node's Output can be (Node-RED: a msg property, the whole msg, an expression)
DEBUG_OUTPUT_TYPES = ("msg", "full", "jsonata")
#: attributes with an editor of their own: (node type, key) → editor class taking the value
STRUCTURED = {("change", "rules"): ChangeRulesEditor, ("switch", "rules"): SwitchRulesEditor,
              ("inject", "props"): InjectPropsEditor, ("http request", "headers"): HeadersEditor}
#: attributes not shown as rows of their own: a structured editor writes them (a switch's Outputs
#: follow its rules; an inject's payload and topic are rows of its Properties)
FOLLOWING = {"switch": {"outputs"}, "inject": {"payload", "payloadType", "topic"}}


def typed_pairs(keys) -> dict[str, str]:
    """Value key → type key for Node-RED's typed values (``payload`` with ``payloadType``)."""
    keys = set(keys)
    return {k: k + "Type" for k in keys if k + "Type" in keys}


def _legacy_set(a, data: dict) -> bool:
    """A legacy attribute is shown only when the node really sets it (not absent, empty or default)."""
    return data.get(a.key, MISSING) not in (MISSING, a.default, "", None, False)


class Inspector(QWidget):
    """Shows one node of one editor. ``set_target(editor, node_id)``: any FlowEditor, so one
    inspector can follow several (the main window's tabs, the compare window's two sides)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.editor = None
        self.node_id: str | None = None
        self.editors: dict[str, QWidget] = {}
        self._type_keys: dict[str, str] = {}
        self._committers: dict[str, Callable[[], None]] = {}
        self._keys: tuple = ()
        self._pushing: str | None = None  # the list whose edit is being written
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Expanding)  # takes a dock column's spare height
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.scroll)
        self._empty("Select a node to edit it.")

    def sizeHint(self) -> QSize:
        """Tall: beside a short History dock the inspector takes most of the column."""
        return QSize(360, 900)

    # ----- target -----------------------------------------------------------------------------
    def set_target(self, editor, node_id: str | None) -> None:
        if self.editor is not editor:
            if self.editor is not None:
                try:
                    self.editor.doc.node_changed.disconnect(self._on_changed)
                    self.editor.doc.node_removed.disconnect(self._on_removed)
                    self.editor.doc.flow_reset.disconnect(self._on_reset)
                except (RuntimeError, TypeError):
                    pass
            self.editor = editor
            if editor is not None:
                editor.doc.node_changed.connect(self._on_changed)
                editor.doc.node_removed.connect(self._on_removed)
                editor.doc.flow_reset.connect(self._on_reset)
        self.node_id = node_id or None
        self.rebuild()

    def _on_changed(self, node_id: str) -> None:
        if node_id != self.node_id:
            return
        node = self.editor.doc.node(node_id)
        if node is None or self._key_set(node.data, node.type) != self._keys:
            self.rebuild()
        else:
            self.refresh_values()

    def _on_removed(self, node_id: str) -> None:
        if node_id == self.node_id:
            self.node_id = None
            self.rebuild()

    def _on_reset(self) -> None:
        """The editor's whole flow was replaced (another file or task in the same editor)."""
        if self.node_id and not self.editor.doc.has(self.node_id):
            self.node_id = None
        self.rebuild()

    def _key_set(self, data: dict, node_type: str = "") -> tuple:
        """What decides the page's rows: the attribute keys, and which legacy attributes are set."""
        nt = self.editor.doc.library.get(node_type) if node_type and self.editor is not None else None
        legacy = tuple(a.key for a in nt.attributes if a.legacy and _legacy_set(a, data)) if nt is not None else ()
        # a list editor's keys and what it writes with them do not change the rows (it follows them itself)
        own = FOLLOWING.get(node_type, set()) | {k for t, k in STRUCTURED if t == node_type}
        # rows shown only for some choices (a delay's rate fields): a choice that shows others rebuilds
        defaults = {a.key: a.default for a in nt.attributes} if nt is not None else {}
        shown = tuple(k for t, k in node_forms.SHOWN_WHEN if t == node_type
                      and node_forms.shown(node_type, k, data, defaults))
        return tuple(k for k in data if k not in HIDDEN_KEYS and k not in own) + ("|",) + legacy + ("|",) + shown

    def _empty(self, text: str) -> None:
        self.editors, self._committers, self._type_keys, self._keys = {}, {}, {}, ()
        lab = QLabel(text)
        lab.setAlignment(Qt.AlignCenter)
        lab.setStyleSheet("color: palette(placeholder-text)")
        self._show_page(lab)

    # ----- building ---------------------------------------------------------------------------
    def rebuild(self) -> None:
        doc = self.editor.doc if self.editor is not None else None
        node = doc.node(self.node_id) if doc is not None and self.node_id else None
        if node is None:
            self._empty("Select a node to edit it.")
            return
        self.editors, self._committers, self._type_keys = {}, {}, {}
        data = node.data
        self._keys = self._key_set(data, node.type)
        lib = doc.library
        nt = lib.get(node.type)
        page = QWidget()
        v = QVBoxLayout(page)
        head = QLabel(f"<b>{(getattr(nt, 'label', '') or node.type) if nt else node.type}</b>"
                      f" &nbsp;<span style='color:#666'>{node.type}</span>")
        head.setStyleSheet(f"background: {node_type_color(lib, node.type)}; color: #222222; padding: 6px; border-radius: 4px")  # on the node's own colour
        v.addWidget(head)
        ident = QLabel(f"id <code>{node.id}</code>")
        ident.setTextInteractionFlags(Qt.TextSelectableByMouse)
        v.addWidget(ident)
        desc = QLabel(nt.description if nt is not None and nt.description else
                      ("This node type is not in the node library: its attributes are edited as JSON." if nt is None else ""))
        desc.setWordWrap(True)
        desc.setObjectName("description")
        desc.setStyleSheet("color: palette(placeholder-text)")
        v.addWidget(desc)
        if not doc.is_drawn(node.id) and node.type not in ("tab",):
            v.addWidget(self._config_bar(node.id))
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.WrapAllRows)
        v.addLayout(form)
        # name first
        self._add_row(form, "name", "string", data.get("name", MISSING), (), "", removable=False, label="Name")
        known = {a.key: a for a in nt.attributes} if nt is not None else {}
        pairs = typed_pairs(list(known) + list(data))
        pairs.update({k: a.type_key for k, a in known.items() if a.type_key})
        type_keys = set(pairs.values())
        following = FOLLOWING.get(node.type, set())
        defaults = {a.key: a.default for a in known.values()}
        for key, a in known.items():
            if node.type == "inject" and key == "repeat":
                self._add_repeat_row(form, data)
            if key in HIDDEN_KEYS or key in type_keys or key in following or node.type == "inject" and key in REPEAT_KEYS:
                continue
            if a.legacy and not _legacy_set(a, data):
                continue  # kept for old flows: shown only where a node really sets it
            if not node_forms.shown(node.type, key, data, defaults):
                continue  # as Node-RED's dialog: not for this choice (a delay's rate when it delays)
            label = a.label + (" (legacy)" if a.legacy else "")
            if key in pairs:
                t = known.get(pairs[key])
                self._add_typed_row(form, key, pairs[key], data, a.default, t.default if t else None, label)
                continue
            editor_class = STRUCTURED.get((node.type, key))
            if editor_class is not None and issubclass(editor_class, RowListEditor):
                self._add_list_row(form, key, editor_class, data, a.default, label)
                continue
            kind = node_forms.CONTROLS.get((node.type, key), a.kind)
            self._add_row(form, key, kind, data.get(key, MISSING), tuple(a.choices or ()), a.default,
                          removable=key in data and (node.type, key) not in STRUCTURED, label=label,
                          ref=getattr(a, "ref", ""), attribute=a)
        for key in data:
            if key in HIDDEN_KEYS or key in known or key in type_keys or key in following:
                continue
            if key in pairs:
                self._add_typed_row(form, key, pairs[key], data, "", "str", humanise(key))
                continue
            self._add_row(form, key, "json", data[key], (), None, removable=True, label=humanise(key))
        v.addWidget(self._add_attribute_row())
        v.addStretch(1)
        self._show_page(page)

    def _show_page(self, page: QWidget) -> None:
        """Replace the shown page; the old one is deleted later, as the edit that caused the
        rebuild may still be running inside one of its widgets."""
        old = self.scroll.takeWidget()
        if old is not None:
            old.hide()
            old.deleteLater()
        self.scroll.setWidget(page)

    def _add_row(self, form, key, kind, value, choices, default, removable, label, ref="", attribute=None) -> None:
        present = value is not MISSING
        shown = value if present else default
        if ref and (isinstance(shown, str) or shown is None):
            w, get_value = self._config_field(key, ref, shown or "")
        else:
            w, get_value = self._make_editor(key, kind, shown, choices, attribute, label)
        self.editors[key] = w

        def commit():
            try:
                new = get_value()
            except ValueError:
                return  # the editor shows why
            doc = self.editor.doc
            current = doc.get_attribute(self.node_id, key)
            if current is MISSING and new == shown and type(new) is type(shown):
                return  # a default that was only looked at is not written
            if current is not MISSING and current == new and type(current) is type(new):
                return
            self.editor.push(SetAttribute(doc, self.node_id, key, new))

        self._committers[key] = commit
        self._place_row(form, key, w, removable, label, present)

    def _place_row(self, form, key: str, w: QWidget, removable: bool, label: str, present: bool, also=()) -> None:
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        h.addWidget(w, 1)
        if removable:
            rm = QToolButton()
            rm.setText("✕")
            rm.setToolTip(f"Remove the attribute {key!r}")
            rm.setObjectName(f"remove:{key}")
            rm.clicked.connect(lambda _=False, k=(key, *also): self.remove_attribute(*k))
            h.addWidget(rm, 0, Qt.AlignTop)
        if isinstance(w, QCheckBox):  # as Node-RED: the box and its words on one line
            w.setText(label)
            w.setObjectName(f"label:{key}")
            w.setToolTip(key if present else f"{key} (not set: showing the default)")
            if not present:
                f = w.font()
                f.setItalic(True)
                w.setFont(f)
            form.addRow(row)
            return
        lab = QLabel(html.escape(label) if present else f"<i>{html.escape(label)}</i>")
        lab.setWordWrap(True)  # a long label wraps instead of widening the dock
        lab.setObjectName(f"label:{key}")
        lab.setToolTip(key if present else f"{key} (not set: showing the default)")
        form.addRow(lab, row)

    def _add_typed_row(self, form, key: str, type_key: str, data: dict, default, type_default, label: str) -> None:
        """A value and its type (``payload`` / ``payloadType``) as one control; an edit of
        either is one undo entry that writes only what changed."""
        present = key in data or type_key in data
        shown_v, shown_t = data.get(key, default), data.get(type_key, type_default)
        if not shown_t and key == "complete":  # the debug node before typed outputs: "true" / "false" / a path
            shown_t, shown_v = ("full", "") if shown_v in ("true", True) else ("msg", "payload" if shown_v in ("false", False, None, "") else shown_v)
        type_default = type_default or shown_t or "str"
        node_type = self.editor.doc.node(self.node_id).type
        types = DEBUG_OUTPUT_TYPES if key == "complete" else node_forms.TYPED_CHOICES.get((node_type, key), ALL_TYPES)
        shown_t = node_forms.SHOWN_TYPE.get((node_type, key), {}).get(shown_t, shown_t)
        w = TypedValueField(shown_v, shown_t or "str", types, name=key)
        w.committed.connect(lambda k=key: self.commit(k))
        self.editors[key] = w
        self._type_keys[key] = type_key

        def commit():
            doc, nid = self.editor.doc, self.node_id
            text, vtype = w.value()
            cur_v, cur_t = doc.get_attribute(nid, key), doc.get_attribute(nid, type_key)
            shown_v = "" if cur_v is MISSING else value_text(cur_v)
            changes = {}
            if cur_v is MISSING and text != value_text(default) or cur_v is not MISSING and text != shown_v:
                changes[key] = text
            if (cur_t if cur_t is not MISSING else type_default) != vtype or cur_t is MISSING and changes:
                changes[type_key] = vtype
            if cur_v is MISSING and type_key in changes and key not in changes:
                changes[key] = text
            if changes:
                m = Macro(edit_text(doc, nid, key))
                for k, v in changes.items():
                    m.add(SetAttribute(doc, nid, k, v))
                self.editor.push(m)

        self._committers[key] = commit
        self._place_row(form, key, w, key in data, label, present, also=(type_key,) if type_key in data else ())

    def _add_list_row(self, form, key: str, editor_class, data: dict, default, label: str) -> None:
        """A list edited as rows (rules, properties); the editor's ``command`` (when it has one)
        says what an edit writes, else the list is written to ``key``."""
        shown = editor_class.shown(data) if hasattr(editor_class, "shown") else data.get(key, default)
        w = editor_class(shown)
        w.setObjectName(f"list:{key}")
        w.committed.connect(lambda k=key: self.commit(k))
        self.editors[key] = w

        def commit():
            doc = self.editor.doc
            try:
                if hasattr(w, "command"):
                    cmd = w.command(doc, self.node_id, key)
                else:
                    new, current = w.value(), doc.get_attribute(self.node_id, key)
                    cmd = None
                    if new != (shown if current is MISSING else current):  # one entry per finished edit (no merging)
                        cmd = Macro(edit_text(doc, self.node_id, key))
                        cmd.add(SetAttribute(doc, self.node_id, key, new))
            except ValueError:
                return  # the editor shows why
            if cmd is not None:
                self._pushing = key  # its rows are what is written: not rebuilt between the parts
                try:
                    self.editor.push(cmd)
                finally:
                    self._pushing = None

        self._committers[key] = commit
        self._place_row(form, key, w, False, label, key in data)

    def _make_editor(self, key, kind, value, choices, attribute=None, label=""):
        if kind == "checkbox":  # Node-RED's checkbox over a string default: it writes true / false
            w = QCheckBox()
            w.setChecked(node_forms.checked(value))
            w.toggled.connect(lambda _c, k=key: self.commit(k))
            return w, w.isChecked
        if kind == "number-text":  # Node-RED's text box over a number default: an edit writes the text
            w = QLineEdit(value_text(value) if value is not MISSING else "")
            w.setValidator(QRegularExpressionValidator(QRegularExpression(r"[0-9]*\.?[0-9]*")))
            w.editingFinished.connect(lambda k=key: self.commit(k))

            def typed(k=key, start=value):
                cur = self.editor.doc.get_attribute(self.node_id, k)
                held = start if cur is MISSING else cur
                return held if value_text(held) == w.text() else w.text()  # unchanged: kept as it was

            return w, typed
        if kind == "trigger-then":
            w = TriggerThenField(value)
            w.committed.connect(lambda k=key: self.commit(k))
            return w, w.value
        if kind == "boolean":
            w = QCheckBox()
            truthy = value in (True, "true")
            w.setChecked(truthy)
            as_str = isinstance(value, str)
            w.toggled.connect(lambda _c, k=key: self.commit(k))
            return w, lambda: (("true" if w.isChecked() else "false") if as_str else w.isChecked())
        if kind == "enum":
            w = QComboBox()
            # a long choice ("Rate Limit (for each msg.topic, release at interval)") never widens the dock
            w.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(12)
            opts = list(choices)
            if value not in opts and value is not None and value is not MISSING:
                opts.insert(0, value)
            for c in opts:
                w.addItem(attribute.choice_text(c) if attribute is not None else str(c) if c != "" else "(empty)", c)
            if value in opts:
                w.setCurrentIndex(opts.index(value))
            w.currentIndexChanged.connect(lambda _i, k=key: self.commit(k))
            return w, lambda: w.currentData()
        if kind == "number" and (isinstance(value, (int, float)) and not isinstance(value, bool) or value in (None, "")):
            w = QDoubleSpinBox()
            w.setRange(-1e12, 1e12)
            is_int = not isinstance(value, float)
            w.setDecimals(0 if is_int else 4)
            w.setValue(float(value or 0))
            w.setKeyboardTracking(False)
            w.editingFinished.connect(lambda k=key: self.commit(k))
            return w, lambda: int(w.value()) if is_int else w.value()
        if kind == "code":
            w = CodeField(value if isinstance(value, str) else json.dumps(value), f"{label or key} — {self._title()}")
            w.setObjectName(f"code:{key}")
            w.committed.connect(lambda k=key: self.commit(k))
            return w, w.value
        if kind == "json":
            w = JsonEditor(value, as_string=isinstance(value, str))
            w.committed.connect(lambda k=key: self.commit(k))
            return w, w.value
        # string (and anything unexpected) as a line edit; non-strings fall back to JSON
        if not isinstance(value, str) and value is not None and value is not MISSING:
            w = JsonEditor(value, as_string=False)
            w.committed.connect(lambda k=key: self.commit(k))
            return w, w.value
        w = QLineEdit("" if value in (None, MISSING) else value)
        w.editingFinished.connect(lambda k=key: self.commit(k))
        return w, lambda: w.text()

    def _title(self) -> str:
        return self.editor.doc.label(self.node_id) if self.editor is not None and self.node_id else ""

    def _add_repeat_row(self, form, data: dict) -> None:
        """The inject node's ``repeat`` and ``crontab`` as one Repeat control; an edit is one undo
        entry writing the attributes that changed."""
        w = RepeatField(parse_repeat(data.get("repeat", ""), data.get("crontab", "")))
        w.committed.connect(lambda: self.commit("repeat"))
        self.editors["repeat"] = w

        def commit():
            doc, nid = self.editor.doc, self.node_id
            new = w.value().attributes()
            changes = {k: v for k, v in new.items() if doc.get_attribute(nid, k) != v
                       and not (doc.get_attribute(nid, k) is MISSING and v == "")}
            if changes:
                m = Macro(edit_text(doc, nid, "repeat"))
                for k, v in changes.items():
                    m.add(SetAttribute(doc, nid, k, v))
                self.editor.push(m)

        self._committers["repeat"] = commit
        self._place_row(form, "repeat", w, False, "Repeat", "repeat" in data or "crontab" in data)

    def _config_field(self, key: str, ref: str, value: str):
        """"Bot: [pick or create]": the flow's config nodes of type ``ref``, or a new one."""
        w = ConfigRefField(self.editor.doc, ref, value)
        w.picked.connect(lambda k=key: self.commit(k))
        w.create_requested.connect(lambda k=key, t=ref: self.editor.add_config_node(t, (self.node_id, k)))
        w.open_requested.connect(self.editor.node_selected.emit)
        return w, w.value

    def _config_bar(self, node_id: str) -> QWidget:
        """For a config node: who uses it, and a button to delete it (it is not on the canvas)."""
        from gindex_studio.core.flows.checks import config_references

        doc = self.editor.doc
        users = config_users(doc, node_id, lambda n: config_references(n, doc.library))
        bar = QWidget()
        h = QHBoxLayout(bar)
        h.setContentsMargins(0, 0, 0, 0)
        names = ", ".join(doc.label(i) for i in users[:3]) + (" …" if len(users) > 3 else "")
        used = QLabel(f"Config node, used by {len(users)} node{'s' if len(users) != 1 else ''}" + (f": {names}" if users else ""))
        used.setWordWrap(True)
        used.setObjectName("config-users")
        h.addWidget(used, 1)
        rm = QPushButton("Delete")
        rm.setObjectName("delete-config")
        rm.setToolTip("Delete this config node (nodes that use it will report a missing config)")
        rm.clicked.connect(lambda: self.editor.push(remove_nodes(doc, [node_id])))
        h.addWidget(rm)
        return bar

    def _add_attribute_row(self) -> QWidget:
        box = QWidget()
        h = QHBoxLayout(box)
        h.setContentsMargins(0, 8, 0, 0)
        self.new_key = QLineEdit()
        self.new_key.setPlaceholderText("new attribute")
        self.new_key.setToolTip("The name of an attribute to add to this node")
        self.new_value = QLineEdit()
        self.new_value.setPlaceholderText("value")  # short: the inspector is often a narrow dock
        self.new_value.setToolTip('The value as JSON, e.g. "text", 3 or [1, 2]; plain text is taken as a string')
        add = QPushButton("Add")
        add.setObjectName("add-attribute")
        add.clicked.connect(self.add_attribute)
        self.new_value.returnPressed.connect(self.add_attribute)
        h.addWidget(self.new_key)
        h.addWidget(self.new_value)
        h.addWidget(add)
        self.add_error = QLabel()
        self.add_error.setStyleSheet(f"color: {error_color()}")
        wrap = QWidget()
        vv = QVBoxLayout(wrap)
        vv.setContentsMargins(0, 0, 0, 0)
        vv.addWidget(box)
        vv.addWidget(self.add_error)
        return wrap

    # ----- actions ----------------------------------------------------------------------------
    def commit(self, key: str) -> None:
        if self.node_id and key in self._committers:
            self._committers[key]()

    def remove_attribute(self, key: str, *also: str) -> None:
        """Remove ``key`` (and with it ``also``: a typed value's type key) as one undo entry."""
        doc = self.editor.doc
        if not also:
            self.editor.push(SetAttribute(doc, self.node_id, key, MISSING))
            return
        m = Macro(edit_text(doc, self.node_id, key, "Remove"))
        for k in (key, *also):
            m.add(SetAttribute(doc, self.node_id, k, MISSING))
        self.editor.push(m)

    def add_attribute(self) -> None:
        key = self.new_key.text().strip()
        raw = self.new_value.text().strip() or '""'
        if not key or key in STRUCTURE_KEYS:
            self.add_error.setText("Give the attribute a name (not id, type or wires).")
            return
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw  # plain text is taken as a string
        self.add_error.setText("")
        doc = self.editor.doc
        self.editor.push(SetAttribute(doc, self.node_id, key, value, edit_text(doc, self.node_id, key, "Add")))

    def refresh_values(self) -> None:
        """The node changed (undo, another panel): show its values without losing focus."""
        if self.focusWidget() is not None and self.isAncestorOf(self.focusWidget()):
            fw = self.focusWidget()
        else:
            fw = None
        data = self.editor.doc.node(self.node_id).data
        for key, w in self.editors.items():
            if isinstance(w, RepeatField):
                r = parse_repeat(data.get("repeat", ""), data.get("crontab", ""))
                if r.attributes() != w.value().attributes():
                    w.set_value(r)
                continue
            if isinstance(w, RowListEditor):
                if key != self._pushing:
                    self._refresh_list(w, key, data)
                continue
            value = data.get(key, MISSING)
            if value is MISSING:
                continue
            tkey = self._type_keys.get(key, key + "Type")
            if isinstance(w, TypedValueField):
                shows = w.value()
                vtype = data.get(tkey, shows[1])
                vtype = node_forms.SHOWN_TYPE.get((self.editor.doc.node(self.node_id).type, key), {}).get(vtype, vtype)
                if shows == (value_text(value), vtype):
                    continue  # what it shows is the model's (do not rebuild under the user's hands)
            elif isinstance(w, TriggerThenField):
                if w.value() == value:
                    continue  # chosen, not typed: follows the model even while it has the focus
            elif fw is not None and (w is fw or w.isAncestorOf(fw)) and not isinstance(w, ConfigRefField):
                continue
            w.blockSignals(True)
            if isinstance(w, TypedValueField):
                w.set_value(value, vtype)
            elif isinstance(w, ConfigRefField):
                w.set_value(value if isinstance(value, str) else "")
            elif isinstance(w, TriggerThenField):
                w.set_value(value)
            elif isinstance(w, QLineEdit):
                w.setText(value if isinstance(value, str) else json.dumps(value))
            elif isinstance(w, QCheckBox):
                w.setChecked(value in (True, "true"))
            elif isinstance(w, QComboBox):
                k = w.findData(value)
                if k < 0:
                    w.insertItem(0, str(value), value)
                    k = 0
                w.setCurrentIndex(k)
            elif isinstance(w, QDoubleSpinBox):
                if isinstance(value, (int, float)):
                    w.setValue(float(value))
            elif isinstance(w, (JsonEditor, CodeField)):
                w.set_value(value if isinstance(w, JsonEditor) or isinstance(value, str) else json.dumps(value))
            elif isinstance(w, QPlainTextEdit):
                w.setPlainText(value if isinstance(value, str) else json.dumps(value))
            w.blockSignals(False)

    @staticmethod
    def _refresh_list(w: RowListEditor, key: str, data: dict) -> None:
        """Rows follow the model only where they differ from it (not under the user's hands)."""
        if hasattr(w, "shows"):
            if not w.shows(data):
                w.set_value(w.shown(data))
            return
        value = data.get(key, MISSING)
        if value is MISSING or not w.raw.isChecked() and w.value() == value:
            return
        w.blockSignals(True)
        w.set_value(value)
        w.blockSignals(False)
