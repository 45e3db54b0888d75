"""The baselines and the pieces of a run: nearest (BM25 over task texts), empty, the prompt
template with k-shot examples, the JSONL log that survives a torn last line."""
from __future__ import annotations

import json

import orjson
import pytest

from gindex_studio.core.benchmark.gindex import compute_gindex
from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.systems import corpus
from gindex_studio.core.systems.base import Params, Prompt
from gindex_studio.core.systems.baselines import Empty, Nearest
from gindex_studio.core.systems.prompts import PromptMaker, PromptSpec, compact_flow
from gindex_studio.core.systems.run import RunSpec, Setup, ask, pending, write_experiment
from gindex_studio.core.systems.runlog import RunLog, read_log
from gindex_studio.paths import DEMO_DIR

STUDY = DEMO_DIR / "study"


def program(folder, domain, name, text, types):
    flow = [{"id": f"{name}{i}", "type": t, "wires": []} for i, t in enumerate(types)]
    p = folder / domain / f"{name}.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"title": name, "text": text, "name": domain, "flow": flow}))
    return p


@pytest.fixture
def data(tmp_path):
    cur, tasks = tmp_path / "cur", tmp_path / "tasks"
    program(cur, "http", "h1", "Serve a web page on an HTTP endpoint", ["http in", "template", "http response"])
    program(cur, "mail", "m1", "Send an email every morning", ["inject", "e-mail"])
    program(cur, "mail", "m2", "Send an email when a tweet arrives", ["twitter in", "e-mail"])
    program(tasks, "http", "t-http", "Answer an HTTP request with a web page", ["http in", "template", "http response"])
    program(tasks, "mail", "t-mail", "Every morning send me an email", ["inject", "e-mail"])
    program(tasks, "other", "t-none", "Zebra quokka", ["debug"])
    return cur, tasks


def test_nearest_answers_with_the_closest_curriculum_program_verbatim(data):
    cur, _ = data
    entries = corpus.read_curriculum(cur)
    n = Nearest(entries)
    a = n.answer(Prompt("t", "Every morning send me an email", "ignored"), Params())
    assert a.text == (cur / "mail" / "m1.json").read_text()
    assert n.answer(Prompt("t", "a web page for HTTP requests", ""), Params()).text == (cur / "http" / "h1.json").read_text()
    # no word in common: the first program, every time
    assert n.answer(Prompt("t", "zebra quokka", ""), Params()).text == entries[0].source
    assert Empty().answer(Prompt("t", "x", "y"), Params()).text == "[]"


def test_the_template_renders_the_task_examples_of_its_domain_or_the_nearest_and_the_library(data, tmp_path):
    cur, tasks = data
    entries, ts = corpus.read_curriculum(cur), {t.id: t for t in corpus.read_tasks([tasks])}
    maker = PromptMaker(PromptSpec(shots=1, library=True), entries)
    p = maker.prompt(ts["t-mail"])
    assert p.task_text == "Every morning send me an email" and p.text.rstrip().endswith("Task: Every morning send me an email")
    assert "Task: Send an email every morning" in p.text and compact_flow(entries[1].source) in p.text
    assert "- inject:" in p.text and "- debug:" in p.text
    held_out = maker.prompt(ts["t-none"])  # no "other" domain in the curriculum: the nearest text
    assert [e.id for e in maker.examples(ts["t-none"])] == ["h1"] and "Serve a web page" in held_out.text
    nearest = PromptMaker(PromptSpec(shots=2, from_nearest=True), entries)
    assert [e.id for e in nearest.examples(ts["t-mail"])] == ["m1", "m2"]
    plain = PromptMaker(PromptSpec(), entries).prompt(ts["t-http"]).text
    assert "Node types" not in plain and "Serve a web page" not in plain
    own = tmp_path / "mine.j2"
    own.write_text("{{ task.domain }}: {{ task.text }}|{{ examples | length }}")
    assert PromptMaker(PromptSpec(own), entries).prompt(ts["t-http"]).text == "http: Answer an HTTP request with a web page|0"
    own.write_text("{{ task.nope }}")
    with pytest.raises(ExperimentError, match="template error"):
        PromptMaker(PromptSpec(own), entries).prompt(ts["t-http"])
    own.write_text("{% if %}")
    with pytest.raises(ExperimentError, match=r"mine.j2:1: template error"):
        PromptMaker(PromptSpec(own), entries)


def test_the_log_drops_a_torn_last_line_and_prefers_an_answer_to_an_error(tmp_path):
    path = tmp_path / "e.json.log.jsonl"
    log = RunLog(path)
    log.append({"kind": "answer", "task": "a", "attempt": 0, "text": "[]", "error": None})
    log.append({"kind": "answer", "task": "b", "attempt": 0, "text": "", "error": "HTTP 500"})
    log.close()
    with path.open("ab") as f:
        f.write(b'{"kind": "answer", "task": "b", "attempt": 0, "text": "[tor')
    assert set(read_log(path)[1]) == {("a", 0), ("b", 0)}
    log = RunLog(path)
    log.append({"kind": "answer", "task": "b", "attempt": 0, "text": "[1]", "error": None})
    log.append({"kind": "answer", "task": "b", "attempt": 0, "text": "", "error": "later error"})
    log.close()
    lines = path.read_bytes().splitlines()
    assert len(lines) == 4 and all(isinstance(orjson.loads(x), dict) for x in lines)
    assert read_log(path)[1][("b", 0)]["text"] == "[1]"


