"""flow_problems: structure, cycles, unknown types and JSON attributes, on the flow as edited."""
from dataclasses import dataclass

from gindex_studio.core.checks import flow_problems, json_error
from gindex_studio.core.flow import Problem, flow_from_nodes, read_flow_bytes


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
    assert kinds(flow_problems(f)) == [("cycle", "b"), ("cycle", "c"), ("self-loop", "a")]


def test_long_chain_does_not_recurse():
    n = 5000
    nodes = [{"id": str(i), "type": "inject", "wires": [[str(i + 1)]] if i < n - 1 else []} for i in range(n)]
    nodes[-1]["wires"] = [["0"]]
    probs = flow_problems(flow_from_nodes(nodes))
    assert len(probs) == n and {p.kind for p in probs} == {"cycle"}


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
