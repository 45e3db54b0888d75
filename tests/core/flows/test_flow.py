"""Reading and writing flow files, and lenient reading of model output (spec §1, §4)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gindex_studio.core.flows.flow import (
    FlowError,
    flow_from_value,
    read_flow_bytes,
    read_flow_file,
    write_flow_file,
)
from gindex_studio.core.flows.lenient import line_col, read_model_output
from gindex_studio.paths import DEMO_DIR

NODES = [
    {"id": "a", "type": "inject", "z": "t", "x": 10, "y": 20, "topic": "t", "zzz": {"k": [1, 2.5]}, "wires": [["b"]]},
    {"id": "b", "type": "debug", "z": "t", "wires": []},
]


def test_three_shapes_round_trip_with_key_order(tmp_path):
    shapes = [NODES, {"title": "T", "text": "do it", "flow": NODES, "name": "http", "extra": 1},
              {"rev": "abc", "flows": NODES}]
    for shape in shapes:
        p = tmp_path / "f.json"
        p.write_text(json.dumps(shape))
        flow = read_flow_file(p)
        out = tmp_path / "out.json"
        write_flow_file(flow, out)
        again = json.loads(out.read_text())
        assert again == shape
        assert list(json.loads(out.read_text(), object_pairs_hook=list)[0] if isinstance(shape, list) else []) == \
            list(json.loads(p.read_text(), object_pairs_hook=list)[0] if isinstance(shape, list) else [])
    flow = read_flow_file(p)
    assert flow.container.kind == "flows"


def test_every_demo_file_round_trips_semantically(tmp_path):
    files = sorted((DEMO_DIR / "programs").rglob("*.json"))
    assert len(files) >= 48
    for f in files:
        flow = read_flow_file(f)
        assert flow.prompt and flow.domain
        write_flow_file(flow, tmp_path / "x.json")
        assert json.loads((tmp_path / "x.json").read_text()) == json.loads(f.read_text())


def test_flat_wires_duplicates_dangling_and_invalid_entries():
    flow = flow_from_value([
        {"id": "a", "type": "inject", "wires": ["b", "ghost"]},
        {"id": "b", "type": "debug"},
        {"id": "b", "type": "function"},
        "not a node",
        {"type": "no id"},
    ])
    assert [n.id for n in flow.vertex_nodes()] == ["a", "b"]
    assert flow.by_id()["b"].type == "debug"
    assert flow.edges() == {("a", "b")}
    kinds = sorted(p.kind for p in flow.problems)
    assert kinds == ["dangling-wire", "duplicate-id", "invalid-node", "invalid-node"]
    assert len(flow.to_json_value()) == 5  # nothing is lost on writing


def test_port_aware_edges_and_single_node_object():
    flow = flow_from_value([{"id": "s", "type": "switch", "wires": [["a"], ["a", "b"]]},
                            {"id": "a", "type": "debug"}, {"id": "b", "type": "debug"}])
    assert flow.edges(port_aware=True) == {("s", 0, "a"), ("s", 1, "a"), ("s", 1, "b")}
    assert flow.edges() == {("s", "a"), ("s", "b")}
    one = flow_from_value({"id": "x", "type": "inject"})
    assert len(one.nodes) == 1


@pytest.mark.parametrize("text,reason", [
    (b"", "not valid JSON"), (b"[1, 2", "not valid JSON"), (b'"hello"', "JSON array or object"),
    (b'{"a": 1}', '"flow" or "flows"'),
])
def test_strict_reader_explains(text, reason):
    with pytest.raises(FlowError, match=reason):
        read_flow_bytes(text)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FlowError, match="no such file"):
        read_flow_file(tmp_path / "nope.json")
    with pytest.raises(FlowError, match="folder"):
        read_flow_file(tmp_path)


def test_atomic_write_leaves_no_temp_files(tmp_path):
    flow = flow_from_value(NODES)
    target = tmp_path / "a.json"
    target.write_text("old")
    write_flow_file(flow, target)
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
    assert json.loads(target.read_text()) == NODES


# ----- lenient reading ---------------------------------------------------------------------

def test_fenced_output_with_prose_and_trailing_comma():
    text = "Sure! Here is the flow:\n```json\n" + json.dumps(NODES)[:-1] + ",]\n```\nEnjoy."
    r = read_model_output(text)
    assert len(r.flow.nodes) == 2 and r.syntax is not None
    assert r.flow.edges() == {("a", "b")}


def test_truncated_output_recovers_complete_nodes_and_drops_wires_to_lost_ones():
    full = json.dumps(NODES, indent=2)
    cut = full[: full.index('"debug"') + 3]
    r = read_model_output(cut)
    assert [n.id for n in r.flow.nodes] == ["a"]
    assert r.flow.nodes[0].ports == [[]]
    s = r.syntax
    assert s.recovered_nodes == 1 and "truncated" in s.message
    assert (s.line, s.column) == line_col(cut, s.offset)
    assert cut.splitlines()[s.line - 1]  # the line exists


def test_not_json_gives_an_empty_flow_with_reason():
    r = read_model_output("I cannot help with that.")
    assert r.flow.nodes == [] and r.syntax.recovered_nodes == 0 and "no flow" in r.syntax.message


def test_valid_json_has_no_syntax_issue():
    r = read_model_output(json.dumps(NODES))
    assert r.ok and len(r.flow.nodes) == 2


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["", "Here:\n```json\n", "prose "]))
def test_any_prefix_of_a_flow_never_raises_and_recovers_a_prefix(cut, before):
    text = before + json.dumps(NODES, indent=1)
    text = text[: cut % (len(text) + 1)]
    r = read_model_output(text)
    ids = [n.id for n in r.flow.nodes]
    assert ids == ["a", "b"][: len(ids)]
    for n in r.flow.nodes:
        for port in n.ports:
            assert all(t in ids for t in port)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_raise(data):
    read_model_output(data)


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1e999"])
def test_no_json_numbers_are_refused_also_beside_a_big_integer(number):
    """orjson refuses NaN, Infinity and 1e999; the fallback for integers beyond 64 bits (Python's
    json) took them, so that a NaN reached nrlint (its "JSON" failed there: issue 36's corpus)."""
    from gindex_studio.core.flows.flow import loads_json
    from gindex_studio.core.flows.lenient import read_model_output

    big = b"1" + b"0" * 400  # beyond a double: orjson refuses it, Python's json reads it exactly
    with pytest.raises(ValueError):
        loads_json(b"[" + big + b", " + number + b"]")
    read = read_model_output(b'[{"id": "a", "type": "x", "wires": []}, {"id": "b", "type": "x", "v": ' + number + b"}]")
    assert [n.id for n in read.flow.nodes] == ["a"]
    assert "not a JSON number" in read.syntax.message or "beyond a double" in read.syntax.message
    assert loads_json(b"[" + big + b", 1.5]") == [10 ** 400, 1.5]
