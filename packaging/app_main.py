"""Entry point of the frozen desktop app (``packaging/build-app.sh``): the ``gindex-studio``
command, with what a frozen process pool needs.

``multiprocessing.freeze_support()`` comes first: a worker the pool starts with the *spawn* method
re-runs this executable with ``--multiprocessing-fork``, and that call turns it into the worker
instead of a second studio. ``GINDEX_START_METHOD=spawn`` makes the pool spawn its workers even when
it could fork (how packaging/check-app.sh proves that spawned workers work in the bundle; on Linux
the pool forks when it safely can).
"""
import multiprocessing
import os
import sys


def run() -> int:
    multiprocessing.freeze_support()
    method = os.environ.get("GINDEX_START_METHOD")
    if method:
        multiprocessing.set_start_method(method)
    from gindex_studio.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
