"""Render the Analysis window on the demo study to PNGs (the README's two screenshots).

    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.analysis.screenshot docs/screenshots

writes ``analysis.png`` (the "θ and program size" tab: Figs 10 and 11) and
``analysis-comparison.png`` (the comparison table and the paired comparisons) of the window as it
opens on a 1366×768 screen (the script does not resize it).
"""
from __future__ import annotations

import os
import sys
import time


def render(folder: str) -> list[str]:
    from gindex_studio.ui.window_geometry import use_laptop_screen

    use_laptop_screen()
    from gindex_studio.ui.application import studio_application

    app = studio_application()
    from gindex_studio.core.benchmark.analysis import System, score_systems
    from gindex_studio.core.benchmark.study import open_inputs
    from gindex_studio.paths import DEMO_DIR
    from gindex_studio.ui.analysis.window import AnalysisWindow

    def pump(ms: int = 400) -> None:
        end = time.monotonic() + ms / 1000
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    _name, pairs = open_inputs([DEMO_DIR / "study" / "study.json"])
    systems: list[System] = score_systems(pairs, workers=1)
    win = AnalysisWindow(None)  # no settings: the size a first run gets
    win.show()
    pump(100)
    win.set_systems(systems)
    win.wait_idle()
    os.makedirs(folder, exist_ok=True)
    out = []
    for tab, name in (("θ and program size", "analysis.png"), ("Comparison", "analysis-comparison.png")):
        win.tabs.setCurrentIndex(next(k for k in range(win.tabs.count()) if win.tabs.tabText(k) == tab))
        pump()
        path = os.path.join(folder, name)
        win.grab().save(path)
        out.append(path)
    win.close()
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python3 -m gindex_studio.ui.analysis.screenshot FOLDER", file=sys.stderr)
        raise SystemExit(2)
    for p in render(sys.argv[1]):
        print(p)
