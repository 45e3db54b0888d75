"""Benchmark: measuring a system end to end (issue 34), each part against a baseline run in the same process.

    python3 bench/bench_attempt.py                          # (a) only; (b) is skipped, saying why
    python3 bench/bench_attempt.py --companion PATH         # PATH: a work tree of github:mayahq/g-index-benchmark
    python3 bench/bench_attempt.py --rounds 7 --attempts 10

(a) The studio's own overhead per request. A chat-completions server (``tests/fake_chat_server.py``)
    runs in a child process on 127.0.0.1 and answers every request at once with a fenced flow (the
    largest reference of the demo study's tasks), so what is timed is the client's side. Asked at
    concurrency 8, the demo study's 22 tasks × ``--attempts``:
    - baseline: the least any client does: a pooled ``httpx.Client`` posting each prompt's JSON
      body on 8 threads and reading the reply's JSON;
    - studio: what ``attempt`` does for the same requests: the prompts made from the template
      (once per task), ``systems.run.ask`` with the ``openai`` system (request and answer logged to
      the JSONL log, fsynced) and the experiment written from the log.
    Overhead per request = (studio − baseline) / requests, in wall time and in this process's CPU
    time (the server's is not in it). Target ≤ 5 ms per request.

(b) ``gindex`` over the companion's 8 experiments in one call (``--domains``, with
    ``--symmetrise-directory-order`` so the numbers are the companion's) against the companion's
    own CLI (``python3 g_index.py -e experiments -d domains -p True -s ''`` in PATH, its results
    not saved), each a child process, CPU time of the process and its children (``wait4``), the
    rounds interleaved; for information also one ``gindex`` process per experiment (the way before
    one call took several). Every g-index is checked against the companion's table (to the 6
    significant digits it prints). Target: the companion's CPU ≥ 5× ours. Skipped in one line when
    PATH is not given or its code cannot run (pandas, seaborn, tabulate: its requirements).

Medians over ``--rounds``; this machine is shared (the load average is printed), so rerun when a
figure looks off.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import orjson  # noqa: E402

from gindex_studio.paths import DEMO_DIR  # noqa: E402

STUDY = DEMO_DIR / "study"
CONCURRENCY = 8


# ----- (a) overhead per request ------------------------------------------------------------------


def _serve(answer: str, conn) -> None:
    """The child: a chat server answering ``answer`` to every request, until told to stop."""
    from fake_chat_server import ChatServer, completion, serve

    reply = completion(answer)
    with serve(ChatServer(lambda body, n: (200, {}, reply, 0.0))) as url:
        conn.send(url)
        conn.recv()


def _answer_text() -> str:
    from fake_chat_server import fenced

    flows = [json.loads(f.read_text())["flow"] for f in sorted((STUDY / "tasks").glob("*.json"))]
    return fenced(max(flows, key=lambda f: len(json.dumps(f))))


def _clocks():
    return time.perf_counter(), time.process_time()


def _since(start) -> tuple[float, float]:
    wall, cpu = _clocks()
    return wall - start[0], cpu - start[1]


def baseline(url: str, prompts: list[str]) -> tuple[float, float]:
    """(wall, CPU) of posting every prompt with a pooled httpx client on CONCURRENCY threads."""
    import httpx

    client = httpx.Client(timeout=60, limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))
    todo: queue.SimpleQueue = queue.SimpleQueue()
    for p in prompts:
        todo.put(p)

    def work():
        while True:
            try:
                p = todo.get_nowait()
            except queue.Empty:
                return
            r = client.post(url + "/chat/completions", content=orjson.dumps(
                {"model": "m", "messages": [{"role": "user", "content": p}]}),
                headers={"Content-Type": "application/json"})
            orjson.loads(r.content)["choices"][0]["message"]["content"]

    start = _clocks()
    threads = [threading.Thread(target=work) for _ in range(CONCURRENCY)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = _since(start)
    client.close()
    return took


def studio(url: str, attempts: int, folder: Path) -> tuple[float, float, int]:
    """(wall, CPU, requests) of what ``attempt --system openai`` does for the same requests: the
    prompts, ``ask`` with the log, the experiment written."""
    from gindex_studio.core.systems import corpus, prompts
    from gindex_studio.core.systems import run as runs
    from gindex_studio.core.systems.openai_compat import Endpoint, OpenAICompatible
    from gindex_studio.core.systems.runlog import RunLog, log_path, read_log

    out = folder / "exp.json"
    start = _clocks()
    curriculum = corpus.read_curriculum(STUDY / "curriculum")
    tasks = corpus.read_tasks([STUDY / "tasks"])
    maker = prompts.PromptMaker(prompts.PromptSpec(), curriculum)
    asked = {t.id: maker.prompt(t) for t in tasks}
    system = OpenAICompatible(Endpoint(url, "m"))
    setup = runs.Setup(STUDY / "curriculum", [STUDY / "tasks"], 100.0, system.name)
    spec = runs.RunSpec(attempts, concurrency=CONCURRENCY, seed=0)
    log = RunLog(log_path(out))
    jobs = runs.pending(tasks, asked, attempts, {})
    stats = runs.ask(system, jobs, log, spec)
    log.close()
    system.close()
    _runs, answered = read_log(log_path(out))
    runs.write_experiment(setup, out, tasks, asked, attempts, answered)
    wall, cpu = _since(start)
    assert stats.asked == len(jobs) and stats.errors == 0, stats
    return wall, cpu, len(jobs)


def prompts_of(attempts: int) -> list[str]:
    from gindex_studio.core.systems import corpus, prompts

    maker = prompts.PromptMaker(prompts.PromptSpec(), corpus.read_curriculum(STUDY / "curriculum"))
    return [maker.prompt(t).text for t in corpus.read_tasks([STUDY / "tasks"]) for _ in range(attempts)]


def part_a(rounds: int, attempts: int) -> None:
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe()
    server = ctx.Process(target=_serve, args=(_answer_text(), child), daemon=True)
    server.start()
    url = parent.recv()
    try:
        texts = prompts_of(attempts)
        baseline(url, texts[:CONCURRENCY])  # warm: imports, connections
        with tempfile.TemporaryDirectory() as tmp:
            studio(url, 1, Path(tmp))
        base, ours = [], []
        for k in range(rounds):
            base.append(baseline(url, texts))
            with tempfile.TemporaryDirectory() as tmp:
                w, c, n = studio(url, attempts, Path(tmp))
            ours.append((w, c))
    finally:
        parent.send("stop")
        server.join(10)
    bw, bc = (statistics.median(x[i] for x in base) for i in (0, 1))
    sw, sc = (statistics.median(x[i] for x in ours) for i in (0, 1))
    per = lambda x: x / n * 1000  # noqa: E731  (ms per request)
    print(f"(a) {n} requests ({n // attempts} tasks × {attempts} attempts) at concurrency {CONCURRENCY}, "
          f"median of {rounds} rounds")
    print(f"    baseline (bare httpx): {per(bw):6.2f} ms wall, {per(bc):6.2f} ms CPU per request")
    print(f"    studio (attempt):      {per(sw):6.2f} ms wall, {per(sc):6.2f} ms CPU per request   "
          f"ratio {sw / bw:.2f}× wall, {sc / bc:.2f}× CPU")
    over = per(sw - bw)
    print(f"    overhead per request: {over:.2f} ms wall, {per(sc - bc):.2f} ms CPU   "
          f"(target ≤ 5 ms: {'met' if over <= 5 else 'NOT met'})")


# ----- (b) gindex over the companion's experiments --------------------------------------------------


def companion_problem(path: str | None) -> str | None:
    if not path:
        return "no --companion PATH given (a work tree of github:mayahq/g-index-benchmark)"
    root = Path(path)
    if not (root / "g_index.py").is_file() or not (root / "experiments").is_dir() or not (root / "domains").is_dir():
        return f"--companion {path}: not a work tree of the companion (g_index.py, experiments/, domains/)"
    p = subprocess.run([sys.executable, "-c", "import pandas, seaborn, tabulate, networkx"], cwd=root,
                       capture_output=True, text=True)
    if p.returncode:
        return f"the companion's code cannot run here: {p.stderr.strip().splitlines()[-1]} (pip install -r requirements.txt)"
    return None


def timed(argv: list[str], cwd: Path | None = None, env: dict | None = None) -> tuple[float, float, str]:
    """(wall, CPU of the process and its children, stdout) of one child process."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err)
        out = p.stdout.read()
        _pid, status, use = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode:
            err.seek(0)
            raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}: {err.read().decode()[-500:]}")
    return wall, use.ru_utime + use.ru_stime, out.decode()


