"""Helping authors: take a node (with its wires to mapped nodes) or one attribute value from one side
to the other. Each helper returns one undo command for the *target* editor's stack, built only from
the editor's document commands."""
from __future__ import annotations

import copy

from gindex_studio.core.flows.flow import normalise_wires

from gindex_studio.ui.model import commands as cmd
from gindex_studio.ui.model.document import FlowDocument


def is_program_node(doc: FlowDocument, node_id: str) -> bool:
    """A node of the program's graph as the editor draws it: workspace tabs (``tab``,
    ``subflow``) and configuration nodes (a bot, a broker) are not, and are never copied across:
    copying a ``tab`` would make a second workspace on the other side."""
    return doc.has(node_id) and doc.is_drawn(node_id)


def copy_node_command(src: FlowDocument, dst: FlowDocument, node_id: str, partner: dict[str, str],
                      workspace: str = "", side_word: str = "") -> tuple[cmd.Macro, str]:
    """Copy ``node_id`` of ``src`` into ``dst``: same type and attributes, wires kept where both ends
    exist in ``dst`` (``partner`` maps ``src`` ids of mapped nodes to their ``dst`` partners), placed
    next to the partners of its neighbours. Returns the command and the new node's id. Raises
    ValueError for a tab or configuration node (see ``is_program_node``)."""
    if not is_program_node(src, node_id):
        raise ValueError(f"{node_id} is not a program node (a workspace tab or configuration node)")
    node = src.node(node_id)
    data = copy.deepcopy(node.data)
    new_id = node_id if not dst.has(node_id) else dst.fresh_id()
    data["id"] = new_id
    target = dict(partner)
    target[node_id] = new_id  # a self-loop stays a self-loop
    if "wires" in data:
        data["wires"] = [[target[t] for t in port if t in target] for port in normalise_wires(data["wires"])]
    incoming: dict[str, list[tuple[int, str]]] = {}
    for s, port, d in src.connected_wires(node_id):
        if d == node_id and s != node_id and s in partner and dst.has(partner[s]):
            incoming.setdefault(partner[s], []).append((port, new_id))
    drawn = src.is_drawn(node_id)
    if drawn:
        neighbours = [s for s, _p, d in src.connected_wires(node_id) if d == node_id and s in partner]
        neighbours += [d for s, _p, d in src.connected_wires(node_id) if s == node_id and d in partner]
        anchor = next((n for n in neighbours if dst.has(partner[n]) and dst.is_drawn(partner[n])), None)
        x, y = src.position(node_id)
        if anchor is not None:
            ax, ay = src.position(anchor)
            px, py = dst.position(partner[anchor])
            x, y = px + (x - ax), py + (y - ay)
            z = dst.workspace_of(partner[anchor])
        else:
            z = workspace
        data["x"], data["y"] = round(x), round(y)
        if z or "z" in data:
            data["z"] = z
    label = src.label(node_id)
    macro = cmd.Macro(f"Copy {label} from the {side_word}".replace("  ", " ") if side_word else f"Copy {label}")
    macro.add(cmd.AddNode(dst, data))
    for s, adds in incoming.items():
        ports = normalise_wires(dst.node(s).data.get("wires"))
        for port, d in adds:
            while len(ports) <= port:
                ports.append([])
            if d not in ports[port]:
                ports[port].append(d)
        macro.add(cmd.SetWires(dst, s, ports, "Wire"))
    return macro, new_id


def copy_attribute_command(src: FlowDocument, src_id: str, dst: FlowDocument, dst_id: str, key: str) -> cmd.SetAttribute:
    """Set ``key`` of ``dst_id`` to the value it has on ``src_id`` (absent there: remove it)."""
    value = copy.deepcopy(src.get_attribute(src_id, key))
    return cmd.SetAttribute(dst, dst_id, key, value, f"Copy {cmd.attribute_words(dst, dst_id, key)} across")
