"""Render the curation window on the demo experiment to a PNG (the README's screenshot).

    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.curation.screenshot docs/screenshots/curation.png
    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.curation.screenshot out.png --tab Coverage
    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.curation.screenshot docs/screenshots/curation-dark.png --theme dark

Opens ``resources/demo/experiment.json`` at 1366×768 with an in-memory Δ cache, waits for the
matrix and the report, shows the chosen tab (default: Leaks, with the Ω histogram) and selects
the demo's known leak, so the heatmap outlines its row and column.
"""
from __future__ import annotations

import argparse
import sys
import time


def render(out: str, tab: str = "Leaks", size=None, select: str = "youtube-resume-4.json", look: str = "light") -> str:
    """``size`` None: the window as it opens on a 1366×768 screen (not resized by the script);
    ``look``: the theme ("light" or "dark")."""
    from gindex_studio.ui.window_geometry import use_laptop_screen

    use_laptop_screen()
    from gindex_studio.ui.application import studio_application

    app = studio_application()
    from gindex_studio.ui import theme

    theme.apply_theme(look)
    from gindex_studio.core.curation.cache import DeltaCache
    from gindex_studio.core.curation.workspace import load_workspace
    from gindex_studio.paths import DEMO_DIR

    from gindex_studio.ui.curation.window import CurationWindow

    win = CurationWindow(load_workspace(DEMO_DIR / "experiment.json"), DeltaCache(None), deadline=None)
    if size is not None:
        win.resize(*size)
    win.show()
    win.wait_for_report()
    win.wait_for_matrix()
    end = time.monotonic() + 120
    while win.matrix_seconds is None:
        if time.monotonic() > end:
            raise TimeoutError("the demo's Δ matrix did not finish within 120 s")
        app.processEvents()
    win.wait_for_report()
    names = [win.tabs.tabText(k) for k in range(win.tabs.count())]
    win.tabs.setCurrentIndex(names.index(tab))
    picked = [i for i, it in enumerate(win.model.ws.items) if it.label.endswith(select)]
    win.model.select(picked)
    for _ in range(5):
        app.processEvents()
    win.grab().save(out)
    win.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--tab", default="Leaks", choices=("Near-duplicates", "Leaks", "Coverage", "Map", "Split"))
    ap.add_argument("--theme", default="light", choices=("light", "dark"))
    a = ap.parse_args(argv)
    print(render(a.out, a.tab, look=a.theme))
    return 0


if __name__ == "__main__":
    sys.exit(main())
