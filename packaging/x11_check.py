"""Run an installed gindex-studio on a real X server (Xvfb) as a person would, and check it.

    python3 packaging/x11_check.py --name bundle --demo DEMO_DIR -- dist/app/gindex-studio/gindex-studio
    python3 packaging/x11_check.py --name wheel --demo DEMO_DIR -- /path/to/venv/bin/gindex-studio

(packaging/check-app.sh runs both.)

For each scene — the studio on its demo program, ``compare REF GEN`` on a demo task, and the demo
experiment opened as a file manager opens it (``gindex-studio experiment.json``) — the command is
started on a fresh Xvfb display with a fresh home (XDG folders), and the check:

1. waits for the first visible window (start-up time), then for the window whose title is the one
   expected (the file is open);
2. waits until what is drawn stops changing (searches and the g-index finish), takes a screenshot
   of the window from the X server (not ``QWidget.grab``) and checks it is not blank, and that the
   window carries the studio's icon (_NET_WM_ICON);
3. presses the window's close key (Ctrl+Q for the studio, Ctrl+W for compare windows) with XTEST,
   as a keyboard would, and expects the process to exit with status 0 and no traceback.

Needs the Debian packages xvfb, xdotool and x11-utils (xprop), Pillow (the ``app`` extra), and the X
client libraries Qt's xcb platform plugin loads (libxcb-icccm4, libxcb-keysyms1, libxcb-cursor0, …:
see packaging/README.md). What is missing is named before anything starts, exit status 2;
``--preflight`` only does that (tests/packaging skips on it, with the reason). Prints one line per
scene and a JSON summary; exits 1 when a check failed. ``--demo`` names the installation's own demo
folder, so nothing is read from the checkout.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCREEN = (1920, 1080)
TOOLS = {"Xvfb": "xvfb", "xdotool": "xdotool", "xprop": "x11-utils"}  # command: Debian package


def debian_package(soname: str) -> str:
    """The Debian package of a shared library by Debian's naming rule: ``libxcb-icccm.so.4`` →
    ``libxcb-icccm4``, ``libxkbcommon-x11.so.0`` → ``libxkbcommon-x11-0``."""
    base, _, version = soname.partition(".so.")
    return base + ("-" if base[-1:].isdigit() else "") + version.split(".")[0]


def qt_dir(command: list[str]) -> Path | None:
    """The Qt of the studio that ``command`` starts: a PyInstaller bundle's own copy, else the
    PySide6 this interpreter imports (the wheel's venv shares it)."""
    exe = Path(shutil.which(command[0]) or command[0]).resolve()
    bundled = exe.parent / "_internal" / "PySide6" / "Qt"
    if bundled.is_dir():
        return bundled
    try:
        import PySide6
    except ImportError:
        return None
    return Path(PySide6.__file__).parent / "Qt"


def missing_libraries(qt: Path) -> list[str]:
    """Shared libraries Qt's xcb platform plugin needs and the dynamic linker cannot find (``ldd``),
    plus libxcb-cursor, which Qt 6.5+ loads at run time."""
    import ctypes.util

    files = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted((qt / "lib").glob("libQt6XcbQpa.so*"))[:1]]
    missing = set()
    for f in files:
        if f.is_file() and shutil.which("ldd"):
            out = subprocess.run(["ldd", str(f)], capture_output=True, text=True).stdout
            missing |= {line.split()[0] for line in out.splitlines() if "not found" in line}
    if ctypes.util.find_library("xcb-cursor") is None and not list(qt.glob("lib/libxcb-cursor.so*")):
        missing.add("libxcb-cursor.so.0")
    return sorted(missing)


def preflight(command: list[str]) -> str | None:
    """Why this machine cannot run the check (one line naming what to install), or None."""
    why = []
    tools = [t for t in TOOLS if shutil.which(t) is None]
    if tools:
        why.append(f"{', '.join(tools)} not installed")
    try:
        import PIL  # noqa: F401
    except ImportError:
        why.append("Pillow is not installed (pip install pillow)")
    qt = qt_dir(command)
    libs = missing_libraries(qt) if qt is not None else []
    if libs:
        why.append(f"Qt's xcb platform plugin cannot load: {', '.join(libs)} not found")
    if not why:
        return None
    packages = sorted({TOOLS[t] for t in tools} | {debian_package(lib) for lib in libs})
    return "; ".join(why) + (f" (Debian: apt-get install {' '.join(packages)})" if packages else "")


