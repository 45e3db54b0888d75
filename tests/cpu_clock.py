"""CPU time for tests that check that work stops promptly. The CPU a thread or a process spends
is the work it does, whatever else the machine runs; elapsed time is not (a loaded machine
stretches it without limit), so no test's verdict rests on it."""
from __future__ import annotations

import os
import threading
import time


def thread_clock() -> int:
    """The calling thread's CPU clock (read from any thread with ``cpu_seconds``)."""
    return time.pthread_getcpuclockid(threading.get_ident())


def cpu_seconds(clock: int) -> float | None:
    """CPU seconds on ``clock`` so far; None once its thread has ended."""
    try:
        return time.clock_gettime(clock)
    except OSError:
        return None


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
