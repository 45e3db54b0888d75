"""What the studio's File → Run System… stands on, in pure Python: a run prepared as the command
line prepares it (``session``), ``ask`` stopped by a cancel event (in-flight answers kept, the rest
left for a resume), and answers scored as they arrive (``live``) to the g-index of the written file."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gindex_studio.core.benchmark.experiment import load_experiment
from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.systems import run as runs
from gindex_studio.core.systems.base import Answer
from gindex_studio.core.systems.live import LiveScores
from gindex_studio.core.systems.session import RunConfig, SessionError, prepare
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study"


@pytest.fixture
def tasks(tmp_path):
    folder = tmp_path / "tasks"
    folder.mkdir()
    for f in sorted((STUDY / "tasks").glob("*.json"))[:6]:
        shutil.copy(f, folder / f.name)
    return folder


def config(tmp_path, tasks, **kw):
    return RunConfig(kw.pop("system", "nearest"), STUDY / "curriculum", [tasks], tmp_path / "out" / "exp.json", **kw)


def test_answers_scored_as_they_arrive_give_the_written_experiments_gindex(tmp_path, tasks):
    s = prepare(config(tmp_path, tasks, attempts=2))
    live = LiveScores(s.placeholder(), 2)
    log = s.open_log()
    stats = runs.ask(s.system, s.pending(), log, s.spec)
    log.close()
    assert (stats.asked, stats.cancelled) == (12, False)
    answered = s.answered()
    for t in reversed(s.tasks):  # any order
        assert live.score(t.id, answered) is not None
    exp = s.write()
    full = compute_gindex(load_experiment(exp.path))
    assert live.g_index == full.g_index
    assert [live.results[j].tc for j in range(6)] == [t.tc for t in full.tasks]
    assert [live.results[j].omega for j in range(6)] == [t.omega for t in full.tasks]


def test_a_task_waits_for_all_its_attempts_and_an_error_scores_as_the_empty_answer(tmp_path, tasks):
    s = prepare(config(tmp_path, tasks, attempts=2))
    live = LiveScores(s.placeholder(), 2)
    tid, right = s.tasks[0].id, s.tasks[0].source  # the reference itself: Δ 0 when it is read
    assert live.score(tid, {(tid, 0): {"text": "[]", "error": None}}) is None and live.g_index is None
    t = live.score(tid, {(tid, 0): {"text": right, "error": None}, (tid, 1): {"text": right, "error": "HTTP 500"}})
    assert t.attempt_deltas == [0.0, 1.0] and live.g_index == t.tc


class Slow:
    """A system answering after ``delay`` seconds, counting calls."""

    name = "slow"

    def __init__(self, delay):
        self.delay, self.calls, self.lock = delay, 0, threading.Lock()

    def answer(self, prompt, params):
        with self.lock:
            self.calls += 1
        time.sleep(self.delay)
        return Answer("[]", 1, 1)


@pytest.mark.slow
def test_cancel_hands_out_no_more_jobs_keeps_the_answers_in_flight_and_a_resume_asks_the_rest(tmp_path, tasks):
    s = prepare(config(tmp_path, tasks, attempts=3, concurrency=2))
    slow, cancel = Slow(0.1), threading.Event()
    seen = []

    def progress(n, total, rec):
        seen.append(rec)
        if n == 4:
            cancel.set()

    log = s.open_log()
    stats = runs.ask(slow, s.pending(), log, s.spec, progress, cancel)
    log.close()
    # the two requests in flight when it was set finished and were logged; nothing else was asked
    assert stats.cancelled and slow.calls == stats.asked == len(seen) and 4 <= stats.asked <= 5
    assert not [t for t in threading.enumerate() if t.name.startswith("gindex-ask")]
    kept = len(s.answered())
    assert kept == stats.asked
    left = s.pending()
    assert len(left) == 18 - kept
    log = s.open_log()
    again = runs.ask(slow, left, log, s.spec)
    log.close()
    assert (again.asked, again.cancelled, slow.calls) == (18 - kept, False, 18)


def test_a_log_of_another_system_and_bad_folders_are_refused_in_one_line(tmp_path, tasks):
    s = prepare(config(tmp_path, tasks, system="empty"))
    s.open_log().close()
    with pytest.raises(SessionError, match="written by another system") as e:
        prepare(config(tmp_path, tasks))
    assert "\n" not in str(e.value)
    with pytest.raises(SessionError, match="no such curriculum folder"):
        prepare(RunConfig("nearest", tmp_path / "none", [tasks], tmp_path / "e.json"))
    with pytest.raises(SessionError, match="holds no API key"):
        prepare(config(tmp_path, tasks, system="openai", base_url="http://127.0.0.1:9/v1", model="m",
                       api_key_env="GINDEX_TEST_UNSET_KEY_VAR"))


def test_a_run_the_command_line_started_is_resumed_here_and_the_other_way_round(tmp_path, tasks):
    cfg = config(tmp_path, tasks, attempts=2)
    s = prepare(cfg)
    log = s.open_log()
    runs.ask(s.system, s.pending()[:5], log, s.spec)  # 5 of 12 answered here
    log.close()
    tree = str(Path(__file__).resolve().parents[3])
    q = subprocess.run([sys.executable, "-m", "gindex_studio.cli", "attempt", "--system", "nearest", "--curriculum",
                        str(STUDY / "curriculum"), "--tasks", str(tasks), "-o", str(cfg.output), "--attempts", "2",
                        "--json"], env={"PATH": "/usr/bin:/bin", "PYTHONPATH": tree}, capture_output=True, text=True,
                       timeout=120)
    assert q.returncode == 0, q.stderr
    summary = json.loads(q.stdout)
    assert (summary["asked"], summary["reused"]) == (7, 5)
    assert prepare(cfg).pending() == []  # and the CLI's log reads back here as complete


def test_scoring_a_task_stops_at_a_cancel(tmp_path, tasks):
    """A task's Δ searches are exact and a model's answer can be large: a cancel stops them, the
    task left unscored (the studio's Cancel must not wait for a search)."""
    from gindex_studio.core.benchmark.curriculum import Cancelled

    s = prepare(config(tmp_path, tasks))
    live = LiveScores(s.placeholder(), 1)
    tid = s.tasks[0].id
    stop = threading.Event()
    stop.set()
    with pytest.raises(Cancelled):
        live.score(tid, {(tid, 0): {"text": s.tasks[0].source, "error": None}}, cancel=stop)
    assert live.results == {} and live.g_index is None
    assert live.score(tid, {(tid, 0): {"text": s.tasks[0].source, "error": None}}).attempt_deltas == [0.0]
