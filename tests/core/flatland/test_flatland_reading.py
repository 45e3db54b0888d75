"""Flatland programs through the one way to read a pair (``core.reading`` with ``profile="flatland"``):
the command line, experiments and ``read_pair`` give the same flows and the same syntax error for a
broken generated program, and the same one line for a broken reference."""
from __future__ import annotations

import json

import pytest

from gindex_studio.cli import main
from gindex_studio.core.flows import reading
from gindex_studio.core.benchmark.experiment import ExperimentError, load_experiment
from gindex_studio.core.flatland.resolve import load_file
from gindex_studio.core.flows.flow import FlowError

REFERENCE = "p(start) -> m(move 20 0)\nm -> t(turn 90)\nt -> p(end)\n{} -> p()\n"
# line 3 names an unknown primitive: lenient reading drops it (and the links through it)
GENERATED = "```\np(start) -> m(move 20 0)\nm -> h(limbs 3)\nm -> p(end)\n{} -> p()\n```\n"


def shape(flow):
    """Node types with their parameters, and the wires as (type, port, type)."""
    nodes = {n.id: n for n in flow.vertex_nodes()}
    def show(n):
        return (n.type,) + tuple(sorted((k, str(v)) for k, v in n.data.items() if k not in ("id", "type", "wires", "x", "y", "z")))
    wires = sorted((show(n), k, show(nodes[t])) for n in nodes.values() for k, port in enumerate(n.ports) for t in port)
    return sorted(show(n) for n in nodes.values()), wires


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ref.fbp").write_text(REFERENCE)
    (tmp_path / "gen.fbp").write_text(GENERATED)
    return tmp_path


def test_read_pair_the_cli_and_an_experiment_agree(files, capsys):
    pair = reading.read_pair(files / "ref.fbp", files / "gen.fbp", "flatland")
    assert shape(pair.reference) == shape(load_file(files / "ref.fbp").to_flow())
    syntax = pair.generated.syntax
    assert syntax is not None and syntax.line == 3 and pair.text == GENERATED
    assert main(["score", str(files / "ref.fbp"), str(files / "gen.fbp"), "--profile", "flatland", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["errors"]["syntax"] == syntax.to_dict()
    exp = files / "exp.json"
    exp.write_text(json.dumps({
        "format": "gindex-studio.experiment/1", "name": "x", "system": "y", "profile": "flatland",
        "compute": {"total": 16}, "curriculum": [{"domain": "d", "programs": ["ref.fbp"], "samples": 2}],
        "tasks": [{"id": "t", "domain": "d", "reference": "ref.fbp", "generated": {"file": "gen.fbp"}},
                  {"id": "u", "domain": "d", "reference": {"json": load_file(files / "ref.fbp").to_flow().to_json_value()}, "generated": {"text": GENERATED}}],
    }))
    loaded = load_experiment(exp)
    assert shape(loaded.curriculum[0].programs[0].flow) == shape(pair.reference)
    for task in loaded.tasks:
        assert shape(task.reference) == shape(pair.reference)
        assert shape(task.generated) == shape(pair.generated.flow)
        assert task.syntax.to_dict() == syntax.to_dict()


def test_a_broken_reference_is_one_line_everywhere(files, capsys):
    (files / "ref.fbp").write_text("p(start) -> m(move 20 0\nm -> p(end)\n")
    with pytest.raises(reading.PairError) as e:
        reading.read_pair(files / "ref.fbp", files / "gen.fbp", "flatland")
    assert e.value.side == "reference" and "\n" not in str(e.value) and "ref.fbp" in str(e.value)
    assert main(["score", str(files / "ref.fbp"), str(files / "gen.fbp"), "--profile", "flatland"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(e.value) in err
    (files / "ok.fbp").write_text(REFERENCE)
    exp = files / "exp.json"
    exp.write_text(json.dumps({
        "format": "gindex-studio.experiment/1", "name": "x", "system": "y", "profile": "flatland",
        "compute": {"total": 16}, "curriculum": [{"domain": "d", "programs": ["ok.fbp"], "samples": 2}],
        "tasks": [{"id": "t", "domain": "d", "reference": "ref.fbp", "generated": "gen.fbp"}]}))
    with pytest.raises(ExperimentError) as x:
        load_experiment(exp)
    assert str(e.value) in str(x.value) and "tasks[0].reference" in str(x.value)


def test_folders_give_one_program_per_name(files):
    (files / "ref.lisp").write_text("whatever")  # the .fbp of the same name wins
    (files / "notes.txt").write_text("not a program")
    assert [p.name for p in reading.program_files(files, "flatland")] == ["gen.fbp", "ref.fbp"]
    assert reading.program_files(files) == []  # the paper's profile reads .json flows only
    with pytest.raises(FlowError):
        reading.read_reference_value({"a": {"type": "move"}}, "flatland")
