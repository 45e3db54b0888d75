"""Dask plumbing the cluster paths share (optional: ``pip install gindex-studio[dask]``): connect to
a scheduler or start a local cluster, close it, count workers, a ``Watchdog`` that ends a run left
without workers, and values sent in small pickled pieces (``put``, ``put_snapshot``; ``Snapshot``;
``_local``: a worker's own copy built once). Nothing here knows what is computed: Ω and the Δ
matrix on a cluster are ``benchmark.on_cluster``, curation's pairs ``curation.cluster``.

Nothing here imports Dask until a cluster is asked for; importing this module is cheap.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import pickle
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from gindex_studio.core.support.cancel import Cancelled

Progress = Callable[[int, int], None]

#: The environment variable naming a running scheduler (``tcp://host:port``).
SCHEDULER_ENV = "GINDEX_SCHEDULER"
#: The environment variable giving how long a run waits for a cluster that has no workers (seconds).
NO_WORKERS_ENV = "GINDEX_NO_WORKERS_TIMEOUT"
#: ... and its default
NO_WORKERS_SECONDS = 30.0


class ClusterError(Exception):
    """The cluster could not be reached or lost work it could not redo (one line for the user)."""


@dataclass
class DaskRun:
    """Results of a distributed run in task order; ``missing`` lists the indices of tasks whose
    work could not be completed (their entry in ``results`` is None)."""

    results: list
    missing: list[int] = field(default_factory=list)


def connect(scheduler: str | None = None, workers: int | None = None, timeout: float = 10.0):
    """A ``distributed.Client``: to ``scheduler`` (or ``$GINDEX_SCHEDULER``), or to a new local
    cluster of ``workers`` processes. Raises ClusterError with one line when Dask is missing or
    the scheduler does not answer within ``timeout`` seconds."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("Dask is not installed: pip install 'gindex-studio[dask]'") from None
    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address:
        where = f"--scheduler {address}" if scheduler else f"${SCHEDULER_ENV} {address}"
        why = address_problem(address)
        if why:
            raise ClusterError(f"{where}: {why}")
        if address.strip().lower().startswith("tls://") and not _tls_configured():
            raise ClusterError(f"{where}: tls:// needs Dask's TLS settings (distributed.comm.tls: ca-file, client "
                               "cert and key in Dask's configuration); none are set")
        probe_scheduler(address, timeout, where)
        try:
            return Client(address, timeout=f"{timeout}s")
        except (OSError, TimeoutError) as e:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None
        except (TypeError, ValueError) as e:  # Dask's own refusal of the address or its settings
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ClusterError(f"{where}: Dask cannot connect: {first[:200]}") from None
    if workers is None or workers < 1:
        raise ClusterError("give a scheduler address or a number of local workers (≥ 1)")
    import logging

    cluster = client = None
    try:
        with _signals_held():
            # its warnings (a worker being restarted, tasks cancelled at the end) are Dask's
            # business: the run says what went wrong in its one line
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
    except BaseException:  # Ctrl-C or SIGTERM while it started: what was started goes at once
        if cluster is not None:
            _close_now(client, cluster)
        raise
    return client


@contextlib.contextmanager
def _signals_held():
    """While a local cluster starts: Ctrl-C and SIGTERM, when Python handles them, are held back
    until it exists (a half-made cluster printed a traceback at exit) and then raised, and the
    worker processes it starts get no standard error (a terminal's Ctrl-C reaches the whole
    process group: a worker still starting printed Python's traceback; the run says what went
    wrong in its one line, and stops its workers itself). Nothing changes outside the main thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list = []
    before = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    deferred = {n: h for n, h in before.items() if callable(h)}
    for n in deferred:
        signal.signal(n, lambda *a: held.append(a))
    err = _stderr_to_null()
    try:
        yield
    finally:
        if err is not None:
            os.dup2(err, 2)
            os.close(err)
        for n, h in deferred.items():
            signal.signal(n, h)
        if held and held[0][0] in deferred:
            deferred[held[0][0]](*held[0])  # (raises KeyboardInterrupt, or dispatch's Terminated)


def _stderr_to_null() -> int | None:
    """Point file descriptor 2 at the null device (processes started meanwhile inherit it);
    returns a copy of the old one to put back, or None when that cannot be done."""
    try:
        saved = os.dup(2)
    except OSError:
        return None
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
    finally:
        os.close(null)
    return saved


def _tls_configured() -> bool:
    """Whether Dask's configuration gives this client a TLS certificate authority."""
    import dask

    return bool(dask.config.get("distributed.comm.tls.ca-file", None))


