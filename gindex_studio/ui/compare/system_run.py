"""A system run behind the compare window (File → Run System…): the asking and the scoring run on
threads of their own (``core.systems``), and what they find reaches the GUI thread only through
queued Qt signals, so the window never waits on them.

``SystemRun(config)``: ``start()`` prepares the run (``session.prepare``), computes Ω of every task
once (``live.LiveScores``), scores what the log already holds, then asks the rest (``run.ask``),
scoring each task as its last attempt is answered. Signals, on the GUI thread: ``started``
(the placeholder experiment), ``scored`` (a ``TaskResult``, the running g-index, tasks scored),
``progress`` (a ``RunProgress``), ``failed`` (one line), ``ended`` ("finished" with the written
experiment's path, or "cancelled").

``cancel()``: no request is sent after it and no task is scored any more (a Δ search stops at
once); the requests in flight finish (each within the system's timeout) and their answers are
logged and kept; then ``ended("cancelled")``. ``resume()`` runs again: it scores every task the
log holds all answers for, then asks only what the log holds no answer for. ``detach()`` (the window
closes): nothing more is delivered to the window; the threads end by themselves once the
requests in flight have, the object living on (``RUNNING``) until then.
"""
from __future__ import annotations

import queue
import socket
import threading
import time
import urllib.request
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal

from gindex_studio.core.benchmark.curriculum import Cancelled
from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.systems import run as runs
from gindex_studio.core.systems.live import LiveScores
from gindex_studio.core.systems.session import RunConfig, Session, SessionError, prepare

#: runs whose threads are still going (a closed window's included), kept alive until they end
RUNNING: set["SystemRun"] = set()
#: seconds to connect to an endpoint before a run asks it anything (a clear message, not retries)
REACH_TIMEOUT = 5.0
#: seconds in all the studio, quitting, gives the requests in flight to finish and be logged
QUIT_GRACE = 3.0
_quit_hooked = False


def stop_all(grace: float = QUIT_GRACE) -> None:
    """The studio quits: every run stops asking; the requests in flight get ``grace`` seconds in
    all to finish and be logged (what is still out then is asked again by a resume)."""
    end = time.monotonic() + grace
    for run in list(RUNNING):
        run.detach()
    for run in list(RUNNING):
        run.join(max(0.0, end - time.monotonic()))


def _hook_quit() -> None:
    global _quit_hooked
    app = QCoreApplication.instance()
    if app is not None and not _quit_hooked:
        app.aboutToQuit.connect(stop_all)
        _quit_hooked = True


@dataclass(frozen=True)
class RunProgress:
    """Where a run is: attempts answered (successfully) of ``total`` and attempts whose answer is an
    error (the log's included), their tokens and cost when the system gives them, the last error
    of this session, its seconds, its state and the requests in flight."""

    answered: int = 0
    total: int = 0
    errors: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    last_error: str = ""
    seconds: float = 0.0
    state: str = "preparing"  # preparing | scoring | asking | cancelling | cancelled | finished | failed
    in_flight: int = 0


def totals(answers: dict[tuple[str, int], dict]) -> dict:
    """The progress counts of the answer records kept ((task, attempt) → record): attempts answered
    successfully, attempts whose answer is an error, and the tokens and cost of them all (None
    while no answer gave them)."""
    def total(key):
        vals = [r[key] for r in answers.values() if isinstance(r.get(key), (int, float))]
        return sum(vals) if vals else None

    errors = sum(r.get("error") is not None for r in answers.values())
    return {"answered": len(answers) - errors, "errors": errors, "prompt_tokens": total("prompt_tokens"),
            "completion_tokens": total("completion_tokens"), "cost": total("cost")}


class _Feed(QObject):
    """Carries the threads' findings to the GUI thread (queued)."""

    started = Signal(object)
    scored = Signal(object, object, int)
    progress = Signal(object)
    failed = Signal(str)
    ended = Signal(str, str)


