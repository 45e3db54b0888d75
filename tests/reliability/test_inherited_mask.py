"""A command started by a process that holds SIGINT and SIGTERM blocked (a blocked mask is
inherited through fork and exec: a pytest worker, a supervisor) still ends at a Ctrl-C with its
one line and status 130."""
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "resources" / "demo" / "study"


@pytest.mark.slow
def test_a_command_started_with_sigint_blocked_still_answers_it(tmp_path):
    argv = [sys.executable, "-m", "gindex_studio.cli", "attempt", "--system", "command", "--command",
            f"{sys.executable} -c 'import time; time.sleep(60)'", "--curriculum", str(STUDY / "curriculum"),
            "--tasks", str(STUDY / "tasks"), "-o", str(tmp_path / "exp.json")]
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}))
    try:
        time.sleep(3)  # asking its first prompts (each answer takes a minute)
        assert p.poll() is None, p.communicate()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
