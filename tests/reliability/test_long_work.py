"""Huge input is refused before the work with its reason, repeated warnings are summarised, and
long work shows progress on a terminal (issue 14, items 12 and 13)."""
import json
import os
import pty
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio import cli
from gindex_studio.core.support import limits
from gindex_studio.core.flows.flow import write_flow_file
from gindex_studio.core.flows.generate import random_flow

ROOT = Path(__file__).resolve().parents[2]


def run(*args, tty=False, timeout=60):
    """The command line of this checkout; stderr on a pseudo-terminal when ``tty``."""
    cmd = [sys.executable, "-m", "gindex_studio.cli", *map(str, args)]
    if not tty:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out = p.stdout.read()
    p.wait(timeout)
    return p.returncode, out, b"".join(chunks).decode()


def _same_type_flow(n: int, prefix: str) -> list:
    return [{"id": f"{prefix}{i}", "type": "debug", "wires": []} for i in range(n)]


@pytest.mark.slow
def test_a_pair_too_big_for_any_memory_is_refused_at_once_with_its_reason(tmp_path):
    # 50,000 × 50,000 nodes of one type: 2.5e9 association pairs, about 1.25 TB
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_same_type_flow(50_000, name)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code, out, err = run("score", tmp_path / "a.json", tmp_path / "b.json")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # at once: the command's CPU time, reading two files included (load stretches elapsed time, not this)
    spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert code == 1 and out == "" and spent < 10, (code, spent, err)
    assert err.startswith("gindex-studio: scoring 50,000 × 50,000 nodes (2,500,000,000 same-type node pairs) "
                          "needs about 1.25 TB of memory and ")
    assert err.endswith(" is free; nothing was computed\n") and err.count("\n") == 1


def test_the_limit_is_the_free_memory_not_a_node_count(tmp_path, monkeypatch, capsys):
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_same_type_flow(300, name)))
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 10**6)  # 90,000 pairs need 45 MB
    assert cli.main(["score", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    err = capsys.readouterr().err
    assert "(90,000 same-type node pairs) needs about 45 MB of memory and 10 MB is free" in err
    monkeypatch.setattr(limits, "available_memory", lambda: 100 * 10**6)
    assert cli.main(["score", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--deadline", "1"]) == 0


def test_an_array_of_100000_integers_gives_a_few_lines_not_100000(tmp_path):
    (tmp_path / "ints.json").write_text(json.dumps(list(range(100_000))))
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(_same_type_flow(8, "g")))
    code, out, err = run("score", ok, tmp_path / "ints.json")  # a model's output: read leniently
    assert code == 0 and err == ""
    assert len(out.splitlines()) < 20, out[:3000]
    assert "Δ = 1 because the generated program has no nodes (|V'| = 8, |V''| = 0)" in out
    assert "0²" not in out
    assert 'warning: generated: … and 99,997 more like "entry 0 is not a node object' in out
    # a reference is read strictly: entries without one node are no program (issue 36, item 9)
    code, out, err = run("score", tmp_path / "ints.json", ok)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.endswith("ints.json: holds 100,000 entries but none is a node object with a string id and type\n")


@pytest.fixture(scope="module")
def far_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("far")
    write_flow_file(random_flow(120, random.Random(0), "c"), d / "ref.json")
    write_flow_file(random_flow(120, random.Random(1000), "t"), d / "gen.json")
    return d / "ref.json", d / "gen.json"


@pytest.mark.slow
def test_a_long_search_shows_its_bound_and_nodes_explored_on_a_terminal(far_pair):
    code, out, err = run("score", *far_pair, "--deadline", "2.5", tty=True)
    assert code == 0 and "Δ = " in out
    assert "after 1 s: Δ ≤ " in err and "proven ≥ " in err
    assert "search nodes explored" in err
    assert "Δ = " not in err  # the result stays on stdout


@pytest.mark.slow
def test_no_progress_when_stderr_is_not_a_terminal_unless_asked(far_pair):
    code, out, err = run("score", *far_pair, "--deadline", "1.5")
    assert code == 0 and err == ""
    code, out, err = run("score", *far_pair, "--deadline", "1.5", "--json", "--progress")
    assert code == 0 and "after 1 s: Δ ≤ " in err and json.loads(out)["exact"] is False


def test_omega_shows_tasks_done_with_progress(far_pair, tmp_path):
    (tmp_path / "cur" / "d").mkdir(parents=True)
    for i in range(3):
        write_flow_file(random_flow(10, random.Random(i), "c"), tmp_path / "cur" / "d" / f"c{i}.json")
    code, out, err = run("omega", "--curriculum", tmp_path / "cur", "--tasks", tmp_path / "cur" / "d", "--progress",
                         "--workers", "1")
    assert code == 0 and "Ω: 0/3 tasks" in err and "Ω: 3/3 tasks\n" in err


# ----- matrix, omega and gindex: the same limit before the work, progress on a terminal ----------


@pytest.fixture
def three_hundred(tmp_path):
    """Two 300-node flows of one type (90,000 same-type pairs: about 45 MB by score's estimate), a
    curriculum of one of them and an experiment scoring the other against it."""
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_same_type_flow(300, name)))
    (tmp_path / "cur" / "d").mkdir(parents=True)
    (tmp_path / "cur" / "d" / "c.json").write_text(json.dumps(_same_type_flow(300, "c")))
    (tmp_path / "exp.json").write_text(json.dumps({
        "format": "gindex-studio.experiment/1", "name": "big", "system": "s", "compute": {"total": 8},
        "curriculum": [{"domain": "d", "programs": ["cur/d/c.json"], "samples": 1}],
        "tasks": [{"id": f"t{i}", "domain": "d", "reference": "a.json", "generated": {"file": "b.json"}}
                  for i in range(2)]}))
    return tmp_path


@pytest.fixture
def no_search(monkeypatch):
    """Any search started fails the test: a refusal must come before the work."""
    from gindex_studio.core.benchmark import curriculum, matrix
    from gindex_studio.core.scoring import divergence

    def fail(*_a, **_k):
        raise AssertionError("a search started before the limit was checked")

    monkeypatch.setattr(curriculum, "max_common_subgraph", fail)
    monkeypatch.setattr(matrix, "max_common_subgraph", fail)
    monkeypatch.setattr(divergence, "max_common_subgraph", fail)


def test_matrix_omega_and_gindex_are_refused_before_any_search_with_what_they_need(
        three_hundred, monkeypatch, capsys, no_search):
    d = three_hundred
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 10**6)
    pairs = "scores 300 × 300 nodes (90,000 same-type node pairs)"
    cases = [
        (["matrix", d / "a.json", d / "b.json"],
         f"Δ matrix: its largest search, a.json × a.json, {pairs} and needs about 45 MB of memory; 10 MB is free"),
        (["omega", "--curriculum", d / "cur", "--tasks", d / "a.json", "--workers", "1"],
         f"Ω: its largest search, a.json × d/c.json, {pairs} and needs about 45 MB of memory; 10 MB is free"),
        (["omega", "--curriculum", d / "cur", "--tasks", d / "a.json", d / "b.json", "--workers", "2"],
         f"Ω: its largest search, a.json × d/c.json, {pairs}; 2 processes searching at once need about 90 MB "
         "of memory and 10 MB is free"),
        (["gindex", d / "exp.json", "--workers", "1"],
         f"g-index, Δ: its largest search, task t0 attempt 1, {pairs} and needs about 45 MB of memory; 10 MB is free"),
    ]
    for argv, line in cases:
        assert cli.main([str(a) for a in argv]) == 1, argv
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == f"gindex-studio: {line}; nothing was computed\n"


