"""``run``, ``probe`` and ``gindex --probes`` on hostile or bad input (issue 31, items 4-7): no
sandbox means no run (unless --no-sandbox), the user's Node-RED only with --trust-flows, exit
codes as diff's, one line for bad input, every run bounded, nothing left after kill -9."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main

ROOT = Path(__file__).resolve().parents[2]
HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
DEMO = ROOT / "resources" / "demo" / "runtime"


def _write(tmp_path, name, nodes):
    path = tmp_path / name
    path.write_text(json.dumps(nodes))
    return path


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon"])
def test_impossible_timeouts_are_usage_errors(value, capsys):
    for cmd in (["run", str(HTTP1)], ["probe", str(HTTP1), str(HTTP1)]):
        with pytest.raises(SystemExit) as e:
            main([*cmd, "--timeout", value])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert re.search(r"argument --timeout: must be a (positive, finite )?number of seconds, not '", err)
        assert "Traceback" not in err


def test_the_users_node_red_needs_trust_flows(capsys):
    for cmd in (["run", str(HTTP1)], ["probe", str(HTTP1), str(HTTP1)]):
        with pytest.raises(SystemExit) as e:
            main([*cmd, "--node-red", "http://127.0.0.1:1880"])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.endswith("--node-red http://127.0.0.1:1880: a model's flow would run there unsandboxed, with "
                            "that Node-RED's rights (files, network, programs); add --trust-flows to allow it")


@pytest.mark.slow
def test_trusted_node_red_is_said_on_stderr(user_nodered, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(user_nodered.token + "\n"))
    assert main(["run", str(HTTP1), "--node-red", user_nodered.url, "--token", "-",
                 "--trust-flows", "--settle", "0.5"]) == 0
    err = capsys.readouterr().err
    assert err.count("--trust-flows: the flow runs unsandboxed in your Node-RED at") == 1


@pytest.fixture
def no_bubblewrap(tmp_path, monkeypatch, nodered):
    """A PATH with node, npm and prlimit but no bwrap: a machine where no sandbox can be made."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("node", "npm", "prlimit", "ldd"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("bwrap") is None


