"""Huge input is refused before the work with its reason, repeated warnings are summarised, and
long work shows progress on a terminal (issue 14, items 12 and 13)."""
import json
import os
import pty
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gindex_studio import cli
from gindex_studio.core import limits
from gindex_studio.core.flow import write_flow_file
from gindex_studio.core.generate import random_flow

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


def test_a_pair_too_big_for_any_memory_is_refused_at_once_with_its_reason(tmp_path):
    # 50,000 × 50,000 nodes of one type: 2.5e9 association pairs, about 1.25 TB
    for name in ("a", "b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_same_type_flow(50_000, name)))
    t = time.monotonic()
    code, out, err = run("score", tmp_path / "a.json", tmp_path / "b.json")
    took = time.monotonic() - t
    assert code == 1 and out == "" and took < 10, (code, took, err)
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
    code, out, err = run("score", tmp_path / "ints.json", ok)
    assert code == 0 and err == ""
    assert len(out.splitlines()) < 20, out[:3000]
    assert "Δ = 1 because the reference has no nodes (|V'| = 0, |V''| = 8)" in out
    assert "0²" not in out
    assert 'warning: reference: … and 99,997 more like "entry 0 is not a node object' in out


@pytest.fixture(scope="module")
def far_pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("far")
    write_flow_file(random_flow(120, random.Random(0), "c"), d / "ref.json")
    write_flow_file(random_flow(120, random.Random(1000), "t"), d / "gen.json")
    return d / "ref.json", d / "gen.json"


def test_a_long_search_shows_its_bound_and_nodes_explored_on_a_terminal(far_pair):
    code, out, err = run("score", *far_pair, "--deadline", "2.5", tty=True)
    assert code == 0 and "Δ = " in out
    assert "after 1 s: Δ ≤ " in err and "proven ≥ " in err
    assert "search nodes explored" in err
    assert "Δ = " not in err  # the result stays on stdout


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
