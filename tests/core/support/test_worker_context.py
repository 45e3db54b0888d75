"""The workers' multiprocessing context (core/support/workers.py): the fork server where its
socket fits in the temporary folder's path, else spawn (a deep TMPDIR made the fork server fail
to start, and the compare window waited for its workers for ever)."""
from __future__ import annotations

import tempfile

from gindex_studio.core.support import workers


def _fresh_context(monkeypatch, tmpdir: str):
    monkeypatch.setenv("TMPDIR", tmpdir)
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(workers, "_context", None)
    return workers.context()


def test_a_temporary_folder_too_deep_for_the_fork_servers_socket_gives_spawn(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 50) / ("e" * 50)
    deep.mkdir(parents=True)
    ctx = _fresh_context(monkeypatch, str(deep))
    assert ctx.get_start_method() == "spawn"
    p = ctx.Process(target=abs, args=(-1,))
    p.start()
    p.join(60)
    assert p.exitcode == 0


def test_a_short_temporary_folder_keeps_the_fork_server(tmp_path, monkeypatch):
    short = tempfile.mkdtemp(prefix="w-", dir="/tmp")
    try:
        assert _fresh_context(monkeypatch, short).get_start_method() == "forkserver"
    finally:
        import shutil

        shutil.rmtree(short, ignore_errors=True)