#: the address schemes a scheduler is reached by from here
SCHEMES = ("tcp", "tls", "inproc")
#: a Dask handshake is a few kilobytes; a first "length" above this is another service talking
HANDSHAKE_MAX_BYTES = 1 << 24


def address_problem(address: str) -> str | None:
    """Why ``address`` is no scheduler address (``tcp://HOST:PORT``, ``tls://…``, ``inproc://…``;
    ``HOST:PORT`` means tcp), in a few words, or None when it is one."""
    from urllib.parse import urlsplit

    text = address.strip()
    if "://" not in text:
        text = "tcp://" + text
    scheme = text.split("://", 1)[0].lower()
    if scheme not in SCHEMES:
        return f"the scheme {scheme}:// is not supported (use {', '.join(s + '://' for s in SCHEMES)})"
    if scheme == "inproc":  # inproc://HOST/PID/N: a scheduler inside the process PID
        parts = text.split("://", 1)[1].split("/")
        if len(parts) != 3 or parts[1] != str(os.getpid()):
            return ("inproc:// names a scheduler inside the same process (inproc://HOST/PID/N), and this "
                    "process has none; give tcp://HOST:PORT")
        return None
    parts = urlsplit(text)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "give only a host and a port (tcp://HOST:PORT)"
    try:
        port = parts.port
    except ValueError:
        tail = parts.netloc.rsplit(":", 1)[-1]
        return f"the port {tail} is not a number from 1 to 65535" if tail.isdigit() else f"the port {tail!r} is not a number"
    if not parts.hostname:
        return "no host (tcp://HOST:PORT)"
    if port is not None and not 1 <= port <= 65535:
        return f"the port {port} is not a number from 1 to 65535"
    return None


def probe_scheduler(address: str, timeout: float, where: str) -> None:
    """Before Dask connects: a ``tcp://`` address must accept a connection and send a Dask
    handshake within ``timeout`` seconds (a scheduler speaks first). Raises ClusterError with one
    line for a refused or silent connection, or a service that is not Dask. Other schemes are
    left to Dask (its own timeout)."""
    import socket
    import struct
    from urllib.parse import urlsplit

    text = address if "://" in address else "tcp://" + address
    if not text.lower().startswith("tcp://"):
        return
    parts = urlsplit(text)
    host, port = parts.hostname, parts.port or 8786
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.timeout:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s") from None
    except OSError as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e.strerror or e}") from None
    try:
        head = b""
        while len(head) < 8:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                part = sock.recv(8 - len(head))
            except socket.timeout:
                raise ClusterError(f"{where}: the service accepted the connection but sent nothing within "
                                   f"{timeout:g} s (is it a Dask scheduler?)") from None
            except OSError as e:
                raise ClusterError(f"{where}: the connection failed ({e.strerror or e})") from None
            if not part:
                raise ClusterError(f"{where}: the service closed the connection (is it a Dask scheduler?)")
            head += part
        (size,) = struct.unpack("<Q", head)
        if not 0 < size <= HANDSHAKE_MAX_BYTES:
            raise ClusterError(f"{where}: the service there does not speak Dask's protocol (not a Dask scheduler)")
    finally:
        sock.close()


