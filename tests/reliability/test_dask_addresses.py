"""Scheduler addresses Dask cannot use from a command line are one line (issue 36, item 13):
``tls://`` without Dask's TLS settings was a 65-line TypeError, ``inproc://x`` "not enough values
to unpack"."""
import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.paths import DEMO_DIR

pytest.importorskip("distributed")
REF = f"{DEMO_DIR}/programs/http/http-1.json"


@pytest.mark.parametrize("address, words", [
    ("tls://127.0.0.1:1", "tls:// needs Dask's TLS settings"),
    ("inproc://x", "inproc:// names a scheduler inside the same process"),
])
@pytest.mark.parametrize("command", [["matrix", REF, REF], ["omega", "--curriculum", f"{DEMO_DIR}/programs/http",
                                                              "--tasks", REF]], ids=["matrix", "omega"])
def test_an_address_dask_cannot_use_here_is_one_line(address, words, command, capsys, monkeypatch):
    import dask

    monkeypatch.setitem(dask.config.config, "distributed", dict(dask.config.config.get("distributed", {})))
    assert main([*command, "--scheduler", address]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"gindex-studio: --scheduler {address}: {words}"), err
