"""A scheduler address is checked before Dask sees it, and a service that accepts but never
answers, or answers in another protocol, is one line within the timeout (issue 26, item 8)."""
import socket
import threading
import time

import pytest

from gindex_studio.cli.dispatch import main
from gindex_studio.core.runtime import distributed as dist
from gindex_studio.paths import DEMO_DIR

pytest.importorskip("distributed")
REF = f"{DEMO_DIR}/programs/http/http-1.json"


class FakeServer:
    """A TCP server on localhost that accepts connections and then sends ``reply`` (None: nothing)."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.reply, self.conns = reply, []
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                conn.sendall(self.reply)

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("address, words", [
    ("ucx://127.0.0.1:8786", "the scheme ucx:// is not supported"),
    ("tcp://HOST:PORT", "the port 'PORT' is not a number"),
    ("tcp://:8786", "no host"),
    ("tcp://127.0.0.1:99999", "the port 99999 is not a number from 1 to 65535"),
    ("tcp://127.0.0.1:8786/x", "give only a host and a port"),
])
def test_a_malformed_address_is_one_line_naming_the_option(address, words, capsys):
    assert main(["matrix", REF, REF, "--scheduler", address]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"gindex-studio: --scheduler {address}: {words}" + err.split(words, 1)[1]
    assert "\n" not in err


def test_a_service_that_accepts_and_never_answers_fails_within_the_timeout():
    server = FakeServer(None)
    try:
        start = time.monotonic()
        with pytest.raises(dist.ClusterError, match="sent nothing within 1 s"):
            dist.connect(server.address, timeout=1.0)
        assert time.monotonic() - start < 3
    finally:
        server.close()


def test_a_service_that_is_not_dask_is_one_line_not_an_exabyte_allocation(capsys):
    server = FakeServer(b"SSH-2.0-OpenSSH_9.6\r\n")  # its first 8 bytes read as a length: 3.07 EiB
    try:
        start = time.monotonic()
        assert main(["matrix", REF, REF, "--scheduler", server.address]) == 1
        err = capsys.readouterr().err.strip()
        assert err == f"gindex-studio: --scheduler {server.address}: the service there does not speak Dask's " \
                      "protocol (not a Dask scheduler)"
        assert time.monotonic() - start < 5
    finally:
        server.close()


def test_a_real_scheduler_passes_the_check():
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        dist.probe_scheduler(cluster.scheduler_address, 5.0, "--scheduler")
        client = dist.connect(cluster.scheduler_address, timeout=5.0)
        dist.close(client)