def _x(display: str, *args: str) -> str:
    p = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display}, capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else ""


def start_xvfb(size=SCREEN) -> tuple[subprocess.Popen, str]:
    """A fresh Xvfb server on a display number it chose itself (``-displayfd``: no race with other
    X servers or checks starting at the same moment), answering before this returns. ``-noreset``: by
    default Xvfb resets when its last client leaves and drops a client connecting at that moment."""
    import select

    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", f"{size[0]}x{size[1]}x24",
                             "-nolisten", "tcp", "-noreset"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(w,))
    os.close(w)
    number = b""
    end = time.perf_counter() + 10
    try:
        while not number.endswith(b"\n") and time.perf_counter() < end and proc.poll() is None:
            if select.select([r], [], [], 0.1)[0]:
                chunk = os.read(r, 16)
                if not chunk:
                    break
                number += chunk
    finally:
        os.close(r)
    display = f":{number.decode().strip()}" if number.strip().isdigit() else None
    while display and proc.poll() is None and time.perf_counter() < end:
        if _x(display, "getdisplaygeometry") == f"{size[0]} {size[1]}":
            return proc, display
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise SystemExit("x11_check: Xvfb did not start")


def find_window(display: str, title: re.Pattern, deadline: float, proc=None) -> str | None:
    """The id of a visible window whose title matches, polling until ``deadline``, or until
    ``proc`` (the studio's process) has exited: its windows are gone then."""
    while time.perf_counter() < deadline:
        alive = proc is None or proc.poll() is None
        for wid in _x(display, "search", "--onlyvisible", "--name", "gindex-studio").split():
            if title.search(_x(display, "getwindowname", wid)):
                return wid
        if not alive:
            return None
        time.sleep(0.03)
    return None


def geometry(display: str, wid: str) -> tuple[int, int, int, int]:
    g = dict(line.split("=", 1) for line in _x(display, "getwindowgeometry", "--shell", wid).splitlines())
    return int(g["X"]), int(g["Y"]), int(g["WIDTH"]), int(g["HEIGHT"])


def grab(display: str, box: tuple[int, int, int, int]):
    from PIL import ImageGrab

    x, y, w, h = box
    return ImageGrab.grab(bbox=(x, y, x + w, y + h), xdisplay=display)


def settle(display: str, wid: str, quiet: float = 1.5, limit: float = 60.0):
    """Screenshot once the window's pixels have not changed for ``quiet`` seconds."""
    last, since, end = None, time.perf_counter(), time.perf_counter() + limit
    while time.perf_counter() < end:
        img = grab(display, geometry(display, wid))
        if last is None or img.tobytes() != last.tobytes():
            last, since = img, time.perf_counter()
        elif time.perf_counter() - since >= quiet:
            break
        time.sleep(0.25)
    return last


def blank(img) -> str | None:
    """Why the screenshot looks blank (None when it does not): a real window has many colours."""
    colours = img.convert("RGB").getcolors(maxcolors=1 << 16)
    n = len(colours) if colours is not None else 1 << 16
    if n < 32:
        return f"only {n} colours"
    dominant = max(c for c, _ in colours) / (img.width * img.height) if colours else 0
    return f"{dominant:.0%} of the pixels are one colour" if dominant > 0.97 else None


