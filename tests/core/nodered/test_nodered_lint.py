"""nrlint on flows (issue 25, item 5), the real nrlint run by Node.js."""
from __future__ import annotations

import json

import pytest

from gindex_studio.core.nodered import lint as lint_mod
from gindex_studio.core.nodered.lint import DEFAULT_RULES, LintError, lint, lint_flows, parse_rules


def _flow():
    return [{"id": "t", "type": "tab"},
            {"id": "a", "type": "function", "z": "t", "func": "total = msg.payload + 1;\nreturn msg;", "x": 100,
             "y": 80, "wires": [["b"]]},
            {"id": "b", "type": "change", "z": "t", "name": "back", "rules": [], "x": 300, "y": 80, "wires": [["a"]]},
            {"id": "h", "type": "http in", "z": "t", "url": "/x", "method": "get", "x": 100, "y": 160, "wires": [[]]}]


@pytest.fixture
def cache(tmp_path, monkeypatch, nodered):
    """nrlint's cache in a fresh folder (the install stays the session's)."""
    monkeypatch.setattr(lint_mod, "cache_dir", lambda: tmp_path / "lint-cache")
    monkeypatch.setattr(lint_mod, "_MEMORY", {})
    return tmp_path / "lint-cache"


def test_rules_report_on_their_nodes(cache):
    found = lint(_flow())
    by_rule = {p.rule: p for p in found}
    assert set(by_rule) == {"function-eslint", "no-loops", "no-unconnected-http-nodes"}
    assert by_rule["function-eslint"].nodes == ("a",) and "'total' is not defined" in by_rule["function-eslint"].message
    assert by_rule["function-eslint"].severity == "error"
    assert set(by_rule["no-loops"].nodes) == {"a", "b"}
    assert by_rule["no-unconnected-http-nodes"].nodes == ("h",)


def test_rules_are_chosen(cache):
    assert {p.rule for p in lint(_flow(), {"no-unnamed-functions"})} == {"no-unnamed-functions"}
    assert lint(_flow(), set()) == []
    assert parse_rules("-no-loops,+no-unnamed-functions") == (DEFAULT_RULES - {"no-loops"}) | {"no-unnamed-functions"}
    assert parse_rules("no-loops") == {"no-loops"} and parse_rules("none") == set()
    with pytest.raises(ValueError, match="unknown nrlint rule 'no-such'"):
        parse_rules("no-such")


def test_nodes_without_their_tab_are_linted(cache):
    flow = [n for n in _flow() if n["type"] != "tab"]  # nrlint alone would skip every node here
    assert {p.rule for p in lint(flow)} == {"function-eslint", "no-loops", "no-unconnected-http-nodes"}


@pytest.mark.slow
def test_results_are_cached_per_flow_content(cache, monkeypatch):
    first = lint_flows([_flow(), _flow()[:2]])
    assert len(list(cache.glob("*.json"))) == 2
    runs = []
    real = lint_mod._run
    monkeypatch.setattr(lint_mod, "_run", lambda *a: runs.append(a) or real(*a))
    lint_mod._MEMORY.clear()  # the files alone answer
    assert lint_flows([_flow(), _flow()[:2]]) == first and runs == []
    changed = _flow()
    changed[1]["func"] = "return msg;"
    assert "function-eslint" not in {p.rule for p in lint(changed)} and len(runs) == 1
    (next(cache.glob("*.json"))).write_text("{damaged")
    lint_mod._MEMORY.clear()
    assert lint_flows([_flow(), _flow()[:2]]) == first  # a damaged entry is relinted


def test_nrlint_failure_is_one_line(cache, monkeypatch, tmp_path):
    bad = tmp_path / "lint.js"
    bad.write_text("process.stderr.write('boom\\n'); process.exit(3);")
    monkeypatch.setattr(lint_mod, "SCRIPT", bad)
    with pytest.raises(LintError, match=r"^nrlint failed \(exit 3\): boom$"):
        lint(_flow())


# ----- extra node modules ---------------------------------------------------------------------
# installing a missing node type's module: tests/core/nodered/test_nodered_install.py


@pytest.mark.slow
def test_behaviour_in_json_and_words(nodered_session):
    """Behaviour of two core-node programs (the demo pair that differs in one constant)."""
    from pathlib import Path

    from gindex_studio.core.flows.reading import read_reference_file
    from gindex_studio.core.nodered.behaviour import behaviour

    demo = Path(__file__).resolve().parents[3] / "resources" / "demo" / "runtime"
    ref = read_reference_file(str(demo / "reference.json"), "paper")
    gen = read_reference_file(str(demo / "one-constant.json"), "paper")
    b = behaviour(nodered_session, ref, gen)
    assert b.summary() == "runs: yes · behaves like the reference on 1 of 2 probes" and b.cell() == "1/2"
    d = b.to_dict()
    assert (d["runs"], d["agree"], d["probes"], len(d["outcomes"])) == (True, 1, 2, 2)
