"""Runs gindex-studio command lines in this process, one after another, for the hostile corpus
test: each with its own standard output and error (file descriptors 1 and 2 point at files, so
whatever writes there is caught: Python, Dask's logging, C code, forked children), an alarm after
``HANG_S`` seconds of this process's CPU time (the bound on work, whatever the machine's load) or
``WALL_S`` seconds of wall time (a command blocked on something), and the process's peak memory
(its own and its children's) after it.

    PYTHONPATH=ROOT python hostile_driver.py JOBS.json RESULTS.jsonl

JOBS.json: a list of {"id", "argv"} (argv strings may hold lone surrogates: file names that are
not UTF-8). Each result line: {"id", "code", "out", "err", "seconds", "cpu", "peak"}; ``code`` is the
exit status, or "hung" when the alarm ended the command. The studio's window is never opened
(``cli.studio.open_studio`` answers 0: the window reads files through File → Open, tested in
tests/ui); a command that opened it would block here. With ``$HOSTILE_NO_NRLINT`` set, ``lint``
gets a stand-in for nrlint that finds nothing (no Node-RED install to run it from).
"""
from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback

HANG_S = 10
WALL_S = 40
#: a safety net only (the test asserts the peak resident size): a runaway run fails here instead
#: of taking the machine's memory
ADDRESS_SPACE = 6 << 30


class Hung(BaseException):
    """The alarm: a command worked for HANG_S seconds of CPU or waited WALL_S seconds (no handler
    of the command catches this)."""


def _alarm(*_):
    raise Hung()


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF,
                                                                           resource.RUSAGE_CHILDREN)))


def _peak() -> int:
    return max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) << 10


def run_one(main, argv: list[str]) -> dict:
    """One command line, its output and error caught at the file descriptors."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        start, cpu0 = time.monotonic(), _cpu()
        signal.setitimer(signal.ITIMER_PROF, HANG_S)
        signal.alarm(WALL_S)
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's usage errors
            code = e.code if isinstance(e.code, int) else 1
        except Hung:
            code = "hung"
        except BaseException:  # noqa: BLE001 - an error no handler expected: its traceback is the finding
            os.write(2, traceback.format_exc().encode())
            code = "raised"
        finally:
            signal.alarm(0)
            signal.setitimer(signal.ITIMER_PROF, 0)
            took, cpu = time.monotonic() - start, _cpu() - cpu0
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        out.seek(0)
        err.seek(0)
        return {"code": code, "out": out.read().decode("utf-8", "backslashreplace")[-4000:],
                "err": err.read().decode("utf-8", "backslashreplace")[-4000:], "seconds": took, "cpu": cpu, "peak": _peak()}


def main(jobs_path: str, results_path: str) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    from gindex_studio.cli import studio
    from gindex_studio.cli.dispatch import main as cli

    studio.open_studio = lambda files, compare=None: 0
    if os.environ.get("HOSTILE_NO_NRLINT"):
        from gindex_studio.cli import lint

        lint.lint_problems = lambda flows, rules, max_nodes=None, names=None: [[] for _ in flows]
    with open(jobs_path, encoding="utf-8") as f:
        jobs = json.load(f)
    with open(results_path, "a", encoding="utf-8") as results:
        for job in jobs:
            results.write(json.dumps({"id": job["id"], **run_one(cli, job["argv"])}) + "\n")
            results.flush()


if __name__ == "__main__":
    main(*sys.argv[1:3])