def run_scene(cmd: list[str], scene: dict, out: Path, name: str, env: dict) -> dict:
    xvfb, display = start_xvfb()
    home = Path(tempfile.mkdtemp(prefix="x11check-home-"))
    senv = {**env, "DISPLAY": display, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache")}
    senv.pop("QT_QPA_PLATFORM", None)
    res: dict = {"scene": scene["name"], "ok": False}
    t0 = time.perf_counter()
    log = open(out / f"x11-{name}-{scene['name']}.log", "w+")  # a file: a full pipe would block the app
    proc = subprocess.Popen(cmd + scene["args"], env=senv, cwd=home, stdout=log, stderr=subprocess.STDOUT)
    try:
        first = find_window(display, re.compile("gindex-studio"), t0 + 30, proc)
        res["first_window_s"] = round(time.perf_counter() - t0, 3) if first else None
        wid = find_window(display, scene["title"], t0 + 30, proc)
        res["window_s"] = round(time.perf_counter() - t0, 3)
        if wid is None:
            log.seek(0)
            state = "still running" if proc.poll() is None else f"exited with status {proc.returncode}"
            within = "within 30 s " if proc.poll() is None else ""
            res["error"] = (f"no visible window titled /{scene['title'].pattern}/ {within}(the studio {state}; "
                            f"its output: {log.read().strip()[-800:]!r})")
            return res
        res["title"] = _x(display, "getwindowname", wid)
        icon = subprocess.run(["xprop", "-display", display, "-id", wid, "_NET_WM_ICON"], capture_output=True, text=True).stdout
        res["icon"] = "_NET_WM_ICON(CARDINAL) = " in icon  # the studio's icon, for task bars and window lists
        img = settle(display, wid)
        res["settled_s"] = round(time.perf_counter() - t0, 3)
        res["size"] = img.size
        shot = out / f"x11-{name}-{scene['name']}.png"
        img.save(shot)
        res["screenshot"] = str(shot)
        why = blank(img)
        if why or not res["icon"]:
            res["error"] = f"blank screenshot: {why}" if why else "the window has no icon (_NET_WM_ICON)"
            return res
        _x(display, "windowfocus", "--sync", wid)
        _x(display, "key", "--clearmodifiers", scene["close_key"])
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            res["error"] = f"still running 15 s after {scene['close_key']}"
            return res
        log.seek(0)
        err = log.read()
        res["exit"] = proc.returncode
        if proc.returncode != 0 or "Traceback" in err:
            res["error"] = f"exit status {proc.returncode}; stderr: {err.strip()[-800:]}"
            return res
        res["ok"] = True
        return res
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(home, ignore_errors=True)


def scenes(demo: Path) -> list[dict]:
    ref = demo / "programs" / "telegram-2-reply" / "telegram-2-reply-4.json"
    gen = demo / "generated" / "telegram-2-reply-4.txt"
    return [
        {"name": "studio", "args": [], "title": re.compile(r"^googlesearch-to-csv-\d\.json \(copy\) — gindex-studio$"),  # bundled: a copy
         "close_key": "ctrl+q"},
        {"name": "compare", "args": ["compare", str(ref), str(gen)],
         "title": re.compile(r"^telegram-2-reply-4\.json ↔ telegram-2-reply-4\.txt — Compare — gindex-studio$"),
         "close_key": "ctrl+w"},
        {"name": "experiment", "args": [str(demo / "experiment.json")],
         "title": re.compile(r"^Demo: .* — Compare — gindex-studio$"), "close_key": "ctrl+w"},
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True, help="label of the installation (in screenshot names)")
    ap.add_argument("--out", default="build/x11", help="folder for the screenshots")
    ap.add_argument("--demo", required=True, help="the installation's own demo folder (gindex_studio/resources/demo)")
    ap.add_argument("--only", action="append", help="run only this scene (repeatable)")
    ap.add_argument("--preflight", action="store_true",
                    help="only say what this machine lacks for the check (exit status 2 when something is missing)")
    ap.add_argument("command", nargs="+", help="the gindex-studio command to run (after --)")
    a = ap.parse_args(argv)
    why = preflight(a.command)
    if why or a.preflight:
        print(f"x11_check: {why}" if why else "x11_check: everything the check needs is installed",
              file=sys.stderr if why else sys.stdout)
        return 2 if why else 0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    demo = Path(a.demo).resolve()
    results = []
    for scene in scenes(demo):
        if a.only and scene["name"] not in a.only:
            continue
        r = run_scene(a.command, scene, out, a.name, env)
        results.append(r)
        status = "ok  " if r["ok"] else "FAIL"
        print(f"{status} {a.name:7s} {scene['name']:10s} first window {r.get('first_window_s', '-')} s, "
              f"titled {r.get('window_s', '-')} s, settled "
              f"{r.get('settled_s', '-')} s  {r.get('screenshot', '')}  {r.get('error', '')}", flush=True)
    print(json.dumps({"name": a.name, "command": a.command, "results": results}, ensure_ascii=False))
    return 0 if results and all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
