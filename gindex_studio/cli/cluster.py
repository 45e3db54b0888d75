"""The Dask options (``--scheduler``, ``--dask-workers``, ``--workers-read-files``) and the client
they ask for. Dask is imported only when a cluster is asked for."""
from __future__ import annotations

import argparse
import contextlib
import logging
import os

from gindex_studio.cli.common import MAX_PROCESSES, InputError, int_range
from gindex_studio.core.support import profiles


def add_cluster(p: argparse.ArgumentParser, shards: bool = False) -> None:
    g = p.add_argument_group("Dask cluster (optional: pip install 'gindex-studio[dask]')")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="run the searches on this Dask scheduler (default: $GINDEX_SCHEDULER if set)")
    g.add_argument("--dask-workers", type=int_range(1, MAX_PROCESSES), default=None, metavar="N",
                   help=f"start a local Dask cluster of N worker processes for this run (at most {MAX_PROCESSES})")
    if shards:
        g.add_argument("--workers-read-files", action="store_true",
                       help="the workers read the curriculum files themselves (same paths on every worker) "
                            "instead of receiving the programs: for very large curricula")


def wanted(args) -> bool:
    """Whether the user asked for a cluster."""
    return not (args.scheduler is None and args.dask_workers is None and not os.environ.get("GINDEX_SCHEDULER"))


def workers_read_files(args, profile) -> bool:
    """``--workers-read-files``, checked: it needs a cluster and JSON programs (``profile``: a
    Profile or its name)."""
    if not getattr(args, "workers_read_files", False):
        return False
    if not wanted(args):
        raise InputError("--workers-read-files needs a Dask cluster (--scheduler or --dask-workers)")
    prof = profiles.get(profile)
    if not prof.reads_flow_json:
        raise InputError(f"--workers-read-files reads JSON programs; {prof.name} curricula are sent to the workers")
    return True


@contextlib.contextmanager
def cluster(args):
    """A Dask client when the user asked for one (else None: the local process pool is used and
    Dask is never imported)."""
    if not wanted(args):
        yield None
        return
    if args.dask_workers is not None and args.dask_workers < 1:
        raise InputError("--dask-workers must be at least 1")
    from gindex_studio.core.support.cluster import ClusterError, close, connect

    with _silenced_by_signals():  # (a signal while the cluster starts closes what was started: silently too)
        try:
            client = connect(args.scheduler, args.dask_workers)
        except ClusterError as e:
            raise InputError(str(e)) from None
        try:
            yield client
        except ClusterError as e:  # e.g. a worker read a curriculum file differently
            close(client)
            raise InputError(str(e)) from None
        except BaseException:  # Ctrl-C, SIGTERM, an error: the local workers go at once
            close(client, now=True)
            raise
        close(client)


@contextlib.contextmanager
def _silenced_by_signals():
    """In the block, SIGINT and SIGTERM turn logging off before their handler runs; it stays off
    (the process is ending), and without a signal logging is as it was after the block.

    A signal ends the command with its one line, but Dask logs its own shutdown as errors from its
    event-loop thread: the streams to the killed workers ("Batched Comm Closed" and a traceback)
    and, when the signal lands in ``Client.sync``, tornado's "NameError: cannot access free
    variable 'future'" (Dask's cancel callback), printed before the exception reached any
    ``except`` of ours (seen under load)."""
    import signal

    level = logging.root.manager.disable
    owner = os.getpid()
    swapped, came = {}, []

    def silencing(previous):
        def handler(signum, frame):
            if os.getpid() == owner:
                came.append(signum)
                logging.disable(logging.CRITICAL)
            return previous(signum, frame)
        return handler

    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(signum)
            if callable(previous):
                swapped[signum] = previous
                signal.signal(signum, silencing(previous))
    except ValueError:  # not the main thread: nothing to take over
        pass
    try:
        yield
    finally:
        for signum, previous in swapped.items():
            signal.signal(signum, previous)
        if not came:
            logging.disable(level)
