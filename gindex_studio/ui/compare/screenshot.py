"""Render the compare window on a demo task to a PNG (the README's screenshot).

    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.compare.screenshot docs/screenshots/compare.png
    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.compare.screenshot docs/screenshots/compare-broken.png googlesearch-to-csv-4
    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.compare.screenshot docs/screenshots/compare-dark.png --dark

Opens the demo experiment, selects ``telegram-2-reply-4`` (a function error and dataflow errors),
selects the reference node the model got wrong (the inspector shows it, editable), and saves the
whole window as it opens on a laptop's 1366×768 screen, in its default layout: both sides (stacked: wide flows), the
score panel, the inspector (``--palette``: the palette's tab in front) and the task table.

    QT_QPA_PLATFORM=offscreen python3 -m gindex_studio.ui.compare.screenshot docs/screenshots/compare-progress.png --progress

``--progress``: a generated 40-task × 1,200-program experiment while its g-index is computed (rows
filling in, the progress bar, Cancel), with its first task (a leak) open.
"""
from __future__ import annotations

import os
import sys
import time


def render(out: str, task: str = "telegram-2-reply-4", size=None, palette: bool = False, dark: bool = False) -> str:
    """``size`` None: the window as it opens on a 1366×768 screen (not resized by the script)."""
    from gindex_studio.ui.window_geometry import use_laptop_screen

    use_laptop_screen()
    from gindex_studio.ui.application import studio_application

    app = studio_application()
    if dark:
        from gindex_studio.ui.theme import apply_theme

        apply_theme("dark")
    from gindex_studio.paths import DEMO_DIR

    from gindex_studio.ui.compare.window import CompareWindow

    def pump(ms: int = 60) -> None:
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            app.processEvents()
            time.sleep(0.002)

    win = CompareWindow()
    if size is not None:
        win.resize(*size)
    win.show()
    win.open_experiment(os.path.join(DEMO_DIR, "experiment.json"))
    win.controller.wait_idle()
    pump()
    k = win.controller.experiment.task_index(task)
    win.tasks.select_task(k)
    win.view.wait_idle()
    pump(150)
    v = win.view
    if palette:
        win.docks["palette"].raise_()  # the palette's tab in front of the inspector's
    pump()
    wrong = next((i for i in v.result.missing_nodes if v.ref.doc.is_drawn(i)), None)
    if wrong is not None:
        v.select_node("reference", wrong)
        v.panel.diff_list.setCurrentRow(0)
    pump(150)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    win.grab().save(out)
    sizes = {r: (ed.view.viewport().width(), ed.view.viewport().height(), round(ed.view.zoom(), 3))
             for r, ed in v.editors.items()}
    print(f"window {win.width()}×{win.height()}, canvases (w, h, zoom): {sizes}", file=sys.stderr)
    win.view.runner.wait()
    win.controller.runner.wait()
    win.controller._set_dirty(False)
    win.close()
    return out


def render_progress(out: str, size=(1366, 768), complete: int = 3) -> str:
    """The window on a generated 40 × 1,200 experiment, ``complete`` tasks done, task 0 open (the
    experiment is written to a temporary folder, removed afterwards)."""
    import tempfile

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gindex_studio.ui.application import studio_application

    app = studio_application()
    from gindex_studio.core.benchmark.generate_experiment import write_experiment

    from gindex_studio.ui.compare.window import CompareWindow

    with tempfile.TemporaryDirectory(prefix="gindex-progress-") as folder:
        write_experiment(folder)
        win = CompareWindow()
        win.resize(*size)
        win.show()
        win.open_experiment(os.path.join(folder, "experiment.json"))
        while win.tasks.model.rowCount() < 1:
            app.processEvents()
        win.show_task(0)
        win.view.wait_idle()
        win.view.fit()
        while win.tasks.model.completed < complete:
            app.processEvents()
            time.sleep(0.002)
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        win.grab().save(out)
        win.controller.cancel()
        win.controller.runner.wait()
        win.view.runner.wait()
        win.close()
    return out


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m gindex_studio.ui.compare.screenshot",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("out", help="the PNG to write (the README's are in docs/screenshots/)")
    ap.add_argument("task", nargs="?", default="telegram-2-reply-4", help="the demo task shown (default: %(default)s)")
    ap.add_argument("--palette", action="store_true", help="the palette's tab in front of the inspector's")
    ap.add_argument("--dark", action="store_true", help="the dark theme")
    ap.add_argument("--progress", action="store_true",
                    help="a generated 40 × 1,200 experiment while its g-index is computed (TASK is not used)")
    a = ap.parse_args(argv)
    if a.progress:
        print(render_progress(a.out))
    else:
        print(render(a.out, a.task, palette=a.palette, dark=a.dark))
    return 0


if __name__ == "__main__":
    sys.exit(main())
