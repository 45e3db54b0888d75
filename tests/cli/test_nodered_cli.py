"""``gindex-studio run`` and ``probe`` against the session's real Node-RED (issue 25)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main

ROOT = Path(__file__).resolve().parents[2]
HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
DEMO = ROOT / "resources" / "demo" / "runtime"


def _remote(nodered):
    """No options: each command starts the studio's private, sandboxed Node-RED (the fixture only
    makes sure it is installed)."""
    return []


@pytest.mark.slow
def test_run_http1_is_clean(nodered, capsys):
    assert main(["run", str(HTTP1), "--json", *_remote(nodered)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clean"] is True and out["problems"] == []


@pytest.mark.slow
def test_run_reports_one_line_per_problem(nodered, capsys, tmp_path):
    flow = [{"id": "t", "type": "tab"},
            {"id": "u", "type": "made-up", "z": "t", "wires": []},
            {"id": "i", "type": "inject", "z": "t", "payload": "", "payloadType": "date", "wires": [["f"]]},
            {"id": "f", "type": "function", "z": "t", "func": "null.x;", "outputs": 1, "wires": [[]]}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(flow))
    assert main(["run", str(path), *_remote(nodered)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "missing-type: made-up u: node type 'made-up' is not installed"
    assert len(lines) == 2 and lines[1].startswith("runtime-error: function f: TypeError: Cannot read properties of null")


def test_run_bad_input_is_one_line(capsys, tmp_path):
    (tmp_path / "x.json").write_text("[]")
    assert main(["run", str(tmp_path / "x.json")]) == 1
    assert capsys.readouterr().err.strip() == f"gindex-studio: {tmp_path / 'x.json'}: no nodes to run"


@pytest.mark.slow
def test_probe_prints_behaviour_beside_delta(nodered, capsys):
    assert main(["probe", str(DEMO / "reference.json"), str(DEMO / "same-behaviour.json"), "--settle", "1",
                 *_remote(nodered)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Δ = 0.489796 · runs: yes · behaves like the reference on 2 of 2 probes"
    # the programs behave differently: exit 1, as diff's
    assert main(["probe", str(DEMO / "reference.json"), str(DEMO / "one-constant.json"), "--json", "--settle", "1",
                 *_remote(nodered)]) == 1
    res = json.loads(capsys.readouterr().out)
    assert (res["agree"], res["probes"], round(res["delta"], 6), res["exit"]) == (1, 2, 0.047052, 1)
    assert [o["agrees"] for o in res["outcomes"]] == [False, True]
    assert res["outcomes"][0]["generated"]["debug"] == [66]


def _lint_flow(tmp_path):
    flow = [{"id": "t", "type": "tab"},
            {"id": "f", "type": "function", "z": "t", "func": "total = 1;\nreturn msg;", "x": 100, "y": 80, "wires": [[]]}]
    path = tmp_path / "lintme.json"
    path.write_text(json.dumps(flow))
    return path


def test_lint_command(nodered, capsys, tmp_path):
    path = _lint_flow(tmp_path)
    assert main(["lint", str(path)]) == 1
    assert capsys.readouterr().out.strip() == (f"{path}: lint function-eslint (error): node f: "
                                               "[msg] 'total' is not defined.")
    assert main(["lint", str(path), "--rules", "no-unnamed-functions", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["flows"][0]["problems"] == [{"rule": "no-unnamed-functions", "severity": "warn",
                                            "message": "Function node has no name", "nodes": ["f"]}]
    assert main(["lint", str(HTTP1)]) == 0
    assert capsys.readouterr().out.startswith("no findings (1 flow(s); rules: ")


def test_lint_usage_error_names_the_rule(capsys, tmp_path):
    import pytest

    with pytest.raises(SystemExit) as e:
        main(["lint", str(tmp_path / "x.json"), "--rules", "no-such"])
    assert e.value.code == 2 and "unknown nrlint rule 'no-such'" in capsys.readouterr().err


@pytest.mark.slow
def test_run_with_lint(nodered, capsys, tmp_path):
    path = _lint_flow(tmp_path)
    assert main(["run", str(path), "--lint", "--no-inputs", *_remote(nodered)]) == 1
    assert capsys.readouterr().out.strip() == "lint: function f: function-eslint: [msg] 'total' is not defined."


def _crashing(tmp_path):
    """The reference with its converter replaced by a function that ends Node-RED (an unhandled
    rejection)."""
    flow = json.loads((DEMO / "reference.json").read_text())
    for n in flow["flow"]:
        if n["id"] == "m1":
            n.update(type="function", func="Promise.reject(new Error('gone')); return msg;", outputs=1)
    path = tmp_path / "crash.json"
    path.write_text(json.dumps(flow))
    return path


def _experiment(tmp_path):
    exp = {"format": "gindex-studio.experiment/1", "name": "probes", "system": "s", "priors": 0.0001,
           "compute": {"total": 4},
           "curriculum": [{"domain": "http", "programs": [str(HTTP1)], "samples": 10}],
           "tasks": [{"id": "same", "domain": "calc", "reference": str(DEMO / "reference.json"),
                      "generated": {"file": str(DEMO / "same-behaviour.json")}},
                     {"id": "crash", "domain": "calc", "reference": str(DEMO / "reference.json"),
                      "generated": {"file": str(_crashing(tmp_path))}},
                     {"id": "const", "domain": "calc", "reference": str(DEMO / "reference.json"),
                      "generated": {"file": str(DEMO / "one-constant.json")}}]}
    path = tmp_path / "exp.json"
    path.write_text(json.dumps(exp))
    return path


@pytest.mark.slow
def test_gindex_probes_column_beside_theta(nodered, capsys, tmp_path):
    path = _experiment(tmp_path)
    assert main(["gindex", str(path), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["gindex", str(path), "--probes", "--settle", "1", *_remote(nodered)]) == 0
    out = capsys.readouterr().out.splitlines()
    # behaviour is reported beside the g-index, never folded into it
    assert out[0].startswith(f"g-index = {plain['g_index']:.6f} ")
    header = next(line for line in out if line.startswith("task "))
    assert header.split()[:5] == ["task", "domain", "Δ", "θ", "behaves"]
    assert next(line for line in out if line.startswith("same ")).split()[4] == "2/2"
    # the program that ends the runtime gets its own verdict; the table goes on on a fresh runtime
    assert next(line for line in out if line.startswith("crash ")).split()[4:6] == ["crashed", "(0/2)"]  # its second probe is not run
    assert next(line for line in out if line.startswith("const ")).split()[4] == "1/2"


@pytest.mark.slow
def test_gindex_probes_on_several_runtimes_gives_the_table_of_one(nodered, capsys):
    """The demo experiment's 16 tasks probed by 4 runtimes side by side and by one: the same
    verdicts, task by task."""
    exp = str(ROOT / "resources" / "demo" / "experiment.json")
    tables = []
    for n in ("1", "4"):
        assert main(["gindex", exp, "--probes", "--settle", "1", "--json", "--runtimes", n]) == 0
        out = json.loads(capsys.readouterr().out)
        tables.append({t["id"]: t.get("behaviour") for t in out["tasks"]})
    assert tables[0] == tables[1]
    assert sum(1 for b in tables[0].values() if b and b.get("probes")) == 5  # the tasks with probes


def test_runtimes_out_of_range_is_a_usage_error(capsys):
    for n in ("0", "17"):
        with pytest.raises(SystemExit) as e:
            main(["gindex", str(ROOT / "resources" / "demo" / "experiment.json"), "--probes", "--runtimes", n])
        assert e.value.code == 2
        assert f"--runtimes {n}: give 1 to 16 runtimes" in capsys.readouterr().err
