"""A local command as a system: the prompt on stdin, the answer on stdout, parameters in its
environment, no shell, a timeout, an output bound, a failing command's last stderr line."""
from __future__ import annotations

import sys
import time

import pytest

from gindex_studio.core.systems.base import Params, Prompt
from gindex_studio.core.systems.command import Command

PROMPT = Prompt("t1", "Inject then debug", "Write: Inject then debug ✓")


def py(code: str, **kw) -> Command:
    return Command([sys.executable, "-c", code], **kw)


def test_the_prompt_goes_in_on_stdin_and_the_answer_comes_out_on_stdout():
    c = py("import sys, os; t = sys.stdin.read(); print('[]', t.upper(), os.environ['GINDEX_SEED'], "
           "os.environ['GINDEX_ATTEMPT'], os.environ.get('GINDEX_TEMPERATURE', '-'))")
    a = c.answer(PROMPT, Params(3, seed=12))
    assert a.ok and a.text == f"[] {PROMPT.text.upper()} 12 3 -\n" and a.seconds > 0


def test_no_shell_reads_the_arguments():
    a = Command([sys.executable, "-c", "import sys; print(sys.argv[1])", "$(echo hi); `id` > x"]).answer(PROMPT, Params())
    assert a.text == "$(echo hi); `id` > x\n"


def test_past_the_timeout_the_command_is_killed():
    start = time.monotonic()
    a = py("import time; time.sleep(30)", timeout=0.5).answer(PROMPT, Params())
    assert a.error == "no answer within 0.5 s" and a.text == "" and time.monotonic() - start < 5


def test_output_past_the_bound_is_an_error():
    a = py("import sys\nwhile True: sys.stdout.write('x' * 65536)", max_bytes=2**20).answer(PROMPT, Params())
    assert a.error == f"more than {2**20:,} bytes of output"


def test_a_failing_command_gives_its_exit_status_and_last_stderr_line():
    a = py("import sys; sys.stderr.write('loading\\nCUDA out of memory\\n'); sys.exit(3)").answer(PROMPT, Params())
    assert a.error == "exit status 3: CUDA out of memory"


def test_a_command_that_ignores_stdin_still_answers():
    big = Prompt("t", "x", "y" * 5_000_000)
    assert py("print('[]')").answer(big, Params()).text == "[]\n"


def test_a_missing_program_is_an_error_value():
    a = Command(["/nonexistent/model-runner"]).answer(PROMPT, Params())
    assert a.error.startswith("cannot run '/nonexistent/model-runner': ")


def test_close_kills_a_command_still_running():
    import threading

    c = py("import time; time.sleep(30)", timeout=60)
    got = []
    t = threading.Thread(target=lambda: got.append(c.answer(PROMPT, Params())))
    start = time.monotonic()
    t.start()
    while not c._running and time.monotonic() - start < 10:
        time.sleep(0.01)
    c.close()
    t.join(10)
    assert got and got[0].error == "exit status -9" and time.monotonic() - start < 10


@pytest.mark.slow
def test_a_process_left_behind_holding_stdout_does_not_hold_the_answer(tmp_path):
    """An attacker's (or a careless) command forks a daemon in a session of its own, out of reach of
    the process-group kill, that keeps stdout open for an hour: the answer is what the command wrote
    before it exited, a couple of seconds after it exited (this hung ``attempt`` for ever)."""
    import os
    import signal

    pidfile = tmp_path / "daemon.pid"
    code = (f"import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
            "    time.sleep(3600)\nprint('[]')\n")
    start = time.monotonic()
    try:
        a = py(code, timeout=60).answer(PROMPT, Params())
        assert a.ok and a.text == "[]\n" and time.monotonic() - start < 10
    finally:
        for _ in range(100):
            if pidfile.exists() and pidfile.read_text():
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
                break
            time.sleep(0.05)


@pytest.mark.slow
def test_a_daemon_that_writes_for_ever_after_the_command_exited_is_cut_off(tmp_path):
    """The command exits at once; what it left behind floods stdout: reading stops after the grace."""
    import os
    import signal

    pidfile = tmp_path / "daemon.pid"
    code = (f"import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
            "    while True: sys.stdout.write('x' * 1000); sys.stdout.flush(); time.sleep(0.01)\n")
    start = time.monotonic()
    try:
        a = py(code, timeout=60, max_bytes=2**30).answer(PROMPT, Params())
        assert a.ok and time.monotonic() - start < 10
    finally:
        for _ in range(100):
            if pidfile.exists() and pidfile.read_text():
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
                break
            time.sleep(0.05)
