"""One way to read a pair (core.reading): the command line, the compare view and experiments read
the reference strictly and the generated file leniently through the same functions, so a broken
model output gives the same flow and syntax error everywhere, and a broken reference the same one
line of refusal."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.core.flows import reading
from gindex_studio.core.benchmark.experiment import ExperimentError, load_experiment
from gindex_studio.core.flows.flow import FlowError

ROOT = Path(__file__).resolve().parents[2]

REFERENCE = [
    {"id": "a", "type": "inject", "topic": "t", "wires": [["b"]]},
    {"id": "b", "type": "function", "func": "return msg;", "wires": [["c"]]},
    {"id": "c", "type": "debug", "wires": []},
]
# prose, a fence, a trailing comma and a cut-off last node: what models write
GENERATED = ("Here it is:\n```json\n[\n" + json.dumps(REFERENCE[0]) + ",\n" + json.dumps(REFERENCE[1]) + ",\n"
             + '{"id": "c", "type": "deb')


def write_pair(tmp_path):
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(REFERENCE))
    gen = tmp_path / "gen.txt"
    gen.write_text(GENERATED)
    return ref, gen


def shape(flow):
    return [(n.id, n.type) for n in flow.nodes]


def test_the_cli_the_compare_view_and_experiments_read_alike(tmp_path, cview):
    ref, gen = write_pair(tmp_path)
    pair = reading.read_pair(ref, gen)
    assert pair.generated.syntax is not None and shape(pair.generated.flow) == [("a", "inject"), ("b", "function")]
    # the command line
    out = json.loads(subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", str(ref), str(gen), "--json"],
                                    cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    assert out["errors"]["syntax"] == pair.generated.syntax.to_dict()
    # an experiment naming the same files
    exp = tmp_path / "exp.json"
    exp.write_text(json.dumps({"format": "gindex-studio.experiment/1", "name": "x", "system": "y",
                               "compute": {"total": 16}, "curriculum": [{"domain": "d", "programs": ["ref.json"], "samples": 2}],
                               "tasks": [{"id": "t", "domain": "d", "reference": "ref.json", "generated": {"file": "gen.txt"}}]}))
    task = load_experiment(exp).tasks[0]
    assert shape(task.reference) == shape(pair.reference)
    assert shape(task.generated) == shape(pair.generated.flow)
    assert task.syntax.to_dict() == pair.generated.syntax.to_dict() and task.generated_text == pair.text
    # the compare view
    cview.load_files(str(ref), str(gen))
    assert shape(cview.gen.doc.flow) == shape(pair.generated.flow) and shape(cview.ref.doc.flow) == shape(pair.reference)
    assert cview.model.syntax.to_dict() == pair.generated.syntax.to_dict()


def test_a_broken_reference_is_refused_alike(tmp_path, cview):
    ref, gen = write_pair(tmp_path)
    ref.write_text(json.dumps(REFERENCE)[:-1] + ",]")  # a trailing comma: fine for model output, not for a reference
    with pytest.raises(FlowError) as core:
        reading.read_reference_file(ref)
    line = str(core.value)
    cli = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", str(ref), str(gen)],
                         cwd=ROOT, capture_output=True, text=True)
    assert cli.returncode == 1 and cli.stderr.strip() == f"gindex-studio: {line}"
    (tmp_path / "cur.json").write_text(json.dumps(REFERENCE))
    exp = tmp_path / "exp.json"
    exp.write_text(json.dumps({"format": "gindex-studio.experiment/1", "name": "x", "system": "y",
                               "compute": {"total": 16}, "curriculum": [{"domain": "d", "programs": ["cur.json"], "samples": 2}],
                               "tasks": [{"id": "t", "domain": "d", "reference": "ref.json", "generated": {"file": "gen.txt"}}]}))
    with pytest.raises(ExperimentError) as e:
        load_experiment(exp)
    assert line in str(e.value)
    with pytest.raises(FlowError) as ui:
        cview.load_files(str(ref), str(gen))
    assert str(ui.value) == line and ui.value.side == "reference"