def close(client, now: bool = False) -> None:
    """Close ``client`` and, when it started one, its local cluster. ``now`` (Ctrl-C, SIGTERM):
    the local cluster's worker processes are killed first, instead of being asked to finish and
    given 4 s by Dask's nannies. A client whose scheduler is lost is closed without Dask's
    logging (its reconnection, cancelled by the close, logged a 31-line traceback)."""
    cluster = getattr(client, "cluster", None)
    if scheduler_lost(client):
        with _logging_off():
            _close_now(client, cluster)
        return
    if not now:
        client.close()
        if cluster is not None:
            cluster.close()
        return
    _close_now(client, cluster)


def _close_now(client, cluster) -> None:
    """``close(now=True)``; ``client`` may be None (the cluster started, the client did not)."""
    if cluster is not None:
        _kill_local_workers(cluster)
    for closing in (client, cluster):
        try:
            if closing is not None:
                closing.close(timeout=2)
        except Exception:  # (a timeout): the process is ending; its workers are gone already
            pass


def _kill_local_workers(cluster) -> None:
    """Kill the worker processes of a local cluster, each nanny told first that its worker is
    going away for good (else it starts a new one: 12 s before the cluster closed)."""
    import signal

    from distributed.core import Status

    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if not pid:
            continue
        nanny.status = Status.closing_gracefully
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def scheduler_lost(client) -> bool:
    """Whether ``client`` has lost its scheduler: Dask then cancels every future and reconnects
    (status "connecting"), or gives up ("closed")."""
    return getattr(client, "status", "running") in ("connecting", "closing", "closed")


def scheduler_address(client) -> str:
    """The address ``client`` talks to, or "" when it cannot say."""
    return str(getattr(getattr(client, "scheduler", None), "address", "") or "")


@contextlib.contextmanager
def _logging_off():
    """No log record of any logger is emitted in the block."""
    import logging

    before = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(before)