def test_the_g_index_checks_omega_with_its_processes(three_hundred, monkeypatch, capsys, no_search):
    # Δ (one search at a time) fits in 60 MB; Ω of two tasks on two processes does not
    monkeypatch.setattr(limits, "available_memory", lambda: 60 * 10**6)
    assert cli.main(["gindex", str(three_hundred / "exp.json"), "--workers", "2"]) == 1
    assert capsys.readouterr().err == (
        "gindex-studio: g-index, Ω: its largest search, task t0 × cur/d/c.json, scores 300 × 300 nodes (90,000 "
        "same-type node pairs); 2 processes searching at once need about 90 MB of memory and 60 MB is free; "
        "nothing was computed\n")


def test_work_that_fits_is_not_refused(tmp_path, monkeypatch, capsys):
    # 100 × 100 same-type nodes: about 5 MB by score's estimate, 10 MB free (300 × 300 took the
    # pure-Python search past the test's 300 s limit; the native one needs a fraction of a second)
    (tmp_path / "cur" / "d").mkdir(parents=True)
    (tmp_path / "a.json").write_text(json.dumps(_same_type_flow(100, "a")))
    (tmp_path / "cur" / "d" / "c.json").write_text(json.dumps(_same_type_flow(100, "c")))
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 10**6)
    assert cli.main(["omega", "--curriculum", str(tmp_path / "cur"), "--tasks", str(tmp_path / "a.json"),
                     "--workers", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tasks"][0]["omega"] == 0.0


def test_matrix_shows_searches_done_on_a_terminal(tmp_path):
    files = []
    for i in range(3):
        files.append(tmp_path / f"p{i}.json")
        write_flow_file(random_flow(8, random.Random(i), "p"), files[-1])
    code, out, err = run("matrix", *files, tty=True)
    assert code == 0 and "p2.json" in out
    assert "Δ matrix: 0/6 searches" in err and "Δ matrix: 6/6 searches\r\n" in err  # symmetric: 3·4/2; \r\n: a terminal
    code, out, err = run("matrix", *files, "--profile", "companion", tty=True)
    assert code == 0 and "Δ matrix: 9/9 searches\r\n" in err
    code, out, err = run("matrix", *files)
    assert code == 0 and err == ""


def test_gindex_shows_delta_then_omega_progress_on_a_terminal():
    experiment = ROOT / "resources" / "demo" / "experiment.json"
    code, out, err = run("gindex", experiment, "--workers", "2", tty=True, timeout=300)
    assert code == 0 and out.startswith("g-index = ")
    assert "Δ of the tasks: 16 of 16" in err and "Ω of the tasks: 16 of 16" in err  # the compare helper's listener
    assert "g-index = " not in err
    code, out, err = run("gindex", experiment, "--workers", "2", "--json", timeout=300)
    assert code == 0 and err == "" and json.loads(out)["g_index"] > 0
