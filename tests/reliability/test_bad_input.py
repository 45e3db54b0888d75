"""Junk input gives one clear line, never a traceback or a hang (issue 14, items 9-11, 15)."""
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from gindex_studio.core.scoring.divergence import score
from gindex_studio.core.benchmark.experiment import ExperimentError, load_experiment
from gindex_studio.core.flows.flow import FlowError, flow_from_nodes, read_flow_bytes
from gindex_studio.core.flows.lenient import read_model_output
from gindex_studio.paths import DEMO_DIR

ROOT = Path(__file__).resolve().parents[2]
REF = f"{DEMO_DIR}/programs/telegram-2-reply/telegram-2-reply-4.json"
GEN = f"{DEMO_DIR}/generated/telegram-2-reply-4.txt"
DEPTH = 100_000


def cli(*args, timeout=60):
    """Run the command line of this checkout; (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], cwd=ROOT,
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def _deep_object() -> str:
    return '{"a":' * DEPTH + "1" + "}" * DEPTH


def _one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    return lines[0]


def test_deeply_nested_model_output_is_broken_output_not_a_crash():
    read = read_model_output(_deep_object())
    assert read.flow.nodes == [] and read.syntax is not None
    node = '{"id":"a","type":"inject","wires":[]}'
    read = read_model_output(f"[{node},{{\"id\":\"b\",\"type\":\"x\",\"v\":{_deep_object()}}}]")
    assert [n.id for n in read.flow.nodes] == ["a"]  # the nodes before the deep one are kept
    assert "nested too deeply" in read.syntax.message


def test_deeply_nested_strict_flow_is_a_flow_error():
    with pytest.raises(FlowError, match="its JSON is nested deeper than 100 levels"):
        read_flow_bytes(_deep_object().encode())
    with pytest.raises(FlowError):
        read_flow_bytes(("[" * DEPTH + "]" * DEPTH).encode())


@pytest.mark.parametrize("command", ["score", "matrix"])
def test_deeply_nested_generated_file_scores_as_broken_output(tmp_path, command):
    deep = tmp_path / "deep.txt"
    deep.write_text(_deep_object())
    code, out, err = cli(command, REF, deep)
    assert code == 0 and "Traceback" not in err, err[-2000:]
    if command == "score":
        assert "Δ = 1.000000" in out and "syntax: line 1" in out


def test_deeply_nested_experiment_output_gives_the_gindex(tmp_path):
    exp = orjson.loads(Path(DEMO_DIR, "experiment.json").read_bytes())
    task = exp["tasks"][0]
    (tmp_path / "deep.txt").write_text(_deep_object())
    base = Path(DEMO_DIR)
    exp["curriculum"] = [dict(c, programs=[str(base / p) for p in c["programs"]]) for c in exp["curriculum"]]
    exp["tasks"] = [dict(task, reference=str(base / task["reference"]), generated=str(tmp_path / "deep.txt"))]
    (tmp_path / "e.json").write_bytes(orjson.dumps(exp))
    code, out, err = cli("gindex", tmp_path / "e.json")
    assert code == 0 and "Traceback" not in err, err[-2000:]
    assert "g-index =" in out


def test_samples_beyond_a_float_is_one_line_exit_1(tmp_path):
    text = Path(DEMO_DIR, "experiment.json").read_text().replace('"samples": 60', '"samples": 1' + "0" * 400, 1)
    assert "0" * 400 in text
    (tmp_path / "experiment.json").write_text(text)
    for p in Path(DEMO_DIR).iterdir():
        if p.is_dir():
            (tmp_path / p.name).symlink_to(p)
    with pytest.raises(ExperimentError, match=r"curriculum\[0\]\.samples: is too large: .*, got a 401-digit number"):
        load_experiment(tmp_path / "experiment.json")
    code, _out, err = cli("gindex", tmp_path / "experiment.json")
    assert code == 1 and "is too large" in _one_line_error(err)


@pytest.mark.parametrize("old, field", [('"priors": 0.0001', "priors"), ('"time": 2392', "compute.time")])
def test_priors_and_compute_beyond_a_float_are_refused(tmp_path, old, field):
    key = old.split(":")[0]
    text = Path(DEMO_DIR, "experiment.json").read_text().replace(old, f'{key}: 1{"0" * 400}')
    (tmp_path / "experiment.json").write_text(text)
    with pytest.raises(ExperimentError, match=field):
        load_experiment(tmp_path / "experiment.json")


SECONDS = "must be a number of seconds above 0"
EXP = f"{DEMO_DIR}/experiment.json"
NEW = ["experiment", "new", "--curriculum", f"{DEMO_DIR}/programs", "--tasks", REF, "--outputs", "o.jsonl", "-o", "x.json"]


@pytest.mark.parametrize("args, message", [
    (["score", REF, GEN, "--deadline", "nan"], f"score: error: argument --deadline: {SECONDS}, got nan"),
    (["score", REF, GEN, "--deadline", "-1"], f"score: error: argument --deadline: {SECONDS}, got -1"),
    (["score", REF, GEN, "--deadline", "0"], f"score: error: argument --deadline: {SECONDS}, got 0"),
    (["matrix", REF, GEN, "--deadline", "inf"], f"matrix: error: argument --deadline: {SECONDS}, got inf"),
    (["omega", "--curriculum", f"{DEMO_DIR}/programs", "--tasks", REF, "--workers", "0"],
     "omega: error: argument --workers: must be an integer from 1 to 256, got 0"),
    (["gindex", EXP, "--workers", "-1"], "gindex: error: argument --workers: must be an integer from 1 to 256, got -1"),
    (["gindex", EXP, "--deadline", "nan"], f"gindex: error: argument --deadline: {SECONDS}, got nan"),
    # issue 36, item 14: both bounds of a range are usage errors (the lower ones exited 1)
    (["matrix", REF, GEN, "--workers", "0"], "matrix: error: argument --workers: must be an integer from 1 to 256, got 0"),
    (["matrix", REF, GEN, "--workers", "257"],
     "matrix: error: argument --workers: must be an integer from 1 to 256, got 257"),
    (["gindex", EXP, "--dask-workers", "0"],
     "gindex: error: argument --dask-workers: must be an integer from 1 to 256, got 0"),
    (["report", EXP, "--json", "-k", "0"], "report: error: argument -k: must be an integer from 1 to 10,000, got 0"),
    (["report", EXP, "--json", "-k", "10001"],
     "report: error: argument -k: must be an integer from 1 to 10,000, got 10001"),
    ([*NEW, "--compute", "-1"], "experiment new: error: argument --compute: must be a positive number, got -1"),
    ([*NEW, "--compute", "nan"], "experiment new: error: argument --compute: must be a positive number, got nan"),
    ([*NEW, "--compute", "1e400"], "experiment new: error: argument --compute: must be a positive number, got 1e400"),
    ([*NEW, "--compute", "1", "--priors", "-1"],
     "experiment new: error: argument --priors: must be a number >= 0, got -1"),
])
def test_impossible_numbers_are_usage_errors_before_any_work(tmp_path, args, message):
    code, out, err = cli(*args, timeout=20)
    assert code == 2 and out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage: gindex-studio ") and lines[-1] == f"gindex-studio {message}", err


def test_a_positive_deadline_is_still_accepted():
    code, out, _ = cli("score", REF, GEN, "--deadline", "0.5")
    assert code == 0 and "Δ = " in out


def test_cycles_and_self_loops_are_scored_with_a_warning():
    flow = flow_from_nodes([
        {"id": "a", "type": "function", "wires": [["b"]]},
        {"id": "b", "type": "function", "wires": [["a"]]},
        {"id": "c", "type": "debug", "wires": [["c"]]},
    ])
    r = score(flow, flow)
    assert r.delta == 0.0  # the metric allows loops (spec §1)
    ref = [w for w in r.warnings if w.startswith("reference:")]
    assert any("'c' is wired to itself" in w for w in ref)
    assert any("cycle: 2 nodes wired in a loop" in w and "'a', 'b'" in w for w in ref)
    dag = flow_from_nodes([{"id": "a", "type": "inject", "wires": [["b"]]}, {"id": "b", "type": "debug", "wires": []}])
    assert score(dag, dag).warnings == []
