"""``lint`` bounds what it hands to nrlint (issue 36): nrlint's eslint takes 5-10 ms per Function
node (a 20,000-node flow ran 55-93 s) and its loop check overflows Node.js's stack on long chains,
so a flow over the limit is refused with one line before Node.js starts, and ``--max-nodes``
raises the limit for a user who wants the wait."""
from __future__ import annotations

import json

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.nodered import lint as lint_mod


def _flow(n: int) -> list[dict]:
    return [{"id": f"n{i}", "type": "function", "func": "return msg;", "wires": [[f"n{i + 1}"]] if i + 1 < n else [[]]}
            for i in range(n)]


@pytest.fixture
def no_nodejs(monkeypatch):
    """Any attempt to run nrlint fails the test: the limit must act before Node.js starts."""
    def refuse(*a, **k):
        raise AssertionError("nrlint was started")

    monkeypatch.setattr(lint_mod, "_run", refuse)
    monkeypatch.setattr(lint_mod, "ensure_installed", refuse)


def test_a_flow_over_the_limit_is_one_line_exit_1_before_nrlint_runs(tmp_path, capsys, no_nodejs):
    f = tmp_path / "big.json"
    f.write_text(json.dumps(_flow(lint_mod.MAX_NODES + 1)))
    assert main(["lint", str(f)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"gindex-studio: {f}: 501 nodes; lint runs nrlint on flows of at most 500 (--max-nodes raises it; "
                   "nrlint takes 5-10 ms per Function node)\n")


def test_max_nodes_raises_the_limit(tmp_path, monkeypatch, capsys):
    f = tmp_path / "big.json"
    f.write_text(json.dumps(_flow(600)))
    seen = []
    monkeypatch.setattr(lint_mod, "ensure_installed", lambda progress=None: tmp_path)
    monkeypatch.setattr(lint_mod, "node_version", lambda: ("node", (20, 0, 0)))
    monkeypatch.setattr(lint_mod, "_run", lambda node, folder, flows, rules: seen.append(len(flows[0])) or [[]])
    monkeypatch.setattr(lint_mod, "cache_dir", lambda: tmp_path / "cache")
    assert main(["lint", "--max-nodes", "600", str(f)]) == 0
    assert seen == [601]  # the flow and the tab lint adds for nodes without one
    assert capsys.readouterr().out.startswith("no findings (1 flow(s)")


@pytest.mark.parametrize("value", ["0", "-5", "1000001"])
def test_a_max_nodes_out_of_range_is_a_usage_error(tmp_path, capsys, value):
    f = tmp_path / "f.json"
    f.write_text(json.dumps(_flow(2)))
    with pytest.raises(SystemExit) as e:
        main(["lint", "--max-nodes", value, str(f)])
    assert e.value.code == 2
    assert f"--max-nodes: {value} is not between 1 and 1000000" in capsys.readouterr().err


def test_the_core_refuses_a_large_flow_for_the_studio_too(no_nodejs):
    with pytest.raises(lint_mod.LintError, match=r"^the flow has 501 nodes; nrlint is run on flows of at most 500 "):
        lint_mod.lint(_flow(501))
    with pytest.raises(lint_mod.LintError, match=r"^flow 2 has 501 nodes"):
        lint_mod.lint_flows([_flow(3), _flow(501)])
