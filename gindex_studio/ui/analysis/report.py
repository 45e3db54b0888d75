"""A self-contained HTML report of an analysis: the comparison table, the paired comparisons,
every figure embedded (SVG, as data so the file stands alone) and the worst tasks of each system
with what their Δ found. Used by File → Export Report and ``gindex-studio report``.

The figures are the Analysis window's pyqtgraph plots, so a QApplication must exist (the CLI
creates an offscreen one).
"""
from __future__ import annotations

import base64
import datetime as _dt
import html
from pathlib import Path

from gindex_studio.core.benchmark.analysis import (
    TABLE_COLUMNS,
    Analysis,
    table_header,
    table_marks,
    table_rows,
    worst_tasks,
)

from gindex_studio.ui.analysis.plots import FIGURES, Figure, build_figures, svg_bytes

EXPORT_SIZE = (900, 520)

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto; max-width: 1000px;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.best { background: #d7f0d7; font-weight: bold; } td.worst { background: #f6d5d5; }
figure { margin: 1.5em 0; } figure img { width: 100%; border: 1px solid #ddd; }
figcaption { font-size: .9em; color: #555; }
.note { color: #555; font-size: .9em; }
"""


def _esc(x) -> str:
    return html.escape(str(x))


def _table(an: Analysis) -> str:
    header = table_header(an)
    marks = table_marks(an.summary) if len(an.summary) > 1 else {}
    rows = []
    for r, row in enumerate(table_rows(an)):
        cells = []
        for c, text in enumerate(row):
            cls = ""
            m = marks.get(header[c])
            if m:
                cls = ' class="best"' if r == m[0] else (' class="worst"' if r == m[1] else "")
            cells.append(f"<td{cls}>{_esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    return f'<table id="comparison"><tr>{head}</tr>{"".join(rows)}</table>'


def _pairs(an: Analysis) -> str:
    if not an.pairs:
        return "<p>One system: no paired comparison.</p>"
    items = []
    for p in an.pairs:
        items.append(
            f"<h3>{_esc(p.a)} vs {_esc(p.b)}</h3><ul>"
            f"<li>{_esc(p.g_sentence)} <span class='note'>(paired bootstrap interval; p: paired permutation test "
            f"on per-task TC, {'exact' if p.g_test.exact else 'Monte Carlo'})</span></li>"
            f"<li>{_esc(p.theta_sentence)} <span class='note'>(p: paired permutation test on per-task θ)</span></li>"
            f"<li>Sign test on per-task θ: {p.theta_sign.stats['positive']} higher for {_esc(p.a)}, "
            f"{p.theta_sign.stats['negative']} for {_esc(p.b)}, {p.theta_sign.stats['ties']} ties; "
            f"p = {p.theta_sign.p:.3g}</li>"
            f"<li>McNemar on solved tasks (θ = 1): {p.mcnemar.stats['only_a']} solved only by {_esc(p.a)}, "
            f"{p.mcnemar.stats['only_b']} only by {_esc(p.b)}; p = {p.mcnemar.p:.3g}</li></ul>")
    return "".join(items)


def _figures(figs: dict[str, Figure]) -> str:
    out = []
    for fid, title in FIGURES.items():
        fig = figs.get(fid)
        if fig is None:
            continue
        data = base64.b64encode(svg_bytes(fig)).decode("ascii")
        out.append(f'<figure id="fig-{fid}"><img alt="{_esc(title)}" src="data:image/svg+xml;base64,{data}">'
                   f"<figcaption>{_esc(title)}</figcaption></figure>")
    return "".join(out)


def _worst(an: Analysis, count: int) -> str:
    out = []
    for s, a in zip(an.systems, an.arrays):
        rows = []
        for index, why in worst_tasks(s, count):
            t = s.result.tasks[index]
            spread = f"{a.theta_min[index]:.3f}-{a.theta_max[index]:.3f} (sd {a.theta_sd[index]:.3f})"
            rows.append(f"<tr><td>{_esc(t.id)}</td><td>{_esc(t.domain)}</td><td>{t.theta:.3f}</td>"
                        f"<td>{a.attempts[index]}</td><td>{spread}</td><td>{t.omega:.3f}</td>"
                        f"<td style='text-align:left'>{_esc('; '.join(why) or '—')}</td></tr>")
        out.append(f"<h3>{_esc(s.label)}</h3><table><tr><th>task</th><th>domain</th><th>θ</th><th>attempts</th>"
                   f"<th>θ over attempts</th><th>Ω</th><th>Δ of the first attempt: what differs</th></tr>"
                   f"{''.join(rows)}</table>")
    return "".join(out)


def export_figures(an: Analysis) -> dict[str, Figure]:
    """Fresh figures at ``EXPORT_SIZE``, laid out without appearing on screen."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    figs = build_figures(an)
    for fig in figs.values():
        fig.widget.setAttribute(Qt.WA_DontShowOnScreen, True)
        fig.widget.resize(*EXPORT_SIZE)
        fig.widget.show()
    QApplication.processEvents()
    return figs


def report_html(an: Analysis, title: str = "g-index analysis", worst: int = 5) -> str:
    """The report as one HTML string (figures drawn afresh at ``EXPORT_SIZE``)."""
    figs = export_figures(an)
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    systems = ", ".join(_esc(s.label) for s in an.systems)
    notes = "".join(f"<p class='note'>{_esc(n)}</p>" for n in an.notes)
    page = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_esc(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{_esc(title)}</h1>"
        f"<p class='note'>gindex-studio, {when}. Systems: {systems}. Intervals: {an.level:.0%} percentile bootstrap "
        f"over tasks, stratified by task domain, {an.resamples} resamples, seed {an.seed}. Responsiveness bands: "
        f"5-95% over {an.splits} random uneven splits of the samples across domains.</p>"
        f"<h2>Comparison</h2>{_table(an)}<p class='note'>Columns: {', '.join(TABLE_COLUMNS)}; skill level = share "
        f"of tasks with θ = 1; pass@{an.k} = unbiased estimate from each task's attempts. Best of each column "
        f"green, worst red (fewest samples and least compute count as best).</p>{notes}"
        f"<h2>Paired comparisons</h2>{_pairs(an)}"
        f"<h2>Figures</h2>{_figures(figs)}"
        f"<h2>Worst tasks</h2>{_worst(an, worst)}"
        "</body></html>"
    )
    for fig in figs.values():
        fig.widget.close()
        fig.widget.deleteLater()
    return page


def write_report(an: Analysis, path: str | Path, title: str = "g-index analysis") -> Path:
    path = Path(path)
    from gindex_studio.core.flows.files import atomic_write_bytes

    atomic_write_bytes(path, report_html(an, title).encode("utf-8"))  # never half a report, links and mode kept
    return path