def their_table(text: str) -> list[float]:
    """The g_index column of the companion's markdown table."""
    rows = [line.split("|") for line in text.splitlines() if line.startswith("|")][2:]
    return sorted(float(r[-2]) for r in rows)


def part_b(path: str | None, rounds: int) -> None:
    why = companion_problem(path)
    if why:
        print(f"(b) skipped: {why}")
        return
    root = Path(path).resolve()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    files = sorted((root / "experiments").glob("*.json"))
    theirs_argv = [sys.executable, "g_index.py", "-e", "experiments", "-d", "domains", "-p", "True", "-s", ""]
    ours_argv = [sys.executable, "-m", "gindex_studio.cli", "gindex", str(root / "experiments"),
                 "--domains", str(root / "domains"), "--symmetrise-directory-order", "--json"]
    one_argv = lambda f: [sys.executable, "-m", "gindex_studio.cli", "gindex", str(f), "--domains",  # noqa: E731
                          str(root / "domains"), "--symmetrise-directory-order", "--json"]
    theirs, ours, apart = [], [], []
    for k in range(rounds):
        w, c, text = timed(theirs_argv, cwd=root, env=env)
        theirs.append((w, c))
        w, c, out = timed(ours_argv, env=env)
        ours.append((w, c))
        if k == 0:
            mine = sorted(float(f"{r['g_index']:.6g}") for r in json.loads(out))
            expected = their_table(text)
            assert mine == expected, f"g-indices differ: ours {mine}, the companion's {expected}"
        w = c = 0.0
        for f in files:
            dw, dc, _ = timed(one_argv(f), env=env)
            w, c = w + dw, c + dc
        apart.append((w, c))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    tc, oc, ac = med(theirs, 1), med(ours, 1), med(apart, 1)
    print(f"(b) gindex over the companion's {len(files)} experiments, median of {rounds} rounds "
          f"(every g-index equal to the companion's table)")
    print(f"    the companion's CLI:           {tc:6.2f} s CPU, {med(theirs, 0):6.2f} s wall")
    print(f"    gindex, one call:              {oc:6.2f} s CPU, {med(ours, 0):6.2f} s wall   "
          f"companion / ours = {tc / oc:.1f}× CPU  (target ≥ 5×: {'met' if tc / oc >= 5 else 'NOT met'})")
    print(f"    gindex, one call per file:     {ac:6.2f} s CPU, {med(apart, 0):6.2f} s wall   "
          f"companion / these = {tc / ac:.1f}× CPU (for information)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--companion", metavar="PATH", help="a work tree of the companion repository, for (b)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--attempts", type=int, default=10, help="attempts per task in (a) (22 tasks)")
    ap.add_argument("--only", choices=("a", "b"))
    args = ap.parse_args()
    if args.only != "b":
        part_a(args.rounds, args.attempts)
    if args.only != "a":
        part_b(args.companion, args.rounds)
    print(f"load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
