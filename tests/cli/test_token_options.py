"""The admin token of the user's Node-RED is never a command-line value (issue 31, item 2):
``--token T`` is a usage error naming the two ways, ``--token -`` reads stdin, ``--token-file F``
reads a private file and refuses any other, with one line saying why."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from gindex_studio.cli.dispatch import main

ROOT = Path(__file__).resolve().parents[2]
HTTP1 = ROOT / "resources" / "demo" / "programs" / "http" / "http-1.json"
DEMO = ROOT / "resources" / "demo" / "runtime"
URL = "http://127.0.0.1:9"  # never reached: every refusal comes first


def _private(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


@pytest.mark.parametrize("argv", [
    ["run", str(HTTP1), "--node-red", URL, "--token", "s3cret-in-argv"],
    ["probe", str(DEMO / "reference.json"), str(DEMO / "same-behaviour.json"), "--node-red", URL,
     "--token=s3cret-in-argv"],
    ["gindex", "exp.json", "--probes", "--node-red", URL, "--token", "s3cret-in-argv"],
])
def test_a_token_value_in_argv_is_a_usage_error_naming_the_two_ways(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.endswith("error: argument --token: a token given on the command line can be read by every user "
                         "of this computer (ps, /proc): pass `--token -` and give it on stdin, or `--token-file F` "
                         "(a file only you can read, mode 0600)")
    assert "s3cret-in-argv" not in err


def test_token_and_token_file_exclude_each_other(tmp_path, capsys):
    f = _private(tmp_path / "tok", "x\n")
    with pytest.raises(SystemExit) as e:
        main(["run", str(HTTP1), "--node-red", URL, "--token", "-", "--token-file", str(f)])
    assert e.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def _refusal(tmp_path, capsys, token_file) -> str:
    assert main(["run", str(HTTP1), "--node-red", URL, "--trust-flows", "--token-file", str(token_file)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    return err[0]


def test_a_token_file_others_can_read_is_refused(tmp_path, capsys):
    f = _private(tmp_path / "tok", "s3cret\n", 0o644)
    assert _refusal(tmp_path, capsys, f) == (f"gindex-studio: {f} can be read or written by others (mode 0644): "
                                             f"make it private with `chmod 600 {f}`")
    f.chmod(0o620)  # group-writable: someone else could put their token in
    assert "(mode 0620)" in _refusal(tmp_path, capsys, f)


def test_a_token_file_that_is_no_regular_file_is_refused_without_waiting(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)  # nobody writes: reading it would wait for ever
    assert _refusal(tmp_path, capsys, fifo) == f"gindex-studio: {fifo} is not a regular file"
    assert _refusal(tmp_path, capsys, tmp_path) == f"gindex-studio: {tmp_path} is not a regular file"
    assert _refusal(tmp_path, capsys, tmp_path / "none") == \
        f"gindex-studio: cannot read the token file {tmp_path / 'none'}: No such file or directory"


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_token_file_of_another_user_is_refused(tmp_path, capsys):
    f = _private(tmp_path / "tok", "s3cret\n")
    os.chown(f, 4321, 4321)
    assert _refusal(tmp_path, capsys, f) == (f"gindex-studio: {f} belongs to another user (uid 4321): keep the "
                                             "token in a file of your own")


@pytest.mark.parametrize("text, why", [
    ("", "holds no token (an empty first line)"),
    ("\nsecond-line\n", "holds no token (an empty first line)"),
    ("two words\n", "a token is one word of printable characters"),
    ("tok\x1b[31m\n", "a token is one word of printable characters"),
])
def test_a_token_that_is_not_one_word_is_refused(tmp_path, capsys, text, why):
    f = _private(tmp_path / "tok", text)
    assert why in _refusal(tmp_path, capsys, f)


@pytest.mark.slow
def test_token_file_and_stdin_reach_the_users_node_red(user_nodered, tmp_path, capsys, monkeypatch):
    """The right token, from a 0600 file or from stdin, is used; a wrong one is refused by Node-RED
    (401: one line)."""
    f = _private(tmp_path / "tok", user_nodered.token + "\n")
    assert main(["run", str(HTTP1), "--json", "--node-red", user_nodered.url, "--trust-flows", "--token-file", str(f)]) == 0
    assert json.loads(capsys.readouterr().out)["clean"] is True
    monkeypatch.setattr("sys.stdin", io.StringIO(user_nodered.token + "\n"))
    assert main(["run", str(HTTP1), "--json", "--node-red", user_nodered.url, "--trust-flows", "--token", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["clean"] is True
    monkeypatch.setattr("sys.stdin", io.StringIO("wrong\n"))
    assert main(["run", str(HTTP1), "--node-red", user_nodered.url, "--trust-flows", "--token", "-"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--trust-flows: the flow runs unsandboxed" in err[0]  # the notice, then the error
    assert "refused the admin token (HTTP 401)" in err[1]
