"""flow_problems: structure, cycles, unknown types and JSON attributes, on the flow as edited."""
from dataclasses import dataclass

from gindex_studio.core.flows.checks import flow_problems, json_error
from gindex_studio.core.flows.flow import Problem, flow_from_nodes, read_flow_bytes


@dataclass
class Attr:
    key: str
    kind: str


@dataclass
class NT:
    type: str
    attributes: tuple


class Lib:
    types = {"inject": NT("inject", ()), "fn": NT("fn", (Attr("rules", "json"),))}

    def get(self, t):
        return self.types.get(t)


def kinds(problems):
    return sorted((p.kind, p.node_id) for p in problems)


def test_clean_flow_has_no_problems():
    f = flow_from_nodes([{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "fn", "rules": "[]"}])
    assert flow_problems(f, Lib()) == []


def test_structural_problems_are_recomputed_after_edits():
    f = flow_from_nodes([{"id": "a", "type": "inject", "wires": [["b"]]}])
    assert kinds(flow_problems(f)) == [("dangling-wire", "a")]
    f.nodes[0].data["wires"] = [[]]
    assert flow_problems(f) == []
    f.nodes.append(f.nodes[0].__class__({"id": "a", "type": "inject"}))
    assert kinds(flow_problems(f)) == [("duplicate-id", "a")]


def test_invalid_entries_and_syntax_kept():
    f = read_flow_bytes(b'[1, {"id": "a", "type": "inject"}]')
    f.problems.append(Problem("syntax", "truncated"))
    assert kinds(flow_problems(f)) == [("invalid-node", None), ("syntax", None)]


def test_self_loop_and_cycles():
    f = flow_from_nodes([
        {"id": "a", "type": "inject", "wires": [["a", "b"]]},
        {"id": "b", "type": "inject", "wires": [["c"]]},
        {"id": "c", "type": "inject", "wires": [["b"]]},
        {"id": "d", "type": "inject", "wires": []},
    ])
    probs = flow_problems(f)
    assert kinds(probs) == [("cycle", "b"), ("self-loop", "a")]
    cycle = next(p for p in probs if p.kind == "cycle")
    assert cycle.nodes == ("b", "c")
    assert cycle.message == "2 nodes wired in a loop: inject → inject"


def test_a_cycle_is_one_row_naming_its_nodes_by_name():
    f = flow_from_nodes([
        {"id": "a1", "type": "function", "name": "parse", "wires": [["b2"]]},
        {"id": "b2", "type": "switch", "name": "", "wires": [["c3"]]},
        {"id": "c3", "type": "function", "name": "format", "wires": [["a1"]]},
    ])
    [p] = flow_problems(f)
    assert (p.kind, p.node_id, p.nodes) == ("cycle", "a1", ("a1", "b2", "c3"))
    assert p.message == '3 nodes wired in a loop: "parse" → switch → "format"'
    assert "a1" not in p.message


TELEGRAM = [
    {"id": "bot1", "type": "chatbot-telegram-node", "botname": "helper"},
    {"id": "tab1", "type": "ui_tab", "name": "Home"},
    {"id": "r", "type": "chatbot-telegram-receive", "bot": "bot1", "wires": [[]]},
]


def test_config_references_missing_and_of_the_wrong_type():
    from gindex_studio.core.flows.library import NodeLibrary

    library = NodeLibrary.bundled()
    ok = flow_from_nodes(TELEGRAM)
    assert [p for p in flow_problems(ok, library) if "config" in p.kind] == []
    dangling = flow_from_nodes(TELEGRAM[:2] + [dict(TELEGRAM[2], bot="gone")])
    [p] = [p for p in flow_problems(dangling, library) if "config" in p.kind]
    assert (p.kind, p.node_id) == ("missing-config", "r")
    assert p.message == "Bot: no chatbot-telegram-node node with id 'gone' in this flow"
    wrong = flow_from_nodes(TELEGRAM[:2] + [dict(TELEGRAM[2], bot="tab1")])
    [p] = [p for p in flow_problems(wrong, library) if "config" in p.kind]
    assert (p.kind, p.message) == ("wrong-config-type", 'Bot: "Home" is a ui_tab, not a chatbot-telegram-node')
    unset = flow_from_nodes(TELEGRAM[:2] + [dict(TELEGRAM[2], bot="")])
    assert [p for p in flow_problems(unset, library) if "config" in p.kind] == []


def test_long_chain_does_not_recurse():
    n = 5000
    nodes = [{"id": str(i), "type": "inject", "wires": [[str(i + 1)]] if i < n - 1 else []} for i in range(n)]
    nodes[-1]["wires"] = [["0"]]
    probs = flow_problems(flow_from_nodes(nodes))
    assert len(probs) == 1 and probs[0].kind == "cycle" and len(probs[0].nodes) == n


def test_unknown_types_need_a_library_and_skip_tabs():
    f = flow_from_nodes([{"id": "t", "type": "tab"}, {"id": "x", "type": "mystery"}])
    assert flow_problems(f) == []
    assert kinds(flow_problems(f, Lib())) == [("unknown-type", "x")]


def test_invalid_json_attribute_by_kind_and_by_typed_value():
    f = flow_from_nodes([
        {"id": "a", "type": "fn", "rules": "{oops"},
        {"id": "b", "type": "inject", "payload": "[1,", "payloadType": "json"},
        {"id": "c", "type": "inject", "payload": "[1]", "payloadType": "json"},
        {"id": "d", "type": "fn", "rules": [1, 2]},
    ])
    probs = flow_problems(f, Lib())
    assert kinds(probs) == [("invalid-json-attribute", "a"), ("invalid-json-attribute", "b")]
    assert "rules: not valid JSON (line 1 column 2" in probs[0].message


def test_json_error():
    assert json_error('{"a": 1}') is None
    assert json_error("") is None
    assert json_error(3) is None
    assert json_error("{") .startswith("line 1 column 2")
