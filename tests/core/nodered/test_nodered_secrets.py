"""Tokens and secrets (issue 31, item 2): the private runtime's token is in no process's argv, and
the store Preferences keep the user's Node-RED token in (the desktop keyring, else a 0600 file)."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import psutil  # distributed's dependency (the "dask" extra, in "test")
import pytest


def _fake_keyrings():
    """tests/fake_keyring.py (skipped without ``keyring``, the "gui" extra's: a core-only install)."""
    return pytest.importorskip("fake_keyring")


def test_no_argv_of_a_running_runtime_holds_its_token(nodered, user_nodered):
    """Sandboxed and not: the token went in on stdin; no argv (/proc/PID/cmdline) of bwrap, prlimit
    or node holds it, nor the argv they were started with (Node-RED retitles its process, which
    rewrites its cmdline), nor any file of the runtime's folder."""
    for rt in (nodered, user_nodered):
        assert rt.running() and len(rt.token) >= 24
        # bubblewrap or prlimit, then Node.js and anything under it (also in the sandbox's pid namespace)
        pids = [rt.pid] + [c.pid for c in psutil.Process(rt.pid).children(recursive=True)]
        names = set()
        for pid in pids:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes()
            assert rt.token.encode() not in argv
            names.add(Path(argv.split(b"\0")[0].decode()).name)
        assert "node-red" in names, names  # Node.js (titled "node-red") was among those read
        assert not any(rt.token in str(a) for a in rt.proc.args)  # nor the argv it was started with
        for f in rt.run_dir.rglob("*"):
            if f.is_file() and not f.is_symlink():
                assert rt.token.encode() not in f.read_bytes(), f


@pytest.fixture
def desktop_keyring():
    fk = _fake_keyrings()
    with fk.using(fk.MemoryKeyring()) as kr:
        yield kr


def test_the_desktop_keyring_is_used_where_there_is_one(tmp_path, desktop_keyring):
    from gindex_studio.core.nodered.token_store import TokenStore

    store = TokenStore(tmp_path)
    assert store.where == "the desktop keyring (MemoryKeyring)"
    store.set("s3cret")
    assert desktop_keyring.items == {("gindex-studio", "node-red-admin-token"): "s3cret"}
    assert store.get() == "s3cret" and not store.path.exists()
    store.set("")
    assert desktop_keyring.items == {} and store.get() == ""


def test_without_a_keyring_a_private_file(tmp_path):
    from gindex_studio.core.nodered.token_store import TokenStore

    os.umask(old := os.umask(0o000))  # the most permissive umask: the file is private all the same
    try:
        store = TokenStore(tmp_path / "config")
        assert store.backend is None
        assert store.where == (f"{tmp_path / 'config' / 'node-red-token'}, a file only you can read (mode 0600): "
                               "there is no desktop keyring here")
        store.set("s3cret")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.path.parent).st_mode) == 0o700
    assert store.path.read_text() == "s3cret\n" and store.get() == "s3cret"
    store.path.chmod(0o644)  # made readable by others since: not used
    assert store.get() == ""
    store.set("")
    assert not store.path.exists()


def test_a_keyring_that_refuses_leaves_the_token_to_the_file_and_says_so(tmp_path):
    from gindex_studio.core.nodered.token_store import TokenStore

    store = TokenStore(tmp_path, backend=_fake_keyrings().LockedKeyring())
    store.set("s3cret")
    assert store.get() == "s3cret" and store.path.is_file()
    assert store.where.endswith("a file only you can read (mode 0600): the desktop keyring refused it: the keyring "
                                "is locked")


def test_moving_to_the_keyring_removes_the_file_copy(tmp_path, desktop_keyring):
    from gindex_studio.core.nodered.token_store import TokenStore

    TokenStore(tmp_path, backend=None).set("old")
    assert (tmp_path / "node-red-token").is_file()
    store = TokenStore(tmp_path)
    assert store.get() == "old"  # still found where it was
    store.set("new")
    assert store.get() == "new" and not (tmp_path / "node-red-token").exists()
