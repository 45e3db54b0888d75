"""The command line, driven through a subprocess as a user would, bad input included."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gindex_studio.paths import DEMO_DIR

PROGRAMS = DEMO_DIR / "programs"


def run(*args, cwd=None, env=None):
    env = env if env is not None else {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"}
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def write(tmp_path, name, value):
    p = tmp_path / name
    p.write_text(value if isinstance(value, str) else json.dumps(value))
    return p


REF = [{"id": "i", "type": "inject", "topic": "t", "wires": [["d"]]}, {"id": "d", "type": "debug", "wires": []}]


def test_score_json_shape_and_values(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.json", [{"id": "a", "type": "inject", "topic": "t", "payload": "1", "wires": [["b"]]},
                                       {"id": "b", "type": "debug", "wires": []}])
    code, out, err = run("score", ref, gen, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["delta"] == 0.4375 and data["theta"] == 0.5625 and data["exact"] is True
    assert data["errors"]["syntax"] is None
    assert any(m["reference"] == "i" and m["generated"] == "a" and m["w"] == 0.5 for m in data["mapping"])
    code, out, _ = run("score", ref, gen, "--json", "--profile", "companion")
    assert json.loads(out)["delta"] == 0.0


def test_score_text_output_and_broken_model_text(tmp_path):
    ref = write(tmp_path, "ref.json", REF)
    gen = write(tmp_path, "gen.txt", "Here you go:\n```json\n" + json.dumps(REF)[:40])
    code, out, err = run("score", ref, gen)
    assert code == 0, err
    assert "Δ = " in out and "syntax: line" in out


def test_matrix_in_given_order(tmp_path):
    files = [PROGRAMS / "http" / "http-1.json", PROGRAMS / "twitter" / "twitter-1.json", PROGRAMS / "http" / "http-2.json"]
    code, out, err = run("matrix", *files, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["files"] == [str(f) for f in files]
    m = data["delta"]
    assert [m[i][i] for i in range(3)] == [0.0, 0.0, 0.0] and m[0][1] == m[1][0] and m[0][2] < m[0][1]
    assert data["syntax"] == [None, None, None]


def test_matrix_warns_about_broken_files(tmp_path):
    broken = write(tmp_path, "broken.txt", json.dumps(REF)[:30])
    code, out, err = run("matrix", PROGRAMS / "http" / "http-1.json", broken)
    assert code == 0 and "warning: " in err and "broken.txt" in err and "line 1" in err


def test_omega_finds_the_same_domain_nearest(tmp_path):
    code, out, err = run("omega", "--curriculum", PROGRAMS, "--tasks", PROGRAMS / "http" / "http-4.json", "--json",
                         "--workers", "1")
    assert code == 0, err
    task = json.loads(out)["tasks"][0]
    assert task["omega"] == 0.0 and task["nearest"] == "http/http-4.json"
    assert task["domains"]["twitter"]["omega"] > 0.5


def test_library_lists_types():
    code, out, err = run("library", "--json")
    assert code == 0, err
    types = {t["type"] for t in json.loads(out)["types"]}
    assert {"inject", "http request", "ui_slider", "maya-browser-open"} <= types


@pytest.mark.parametrize("args,needle", [
    (("score", "missing.json", "missing2.json"), "no such file"),
    (("omega", "--curriculum", "nowhere", "--tasks", "x.json"), "must be a folder"),
    (("gindex", "nope.json"), "nope.json"),
    (("compare", "nope.json", "nope2.json"), "no such file"),
])
def test_bad_input_exits_1_with_one_line(args, needle):
    code, out, err = run(*args)
    assert code == 1
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_broken_reference_is_bad_input(tmp_path):
    ref = write(tmp_path, "ref.json", "[{\"id\": ")
    code, _out, err = run("score", ref, ref)
    assert code == 1 and "not valid JSON" in err and len(err.strip().splitlines()) == 1


def test_usage_error_exits_2():
    code, _out, err = run("score", "--profile", "nonsense", "a", "b")
    assert code == 2 and "usage" in err


def test_gindex_of_the_demo_experiment_json_and_text():
    code, out, err = run("gindex", DEMO_DIR / "experiment.json", "--json", "--workers", "1")
    assert code == 0, err
    data = json.loads(out)
    assert data["g_index"] > 0 and len(data["tasks"]) == 16
    assert all(0.0 <= t["delta"] <= 1.0 and t["tc"] > 0 for t in data["tasks"])
    code, text, err = run("gindex", DEMO_DIR / "experiment.json", "--workers", "1")
    assert code == 0, err
    assert f"g-index = {data['g_index']:.6f}" in text and "telegram-2-reply-4" in text


def test_bad_experiment_numbers_are_one_line(tmp_path):
    exp = json.loads((DEMO_DIR / "experiment.json").read_text())
    exp["compute"] = {"total": -5}
    p = tmp_path / "exp.json"
    p.write_text(json.dumps(exp))
    code, _out, err = run("gindex", p)
    assert code == 1 and "compute.total" in err and len(err.strip().splitlines()) == 1


def test_no_display_is_one_line_not_a_crash():
    code, _out, err = run(env={"PATH": "/usr/bin:/bin"})
    assert code == 1 and "no display" in err and len(err.strip().splitlines()) == 1

