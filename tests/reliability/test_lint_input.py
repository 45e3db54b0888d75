"""``lint`` on something that is no flow (issue 36, item 11): one line saying so and exit 1, never
"no findings" (it called 19 of 51 hostile inputs clean, ``/etc/passwd`` included). Nothing here
needs Node.js: the refusal comes before nrlint is started."""
import os
from pathlib import Path

import pytest

from gindex_studio.cli import lint
from gindex_studio.cli.dispatch import main
from gindex_studio.paths import DEMO_DIR

REF = Path(DEMO_DIR) / "programs/telegram-2-reply/telegram-2-reply-4.json"

NOT_FLOWS = {
    "numbers": b"[1,2,3]",
    "empty array": b"[]",
    "empty object": b"{}",
    "empty file": b"",
    "null": b"null",
    "a string": b'"flow"',
    "a number": b"42",
    "no flows": b'{"flows": []}',
    "objects without id": b'[{"type": "inject"}, {"name": "x"}]',
    "prose": b"Here is the flow you asked for. I hope it helps!",
    "png": b"\x89PNG\r\n\x1a\n" + bytes(64),
    "random bytes": bytes(range(256)) * 4,
    "yaml": b"- id: a\n  type: inject\n",
    "deep": b"[" * 5000 + b"]" * 5000,
}


@pytest.fixture
def no_nrlint(monkeypatch):
    """nrlint never runs: a refusal must come before it (and Node.js need not be here)."""
    calls = []
    monkeypatch.setattr(lint, "lint_problems", lambda flows, rules, max_nodes=None, names=None: calls.append(flows) or [[] for _ in flows])
    return calls


@pytest.mark.parametrize("name", sorted(NOT_FLOWS))
def test_a_file_that_holds_no_node_is_not_linted_clean(tmp_path, capsys, no_nrlint, name):
    p = tmp_path / "f.json"
    p.write_bytes(NOT_FLOWS[name])
    code = main(["lint", str(p)])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and not no_nrlint, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gindex-studio: {p}: not a flow to lint: "), err


def test_etc_passwd_is_not_a_flow(capsys, no_nrlint):
    if not os.path.isfile("/etc/passwd"):
        pytest.skip("no /etc/passwd on this system")
    assert main(["lint", "/etc/passwd"]) == 1
    assert capsys.readouterr().err.startswith("gindex-studio: /etc/passwd: not a flow to lint: no node could be read")


def test_a_flow_among_them_still_reaches_nrlint_and_a_bad_one_stops_all(tmp_path, capsys, no_nrlint):
    assert main(["lint", str(REF)]) == 0 and len(no_nrlint) == 1
    assert "no findings (1 flow(s)" in capsys.readouterr().out
    bad = tmp_path / "n.json"
    bad.write_bytes(b"[1,2,3]")
    assert main(["lint", str(REF), str(bad)]) == 1 and len(no_nrlint) == 1
    assert "n.json: not a flow to lint" in capsys.readouterr().err