@pytest.mark.slow
def test_no_sandbox_no_run(no_bubblewrap, capsys):
    assert main(["run", str(HTTP1)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bubblewrap is not installed" in err[0] and "apt-get install bubblewrap" in err[0]
    assert "--no-sandbox" in err[0]
    assert main(["probe", str(DEMO / "reference.json"), str(DEMO / "same-behaviour.json")]) == 3
    assert "bubblewrap is not installed" in capsys.readouterr().err
    # asked for: the flow runs with the user's rights, said once
    assert main(["run", str(HTTP1), "--no-sandbox", "--settle", "0.5"]) == 0
    out, err = capsys.readouterr()
    assert "deployed and ran with no problems" in out
    assert err.count("--no-sandbox: the flow runs with your own rights") == 1


@pytest.mark.slow
def test_probe_exit_codes(nodered, capsys, tmp_path):
    same = ["probe", str(DEMO / "reference.json"), str(DEMO / "same-behaviour.json"), "--settle", "1"]
    assert main(same) == 0
    capsys.readouterr()
    # the reference itself does not run: nothing to compare against, exit 3
    ref = json.loads((DEMO / "reference.json").read_text())
    ref["flow"].append({"id": "ghost", "type": "frobnicate", "z": "tab1", "wires": []})
    bad_ref = _write(tmp_path, "ref.json", ref)
    assert main(["probe", str(bad_ref), str(DEMO / "same-behaviour.json"), "--settle", "1", "--json"]) == 3
    captured = capsys.readouterr()
    res = json.loads(captured.out)
    assert res["exit"] == 3 and res["reference_verdict"] == "does not run"
    assert "the reference does not run: the programs could not be compared" in captured.err
    # unreadable input: could not run
    assert main(["probe", str(tmp_path / "missing.json"), str(DEMO / "same-behaviour.json")]) == 3


@pytest.mark.slow
def test_bad_flow_shapes_are_one_line_each(nodered, capsys, tmp_path):
    """Wires that are a string, objects, or nested oddly; a z that is an object: no traceback."""
    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "1", "payloadType": "num", "wires": "d"},
            {"id": "j", "type": "inject", "z": "t", "payload": "1", "payloadType": "num", "wires": [[{"id": "d"}]]},
            {"id": "k", "type": "inject", "z": {"id": "t"}, "payload": "1", "payloadType": "num",
             "wires": [None, 3, ["d"]]},
            {"id": "r", "type": "http request", "z": "t", "url": "http://[::1", "wires": [[]]},
            {"id": "d", "type": "debug", "z": "t", "active": True, "wires": []}]
    code = main(["run", str(_write(tmp_path, "odd.json", flow)), "--settle", "0.3"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and err == ""
    assert code == 1 and out.strip().splitlines() == [
        "needs-network: http request r: needs the network (an unreadable address (Invalid IPv6 URL)): not run here"]


@pytest.mark.slow
def test_an_html_error_page_is_one_line(nodered, capsys, tmp_path):
    """Node-RED answers a flow over its 5 MB API limit with an HTML page: one line of it."""
    flow = [{"id": "t", "type": "tab"},
            {"id": "f", "type": "function", "z": "t", "func": "// " + "x" * (6 * 1024 * 1024), "wires": [[]]}]
    assert main(["run", str(_write(tmp_path, "big.json", flow)), "--no-inputs"]) == 1
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("deploy-error: Node-RED refused the flow (HTTP 413): PayloadTooLargeError")
    assert "<" not in line and len(line) < 400


@pytest.mark.slow
def test_ten_thousand_injects_are_cut_at_the_runs_limit(nodered, capsys, tmp_path):
    flow = [{"id": "t", "type": "tab"}]
    flow += [{"id": f"i{k}", "type": "inject", "z": "t", "payload": str(k), "payloadType": "num", "once": True,
              "wires": [["d"]]} for k in range(10_000)]
    flow.append({"id": "d", "type": "debug", "z": "t", "active": True, "complete": "false", "wires": []})
    t0 = time.monotonic()
    assert main(["run", str(_write(tmp_path, "many.json", flow)), "--timeout", "10", "--settle", "0.5"]) == 1
    took = time.monotonic() - t0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("timeout: the run's limit of 10 s was reached with ")
    assert lines[-1].endswith(" of 10000 inputs not given")
    assert took < 10 + 8  # the limit, the runtime's start and stop


@pytest.mark.slow
def test_an_endless_loop_is_reported_on_its_node(nodered, capsys, tmp_path):
    """while(true) in the function's body: its time limit (5 s) names it; the runtime goes on."""
    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "1", "payloadType": "num", "wires": [["f1"]]},
            {"id": "f1", "type": "function", "z": "t", "name": "spin", "func": "while (true) {}", "wires": [[]]}]
    t0 = time.monotonic()
    assert main(["run", str(_write(tmp_path, "loop.json", flow)), "--settle", "0.5", "--timeout", "20"]) == 1
    assert time.monotonic() - t0 < 20 + 5
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == ["timeout: function f1: timeout in function spin: its code ran for over 5 s and was stopped"]


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_kill_9_of_run_leaves_no_process_and_the_next_start_removes_its_folder(nodered, tmp_path, monkeypatch):
    from gindex_studio.core.nodered.runtime import remove_stale, runs_dir

    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "1", "payloadType": "num", "wires": [["dl"]]},
            {"id": "dl", "type": "delay", "z": "t", "pauseType": "delay", "timeout": "60", "timeoutUnits": "seconds",
             "wires": [[]]}]
    path = _write(tmp_path, "slow.json", flow)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))  # its runtime folder is in tmp_path
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # runs_dir() below looks there too
    before = set(runs_dir().glob("rt-*"))
    child = subprocess.Popen([sys.executable, "-m", "gindex_studio", "run", str(path)], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        mine: set[Path] = set()
        while time.monotonic() < deadline and not mine:
            mine = {d for d in set(runs_dir().glob("rt-*")) - before if (d / "admin.sock").exists()}
            time.sleep(0.2)
        assert mine, "the run's runtime did not start"
        time.sleep(4)  # deployed, its input fired: mid-run (the delay holds it for 60 s)
        procs = _descendants(child.pid)
        assert procs and child.poll() is None
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        end = time.monotonic() + 15
        while time.monotonic() < end and any(_running(p) for p in procs):
            time.sleep(0.1)
        assert not any(_running(p) for p in procs), "a process of the killed run is still there"
        assert all(d.exists() for d in mine)  # nothing could remove it: the next start does
        gone = remove_stale()
        assert mine <= set(gone) and not any(d.exists() for d in mine)
    finally:
        if child.poll() is None:
            child.kill()
