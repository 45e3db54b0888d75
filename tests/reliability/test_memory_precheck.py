"""``curate``, ``report`` and ``gindex --domains`` refuse work too big for the free memory before
any search, as score/matrix/omega/gindex do (issue 36, item 7), and the free memory counts the
process's own caps (``ulimit -v``)."""
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from gindex_studio import cli
from gindex_studio.core.support import limits

ROOT = Path(__file__).resolve().parents[2]
N = 20_000  # the 20,000-node task: 4·10⁸ same-type pairs, about 200 GB by score's estimate
PAIRS = f"scores {N:,} × {N:,} nodes (400,000,000 same-type node pairs) and needs about 200 GB of memory; "


def _flow(n: int, prefix: str) -> list:
    return [{"id": f"{prefix}{i}", "type": "debug", "wires": []} for i in range(n)]


def _write(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A curriculum domain and a task of 20,000 debug nodes each, an experiment scoring the task
    against it, and a companion experiment whose domains hold them."""
    d = tmp_path_factory.mktemp("big")
    _write(d / "cur" / "d" / "c.json", _flow(N, "c"))
    _write(d / "task.json", _flow(N, "t"))
    _write(d / "exp.json", {
        "format": "gindex-studio.experiment/1", "name": "big", "system": "s", "compute": {"total": 8},
        "curriculum": [{"domain": "d", "programs": ["cur/d/c.json"], "samples": 1}],
        "tasks": [{"id": "t0", "domain": "d", "reference": "task.json", "generated": {"file": "task.json"}}]})
    ds = {"title": "t", "text": "x", "name": "alpha", "flow": _flow(N, "a")}
    _write(d / "domains" / "alpha" / "alpha-1.json", ds)
    _write(d / "domains" / "beta" / "beta-1.json", dict(ds, name="beta", flow=_flow(N, "b")))
    _write(d / "companion.json", {
        "model": {"name": "m"}, "train_set": {"data": [{"name": "alpha", "num_samples": 4}]},
        "test_set": {"data": [{"name": "beta", "num_samples": 1}]}, "train_cost": {"compute": 32},
        "performance": {"divergence": 0.5, "domains": [{"name": "beta", "num_samples": 1, "divergence": 0.5}]}})
    return d


@pytest.fixture
def no_search(monkeypatch):
    """Any search started fails the test: a refusal must come before the work."""
    import importlib

    def fail(*_a, **_k):
        raise AssertionError("a search started before the limit was checked")

    # every module that binds the search, imported before any is patched (an import made while
    # a patch is on would keep ``fail`` for good)
    modules = [importlib.import_module(f"gindex_studio.core.{m}") for m in (
        "scoring.matching", "scoring.divergence", "benchmark.curriculum", "curation.engine")]
    for module in modules:
        if hasattr(module, "max_common_subgraph"):
            monkeypatch.setattr(module, "max_common_subgraph", fail)


@pytest.mark.parametrize("argv, line", [
    (["curate", "{d}/cur", "--tasks", "{d}/task.json", "--no-cache"],
     f"curate: its largest search, d/c.json × task.json, {PAIRS}"),
    (["report", "{d}/exp.json", "--json"], f"s: g-index, Δ: its largest search, task t0 attempt 1, {PAIRS}"),
    (["gindex", "{d}/companion.json", "--domains", "{d}/domains"],
     f"g-index, domain distances: its largest search, beta/beta-1.json × alpha/alpha-1.json, {PAIRS}"),
])
def test_work_that_cannot_fit_is_refused_before_any_search(big, argv, line, capsys, no_search):
    code = cli.main([a.format(d=big) for a in argv])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == "", captured.err[-2000:]
    assert captured.err.startswith(f"gindex-studio: {line}") and captured.err.count("\n") == 1, captured.err
    assert captured.err.endswith(" is free; nothing was computed\n")


def test_the_same_work_that_fits_is_done(tmp_path, monkeypatch, capsys):
    """The check is the free memory, not a node count: 300-node programs pass at 100 MB free."""
    _write(tmp_path / "cur" / "d" / "c.json", _flow(300, "c"))
    _write(tmp_path / "task.json", _flow(300, "t"))
    monkeypatch.setattr(limits, "available_memory", lambda: 100 * 10**6)
    assert cli.main(["curate", str(tmp_path / "cur"), "--tasks", str(tmp_path / "task.json"), "--no-cache",
                     "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["leaks"][0]["delta"] == 0.0
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 10**6)  # 45 MB needed
    assert cli.main(["curate", str(tmp_path / "cur"), "--tasks", str(tmp_path / "task.json"), "--no-cache"]) == 1
    assert "needs about 45 MB of memory; 10 MB is free" in capsys.readouterr().err


def test_a_program_is_never_counted_against_itself(tmp_path, monkeypatch, capsys):
    """curate searches pairs of different programs: one large program among small ones fits."""
    _write(tmp_path / "cur" / "d" / "c.json", _flow(300, "c"))
    _write(tmp_path / "cur" / "d" / "s.json", [{"id": "x", "type": "inject", "wires": []}])
    monkeypatch.setattr(limits, "available_memory", lambda: 10 * 10**6)  # 300 × 300 would need 45 MB
    assert cli.main(["curate", str(tmp_path / "cur"), "--no-cache", "--json"]) == 0, capsys.readouterr().err


def test_a_memory_cap_of_the_process_counts_as_less_free_memory(tmp_path):
    """Under ``ulimit -v 3 GB`` a pair needing 4.5 GB is refused at once (it ended in a MemoryError
    traceback at a cap before: MemAvailable alone ignores the process's caps)."""
    for name in ("a", "b"):
        _write(tmp_path / f"{name}.json", _flow(3_000, name))
    cap = 3 << 30

    def capped():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    r = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "score", tmp_path / "a.json", tmp_path / "b.json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60, preexec_fn=capped)
    assert r.returncode == 1 and r.stdout == "", r.stderr[-2000:]
    assert "(9,000,000 same-type node pairs) needs about 4.5 GB of memory and " in r.stderr
    assert r.stderr.count("\n") == 1
    free = float(r.stderr.split(" of memory and ")[1].split(" GB")[0])
    assert free < 3.3, r.stderr