def reach(base_url: str, timeout: float = REACH_TIMEOUT) -> None:
    """Raise SessionError (one line) when nothing answers a TCP connection at ``base_url``'s host;
    nothing is tried when the requests go through a proxy (``*_PROXY``, as the client honours them):
    the host may be reachable only from there."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies()
    if (proxies.get(parts.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(parts.hostname or ""):
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            pass
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise SessionError(f"cannot reach {parts.scheme}://{parts.netloc}: {why}") from None


class SystemRun(QObject):
    """One run of a system on a curriculum's tasks (see the module's docstring)."""

    started = Signal(object)  # the placeholder Experiment (its tasks, in the table's order)
    scored = Signal(object, object, int)  # TaskResult, running g-index, tasks scored
    progress = Signal(object)  # RunProgress
    failed = Signal(str)
    ended = Signal(str, str)  # "finished" | "cancelled", the experiment written ("" when cancelled)

    def __init__(self, config: RunConfig):
        super().__init__()  # no parent: it outlives a window closed during the run
        self.config = config
        self.session: Session | None = None
        self.live: LiveScores | None = None
        self.state = "idle"
        self._feed = _Feed()
        for name in ("started", "scored", "progress", "failed", "ended"):
            getattr(self._feed, name).connect(getattr(self, f"_deliver_{name}"), Qt.QueuedConnection)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._attached = True
        self._lock = threading.Lock()
        self._answers: dict[tuple[str, int], dict] = {}
        self._progress = RunProgress()

    # ----- control (GUI thread) -----------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start (or resume) the run on its thread; nothing happens while it runs already."""
        if self.running:
            return
        self._cancel = threading.Event()
        self.state = "running"
        RUNNING.add(self)
        _hook_quit()
        self._thread = threading.Thread(target=self._main, name="gindex-run", daemon=True)
        self._thread.start()

    resume = start

    def cancel(self) -> None:
        """Send no more requests; those in flight finish and are kept (see the module's docstring)."""
        if self.running:
            self._cancel.set()
            self._set(state="cancelling")

    def detach(self) -> None:
        """Deliver nothing more (the window is closing); the run is cancelled."""
        self._attached = False
        self.cancel()

    def join(self, seconds: float) -> bool:
        """Wait for the threads to end (tests, and Quit): True when they have."""
        t = self._thread
        if t is not None:
            t.join(seconds)
        return not self.running

    # ----- delivery on the GUI thread -----------------------------------------------------------
    def _deliver_started(self, exp):
        if self._attached:
            self.started.emit(exp)

    def _deliver_scored(self, result, g, n):
        if self._attached:
            self.scored.emit(result, g, n)

    def _deliver_progress(self, p):
        if self._attached:
            self.progress.emit(p)

    def _deliver_failed(self, line):
        self._thread_ended("failed")
        if self._attached:
            self.failed.emit(line)

    def _deliver_ended(self, how, path):
        self._thread_ended(how)
        if self._attached:
            self.ended.emit(how, path)

    def _thread_ended(self, state: str) -> None:
        """The thread's last word has come: it is returning (nothing is left for it to do)."""
        self.state = state
        if self._thread is not None:
            self._thread.join(1.0)
        # let go of it after this delivery has returned (it may be the last reference)
        QTimer.singleShot(0, lambda: RUNNING.discard(self))

    # ----- the run (its thread) -----------------------------------------------------------------
    def _set(self, **changes) -> None:
        if self._cancel.is_set() and changes.get("state") in ("preparing", "scoring", "asking"):
            changes["state"] = "cancelling"  # (a cancel's state is not undone: Cancel stays disabled)
        with self._lock:
            self._progress = replace(self._progress, **changes)
            p = self._progress
        self._feed.progress.emit(p)

    def _main(self) -> None:
        feed, start = self._feed, time.monotonic()
        end: tuple[str, str] | None = None
        try:
            self._set(state="preparing", seconds=0.0, in_flight=0, last_error="")
            if self.session is None:
                self.session = prepare(self.config)
            s = self.session
            if self.config.system == "openai":
                reach(self.config.base_url)
            if self.live is None:
                self.live = LiveScores(s.placeholder(), self.config.attempts, cancel=self._cancel)
            feed.started.emit(self.live.experiment)
            with self._lock:
                self._answers = s.answered()
                counts = totals(self._answers)
            self._set(state="scoring", total=s.total, last_error="", **counts)
            for t in s.tasks:
                if self._cancel.is_set():
                    raise Cancelled()
                self._score(t.id)
            jobs = s.pending()
            if jobs and not self._cancel.is_set():
                self._ask(s, jobs, start)
            if self._cancel.is_set() and s.pending():
                self._set(state="cancelled", seconds=time.monotonic() - start, in_flight=0)
                end = ("cancelled", "")
            else:
                exp = s.write()
                self._set(state="finished", seconds=time.monotonic() - start, in_flight=0)
                end = ("finished", str(exp.path))
        except Cancelled:
            self._set(state="cancelled", in_flight=0)
            end = ("cancelled", "")
        except (SessionError, ExperimentError) as e:
            self._set(state="failed", last_error=str(e), in_flight=0)
            end = ("failed", str(e))
        except Exception as e:  # a bug must not become a traceback in the user's terminal
            line = f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
            self._set(state="failed", last_error=line, in_flight=0)
            end = ("failed", line)
        finally:
            if self.session is not None:  # its system ends with the run; a resume prepares it again
                self.session.close()
                self.session = None
            if end is None:
                end = ("failed", "the run stopped")
            if end[0] == "failed":
                feed.failed.emit(end[1])
            else:
                feed.ended.emit(*end)

    def _score(self, task_id: str) -> None:
        with self._lock:
            answered = dict(self._answers)
        result = self.live.score(task_id, answered, cancel=self._cancel)
        if result is not None:
            self._feed.scored.emit(result, self.live.g_index, len(self.live.results))

    def _ask(self, s: Session, jobs: list, start: float) -> None:
        """Ask ``jobs``; a scorer thread scores each task as its last attempt comes in (a cancel
        stops its search; an error of its own is raised here once the asking is over)."""
        todo: queue.SimpleQueue = queue.SimpleQueue()
        flight = {"n": 0}
        trouble: list[BaseException] = []

        def scorer() -> None:
            while (tid := todo.get()) is not None:
                if trouble or self._cancel.is_set():
                    continue  # drained to the end mark: nothing more is scored
                try:
                    self._score(tid)
                except Cancelled:
                    pass
                except Exception as e:  # reported by the run's thread, as its own errors are
                    trouble.append(e)

        def answered(_n: int, _total: int, rec: dict) -> None:  # on the asking threads
            key = (rec["task"], rec["attempt"])
            with self._lock:
                old = self._answers.get(key)
                if old is None or not (old.get("error") is None and rec["error"] is not None):
                    self._answers[key] = rec
                complete = all((rec["task"], i) in self._answers for i in range(self.config.attempts))
                self._progress = replace(self._progress, **totals(self._answers),
                                         last_error=rec["error"] or self._progress.last_error,
                                         seconds=time.monotonic() - start, in_flight=max(0, flight["n"] - 1))
                flight["n"] -= 1
                p = self._progress
            self._feed.progress.emit(p)
            if complete:
                todo.put(rec["task"])

        log = s.open_log()  # (before the scorer starts: an unwritable log leaves no thread behind)
        score_thread = threading.Thread(target=scorer, name="gindex-run-score", daemon=True)
        score_thread.start()
        try:
            self._set(state="asking", seconds=time.monotonic() - start)
            runs.ask(_Counted(s.system, self, flight), jobs, log, s.spec, answered, self._cancel)
        finally:
            log.close()
            todo.put(None)
            score_thread.join()
        if trouble:
            raise trouble[0]


class _Counted:
    """The session's system, counting the requests in flight (for the progress line)."""

    def __init__(self, system, run: SystemRun, flight: dict):
        self.system, self.run, self.flight = system, run, flight
        self.name = system.name

    def answer(self, prompt, params):
        with self.run._lock:
            self.flight["n"] += 1
            now = self.flight["n"]
        self.run._set(in_flight=now)
        return self.system.answer(prompt, params)
