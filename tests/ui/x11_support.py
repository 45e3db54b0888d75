"""A real X server for the tests that drive the studio as a laptop user would: Xvfb at 1366×768
with a window manager (openbox), and the studio run on it as a separate process. Skips, naming the
Debian packages, only where the X server or its tools are not installed
(``packaging/install-test-tools.sh`` installs them)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))
import x11_check as xc  # noqa: E402

SCREEN = (1366, 768)


def _start_openbox(disp: str, home: Path) -> tuple[subprocess.Popen | None, str]:
    """openbox managing ``disp`` (None and its last output when it exited or did not take the screen
    within 30 s). Its home is private, so a user's or another run's openbox settings play no part."""
    log = home / "openbox.log"
    env = {**os.environ, "DISPLAY": disp, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_CACHE_HOME": str(home / "cache"), "XDG_DATA_HOME": str(home / "data")}
    env.pop("SESSION_MANAGER", None)
    with open(log, "wb") as out:
        wm = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=out, stderr=subprocess.STDOUT)
    end = time.perf_counter() + 30
    while "_NET_SUPPORTING_WM_CHECK" not in subprocess.run(["xprop", "-display", disp, "-root"], capture_output=True,
                                                            text=True).stdout:
        if time.perf_counter() > end or wm.poll() is not None:
            wm.kill()
            wm.wait()
            said = " | ".join(log.read_text(errors="replace").split("\n")[-5:]).strip(" |")
            return None, f"exit status {wm.returncode}; it said: {said or 'nothing'}"
        time.sleep(0.05)
    return wm, ""


@pytest.fixture(scope="module")
def display(tmp_path_factory):
    """Xvfb at 1366×768 with openbox. openbox once exited with status 1 on a fresh server on the CI
    machine (not seen here in 10 tries), so a server whose window manager does not start is replaced
    by a fresh one, twice at most; the failure names what openbox printed each time."""
    why = xc.preflight([sys.executable])
    if why is None and shutil.which("openbox") is None:
        why = "openbox not installed (Debian: apt-get install openbox)"
    if why:
        pytest.skip(why)
    reasons = []
    for attempt in range(3):
        xvfb, disp = xc.start_xvfb(SCREEN)
        wm, reason = _start_openbox(disp, tmp_path_factory.mktemp("openbox"))
        if wm is not None:
            break
        xvfb.kill()
        xvfb.wait()
        reasons.append(f"{disp}: {reason}")
    else:
        pytest.fail("openbox did not start: " + "; ".join(reasons))
    yield disp
    wm.terminate()
    wm.wait()
    xvfb.terminate()
    xvfb.wait()


class Studio:
    """One studio process on the display, with a fresh home: ``gindex-studio ARGS``, or
    ``command`` (a test's own way to start the studio) with ARGS."""

    def __init__(self, disp: str, args: list[str], tmp: Path, command: list[str] | None = None):
        self.disp = disp
        env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
        env.update(DISPLAY=disp, HOME=str(tmp), XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"),
                   XDG_CACHE_HOME=str(tmp / "cache"))
        self.log = open(tmp / "studio.log", "w+")
        self.proc = subprocess.Popen([*(command or [sys.executable, "-m", "gindex_studio"]), *args], env=env, cwd=tmp,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def window(self, title: str) -> str:
        wid = xc.find_window(self.disp, re.compile(title), time.perf_counter() + 40)
        if wid is None:
            self.log.seek(0)
            pytest.fail(f"no window titled /{title}/ within 40 s; the studio said: {self.log.read()[-1500:]}")
        xc.settle(self.disp, wid, quiet=1.0, limit=30)
        return wid

    def close_with(self, wid: str, key: str) -> None:
        """Press ``key`` in the window, as a keyboard would, until the process ends (a busy machine may
        still be handling the window's first events: the key is pressed again every 5 s, 6 times at most)."""
        code = None
        try:
            for _ in range(6):
                xc._x(self.disp, "windowactivate", "--sync", wid)
                xc._x(self.disp, "key", "--clearmodifiers", key)  # XTEST: as a keyboard would
                try:
                    code = self.proc.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            if code is None:
                active = xc._x(self.disp, "getactivewindow")
                self.log.seek(0)
                pytest.fail(f"still running 30 s after {key} (active window {active!r}, the studio's {wid!r}); "
                            f"it said: {self.log.read()[-1500:]}")
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self.log.seek(0)
        out = self.log.read()
        self.log.close()
        assert code == 0 and "Traceback" not in out, out[-2000:]
