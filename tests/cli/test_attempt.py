"""``gindex-studio attempt`` end to end: a chat-completions server on 127.0.0.1 that the test starts
and counts requests on, a run of 16 tasks × 5 attempts at concurrency 4 killed with SIGKILL half-way
and started again (it asks only what was not answered), the experiment's g-index against
``gindex``'s, Ctrl-C, a local command, the baselines, and the API key kept out of every output."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cli_run import TREE, run  # tests/cli is on sys.path (rootdir-relative test modules)
from fake_chat_server import FLOW, ChatServer, completion, fenced, serve
from gindex_studio.core.systems.runlog import read_log
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study"
KEY = "sk-live-do-not-leak-4242"


@pytest.fixture
def data(tmp_path):
    """The demo study's curriculum and 16 of its tasks; text → reference flow."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    refs = {}
    for f in sorted((STUDY / "tasks").glob("*.json"))[:16]:
        shutil.copy(f, tasks / f.name)
        d = json.loads(f.read_text())
        refs[d["text"]] = d["flow"]
    return STUDY / "curriculum", tasks, refs


def model(refs, delay=0.0):
    """Answers the reference for even seeds, a two-node flow for odd ones (so attempts differ)."""
    def reply(body, n):
        task = body["messages"][0]["content"].rstrip().rsplit("Task: ", 1)[1]
        flow = refs[task] if body.get("seed", 0) % 2 == 0 else FLOW
        return 200, {}, completion(fenced(flow)), delay
    return ChatServer(reply)


def attempt_argv(url, cur, tasks, out, *extra):
    return [sys.executable, "-m", "gindex_studio.cli", "attempt", "--system", "openai", "--base-url", url,
            "--model", "tiny", "--api-key-env", "TINY_KEY", "--curriculum", str(cur), "--tasks", str(tasks),
            "-o", str(out), *extra]


def env():
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": TREE, "TINY_KEY": KEY}


def answered(log) -> int:
    return sum(r.get("error") is None for r in read_log(log)[1].values())


def gindex_of(exp) -> float:
    code, out, err = run("gindex", exp, "--json")
    assert code == 0, err
    return json.loads(out)["g_index"]


def no_key_anywhere(folder, *texts):
    for p in folder.rglob("*"):
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), p
    for t in texts:
        assert KEY not in t


