"""nrlint on flows (issue 25, item 5) and extra node modules for the private runtime (item 4):
the real nrlint run by Node.js, the real npm."""
from __future__ import annotations

import json
import shutil
import subprocess

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
NODE_JS = """module.exports = function (RED) {
    function Double(config) {
        RED.nodes.createNode(this, config);
        this.on("input", (msg, send, done) => { msg.payload = msg.payload * 2; send(msg); done(); });
    }
    RED.nodes.registerType("gindex-double", Double);
};
"""


def _package(tmp_path):
    src = tmp_path / "node-red-contrib-gindex-double"
    src.mkdir()
    (src / "package.json").write_text(json.dumps({"name": "node-red-contrib-gindex-double", "version": "1.0.0",
                                                  "node-red": {"nodes": {"double": "double.js"}}}))
    (src / "double.js").write_text(NODE_JS)
    (src / "double.html").write_text('<script type="text/javascript">RED.nodes.registerType("gindex-double", '
                                     '{category: "function", defaults: {}, inputs: 1, outputs: 1});</script>')
    out = subprocess.run([shutil.which("npm"), "pack", "--silent", str(src)], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    return tmp_path / out


@pytest.mark.slow
def test_missing_module_installed_and_loaded(nodered, tmp_path):
    """The module of a missing type, installed from a package file (offline), runs after a start."""
    from gindex_studio.core.nodered.deploy import Session
    from gindex_studio.core.nodered.modules import install_modules, installed_modules, missing_modules
    from gindex_studio.core.nodered.runtime import PrivateRuntime

    flow = [{"id": "t", "type": "tab"},
            {"id": "i", "type": "inject", "z": "t", "payload": "21", "payloadType": "num", "wires": [["d"]]},
            {"id": "d", "type": "gindex-double", "z": "t", "module": "node-red-contrib-gindex-double", "wires": [["o"]]},
            {"id": "o", "type": "debug", "z": "t", "active": True, "tosidebar": True, "complete": "false", "wires": []},
            {"id": "tg", "type": "telegram sender", "z": "t", "module": "node-red-contrib-telegrambot", "wires": []}]
    extra = tmp_path / "extra"
    # the telegram node needs the network: installing its module would not let it run here
    assert missing_modules(flow, nodered.node_types(), extra) == ["node-red-contrib-gindex-double"]
    install_modules([str(_package(tmp_path))], folder=extra)
    assert installed_modules(extra) == {"node-red-contrib-gindex-double"}
    assert missing_modules(flow, nodered.node_types(), extra) == []
    with PrivateRuntime.start(timeout=120, extra_nodes=extra) as rt:
        s = Session(rt)
        try:
            assert "gindex-double" in s.types
            result = s.deploy(flow, quiet_injects=True)
            assert [p.kind for p in result.problems] == ["needs-network"]
            pos = s.comms.position
            s.fire_inject("i")
            s.comms.wait_quiet(pos, 0.3, 5.0)
            assert [e.value for e in s.debug_messages(pos)] == [42]
        finally:
            s.close()


def test_unreachable_registry_for_a_module_is_one_clear_line(tmp_path, monkeypatch, nodered):
    from gindex_studio.core.nodered.modules import ModuleError, install_modules
    from gindex_studio.core.nodered.runtime import free_port

    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{free_port()}/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    with pytest.raises(ModuleError) as e:
        install_modules(["node-red-node-random"], folder=tmp_path / "extra")
    msg = str(e.value)
    assert msg.startswith("cannot reach the npm registry to install node-red-node-random (npm: ")
    assert "offline" in msg and "\n" not in msg
    with pytest.raises(ModuleError, match="neither an npm module name"):
        install_modules(["rm -rf /"], folder=tmp_path / "extra")


def test_behaviour_in_json_and_words(nodered_session):
    """Behaviour of two core-node programs (the demo pair that differs in one constant)."""
    from pathlib import Path

    from gindex_studio.core.flows.reading import read_reference_file
    from gindex_studio.core.nodered.behaviour import behaviour

    demo = Path(__file__).resolve().parents[2] / "resources" / "demo" / "runtime"
    ref = read_reference_file(str(demo / "reference.json"), "paper")
    gen = read_reference_file(str(demo / "one-constant.json"), "paper")
    b = behaviour(nodered_session, ref, gen)
    assert b.summary() == "runs: yes · behaves like the reference on 1 of 2 probes" and b.cell() == "1/2"
    d = b.to_dict()
    assert (d["runs"], d["agree"], d["probes"], len(d["outcomes"])) == (True, 1, 2, 2)