class Flaky:
    """Answers with the task's reference, but fails attempt 1 of every task once."""

    name = "flaky"

    def __init__(self, refs):
        self.refs, self.failed, self.asked = refs, set(), []

    def answer(self, prompt, params):
        from gindex_studio.core.systems.base import Answer

        self.asked.append((prompt.task_id, params.attempt, params.seed))
        if params.attempt == 1 and prompt.task_id not in self.failed:
            self.failed.add(prompt.task_id)
            return Answer("", error="HTTP 503 (after 1 try)")
        return Answer(self.refs[prompt.task_id], 10, 20, 0.01)


def test_a_run_asks_only_what_is_unanswered_and_its_experiment_scores_errors_delta_1(data, tmp_path):
    cur, tasks_dir = data
    entries, tasks = corpus.read_curriculum(cur), corpus.read_tasks([tasks_dir])
    prompts = {t.id: Prompt(t.id, t.text, t.text) for t in tasks}
    system = Flaky({t.id: t.source for t in tasks})
    out = tmp_path / "out" / "exp.json"
    log = RunLog(out.with_name("exp.json.log.jsonl"))
    spec = RunSpec(attempts=2, seed=40, concurrency=3, price_in=1.0, price_out=2.0)
    stats = ask(system, pending(tasks, prompts, 2, {}), log, spec)
    assert stats.asked == 6 and stats.errors == 3
    _, answered = read_log(log.path)
    again = pending(tasks, prompts, 2, answered)
    assert sorted((j.task.id, j.attempt) for j in again) == [("t-http", 1), ("t-mail", 1), ("t-none", 1)]
    setup = Setup(cur, [tasks_dir], 4.0, "flaky", settings={"system": "flaky"})
    exp = write_experiment(setup, out, tasks, prompts, 2, answered)  # with the errors: Δ = 1 for them
    res = compute_gindex(exp)
    assert all(t.attempt_deltas[1] == 1.0 and t.attempt_deltas[0] == 0.0 for t in res.tasks)
    meta = exp.extra["x-attempt"]
    assert meta["tasks"]["t-http"]["attempts"][1]["error"] == "HTTP 503 (after 1 try)"
    assert meta["totals"]["errors"] == 3 and meta["totals"]["cost"] == pytest.approx(3 * (10 + 40) / 1e6)
    ask(system, again, log, spec)
    log.close()
    _, answered = read_log(log.path)
    exp = write_experiment(setup, out, tasks, prompts, 2, answered)
    assert all(t.delta == 0.0 for t in compute_gindex(exp).tasks)
    assert sorted(s for _, _, s in system.asked) == [40] * 3 + [41] * 6
    assert exp.extra["x-attempt"]["tasks"]["t-mail"]["prompt"] == "Every morning send me an email"
    with pytest.raises(ExperimentError, match="has attempts with no answer yet"):
        write_experiment(setup, out, tasks, prompts, 3, answered)


def test_nearest_and_empty_end_to_end_on_the_demo_study(tmp_path):
    cur, tasks = corpus.read_curriculum(STUDY / "curriculum"), corpus.read_tasks([STUDY / "tasks"])
    prompts = {t.id: Prompt(t.id, t.text, t.text) for t in tasks}
    scores = {}
    for system in (Nearest(cur), Empty()):
        out = tmp_path / f"{system.name}.json"
        log = RunLog(out.with_name(out.name + ".log.jsonl"))
        ask(system, pending(tasks, prompts, 1, {}), log, RunSpec(concurrency=2))
        log.close()
        exp = write_experiment(Setup(STUDY / "curriculum", [STUDY / "tasks"], 74.75, system.name), out, tasks, prompts, 1,
                               read_log(log.path)[1])
        scores[system.name] = compute_gindex(exp)
    assert all(t.delta == 1.0 for t in scores["empty"].tasks)
    # a task whose domain is in the curriculum gets a program of that domain: closer than empty
    assert scores["nearest"].g_index > 10 * scores["empty"].g_index
    assert min(t.delta for t in scores["nearest"].tasks) < 0.5


def test_a_system_that_raises_gives_an_error_value_and_the_run_goes_on(data, tmp_path):
    _, tasks_dir = data
    tasks = corpus.read_tasks([tasks_dir])

    class Broken:
        name = "broken"

        def answer(self, prompt, params):
            if prompt.task_id == "t-mail":
                raise RuntimeError("bug\nin the system")
            return Empty().answer(prompt, params)

    log = RunLog(tmp_path / "x.log.jsonl")
    stats = ask(Broken(), pending(tasks, {t.id: Prompt(t.id, t.text, t.text) for t in tasks}, 1, {}), log, RunSpec(concurrency=2))
    log.close()
    assert stats.asked == 3 and stats.errors == 1
    assert read_log(log.path)[1][("t-mail", 0)]["error"] == "RuntimeError: bug in the system"


def test_concurrent_appends_share_fsyncs_and_each_returns_once_on_disk(tmp_path, monkeypatch):
    import os
    import threading
    import time

    from gindex_studio.core.systems import runlog

    synced_lines = []
    log = RunLog(tmp_path / "g.log.jsonl")
    real_fsync = os.fsync

    def slow_fsync(fd):
        time.sleep(0.005)
        real_fsync(fd)
        synced_lines.append(log.path.read_bytes().count(b"\n"))

    monkeypatch.setattr(runlog.os, "fsync", slow_fsync)
    late = []

    def writer(k):
        for i in range(25):
            log.append({"kind": "answer", "task": f"t{k}", "attempt": i, "text": "[]", "error": None})
            late.append(synced_lines[-1] if synced_lines else 0)  # lines on disk when append returned

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    assert len(read_log(log.path)[1]) == 200
    assert len(synced_lines) < 150  # shared: far fewer fsyncs than the 200 appends
    assert synced_lines[-1] == 200 and all(n >= 1 for n in late)