def worker_count(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def no_workers_limit() -> float:
    """Seconds a run waits for a cluster without workers: ``$GINDEX_NO_WORKERS_TIMEOUT`` (a
    positive number) or NO_WORKERS_SECONDS."""
    text = os.environ.get(NO_WORKERS_ENV, "").strip()
    try:
        value = float(text) if text else NO_WORKERS_SECONDS
    except ValueError:
        raise ClusterError(f"${NO_WORKERS_ENV} {text!r} is not a number of seconds") from None
    if not 0 < value < math.inf:
        raise ClusterError(f"${NO_WORKERS_ENV} {text!r} is not a positive number of seconds")
    return value


class Watchdog:
    """Ends a run whose cluster has had no workers for ``limit`` seconds (all lost mid-run, or
    none ever joined): Dask itself would wait for new workers forever.

    ``check(left, total)`` is cheap to call often: it asks the scheduler for its workers at most
    every ``every`` seconds (and counts a scheduler that does not answer within 5 s as no
    workers); it raises ClusterError with one line saying how much of the run is left undone."""

    def __init__(self, client, what: str = "units of work", limit: float | None = None, every: float = 0.5):
        self.client, self.what = client, what
        self.limit = no_workers_limit() if limit is None else limit
        self.every = every
        self._asked = -math.inf
        self._since: float | None = None  # when the cluster was first seen without workers

    def workers(self) -> int:
        try:
            return len(self.client.nthreads(callback_timeout=5))
        except Exception:  # noqa: BLE001 - a scheduler that does not answer has no workers for us
            return 0

    def check(self, left: int, total: int) -> None:
        self.check_scheduler(left, total)
        now = time.monotonic()
        if now - self._asked < self.every:
            return
        self._asked = now
        if self.workers():
            self._since = None
            return
        if self._since is None:
            self._since = now
        elif now - self._since >= self.limit:
            raise ClusterError(f"the Dask cluster has had no workers for {self.limit:g} s (were they stopped?): "
                               f"{left} of {total} {self.what} left undone")

    def check_scheduler(self, left: int, total: int) -> None:
        """Raises ClusterError at once when the client has lost its scheduler (every future of
        the run is cancelled then): called whenever a unit fails, so that a lost scheduler is
        said as such, not as units the cluster could not compute."""
        if scheduler_lost(self.client):
            where = scheduler_address(self.client)
            raise ClusterError(f"lost the connection to the Dask scheduler{' at ' + where if where else ''} mid-run "
                               f"(was it stopped?): {left} of {total} {self.what} left undone")


def _completed(ac, cancel, check: Callable[[], None] | None = None, poll: float = 0.05):
    """The futures of ``ac`` (a ``distributed.as_completed``) as they finish, polled every
    ``poll`` seconds so that a cancel (``cancel.is_set()``: Cancelled) or the ``check`` (the
    watchdog, which raises) is seen while a long unit still runs."""
    while not ac.is_empty():
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if check is not None:
            check()
        if not ac.has_ready():
            time.sleep(poll)
            continue
        yield from ac.next_batch(block=False)
        if cancel is not None and cancel.is_set():
            raise Cancelled()


def watched_result(fut, check: Callable[[], None], poll: float = 0.5):
    """``fut.result()``, with ``check`` (the watchdog, which raises) called while it waits: a unit
    ``as_completed`` gave as finished is computed again when the worker holding its result is lost
    meanwhile, and with no worker left its ``result()`` alone would wait for ever."""
    while True:
        try:
            return fut.result(timeout=poll)
        except TimeoutError:
            check()


#: the largest piece (pickled bytes) of data sent in one task; Dask warns from 10 MB
PART_BYTES = 2 << 20


@dataclass(frozen=True)
class Snapshot:
    """A value sent to the cluster as its pickled bytes (``token``: their digest). Bytes cannot
    change, so Dask may pickle a snapshot (to move it to another worker) while a search runs on
    the value built from it; :func:`_local` builds that value once per worker process."""

    blob: bytes
    token: str

    def load(self):
        """A fresh copy of the value."""
        return pickle.loads(self.blob)


def snapshot(obj) -> Snapshot:
    """``obj`` pickled now: later changes to ``obj`` are not in it."""
    return _snapshot_of(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def _snapshot_of(*pieces: bytes) -> Snapshot:
    blob = b"".join(pieces)
    return Snapshot(blob, hashlib.blake2b(blob, digest_size=16).hexdigest())


def _piece(blob: bytes) -> bytes:
    return blob


def _unpickle(*pieces: bytes):
    return pickle.loads(b"".join(pieces))


def _pieces(client, obj) -> list:
    """``obj`` pickled and submitted in pieces of at most ``PART_BYTES``, each its own small task."""
    blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return [client.submit(_piece, blob[i:i + PART_BYTES], pure=False, retries=2)
            for i in range(0, max(1, len(blob)), PART_BYTES)]


def put(client, obj):
    """The future of ``obj`` on the cluster, sent as pickled pieces of at most ``PART_BYTES``,
    each its own small task: no message to the scheduler is large (Dask's "Sending large graph"
    has no cause), and the scheduler, which holds the pieces, rebuilds ``obj`` elsewhere when the
    worker holding it dies (data scattered to workers could not be rebuilt). For a value the
    workers' searches would change, use :func:`put_snapshot`."""
    return client.submit(_unpickle, *_pieces(client, obj), pure=False, retries=2)


def put_snapshot(client, obj):
    """As :func:`put`, but the future's value is ``obj``'s :class:`Snapshot`."""
    return client.submit(_snapshot_of, *_pieces(client, obj), pure=False, retries=2)


#: how many values built from snapshots a worker process keeps (the least recently used goes)
LOCAL_KEPT = 8
_LOCAL: "OrderedDict[str, Any]" = OrderedDict()
_LOCAL_LOCK = threading.Lock()


def _local(snap: Snapshot, build: Callable[[Any], Any] = lambda value: value):
    """This process's own ``build(snap.load())``, built once (under a lock) and kept among the last
    ``LOCAL_KEPT``: searches fill its tables freely, since Dask never pickles it."""
    with _LOCAL_LOCK:
        value = _LOCAL.get(snap.token)
        if value is None:
            value = _LOCAL[snap.token] = build(snap.load())
            while len(_LOCAL) > LOCAL_KEPT:
                _LOCAL.popitem(last=False)
        else:
            _LOCAL.move_to_end(snap.token)
        return value


