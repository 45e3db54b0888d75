"""One nesting limit (issue 36, item 15): flow files accepted arrays and objects nested to orjson's
1,024 levels while Flatland programs, node libraries and s-expressions stopped at 100. Now every
JSON a user or a model gives stops at ``nesting.MAX_DEPTH`` (100) with one clear line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.experiment import ExperimentError, load_experiment
from gindex_studio.core.flatland import sexpr
from gindex_studio.core.flows.flow import FlowError, read_flow_bytes
from gindex_studio.core.flows.lenient import read_model_output
from gindex_studio.core.flows.nesting import MAX_DEPTH, depth_problem

ROOT = Path(__file__).resolve().parents[2]
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels (the limit for arrays and objects)"
NODE = {"id": "a", "type": "function", "wires": []}


def nested(depth: int) -> str:
    """The JSON text of ``depth`` nested arrays around a string (json.dumps recurses)."""
    return "[" * depth + '"x"' + "]" * depth


def node_text(depth: int, **fields) -> str:
    """A node object nested ``depth`` levels in all (itself and its attribute ``deep``)."""
    return json.dumps(dict(NODE, **fields))[:-1] + f', "deep": {nested(depth - 1)}}}'


def flow_text(depth: int) -> str:
    """A one-node flow nested ``depth`` levels in all: the array, the node, and its attribute."""
    return f"[{node_text(depth - 1)}]"


def test_the_limit_is_one_number():
    assert MAX_DEPTH == 100 and sexpr.MAX_NESTING == MAX_DEPTH


@pytest.mark.parametrize("text", [flow_text(MAX_DEPTH), nested(MAX_DEPTH)], ids=["node", "arrays"])
def test_the_limit_itself_is_read(text):
    assert depth_problem(json.loads(text)) is None
    try:
        read_flow_bytes(text.encode())
    except FlowError as e:  # the bare arrays are no flow of nodes, but nothing about their nesting
        assert "nested" not in str(e)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 1_023, 1_030, 100_000])
def test_a_flow_file_one_level_deeper_is_refused(depth):
    """1,000 and 1,023: under orjson's own limit, accepted before; 1,030 and 100,000: beyond it."""
    for text in (flow_text(depth), "[" * depth + "]" * depth):
        with pytest.raises(FlowError, match=f"^its JSON is {TOO_DEEP}$".replace("(", r"\(").replace(")", r"\)")):
            read_flow_bytes(text.encode())


def test_integers_beyond_64_bits_take_the_same_limit():
    """The fallback parser (Python's json, for integers orjson cannot hold) checks the same depth."""
    with pytest.raises(FlowError, match=TOO_DEEP.replace("(", r"\(").replace(")", r"\)")):
        read_flow_bytes(f"[{node_text(MAX_DEPTH, big=10 ** 30)}]".encode())
    assert read_flow_bytes(f"[{node_text(MAX_DEPTH - 1, big=10 ** 30)}]".encode()).nodes


def test_model_output_keeps_the_nodes_before_a_too_deep_one():
    good = json.dumps(dict(NODE, id="g"))
    text = f"[{good}, {node_text(MAX_DEPTH, id='d')}]"
    read = read_model_output(text)
    assert [n.id for n in read.flow.nodes] == ["g"]
    assert read.syntax is not None and TOO_DEEP in read.syntax.message
    assert [n.id for n in read_model_output(flow_text(MAX_DEPTH)).flow.nodes] == ["a"] and \
        read_model_output(flow_text(MAX_DEPTH)).ok


def test_an_experiment_file_nested_too_deep_is_one_line(tmp_path):
    (tmp_path / "e.json").write_text(f'{{"name": "x", "tasks": {nested(500)}}}')
    with pytest.raises(ExperimentError, match="e.json: its JSON is " + TOO_DEEP.replace("(", r"\(").replace(")", r"\)")):
        load_experiment(tmp_path / "e.json")


def test_the_studio_refuses_it_without_recovering_a_node(tmp_path):
    pytest.importorskip("PySide6")
    from gindex_studio.ui.loader import load_flow

    path = tmp_path / "deep.json"
    path.write_text(flow_text(MAX_DEPTH + 1))  # the node alone is within the limit: not "recovered"
    flow, message = load_flow(str(path))
    assert flow is None and f"cannot be opened: its JSON is {TOO_DEEP}." in message


def test_the_command_line_says_it_in_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(flow_text(1_000))
    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", path, path], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"gindex-studio: {path}: its JSON is {TOO_DEEP}\n"