@pytest.mark.slow
def test_killed_half_way_a_rerun_asks_only_the_unanswered_and_scores_like_gindex(data, tmp_path):
    cur, tasks, refs = data
    server = model(refs, delay=0.05)
    out = tmp_path / "run" / "exp.json"
    log = tmp_path / "run" / "exp.json.log.jsonl"
    with serve(server) as url:
        argv = attempt_argv(url, cur, tasks, out, "--attempts", "5", "--concurrency", "4", "--seed", "0", "--json", "--stream")
        p = subprocess.Popen(argv, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (log.exists() and answered(log) >= 30) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(p.pid, signal.SIGKILL)
        first_out, first_err = p.communicate(timeout=30)
        assert p.returncode == -signal.SIGKILL and not out.exists()
        kept = answered(log)
        assert 30 <= kept < 80
        before = server.count
        server.requests.clear()
        q = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q.stderr
    assert server.count == 80 - kept  # only the unanswered; in-flight ones of the killed run again
    assert before >= kept
    summary = json.loads(q.stdout)
    assert (summary["asked"], summary["reused"], summary["errors"], summary["attempts"]) == (80 - kept, kept, 0, 80)
    exp = json.loads(out.read_text())
    assert exp["format"] == "gindex-studio.experiment/2" and len(exp["tasks"]) == 16
    assert all(len(t["generated"]) == 5 for t in exp["tasks"])
    assert exp["x-attempt"]["totals"]["prompt_tokens"] == 80 * 11
    assert exp["x-attempt"]["settings"]["api_key_env"] == "TINY_KEY" and server.requests[0]["stream"] is True
    assert summary["g_index"] == gindex_of(out)
    # seeds 0..4: attempts 0, 2, 4 are the reference (Δ = 0), 1 and 3 the two-node flow
    code, text, _ = run("gindex", out, "--json")
    for t in json.loads(text)["tasks"]:
        assert [d == 0 for d in t["attempt_deltas"]] == [True, False, True, False, True]
    no_key_anywhere(tmp_path, first_err.decode(), q.stdout, q.stderr)


@pytest.mark.slow
def test_an_error_echoing_the_key_never_shows_it(data, tmp_path):
    cur, tasks, _ = data
    server = ChatServer(lambda body, n: (401, {}, json.dumps({"error": f"invalid key {KEY}"}).encode(), 0))
    out = tmp_path / "exp.json"
    with serve(server) as url:
        q = subprocess.run(attempt_argv(url, cur, tasks, out), env=env(), capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q.stderr
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"
    assert "16 errors" in q.stdout
    errors = {a["error"] for t in json.loads(out.read_text())["x-attempt"]["tasks"].values() for a in t["attempts"]}
    assert len(errors) == 1 and errors.pop().startswith("HTTP 401: ")
    no_key_anywhere(tmp_path, q.stdout, q.stderr)


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_answered_and_the_same_command_resumes(data, tmp_path):
    cur, tasks, refs = data
    server = model(refs, delay=0.2)
    out = tmp_path / "exp.json"
    log = tmp_path / "exp.json.log.jsonl"
    with serve(server) as url:
        argv = attempt_argv(url, cur, tasks, out, "--concurrency", "2")
        p = subprocess.Popen(argv, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not (log.exists() and answered(log) >= 4) and time.monotonic() < deadline:
            time.sleep(0.01)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 130 and "interrupted: " in err and "run the same command to resume" in err
        kept = answered(log)
        server.requests.clear()
        q = subprocess.run(argv, env=env(), capture_output=True, text=True, timeout=120)
    assert q.returncode == 0 and server.count == 16 - kept and f"{kept} from the log" in q.stdout


@pytest.mark.slow
def test_a_local_command_and_the_baselines_give_experiments_gindex_reads(data, tmp_path):
    cur, tasks, _ = data
    script = tmp_path / "model.py"
    reminder = tasks / "cron-reminder-4.json"  # answered for every reminder task, prose for the others
    script.write_text(f"import sys\nprompt = sys.stdin.read()\n"
                      f"print(open({str(reminder)!r}).read() if 'reminder' in prompt else 'no idea')\n")
    scores = {}
    for name, extra in (("command", ["--command", f"{sys.executable} {script}"]), ("nearest", []), ("empty", [])):
        out = tmp_path / f"{name}.json"
        code, text, err = run("attempt", "--system", name, *extra, "--curriculum", cur, "--tasks", tasks, "-o", out,
                              "--json", "--compute", "74.75")
        assert code == 0, err
        assert "answered 16/16" in err
        scores[name] = json.loads(text)["g_index"]
        assert scores[name] == gindex_of(out)
    assert scores["nearest"] > scores["command"] > scores["empty"]


@pytest.mark.slow
def test_bad_usage_and_bad_input_are_one_line(data, tmp_path):
    cur, tasks, _ = data
    code, _, err = run("attempt", "--system", "openai", "--curriculum", cur, "--tasks", tasks, "-o", tmp_path / "e.json")
    assert code == 2 and "--system openai needs --base-url and --model" in err
    code, _, err = run("attempt", "--system", "nearest", "--command", "x", "--curriculum", cur, "--tasks", tasks,
                       "-o", tmp_path / "e.json")
    assert code == 2 and "--command is for --system command" in err
    q = subprocess.run(attempt_argv("http://127.0.0.1:9/v1", cur, tasks, tmp_path / "e.json"),
                       env={**env(), "TINY_KEY": ""}, capture_output=True, text=True, timeout=60)
    assert q.returncode == 1 and q.stderr == "gindex-studio: the environment variable TINY_KEY holds no API key\n"
    code, _, err = run("attempt", "--system", "empty", "--curriculum", tmp_path / "none", "--tasks", tasks,
                       "-o", tmp_path / "e.json")
    assert code == 1 and err.count("\n") == 1 and "no such curriculum folder" in err
    code, _, err = run("attempt", "--system", "empty", "--curriculum", cur, "--tasks", tasks, "-o", tmp_path / "e.json")
    assert code == 0
    code, _, err = run("attempt", "--system", "nearest", "--curriculum", cur, "--tasks", tasks, "-o", tmp_path / "e.json")
    assert code == 1 and "written by another system" in err and "give another -o" in err


@pytest.mark.slow
def test_what_would_spoil_the_experiment_is_refused_before_anything_is_asked(data, tmp_path):
    cur, tasks, refs = data
    server = model(refs)
    with serve(server) as url:
        for extra, why in ((["--samples", "nope=3"], "--samples nope=…: no domain 'nope'"),
                           (["--compute", "0.5"], "the g-index is undefined")):
            q = subprocess.run(attempt_argv(url, cur, tasks, tmp_path / "e.json", *extra), env=env(),
                               capture_output=True, text=True, timeout=60)
            assert q.returncode == 1 and why in q.stderr and q.stderr.count("\n") == 1
    assert server.count == 0 and not (tmp_path / "e.json.log.jsonl").exists()
