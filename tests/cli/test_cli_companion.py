"""``gindex --domains`` on a companion experiment, with and without the companion's cache_dd
symmetrisation (``--symmetrise-directory-order``), driven through a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.experiment import load_companion_experiment
from gindex_studio.core.benchmark.gindex import companion_dd_matrix, compute_companion_gindex


def run(*args):
    p = subprocess.run([sys.executable, "-m", "gindex_studio.cli", *map(str, args)], capture_output=True, text=True,
                       timeout=120, env={"PATH": "/usr/bin:/bin"})
    return p.returncode, p.stdout, p.stderr


def _write(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def _companion(tmp_path: Path) -> tuple[Path, Path]:
    """alpha = {inject→debug, http in→http response}, beta = {inject→debug}: dd(alpha, beta) = 0.5,
    dd(beta, alpha) = 0, so the symmetrised matrix differs from the directional one."""
    dom = tmp_path / "domains"
    ds = lambda name, flow: {"title": "t", "text": "x", "flow": flow, "name": name}  # noqa: E731
    inj = lambda p: [{"id": p + "i", "type": "inject", "topic": "t", "wires": [[p + "d"]]},  # noqa: E731
                     {"id": p + "d", "type": "debug", "wires": []}]
    _write(dom / "alpha" / "alpha-1.json", ds("alpha", inj("a1")))
    _write(dom / "alpha" / "alpha-2.json", ds("alpha", [
        {"id": "h", "type": "http in", "url": "/x", "wires": [["r"]]}, {"id": "r", "type": "http response", "wires": []}]))
    _write(dom / "beta" / "beta-1.json", ds("beta", inj("b1")))
    exp = {
        "model": {"name": "GPT2", "train_params": {"model_name": "gpt2-medium"}},
        "train_set": {"data": [{"name": "alpha", "num_samples": 4}, {"name": "beta", "num_samples": 2}]},
        "test_set": {"data": [{"name": "alpha", "num_samples": 2}, {"name": "beta", "num_samples": 1}]},
        "train_cost": {"time": 100.0, "compute": 32},
        "performance": {"divergence": 0.375, "domains": [
            {"name": "alpha", "num_samples": 2, "divergence": 0.25, "perfects": 0.5},
            {"name": "beta", "num_samples": 1, "divergence": 0.5, "perfects": 0.0}]},
    }
    return _write(tmp_path / "exp.json", exp), dom


def test_symmetrise_directory_order_on_the_command_line(tmp_path):
    path, dom = _companion(tmp_path)
    code, out, err = run("gindex", path, "--domains", dom, "--json")
    assert code == 0, err
    plain = json.loads(out)
    code, out, err = run("gindex", path, "--domains", dom, "--symmetrise-directory-order", "--json")
    assert code == 0, err
    sym = json.loads(out)
    per = {t["id"]: t["omega_per_domain"] for t in plain["tasks"]}
    per_sym = {t["id"]: t["omega_per_domain"] for t in sym["tasks"]}
    assert per["alpha"]["beta"] == 0.5 and per["beta"]["alpha"] == 0.0  # directional, spec §5
    # the companion's cache_dd: whichever folder os.listdir gives first computes dd for both directions
    first, second = [d for d in os.listdir(dom) if d in ("alpha", "beta")]
    value = {"alpha": 0.5, "beta": 0.0}[first]
    assert per_sym[first][second] == per_sym[second][first] == value
    cexp = load_companion_experiment(path, dom)
    assert companion_dd_matrix(cexp, symmetrise_in_directory_order=True)[(second, first)] == value
    expected = compute_companion_gindex(cexp, dom, symmetrise_in_directory_order=True).g_index
    assert sym["g_index"] == expected and sym["g_index"] != plain["g_index"]


def test_symmetrise_directory_order_needs_domains(tmp_path):
    path, _dom = _companion(tmp_path)
    code, _out, err = run("gindex", path, "--symmetrise-directory-order")
    assert code == 1 and "--domains" in err and len(err.strip().splitlines()) == 1


def test_leave_self_out_on_the_command_line(tmp_path):
    """Every test domain at Ω = 0 prints one warning naming --leave-self-out, and the leak column's
    "?" is explained under the table; with the flag each program is measured without itself:
    alpha's two programs are 1 apart, beta's only program is left with none (1)."""
    path, dom = _companion(tmp_path)
    code, out, err = run("gindex", path, "--domains", dom)
    assert code == 0, err
    warned = [ln for ln in out.splitlines() if ln.startswith("warning:") and "Ω = 0 for all 2" in ln]
    assert len(warned) == 1 and "--leave-self-out" in warned[0]
    assert [ln for ln in out.splitlines() if ln.startswith("leak ?:")]
    code, out, err = run("gindex", path, "--domains", dom, "--leave-self-out", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["leave_self_out"] is True
    assert {t["id"]: t["omega_per_domain"] for t in got["tasks"]} == {
        "alpha": {"alpha": 1.0, "beta": 0.5}, "beta": {"alpha": 0.0, "beta": 1.0}}
    assert not [w for w in got["warnings"] if "Ω = 0 for all" in w]


@pytest.mark.slow
def test_report_reads_the_companions_experiments_with_domains(tmp_path):
    """``report --domains`` takes the companion's files (or their folder), one system per file named
    by it, each g-index the aggregate mode's; without --domains such a file is one line, exit 1."""
    path, dom = _companion(tmp_path)
    other = json.loads(path.read_text())
    other["performance"]["domains"][0]["divergence"] = 0.0
    second = _write(tmp_path / "more" / "better.json", other)
    code, out, err = run("report", "--domains", dom, path, second.parent, "--symmetrise-directory-order", "--json")
    assert code == 0, err
    got = {s["label"]: s["g_index"]["value"] for s in json.loads(out)["systems"]}
    want = {p.stem: compute_companion_gindex(load_companion_experiment(p, dom), symmetrise_in_directory_order=True).g_index
            for p in (path, second)}
    assert got == want and got["better"] > got["exp"]
    code, out, err = run("report", path, "--json")
    assert code == 1 and "--domains" in err and len(err.strip().splitlines()) == 1
    code, out, err = run("report", path, "--json", "--symmetrise-directory-order")
    assert code == 1 and "--domains" in err and len(err.strip().splitlines()) == 1
