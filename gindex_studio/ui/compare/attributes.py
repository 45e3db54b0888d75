"""The selected node's details and the authoring helpers that act on them: the two-column
attribute diff of the selected pair (or of an unmatched node and the closest unmatched node of its
type on the other side), copying one attribute across, and copying an unmatched node across."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from gindex_studio.ui.compare.authoring import copy_attribute_command, copy_node_command, is_program_node
from gindex_studio.ui.compare.model import other_side


class PairDetails(QObject):
    """Follows the selection (``select(role, id)``) and fills the attribute diff and the copy-node
    button; performs the copies as undo commands on the target side's stack."""

    message = Signal(str)

    def __init__(self, model, editors: dict, attr, copy_button, parent=None):
        super().__init__(parent)
        self.model, self.editors, self.attr, self.copy_button = model, editors, attr, copy_button
        self.selected: tuple[str, str] | None = None
        self.shown_pair: tuple[str, str] | None = None  # (ref id, gen id) in the table when not mapped
        attr.copy_requested.connect(self.copy_attribute)
        copy_button.clicked.connect(self.copy_selected_node)

    def select(self, role: str | None, node_id: str | None) -> None:
        self.selected = (role, node_id) if role and node_id else None
        self.refresh()

    def selected_pair(self) -> tuple[str | None, str | None]:
        if self.selected is None:
            return None, None
        role, nid = self.selected
        if role == "reference":
            return nid, self.model.phi.get(nid)
        return self.model.inv.get(nid), nid

    def closest_unmatched(self, role: str, node_id: str) -> tuple[str, str, list[str]] | None:
        """The unmatched node of the same type on the other side most similar to ``node_id``:
        (its id, w as "m/k", differing keys), or None (the core answers)."""
        from gindex_studio.core.scoring.explain import closest_unmatched

        r = self.model.result
        if r is None:
            return None
        docs = self.model.docs
        ref, gen = docs["reference"].flow, docs["generated"].flow
        found = closest_unmatched(r, ref, gen, role, node_id)
        if found is None:
            return None
        return found.node, found.w_exact, list(found.differing_keys)

    def refresh(self) -> None:
        m, r = self.model, self.model.result
        self.shown_pair = None
        btn = self.copy_button
        btn.setEnabled(False)
        btn.setText("Copy node across")
        if self.selected is None or r is None:
            self.attr.clear()
            return
        ref_doc, gen_doc = m.docs["reference"], m.docs["generated"]
        ref_id, gen_id = self.selected_pair()
        rd = ref_doc.node(ref_id).data if ref_id and ref_doc.has(ref_id) else None
        gd = gen_doc.node(gen_id).data if gen_id and gen_doc.has(gen_id) else None
        pair = r.pair_of(ref_id) if ref_id else None
        if rd is None and gd is None:
            self.attr.clear()
            return
        if pair is not None and rd is not None and gd is not None:
            badge = m.badges.get(ref_id)
            n = badge.number if badge is not None else "?"
            title = (f"<b>#{n}</b> {m.node_label('reference', ref_id)} ↔ {m.node_label('generated', gen_id)}"
                     f" · w = {pair.w_exact}" + (f" · {len(pair.differing_keys)} differ" if pair.differing_keys else " · identical"))
            self.attr.show_pair(title, rd, gd, pair.differing_keys, r.profile)
            return
        role = "reference" if rd is not None else "generated"
        nid = ref_id if rd is not None else gen_id
        word = "missing" if rd is not None else "extra"
        other = "the generated program" if rd is not None else "the reference"
        cand = self.closest_unmatched(role, nid)
        if cand is None:
            self.attr.show_pair(f"{m.node_label(role, nid)} · <b>{word}</b>: no node of its type is left "
                                f"unmatched in {other}", rd, gd, [], r.profile)
        else:
            cid, w, keys = cand
            title = (f"{m.node_label(role, nid)} · <b>{word}</b>. Closest unmatched node in {other}: "
                     f"{m.node_label(other_side(role), cid)}, w = {w} (mapping the two would break the "
                     f"wiring the mapping keeps)")
            if rd is not None:
                self.shown_pair = (nid, cid)
                self.attr.show_pair(title, rd, gen_doc.node(cid).data, keys, r.profile)
            else:
                self.shown_pair = (cid, nid)
                self.attr.show_pair(title, ref_doc.node(cid).data, gd, keys, r.profile)
        doc = m.docs[role]
        if is_program_node(doc, nid):
            btn.setEnabled(True)
            btn.setText("Copy node to generated →" if rd is not None else "← Copy node to reference")
        else:
            btn.setText("Config/tab nodes are not copied")

    # ----- authoring ----------------------------------------------------------------------------
    def copy_node_across(self, role: str, node_id: str) -> str | None:
        """Add ``node_id`` of side ``role`` to the other side (wires to mapped nodes included), as
        one undo command on the other editor's stack. Returns the new node's id (None: a config or
        tab node, which is not a program node and is not copied)."""
        src, dst = self.editors[role], self.editors[other_side(role)]
        if not is_program_node(src.doc, node_id):
            self.message.emit(f"{self.model.node_label(role, node_id)} is a configuration or tab node, not a "
                              f"program node: it is not copied")
            return None
        partner = self.model.phi if role == "reference" else self.model.inv
        command, new_id = copy_node_command(src.doc, dst.doc, node_id, partner, dst.current_workspace(), role)
        dst.push(command)
        if dst.doc.is_drawn(new_id):
            dst.scene.select_nodes([new_id])
        self.message.emit(f"Copied {self.model.node_label(role, node_id)} to the {other_side(role)} program")
        return new_id

    def copy_selected_node(self) -> str | None:
        ref_id, gen_id = self.selected_pair()
        if ref_id and not gen_id:
            return self.copy_node_across("reference", ref_id)
        if gen_id and not ref_id:
            return self.copy_node_across("generated", gen_id)
        return None

    def copy_attribute(self, key: str, direction: str) -> None:
        """Copy one attribute of the selected pair (or of an unmatched node and the closest
        unmatched node of its type on the other side) across ("to-generated" or "to-reference")."""
        ref_id, gen_id = self.selected_pair()
        if (not ref_id or not gen_id) and self.shown_pair is not None:
            ref_id, gen_id = self.shown_pair
        if not ref_id or not gen_id:
            return
        ref, gen = self.editors["reference"], self.editors["generated"]
        if direction == "to-generated":
            gen.push(copy_attribute_command(ref.doc, ref_id, gen.doc, gen_id, key))
        else:
            ref.push(copy_attribute_command(gen.doc, gen_id, ref.doc, ref_id, key))
